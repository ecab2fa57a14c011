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
// erased run, a cut tail or one damage_as_text.
std::size_t mutate_bytes(std::uint8_t* data, std::size_t size, std::size_t max_size, Random& rng);

// What happens to a block at its ends and to its line ends when it travels as
// text or through a careless copy: the damage real readers break on.
enum class TextDamage : std::uint8_t {
  kAppendBytes,       // 1 to 16 bytes after the end: zeros, 0a, random, or the block's first bytes
  kCutEnd,            // 1 to 16 bytes cut off the end (never the whole input)
  kAppendLf,          // 0a
  kAppendCrLf,        // 0d 0a
  kAppendDosEof,      // 1a, the DOS end-of-file mark
  kPrependBom,        // ef bb bf, the UTF-8 byte order mark, before the block
  kAppendBom,         // ef bb bf after it
  kLfToCrLf,          // every 0a made 0d 0a (a text-mode write on Windows)
  kCrLfToLf,          // every 0d 0a made 0a (a text-mode read on Windows)
  kStripTrailingLf,   // one final 0a removed (a line reader)
};
inline constexpr std::size_t kTextDamageKinds = 10;

// One damage of the given kind; the bytes never grow past max_size (what would
// not fit is left out: a shorter append, or no translation at all). A kind
// that does not apply (no final 0a to strip, nothing to cut) leaves the bytes
// as they are.
void damage_as_text(Bytes& bytes, TextDamage kind, Random& rng, std::size_t max_size);
// One damage of a kind drawn from rng, every kind equally likely.
void damage_as_text(Bytes& bytes, Random& rng, std::size_t max_size);

// Reads bytes as a Kiln block whatever their fields say: every field is taken as
// written and every region is cut to the input (at most 64 tensors of rank 16
// are read), so any input with the magic and a whole header gives a
// description (often a wrong one). nullopt without them.
std::optional<BlockDescription> read_leniently(std::span<const std::uint8_t> bytes);

// One to three description-level steps: a tensor inserted (a fresh one or a
// copy under the same name), removed, or copied until the count reaches an edge
// value (9, 17, 33, ...); two distinct tensors swapped; one tensor cloned, one
// to three times, with its dtype, shape, layout, block size and payload under
// names no other tensor has (identical tensors repeated, each valid if the
// original is); or one tensor's dtype, shape (an edge rank or dimension), name
// (an edge length, a copy or a near copy of another name, mutated bytes),
// layout name, block size or payload (fitted to the dtype, value-rule bytes, an
// element set to an edge bit pattern of its width, mutated bytes) changed.
// Payloads and names grow by at most max_size. The result may break any TYPE
// or name rule.
void mutate_description(BlockDescription& block, Random& rng, std::size_t max_size,
                        const ByteMutator& bytes);

// One header or entry field of a built block set to an edge value or moved by one.
void break_one_field(BuiltBlock& built, Random& rng);

// The structure-aware mutation of a block: read_leniently, mutate_description,
// kiln::build (so every offset stays canonical), one time in eight
// break_one_field, and (independently) one time in eight damage_as_text on the
// built bytes. nullopt when the input is not readable as a block or the result
// cannot be built within max_size: the caller mutates bytes instead.
std::optional<Bytes> mutate_block(std::span<const std::uint8_t> input, Random& rng,
                                  std::size_t max_size, const ByteMutator& bytes);

// LLVMFuzzerCustomMutator over Kiln blocks: mutate_block from seed, written
// over data (which holds max_size bytes), or bytes on data when mutate_block
// gives nothing. Returns the new size.
std::size_t mutate_block_in_place(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                  unsigned int seed, const ByteMutator& bytes);

}  // namespace kiln::mutate
