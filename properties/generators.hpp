// RapidCheck generators for Kiln v2 content, shared by every property file:
// valid descriptions over the whole dtype table, names with multi-byte UTF-8
// and U+0000, payloads valid for their dtype, and readable counterexamples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "kiln/kiln.hpp"

namespace kiln::properties {

// Payloads stay a few hundred bytes so that tens of thousands of cases run in minutes.
inline constexpr std::size_t kMaxPayloadBytes = 256;
inline constexpr std::size_t kMaxTensors = 4;
inline constexpr std::size_t kMaxRank = 6;

// A block's bytes; a type of its own so that counterexamples print as hex.
struct Bytes {
  std::vector<std::uint8_t> bytes;
  bool operator==(const Bytes&) const = default;
};

// Strings: valid UTF-8 of 1..6 code points (ASCII, U+0000, controls, 2-, 3- and
// 4-byte forms), and strings that hold exactly one invalid sequence (stray
// continuation, overlong, surrogate, above U+10FFFF, truncated, F5..FF).
rc::Gen<std::string> utf8_text();
rc::Gen<std::string> invalid_utf8_text();

// Closed codes come from kDtypes; opaque codes are 4096..32767.
rc::Gen<std::uint16_t> closed_dtype_code();
rc::Gen<std::uint16_t> opaque_dtype_code();
// Closed codes whose table entry satisfies a condition (bool, nibble packing).
rc::Gen<std::uint16_t> closed_dtype_code_where(bool (*condition)(const DtypeInfo&));

// A shape of rank 0..kMaxRank whose element count is at most max_elements; with
// a zero dimension the other dimensions may be anything up to 2^64 - 1.
rc::Gen<std::vector<std::uint64_t>> bounded_shape(std::uint64_t max_elements);
// Any dimensions: opaque tensors do not check the shape product.
rc::Gen<std::vector<std::uint64_t>> any_shape();

// count elements of a closed dtype: bool bytes 0/1, nibbles packed with a zero
// high nibble for odd counts, elsewhere any bits with NaN, -0.0 and all-ones
// patterns mixed in.
rc::Gen<std::vector<std::uint8_t>> valid_payload(const DtypeInfo& info, std::uint64_t count);

// One valid tensor with the given name, of any closed or opaque dtype.
rc::Gen<TensorDescription> valid_tensor(std::string name);
rc::Gen<TensorDescription> valid_closed_tensor(std::string name, std::uint16_t code);
rc::Gen<TensorDescription> valid_opaque_tensor(std::string name);

// count distinct names.
rc::Gen<std::vector<std::string>> unique_names(std::size_t count);

// A valid block of min_tensors..max_tensors tensors (the encoder accepts it).
rc::Gen<BlockDescription> valid_block(std::size_t min_tensors = 0,
                                      std::size_t max_tensors = kMaxTensors);
// The canonical bytes of a valid block.
rc::Gen<Bytes> valid_block_bytes();

// Content that may be invalid in any way a description can be: dtype codes
// from every range (0, closed, reserved, opaque, above 32767), bool bytes 2,
// wrong lengths, set high nibbles, missing or non-UTF-8 layouts, block sizes
// on closed dtypes, empty, repeated or non-UTF-8 names. Often valid too.
rc::Gen<BlockDescription> maybe_invalid_block();

// Tags the current case with the edge cases a description hits (rank 0, zero
// dimension, odd packed count, opaque, empty block, U+0000 in a name,
// multi-tensor), so a run shows they were reached.
void classify(const BlockDescription& description);

// The dtype as a reader would say it: "u4 (17)", "opaque (4096)", "reserved (20)".
std::string dtype_label(std::uint16_t code);
// A name or layout as printable text: non-ASCII and control bytes as \xNN.
std::string escaped(const std::string& text);

}  // namespace kiln::properties

namespace kiln {
// Found by RapidCheck through argument-dependent lookup when it prints a counterexample.
void showValue(const TensorDescription& tensor, std::ostream& os);
void showValue(const BlockDescription& block, std::ostream& os);
}  // namespace kiln

namespace kiln::properties {
void showValue(const Bytes& block, std::ostream& os);
}  // namespace kiln::properties
