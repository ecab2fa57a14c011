// Shrinking a hurray-elements fuzz finding while the same disagreement
// persists: the predicate says whether a candidate still fails the same way, and
// every call may cost an adapter round trip, so at most `budget` calls are made.
#pragma once

#include <cstddef>
#include <functional>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"

namespace kiln::conformance {

using ElementsPredicate = std::function<bool(const ElementsInput&)>;

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
