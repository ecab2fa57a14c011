// The unchecked builder: canonical framing for any field values, valid or not
// (code 0, a bool byte 2, an opaque tensor without a layout), and raw access to
// every field and region afterwards, so that cases, properties and fuzzers can
// make every kind of invalid block. The encoder is this builder plus the decoder.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/error.hpp"
#include "kiln/layout.hpp"

namespace kiln {

// Where the canonical layout puts each part of one tensor; absolute block offsets.
struct TensorPlacement {
  std::uint64_t entry;        // the directory entry
  std::uint64_t shape;        // start of the heap segment (the dimensions)
  std::uint64_t name;
  std::uint64_t layout;       // where the layout name is or would be
  std::uint64_t segment_end;  // end of the segment's zero padding (8-aligned)
  std::uint64_t data;         // first payload byte
  std::uint64_t data_end;
};

struct Placement {
  std::uint64_t heap_start = 0;
  std::uint64_t heap_length = 0;
  std::uint64_t payload_offset = 0;
  std::uint64_t payload_length = 0;
  std::uint64_t size = 0;  // payload_offset + payload_length
  std::vector<TensorPlacement> tensors;
};

// The canonical placement of a description. Fails (FRAME-FIELD-RANGE) only when
// a value cannot be represented in its field: more than 2^32 - 1 tensors, rank
// above 65535, a heap above 2^32 - 1 bytes.
Result<Placement> place(const BlockDescription& description);

struct BuiltBlock {
  std::vector<std::uint8_t> bytes;
  Placement placement;
};

// Writes the description with canonical framing and no content checks.
Result<BuiltBlock> build(const BlockDescription& description);

// Raw field access for faults. base is the header's offset (0) or an entry's.
// Writes fail (return false) only when the field lies outside the bytes.
bool write_field(std::vector<std::uint8_t>& bytes, std::uint64_t base, const Field& field,
                 std::uint64_t value);
std::optional<std::uint64_t> read_field(std::span<const std::uint8_t> bytes, std::uint64_t base,
                                        const Field& field);

}  // namespace kiln
