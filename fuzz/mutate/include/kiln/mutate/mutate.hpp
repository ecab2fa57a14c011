// Structure-aware and byte-wise mutation of Kiln blocks and descriptions, shared
// by the fuzz_structure target (its libFuzzer custom mutator) and
// `kiln-conformance fuzz` (which fuzzes an implementation through its adapter).
// Needs only the reference library, so the fuzz engines can build it with their
// instrumentation.
//
// Every choice is drawn from the Random the caller passes, and the byte mutator
// is the caller's too (libFuzzer's LLVMFuzzerMutate, or mutate_bytes below), so
// a seed reproduces a whole run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "kiln/builder.hpp"
#include "kiln/description.hpp"

namespace kiln::mutate {

using Bytes = std::vector<std::uint8_t>;
using Random = std::minstd_rand;

// The contract of libFuzzer's LLVMFuzzerMutate: changes data[0, size) in place,
// may grow it up to max_size (data holds max_size bytes), returns the new size.
using ByteMutator =
    std::function<std::size_t(std::uint8_t* data, std::size_t size, std::size_t max_size)>;

// A byte mutator for callers without libFuzzer: one to four changes, each a bit
// flip, a byte set to an edge value (0, 1, 0x7f, 0x80, 0xff), a little-endian
// edge value of 2, 4 or 8 bytes written at a random offset, an inserted byte, an
// erased run or a cut tail.
std::size_t mutate_bytes(std::uint8_t* data, std::size_t size, std::size_t max_size, Random& rng);

// Reads bytes as a Kiln block whatever their fields say: every field is taken as
// written and every region is cut to the input (at most 64 tensors of rank 16
// are read), so any input with the magic and a whole header gives a
// description (often a wrong one). nullopt without them.
std::optional<BlockDescription> read_leniently(std::span<const std::uint8_t> bytes);

// One to three description-level steps: a tensor inserted, removed, swapped or
// copied until the count reaches an edge value (9, 17, 33, ...); or one tensor's
// dtype, shape (an edge rank or dimension), name (an edge length, a copy or a
// near copy of another name, mutated bytes), layout name, block size or payload
// (fitted to the dtype, value-rule bytes, an element set to an edge bit pattern
// of its width, mutated bytes) changed. Payloads and
// names grow by at most max_size. The result may break any TYPE or name rule.
void mutate_description(BlockDescription& block, Random& rng, std::size_t max_size,
                        const ByteMutator& bytes);

// One header or entry field of a built block set to an edge value or moved by one.
void break_one_field(BuiltBlock& built, Random& rng);

// The structure-aware mutation of a block: read_leniently, mutate_description,
// kiln::build (so every offset stays canonical), and one time in eight
// break_one_field. nullopt when the input is not readable as a block or the
// result cannot be built within max_size: the caller mutates bytes instead.
std::optional<Bytes> mutate_block(std::span<const std::uint8_t> input, Random& rng,
                                  std::size_t max_size, const ByteMutator& bytes);

}  // namespace kiln::mutate
