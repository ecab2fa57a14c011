// Profile hurray-elements's fuzz inputs and their findings as golden cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/hurray.hpp"

namespace kiln::conformance {

// One hurray-elements input of the fuzzer: decode's tag, shape, mode and data,
// or encode's tag, shape and elements (hex, as the request carries them).
struct ElementsInput {
  std::uint8_t tag = 0;
  std::vector<std::uint64_t> shape;
  hurray::Mode mode = hurray::Mode::kStrict;  // decode only
  std::vector<std::uint8_t> data;             // decode only
  std::vector<std::string> elements;          // encode only
  bool operator==(const ElementsInput&) const = default;
};

// The hurray-elements case of an input (cases/README.md, "Profile
// hurray-elements"), expecting what the reference (every Tier 2 type
// supported, as `cases check` reads it) says: named `type:` when the tag has
// one; a reject lists every rule the input breaks (broken_rules or
// encode_broken_rules) and an accept the decoded elements, or the encoded
// data. rules of an accept or opaque case: the hurray rule the adapter cited,
// else the one that judges the type's bytes.
Case elements_finding_case(Operation op, const ElementsInput& input, const std::string& id,
                           const std::string& summary,
                           const std::optional<std::string>& adapter_rule);

namespace hurray_elements {
// Its part of the case-file writer (cases/case_writer.cpp).
CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops);
}  // namespace hurray_elements

}  // namespace kiln::conformance
