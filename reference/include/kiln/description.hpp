// The content of a block as plain owned values: what an encoder takes and what
// a decoded block compares against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct TensorDescription {
  std::string name;                // UTF-8 bytes; may contain U+0000
  std::uint16_t dtype = 0;         // any 16-bit code; the rules decide whether it is valid
  std::vector<std::uint64_t> shape;
  std::string layout;              // opaque layout name; empty means none
  std::uint32_t block_size = 0;
  std::vector<std::uint8_t> payload;

  bool operator==(const TensorDescription&) const = default;
};

struct BlockDescription {
  std::vector<TensorDescription> tensors;

  bool operator==(const BlockDescription&) const = default;
};

}  // namespace kiln
