// The body of a case of profile hurray-elements and what tools outside the
// runner use of the profile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/hurray.hpp"

namespace kiln::conformance {

// The body of a case of profile hurray-elements (cases/README.md, "Profile
// hurray-elements"): one tensor's element layer and what the reference makes of it.
struct ElementsCase final : CaseBody {
  // The type, by name where the case names one (so a different tag assignment
  // is an edit of kiln::hurray::kTypes); type is then its row of the table.
  const hurray::TypeInfo* type = nullptr;
  std::uint8_t tag = 0;  // type->tag, or the raw tag the case gives
  std::vector<std::uint64_t> shape;
  std::optional<hurray::Mode> mode;                 // decode only; absent: strict
  std::optional<std::vector<std::uint8_t>> data;    // the decode input
  std::optional<std::vector<std::string>> elements; // hex, as written: the encode input
  std::vector<hurray::Rule> rules;
  std::vector<hurray::Rule> also_breaks;
  enum class Result : std::uint8_t { kAccept, kOpaque, kReject };
  // kOpaque: permissive mode and a tag not recognized: an opaque accept or a
  // TAG reject both conform (seed 003).
  Result result = Result::kAccept;
  std::optional<hurray::ErrorClass> error_class;  // kReject
  std::optional<hurray::Rule> rule;               // kReject: what the reference reports

  hurray::Mode decode_mode() const { return mode.value_or(hurray::Mode::kStrict); }

  std::unique_ptr<CaseBody> clone() const override { return std::make_unique<ElementsCase>(*this); }
  // Decode the data; encode the elements (no mode: encode has none).
  std::vector<Operation> derived_ops() const override;
  std::vector<std::string_view> rule_ids() const override;
  bool expects_reject() const override { return result == Result::kReject; }
  std::optional<std::string_view> expected_rule_id() const override;
};

namespace hurray_elements {
// Makes c a hurray-elements case holding body.
ElementsCase& set_body(Case& c, ElementsCase body = {});
// c's body; c is a hurray-elements case (std::logic_error otherwise: a caller's bug).
const ElementsCase& body(const Case& c);
// The same, or for a case being built that has no body yet, a new one (set_body).
ElementsCase& body(Case& c);
}  // namespace hurray_elements

namespace elements {
// What an implementation supporting `tier2` must answer to decode c: the case's
// expectation, or for a Tier 2 type outside tier2 what HURRAY.md 2 says (strict:
// reject TAG; permissive: opaque or reject TAG).
struct Expected {
  ElementsCase::Result result = ElementsCase::Result::kAccept;
  std::optional<hurray::ErrorClass> error_class;
  std::optional<hurray::Rule> rule;
};
Expected expected_decode(const ElementsCase& c, const hurray::TagSet& tier2);
// The case's elements as values (they are hex, checked by the loader).
std::vector<hurray::Element> element_values(const ElementsCase& c);
}  // namespace elements

}  // namespace kiln::conformance
