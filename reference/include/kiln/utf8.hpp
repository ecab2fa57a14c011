// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequence. U+0000 is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace kiln {

// The index of the first byte that starts an invalid sequence, or nullopt when valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view bytes) noexcept;

// Whether every byte is below 0x80, eight bytes a word (and one overlapping word
// for the tail): names are mostly ASCII, and ASCII is valid UTF-8, so a caller
// on a hot path may test this before find_invalid_utf8.
inline bool is_ascii(std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::uint64_t high = 0;
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      high |= word;
    }
    std::uint64_t tail;
    std::memcpy(&tail, p + n - 8, 8);
    high |= tail;
  } else {
    for (std::size_t i = 0; i < n; ++i) high |= p[i];
  }
  return (high & 0x8080808080808080ull) == 0;
}

inline bool is_valid_utf8(std::string_view bytes) noexcept {
  return !find_invalid_utf8(bytes).has_value();
}

// Appends code (a Unicode scalar value, at most U+10FFFF) as UTF-8.
inline void append_utf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace kiln
