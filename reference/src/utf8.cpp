#include "kiln/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace kiln {

std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    // Names are mostly ASCII: skip eight such bytes at a time.
    if (size - i >= 8) {
      std::uint64_t word;
      std::memcpy(&word, bytes + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const std::uint8_t lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length;
    std::uint8_t second_min = 0x80;
    std::uint8_t second_max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) second_min = 0xA0;  // overlong below U+0800
      if (lead == 0xED) second_max = 0x9F;  // surrogates U+D800..U+DFFF
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) second_min = 0x90;  // overlong below U+10000
      if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
    } else {
      return i;  // continuation byte as lead, C0/C1 overlong, F5..FF
    }
    if (size - i < length) return i;  // cut short
    if (bytes[i + 1] < second_min || bytes[i + 1] > second_max) return i;
    for (std::size_t k = 2; k < length; ++k)
      if ((bytes[i + k] & 0xC0) != 0x80) return i;
    i += length;
  }
  return std::nullopt;
}

}  // namespace kiln
