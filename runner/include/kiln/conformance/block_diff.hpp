// Where two byte strings differ, named by the Kiln v2 layout: the field of the
// header or of a directory entry, a tensor's shape, name, layout or heap
// padding, the gap, a tensor's payload or its padding, found from layout.hpp
// and the placement fields of the expected block. Every report that shows a
// differing block (console, JSON, HTML) goes through compare_blocks, so a
// difference reads the same everywhere: "byte 73: entry 0 dtype: expected 11 00,
// got 00 11", with a short hex window of both sides.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::conformance {

// A named run of bytes: [start, start + length).
struct ByteSpan {
  std::uint64_t start = 0;
  std::uint64_t length = 0;
  std::string name;  // "header tensor_count", "entry 0 dtype", "tensor 1 payload", ...
};

// The named span of a Kiln v2 block that holds offset, read from the block's
// own header and directory (bounds-checked: any bytes may come in). An offset at
// or past the block's end is "past the end".
ByteSpan locate_in_block(std::span<const std::uint8_t> block, std::uint64_t offset);

struct ByteDifference {
  std::uint64_t offset = 0;         // the first differing byte
  ByteSpan field;                   // the span it falls in; its bytes are the summary's
  std::uint64_t expected_size = 0;  // whole lengths of both sides
  std::uint64_t got_size = 0;
  // A few rows of both sides around offset, from window_start (16-aligned);
  // a side that ends early has fewer bytes.
  std::uint64_t window_start = 0;
  std::vector<std::uint8_t> expected_window;
  std::vector<std::uint8_t> got_window;
  // The named spans that cover the window, in order (for per-byte labels).
  std::vector<ByteSpan> window_fields;

  // "byte 73: entry 0 dtype: expected 11 00, got 00 11"
  std::string summary() const;
};

// How offsets are named: by the Kiln layout of the expected block, or as the
// bytes of a decoded tensor's payload ("tensor 2 payload byte 5").
struct Naming {
  // kData: a tensor's data bytes with no block around them, one span.
  enum class Kind { kBlock, kPayload, kData } kind = Kind::kBlock;
  std::uint64_t tensor = 0;  // for kPayload
};

// nullopt when equal. At most the first differing field and a window of
// kWindowRows rows of 16 bytes are kept, however large the inputs.
inline constexpr std::uint64_t kWindowRows = 3;
std::optional<ByteDifference> compare_bytes(std::span<const std::uint8_t> expected,
                                            std::span<const std::uint8_t> got, Naming naming = {});

// Rows of the window for a terminal, the differing byte in brackets:
//   "0030  expected  4b 49 [11] 00 ..." then "      got       4b 49 [00] 11 ...".
std::vector<std::string> window_lines(const ByteDifference& difference);

}  // namespace kiln::conformance
