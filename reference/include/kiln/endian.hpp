// Little-endian loads and stores by byte assembly, so the result is the same on
// every host (the wire order is fixed; see FORMAT.md "Byte order").
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

inline std::uint64_t load_le(const std::uint8_t* p, std::size_t width) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = width; i > 0; --i) value = (value << 8) | p[i - 1];
  return value;
}

inline void store_le(std::uint8_t* p, std::size_t width, std::uint64_t value) noexcept {
  for (std::size_t i = 0; i < width; ++i) {
    p[i] = static_cast<std::uint8_t>(value & 0xFF);
    value >>= 8;
  }
}

inline std::uint16_t load_u16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(load_le(p, 2));
}
inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(load_le(p, 4));
}
inline std::uint64_t load_u64(const std::uint8_t* p) noexcept { return load_le(p, 8); }

}  // namespace kiln
