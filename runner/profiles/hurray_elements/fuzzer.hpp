// The hurray-elements fuzzer (`kiln-conformance fuzz --profile hurray-elements`),
// in two halves: what the engine calls, the judging, novelty and findings
// (fuzzer.cpp), and the inputs it makes (fuzz_inputs.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fuzz/fuzz_engine.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"
#include "kiln/hurray.hpp"

namespace kiln::conformance::hurray_elements {

// Exponent and mantissa widths of a float type with a sign bit (HURRAY.md 3.2).
struct FloatLayout {
  unsigned exponent, mantissa;
};

// Elements per byte (1, 2, 4 bits) or per 3-byte group (6 bits); 1 for whole bytes.
inline unsigned per_unit(unsigned bits) { return bits == 6 ? 4 : bits < 8 ? 8 / bits : 1; }

class ElementsFuzzer final : public fuzzing::FuzzerBase {
 public:
  ElementsFuzzer(const FuzzOptions& options, Driver& driver, fuzzing::DriverFactory fresh_driver,
                 const protocol::Hello& hello, std::ostream& out, std::ostream& err)
      : FuzzerBase(options, driver, std::move(fresh_driver), out, err),
        hello_(hello),
        tier2_(protocol::tier2_set(hello)) {}

  fuzzing::Judgement judge(const protocol::Request& request, const Exchange& exchange) override;

 private:
  using Bytes = std::vector<std::uint8_t>;

  // ---- the engine's side (fuzzer.cpp) ----

  bool fuzz_decode() override;
  bool fuzz_encode() override;
  bool fuzz(Operation op, std::vector<ElementsInput>& pool);
  fuzzing::Judgement judge_input(Operation op, const ElementsInput& input, const Exchange& exchange);
  protocol::Request minimize(const protocol::Request& request,
                             const std::function<bool(const protocol::Request&)>& still_fails,
                             std::size_t budget) override;
  std::string finding_id(const protocol::Request& request) override;
  Case finding_case(const protocol::Request& request, const std::string& id,
                    const fuzzing::Judgement& found) override;
  std::string size_of(const protocol::Request& request) override;

  // ---- the inputs (fuzz_inputs.cpp) ----

  // Random choices.
  bool chance(unsigned percent);
  std::uint64_t random64();
  hurray::Element random_bits(unsigned bits);
  template <class T, std::size_t N>
  T one_of(const std::array<T, N>& choices) { return choices[below(N)]; }

  bool in_scope(std::uint8_t tag, Operation op) const;
  std::uint8_t pick_tag(Operation op);

  // Shapes.
  std::vector<std::uint64_t> shape_of(std::uint64_t count);
  std::uint64_t pick_count(unsigned per);
  std::vector<std::uint64_t> zero_shape();
  std::vector<std::uint64_t> huge_shape(const hurray::TypeInfo* type);
  std::vector<std::uint64_t> pick_shape(std::uint8_t tag);

  // Values and bytes.
  hurray::Element special_float(FloatLayout layout);
  hurray::Element special_int(unsigned bits);
  hurray::Element element_value(const hurray::TypeInfo& type);
  Bytes random_bytes(std::size_t size);
  Bytes packed(const hurray::TypeInfo& type, std::uint64_t count);
  void set_padding_bit(const hurray::TypeInfo& type, std::uint64_t count, Bytes& data);
  std::optional<std::uint64_t> wrapped_size(const hurray::TypeInfo& type, std::span<const std::uint64_t> shape);
  Bytes pick_data(std::uint8_t tag, std::span<const std::uint64_t> shape);
  std::string too_wide(unsigned bits);
  std::vector<std::string> pick_elements(std::uint8_t tag, std::span<const std::uint64_t> shape);
  ElementsInput generate(Operation op);

  // The schedule.
  hurray::Element catalogue_element(unsigned bits, std::uint64_t k);
  std::vector<std::uint64_t> scheduled_shape(std::uint64_t count, std::uint64_t form);
  ElementsInput scheduled(Operation op, std::uint64_t index);

  // Mutation, over the structure.
  void mutate_shape(ElementsInput& input);
  void mutate_data(ElementsInput& input);
  void mutate_elements(ElementsInput& input);
  std::uint8_t same_width(std::uint8_t tag, Operation op);
  ElementsInput mutate(ElementsInput input, Operation op);

  const protocol::Hello& hello_;
  const hurray::TagSet tier2_;
  std::vector<ElementsInput> decodes_;
  std::vector<ElementsInput> encodes_;
  // Inputs made per op, and the schedule's index per op.
  std::uint64_t decodes_made_ = 0, encodes_made_ = 0, decodes_scheduled_ = 0, encodes_scheduled_ = 0;
};

}  // namespace kiln::conformance::hurray_elements
