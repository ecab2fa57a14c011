// The fuzz-only family's hurray-elements members: fast paths that only a long
// tensor takes (a whole 32-bit word of bools, a whole 16-byte lane of 16-bit
// integers) and that have their byte order wrong. Every golden case is shorter
// (bool data of at most 3 bytes, int16 and uint16 data of at most 10), so every
// case lets them through; the generator's counts around powers of two and its
// byte-asymmetric elements find them (tests/fuzz_only_test.cpp).
#include <vector>

#include "catalogue_parts.hpp"
#include "hurray_pipeline.hpp"

namespace kiln::mutants {
namespace {

using hurray::Element;
using hurray::TypeInfo;
namespace path = hurray_path;

bool is_type(const TypeInfo& type, std::string_view name) { return type.tag == hurray::type_by_name(name)->tag; }

// Bool element i's byte under the word path: whole 32-bit words are loaded
// big-endian, so bit i % 32 of the word is in the word's byte 3 - (i % 32) / 8.
std::uint64_t bool_word_byte(std::uint64_t i) { return 4 * (i / 32) + 3 - (i % 32) / 8; }
bool in_whole_word(std::uint64_t i, std::size_t size) { return 4 * (i / 32 + 1) <= size; }

Mutant bool_words_big_endian() {
  Mutant m = parts::make(
      "fuzz-hurray-bool-words-big-endian", kFamilyFuzzOnly,
      "bool: whole 32-bit words of data are loaded and stored as big-endian words (the word-at-a-"
      "time path); the last bytes that fill no word go byte by byte, as they should");
  m.hurray.read = [](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    if (!is_type(type, "bool") || !in_whole_word(i, data.size())) return path::reference_read(type, data, i);
    return Element{static_cast<std::uint64_t>(data[bool_word_byte(i)] >> (i % 8) & 1u), 0, false};
  };
  m.hurray.write = [](const TypeInfo& type, std::span<std::uint8_t> out, std::uint64_t i, const Element& element) {
    if (!is_type(type, "bool") || !in_whole_word(i, out.size())) return path::reference_write(type, out, i, element);
    out[bool_word_byte(i)] |= static_cast<std::uint8_t>((element.low & 1u) << (i % 8));
  };
  return m;
}

// 16-bit integer element i under the lane path: in each whole 16-byte lane of 8
// elements the bytes of every element are swapped (a big-endian shuffle mask).
bool in_whole_lane(std::uint64_t i, std::size_t size) { return 16 * (i / 8 + 1) <= size; }
bool is_int16(const TypeInfo& type) { return is_type(type, "int16") || is_type(type, "uint16"); }

Mutant int16_lanes_swapped() {
  Mutant m = parts::make(
      "fuzz-hurray-int16-lanes-swapped", kFamilyFuzzOnly,
      "int16 and uint16: the 8-element vector path, which the reader and the writer share, uses a "
      "big-endian shuffle mask, so in each whole 16-byte lane every element's two bytes are swapped; "
      "the scalar tail is right");
  m.hurray.read = [](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    if (!is_int16(type) || !in_whole_lane(i, data.size())) return path::reference_read(type, data, i);
    return Element{static_cast<std::uint64_t>(data[2 * i]) << 8 | data[2 * i + 1], 0, false};
  };
  m.hurray.write = [](const TypeInfo& type, std::span<std::uint8_t> out, std::uint64_t i, const Element& element) {
    if (!is_int16(type) || !in_whole_lane(i, out.size())) return path::reference_write(type, out, i, element);
    out[2 * i] |= static_cast<std::uint8_t>(element.low >> 8);
    out[2 * i + 1] |= static_cast<std::uint8_t>(element.low);
  };
  return m;
}

}  // namespace

std::vector<Mutant> hurray_fuzz_only_mutants() {
  std::vector<Mutant> all;
  all.push_back(bool_words_big_endian());
  all.push_back(int16_lanes_swapped());
  return all;
}

}  // namespace kiln::mutants
