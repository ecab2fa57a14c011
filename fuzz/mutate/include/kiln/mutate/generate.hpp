// Generation by construction: Kiln blocks and descriptions made from catalogues
// of interesting values, on a schedule that walks the combinations by input
// index, so that a few thousand inputs reach every field at its edge values,
// every dtype at every position, names other tools give meaning to, and pairs of
// defects of different classes in different tensors, whatever the seed. The
// random part of each input (which catalogue value, which tensor) comes from
// the caller's Random, so a seed reproduces a run.
//
// Used by `kiln-conformance fuzz` (and so by `run`'s generated phase) beside its
// mutation of the case pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "kiln/description.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::mutate {

// Values of an unsigned field or element `width` bytes wide (1, 2, 4 or 8): 0,
// 1, 2, the largest and one less, the signed edges, 2^k - 1, 2^k and 2^k + 1
// for every k below the width, and byte-asymmetric patterns (01 02 .. read as
// a big-endian and as a little-endian number, with and without the top bit),
// so that a wrong byte or bit order changes every decoded value.
std::span<const std::uint64_t> interesting_values(std::size_t width);

// Names that other formats and libraries give a meaning to: leading and
// trailing spaces, NUL padding, tab and line ends, white space alone, a BOM,
// names that spell a dtype or a number, long names. All strict UTF-8 and
// nonempty: each is a valid name.
std::span<const std::string_view> interesting_names();

// Pairs of distinct names that a normalizing, trimming or case-folding reader
// takes for one name (NFC and NFD of one letter, "a" and "a ", "a" and "a\0",
// "x" and "X"): a block may hold both, and must be read with both.
std::span<const std::pair<std::string_view, std::string_view>> look_alike_names();

// Bytes that careless readers skip or tolerate before the magic or after the
// block: a UTF-8 BOM, a zero byte, a copy of the magic, a line end.
std::span<const std::string_view> interesting_wrappers();

// The index-th generated description: its tensor count, dtypes (the closed
// ones in every order and position, opaque ones among them), shapes, names and
// payloads (byte-asymmetric elements, edge values of the dtype) follow the
// schedule; about half carry one or two TYPE or name defects (a pair in two
// different tensors). Its payloads, names and dimensions stay within max_size
// bytes.
BlockDescription generate_description(std::uint64_t index, Random& rng, std::size_t max_size);

// The index-th generated block: generate_description's content, built with
// canonical framing, then (on the schedule) one header or entry field set to
// one of its interesting values, a padding byte set, bytes put before the magic
// or after the end, an older version, or a FRAME defect in one tensor beside a
// TYPE defect in another. At most max_size bytes.
Bytes generate_block(std::uint64_t index, Random& rng, std::size_t max_size);

}  // namespace kiln::mutate
