// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequence. U+0000 is valid.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kiln {

// The index of the first byte that starts an invalid sequence, or nullopt when valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view bytes) noexcept;

inline bool is_valid_utf8(std::string_view bytes) noexcept {
  return !find_invalid_utf8(bytes).has_value();
}

}  // namespace kiln
