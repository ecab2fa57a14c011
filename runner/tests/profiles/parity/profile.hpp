// Profile parity, the test suite's own (issue 26, "Prove the seam"): a profile
// defined outside the runner, in this folder alone, that the registry takes for
// the scope of a ProfileRegistration. A case is a byte string; a decoder accepts
// it when the XOR of its bytes is 0 and else rejects it by rule PARITY-XOR.
// There is no encode and no fuzzer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/profile.hpp"

namespace kiln::conformance::parity {

inline constexpr std::string_view kName = "parity";
inline constexpr std::string_view kRule = "PARITY-XOR";

// What the profile's rule says of bytes: accepted when their XOR is 0.
bool even(std::span<const std::uint8_t> bytes);

// A case's body: its bytes and whether a decoder must accept them.
struct ParityCase final : CaseBody {
  std::vector<std::uint8_t> bytes;
  bool accept = true;

  std::unique_ptr<CaseBody> clone() const override { return std::make_unique<ParityCase>(*this); }
  std::vector<Operation> derived_ops() const override { return {Operation::kDecode}; }
  std::vector<std::string_view> rule_ids() const override { return {kRule}; }
  bool expects_reject() const override { return !accept; }
  std::optional<std::string_view> expected_rule_id() const override {
    return accept ? std::nullopt : std::optional<std::string_view>(kRule);
  }
};

// c's body; std::logic_error when c is not a parity case (a caller's bug).
const ParityCase& body(const Case& c);

const Profile& profile();

}  // namespace kiln::conformance::parity
