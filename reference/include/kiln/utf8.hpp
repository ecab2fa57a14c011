// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequence. U+0000 is valid.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kiln {

// The index of the first byte that starts an invalid sequence, or nullopt when valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view bytes) noexcept;

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
