// Little-endian loads and stores by byte assembly, so the result is the same on
// every host (the wire order is fixed; see FORMAT.md "Byte order").
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln {

namespace detail {
// One load of a fixed width, swapped only on a big-endian host: the decoder's
// field reads are its hot path, and a byte loop does not fold into one load.
template <class Unsigned>
inline Unsigned load_fixed(const std::uint8_t* p) noexcept {
  Unsigned value;
  std::memcpy(&value, p, sizeof value);
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof value == 2) value = __builtin_bswap16(value);
    if constexpr (sizeof value == 4) value = __builtin_bswap32(value);
    if constexpr (sizeof value == 8) value = __builtin_bswap64(value);
  }
  return value;
}
}  // namespace detail

inline std::uint64_t load_le(const std::uint8_t* p, std::size_t width) noexcept {
  switch (width) {
    case 1: return p[0];
    case 2: return detail::load_fixed<std::uint16_t>(p);
    case 4: return detail::load_fixed<std::uint32_t>(p);
    case 8: return detail::load_fixed<std::uint64_t>(p);
    default: break;
  }
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
