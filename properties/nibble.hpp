// Nibble packing for tests only: the reference library stores packed payloads
// as bytes and has no packer. Low nibble first; an odd count leaves the last
// byte's high nibble 0 (seed page 000, case kiln-v2-u4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::properties {

// values[i] must be below 16. Returns ceil(values.size() / 2) bytes.
std::vector<std::uint8_t> pack_nibbles(std::span<const std::uint8_t> values);

// The first count nibbles of packed, low nibble first. packed must hold at
// least ceil(count / 2) bytes.
std::vector<std::uint8_t> unpack_nibbles(std::span<const std::uint8_t> packed, std::size_t count);

}  // namespace kiln::properties
