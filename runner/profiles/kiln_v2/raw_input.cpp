// Profile kiln-v2's raw fuzz input (raw_input.hpp): the bytes are a block.
// Its cases: the decode of the block, with the encode of what the reference
// decoded when it accepts; when it rejects, also the encode of the description
// the block's fields spell (read leniently), so that the encoder meets what
// the decoder refused.
#include <variant>

#include "kiln/adapter.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/finding_case.hpp"
#include "kiln/conformance/raw_input.hpp"
#include "kiln/mutate/mutate.hpp"
#include "profiles/kiln_v2/module.hpp"

namespace kiln::conformance::kiln_v2 {
namespace {

constexpr std::string_view kIdPrefix = "kiln-v2-input";

std::vector<Case> cases_of(std::span<const std::uint8_t> input, const std::string& summary) {
  protocol::ReferenceAdapter reference;
  std::vector<Case> cases;
  const protocol::Outcome decoded = reference.decode(input);
  cases.push_back(decode_finding_case(input, decoded, raw_input_case_id(kIdPrefix, Operation::kDecode, input),
                                      summary, std::nullopt));
  if (std::holds_alternative<protocol::Reject>(decoded))
    if (auto description = mutate::read_leniently(input))
      cases.push_back(encode_finding_case(*description, reference.encode(*description),
                                          raw_input_case_id(kIdPrefix, Operation::kEncode, input), summary,
                                          std::nullopt));
  return cases;
}

std::optional<std::vector<std::uint8_t>> input_of(const Case& c) { return body(c).block; }

std::size_t mutate(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed,
                   RawByteMutator bytes) {
  return mutate::mutate_block_in_place(data, size, max_size, seed, bytes);
}

std::vector<std::uint64_t> features(std::span<const std::uint8_t> input, const std::string& verdict) {
  return input_features(Operation::kDecode, mutate::read_leniently(input).value_or(BlockDescription{}), verdict);
}

}  // namespace

const RawInputFormat kRawInput{"a Kiln v2 block", 65536, cases_of, input_of, mutate, features};

}  // namespace kiln::conformance::kiln_v2
