// The canonical encoder. A description in; the one canonical block, or the error
// a strict decoder reports for that content (an encoder refuses what a reader
// would reject).
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/error.hpp"

namespace kiln {

Result<std::vector<std::uint8_t>> encode(const BlockDescription& description);

}  // namespace kiln
