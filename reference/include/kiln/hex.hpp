// Lower-case hex, the form every case file and protocol message uses for bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

std::string to_hex(std::span<const std::uint8_t> bytes);

struct HexError {
  std::size_t position;  // index of the offending character
  std::string message;
};

// Accepts upper or lower case; with allow_space, ASCII white space between bytes
// is skipped (case files wrap long blocks). Odd digit counts are an error.
std::optional<std::vector<std::uint8_t>> from_hex(std::string_view text, HexError* error = nullptr,
                                                  bool allow_space = false);

}  // namespace kiln
