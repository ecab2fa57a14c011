// Turns a case's description and faults into bytes with the reference builder:
// the single source of every case's block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/builder.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

struct Materialized {
  // The block, or nullopt when the description cannot be placed at all
  // (FRAME-FIELD-RANGE): such a case tests encoders only.
  std::optional<std::vector<std::uint8_t>> block;
  std::optional<Error> placement_error;
};

// Fails (returns the message) only for a fault that cannot apply: an anchor past
// the end, an unknown field, a tensor index out of range.
Checked<Materialized> materialize(const Case& test_case);

// The byte position an anchor names in the canonical placement, or why there is none.
Checked<std::uint64_t> resolve_anchor(const Anchor& anchor, const Placement& placement);

// Why an anchor can name no position in any block of tensor_count tensors (bad
// syntax, an unknown base or part, a tensor index out of range), or nullopt: lets
// the loader report it at the anchor's file:line:column.
std::optional<std::string> anchor_problem(const Anchor& anchor, std::size_t tensor_count);

}  // namespace kiln::conformance
