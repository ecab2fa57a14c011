// Pieces of case-file text that the tools which write cases (regen's sweep
// families, the fuzzer's findings) spell alike.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kiln/hex.hpp"

namespace kiln::conformance {

// One-line text as a YAML double-quoted scalar (the caller keeps it to one line).
inline std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// Bytes held in a string, as lower-case hex.
inline std::string hex_of(std::string_view bytes) {
  return to_hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

// The bytes as a double-quoted scalar when each is printable ASCII that needs no
// escape (so the file reads as the bytes); nullopt otherwise: the caller writes hex.
inline std::optional<std::string> plain_quoted(std::string_view bytes) {
  for (char ch : bytes)
    if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\') return std::nullopt;
  return "\"" + std::string(bytes) + "\"";
}

// `key: "text"`, or `key_hex: "…"` for bytes plain_quoted cannot spell: names
// and layout names.
inline std::string text_key(std::string_view key, std::string_view bytes) {
  if (auto quoted = plain_quoted(bytes)) return std::string(key) + ": " + *quoted;
  return std::string(key) + "_hex: \"" + hex_of(bytes) + "\"";
}

}  // namespace kiln::conformance
