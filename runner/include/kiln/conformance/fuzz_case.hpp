// A fuzz finding as a golden case (cases/README.md): what the reference says of
// the input becomes expect, and the file is written so that `cases check`
// accepts it (it loads, its block is its description and faults regenerated,
// and a reject case is isolated) and `run` fails an adapter with the bug.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

// The case of a decode input. The reference accepted it: an accept case of the
// reference's tensors (the block is then canonical, so it is the description's).
// The reference rejected it: `tensors: []` with faults that turn the 64-byte
// empty block into exactly these bytes (an overwrite from 0, then an append or
// a truncate), the reference's class and rule, and in also_breaks every further
// rule the isolation read meets, so that the case names all the rules it breaks.
// rules: the broken rules, or for an accept case the rule the adapter cited
// (adapter_rule, when the reference knows it) or else the byte-length rule.
Case decode_finding_case(std::span<const std::uint8_t> block, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule);

// The case of an encode input: the description with what the reference's
// encoder does with it (its block, or its refusal, with the unchecked
// builder's block when one can be placed, held to isolation as above).
Case encode_finding_case(const BlockDescription& description, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule);

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

// The case file's text: each comment line (# ...), then the keys in the order
// of cases/README.md, with ops and block as regen writes them (a hurray case:
// its type, shape, mode, data and elements).
std::string case_yaml(const Case& c, const std::vector<std::string>& comments);

// What `cases check` says of one case file: its load error, or the problems of
// check_case and, for a reject case with a block, check_isolation.
std::vector<std::string> check_case_file(const std::filesystem::path& file);

}  // namespace kiln::conformance
