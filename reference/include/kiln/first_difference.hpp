// The first offset at which two byte strings differ: what every "differs from
// byte N" message of the suite reports, computed one way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace kiln {

// The first index at which a and b differ; when one is a prefix of the other
// (equal strings included), the shorter one's length.
constexpr std::size_t first_difference(std::span<const std::uint8_t> a,
                                       std::span<const std::uint8_t> b) noexcept {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first -
                                  a.begin());
}

}  // namespace kiln
