// The loosened checks the relaxed mutants share (catalogue_relaxed.cpp).
//
// read_frame: a frame reader with loosened offset checks, for the relaxed
// mutants whose bug changes where they read from. Unlike the reference's lenient decoder (which
// reads a waived offset from its canonical position), this reader trusts an
// offset it accepts and reads the part where the offset points, as an
// implementation with the loosened check would. Every other FRAME check is the
// reference's, in the reference's order, made against the reader's own cursors.
// Name and dtype rules are not checked here: the mutant pipeline hands the
// tensors read to the reference (kiln/mutants.hpp, read_frame).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "kiln/mutants.hpp"

namespace kiln::mutants::relaxed {

// One offset field as the reader meets it.
struct OffsetSeen {
  std::uint64_t stated;        // the field's value
  std::uint64_t canonical;     // the value the format fixes
  std::uint64_t previous_end;  // where the part before it ends: the lowest value that overlaps nothing
  std::size_t tensor;          // the entry's index (0 for a header field)
};

// Whether the reader accepts a stated value that differs from the canonical one.
using OffsetCheck = bool (*)(const OffsetSeen&);

// nullptr (the default) is the reference's check: the stated value must be canonical.
struct Leniency {
  OffsetCheck payload_offset = nullptr;
  OffsetCheck shape_offset = nullptr;
  OffsetCheck name_offset = nullptr;
  OffsetCheck layout_offset = nullptr;  // asked only when layout_length > 0
  OffsetCheck data_offset = nullptr;
  // data_offset + byte_length is computed modulo 2^64 for the bound against
  // payload_length. A payload that passes only by wrapping is read as the bytes
  // from data_offset to payload_length (a real reader would run off the input).
  bool payload_end_wraps = false;
};

// The frame read with these checks: a FRAME reject, or the tensors read. On a
// reject, read_before_defect (when given) receives the tensors whose entries were
// read in full before the defect.
std::variant<protocol::Reject, BlockDescription> read_frame(
    ByteSpan input, const Leniency& leniency, BlockDescription* read_before_defect = nullptr);

// UTF-8 with its byte classes as parameters. The defaults are strict UTF-8
// (RFC 3629, FORMAT.md 1.2); a relaxed mutant widens or narrows one class.
struct Utf8Classes {
  std::uint8_t continuation_max = 0xBF;  // continuation bytes are 0x80..continuation_max
  std::uint8_t e0_second_min = 0xA0;     // E0 80..9F would be overlong 3-byte forms
  std::uint8_t ed_second_max = 0x9F;     // ED A0..BF would be surrogates
  bool nul_allowed = true;               // U+0000 is a character
};
bool valid_utf8(std::string_view text, const Utf8Classes& classes);

}  // namespace kiln::mutants::relaxed
