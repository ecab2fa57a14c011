#include "kiln/hex.hpp"

namespace kiln {
namespace {

int digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_space(char c) noexcept { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

}  // namespace

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(bytes.size() * 2, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    text[2 * i] = kDigits[bytes[i] >> 4];
    text[2 * i + 1] = kDigits[bytes[i] & 0x0F];
  }
  return text;
}

std::optional<std::vector<std::uint8_t>> from_hex(std::string_view text, HexError* error,
                                                  bool allow_space) {
  auto fail = [&](std::size_t position, std::string message) {
    if (error) *error = HexError{position, std::move(message)};
    return std::nullopt;
  };
  std::vector<std::uint8_t> bytes;
  bytes.reserve(text.size() / 2);  // bounded by the text we were given
  int high = -1;
  std::size_t high_position = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (allow_space && is_space(c)) {
      if (high >= 0) return fail(i, "white space inside a byte");
      continue;
    }
    const int value = digit_value(c);
    if (value < 0) return fail(i, std::string("'") + c + "' is not a hex digit");
    if (high < 0) {
      high = value;
      high_position = i;
    } else {
      bytes.push_back(static_cast<std::uint8_t>(high << 4 | value));
      high = -1;
    }
  }
  if (high >= 0) return fail(high_position, "odd number of hex digits");
  return bytes;
}

}  // namespace kiln
