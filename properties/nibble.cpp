#include "nibble.hpp"

namespace kiln::properties {

std::vector<std::uint8_t> pack_nibbles(std::span<const std::uint8_t> values) {
  std::vector<std::uint8_t> packed((values.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    packed[i / 2] |= static_cast<std::uint8_t>((values[i] & 0x0F) << (i % 2 == 0 ? 0 : 4));
  return packed;
}

std::vector<std::uint8_t> unpack_nibbles(std::span<const std::uint8_t> packed, std::size_t count) {
  std::vector<std::uint8_t> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = static_cast<std::uint8_t>((packed[i / 2] >> (i % 2 == 0 ? 0 : 4)) & 0x0F);
  return values;
}

}  // namespace kiln::properties
