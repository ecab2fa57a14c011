// Shrinking a fuzz finding while the same disagreement persists: the predicate
// says whether a candidate still fails the same way (same reference verdict,
// same adapter answer), and every call may cost an adapter round trip, so each
// function makes at most `budget` calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/description.hpp"

namespace kiln::conformance {

using BlockPredicate = std::function<bool(std::span<const std::uint8_t>)>;
using DescriptionPredicate = std::function<bool(const BlockDescription&)>;
using ElementsPredicate = std::function<bool(const ElementsInput&)>;

// Greedy, to a fixed point: drop a tensor; cut a name (to half, by its first or
// last byte); drop a dimension or set it to 1 or 0; cut a layout name; halve or
// empty a payload, then zero its bytes; zero the block size. A candidate is
// kept when still_fails holds.
BlockDescription minimize_description(BlockDescription description,
                                      const DescriptionPredicate& still_fails, std::size_t budget);

// A canonical block (one kiln::build gives back from its lenient reading), or
// one whose rebuilt canonical form still fails, is first shrunk as a
// description, rebuilt each time; then any block is cut at
// its end, has runs of bytes removed (halving run lengths) and bytes set to 0.
std::vector<std::uint8_t> minimize_block(std::vector<std::uint8_t> block,
                                         const BlockPredicate& still_fails, std::size_t budget);

// A hurray-elements decode input's data cut to S when it holds more (the tag
// names a type and S is defined): the suite sends no byte past S (HURRAY.md 6.2).
void cut_past_size(ElementsInput& input);

// Greedy, to a fixed point, for op's members: fewer elements (the shape made
// [n / 2] or [n - 1], its data or elements cut to match); a dimension dropped,
// set to 1 or 0 or halved; strict for permissive; the data cut at its end,
// bytes removed or set to 0; elements dropped or set to 0. Every candidate's
// data is cut to its S (cut_past_size).
ElementsInput minimize_elements(ElementsInput input, Operation op, const ElementsPredicate& still_fails,
                                std::size_t budget);

}  // namespace kiln::conformance
