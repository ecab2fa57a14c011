// Shrinking a kiln-v2 fuzz finding while the same disagreement persists: the predicate
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
#include "kiln/description.hpp"

namespace kiln::conformance {

using BlockPredicate = std::function<bool(std::span<const std::uint8_t>)>;
using DescriptionPredicate = std::function<bool(const BlockDescription&)>;

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

}  // namespace kiln::conformance
