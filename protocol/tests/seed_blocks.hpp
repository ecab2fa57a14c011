// The brief's worked example (case kiln-v2-u4) and its high-nibble variant, as
// the hex a runner sends, plus small helpers the adapter tests share.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/hex.hpp"

namespace kiln::protocol::testing {

// The design brief's 130-byte dump, typed in as it is printed there (not produced
// by our encoder), then as the compact hex the protocol carries.
inline const std::string kU4Hex = [] {
  const auto bytes = from_hex(
      "4b 49 4c 4e 02 02 00 00 01 00 00 00 10 00 00 00"
      " 80 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00"
      " 08 00 00 00 01 00 00 00 11 00 01 00 00 00 00 00"
      " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
      " 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00"
      " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
      " 03 00 00 00 00 00 00 00 78 00 00 00 00 00 00 00"
      " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
      " 21 03",
      nullptr, /*allow_space=*/true);
  return to_hex(bytes.value());
}();
// kiln-v2-high-nibble: the same block with payload 21 13 (TYPE).
inline const std::string kHighNibbleHex = kU4Hex.substr(0, kU4Hex.size() - 2) + "13";

inline const std::string kU4TensorJson =
    R"({"name":"x","dtype":17,"shape":[3],"layout":null,"block_size":0,"payload":"2103"})";

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace kiln::protocol::testing
