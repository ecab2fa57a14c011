// The body of a case of profile kiln-v2 (cases/README.md): a block description,
// the faults applied to its canonical bytes, the block as the file stores it, and
// what the reference makes of it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/description.hpp"
#include "kiln/rules.hpp"

namespace kiln::conformance {

// A byte position named by a layout anchor of the canonical block ("heap+3",
// "tensor[1].data", "end-1") or a plain absolute offset.
struct Anchor {
  std::string text;  // as written, for messages and re-serialisation
};

// Faults are applied in order to the canonical bytes of the description.
struct SetField {
  std::optional<std::uint32_t> tensor;  // nullopt: a header field
  std::string field;                    // a name from kiln/layout.hpp
  std::uint64_t value = 0;
};
struct Overwrite {
  Anchor at;
  std::vector<std::uint8_t> bytes;
};
struct Truncate {
  Anchor to;  // the new length
};
struct Append {
  std::vector<std::uint8_t> bytes;
};
using Fault = std::variant<SetField, Overwrite, Truncate, Append>;

struct Expectation {
  bool accept = true;
  std::optional<ErrorClass> error_class;  // set when !accept
  std::optional<Rule> rule;               // the rule the reference reports (informative)
};

struct KilnCase final : CaseBody {
  std::vector<Rule> rules;        // the rules this case exercises
  // The rules a reject case breaks on purpose besides expect.rule (a check-order
  // case); `cases check` holds every reject case to breaking exactly these and
  // expect.rule (cases/README.md, "Isolation").
  std::vector<Rule> also_breaks;
  BlockDescription description;   // payloads already packed from typed values
  std::vector<Fault> faults;
  // The block as the file stores it. Absent for an encoder-only case (a reject case
  // without faults whose description cannot be placed) and in a file regen has not
  // written yet: the loader refuses an accept case or a case with faults whose
  // description cannot be placed, since no block can ever exist for them.
  std::optional<std::vector<std::uint8_t>> block;
  Expectation expect;

  std::unique_ptr<CaseBody> clone() const override { return std::make_unique<KilnCase>(*this); }
  // Decode when there is a block or there are faults, encode when there are no faults.
  std::vector<Operation> derived_ops() const override;
  std::vector<std::string_view> rule_ids() const override;
  bool expects_reject() const override { return !expect.accept; }
  std::optional<std::string_view> expected_rule_id() const override;
  void set_stored_block(std::optional<std::vector<std::uint8_t>> stored) override {
    block = std::move(stored);
  }
};

namespace kiln_v2 {
// Makes c a kiln-v2 case holding body.
KilnCase& set_body(Case& c, KilnCase body = {});
// c's body; c is a kiln-v2 case (std::logic_error otherwise: a caller's bug).
const KilnCase& body(const Case& c);
// The same, or for a case being built that has no body yet, a new one (set_body).
KilnCase& body(Case& c);
}  // namespace kiln_v2

}  // namespace kiln::conformance
