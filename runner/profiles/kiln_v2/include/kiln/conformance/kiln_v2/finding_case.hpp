// Profile kiln-v2's fuzz findings as golden cases: what the reference says of
// the input becomes expect, and the case is written so that `cases check`
// accepts it (it loads, its block is its description and faults regenerated,
// and a reject case is isolated) and `run` fails an adapter with the bug.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/profile.hpp"
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

namespace kiln_v2 {
// Its part of the case-file writer (cases/case_writer.cpp).
CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops);
}  // namespace kiln_v2

}  // namespace kiln::conformance
