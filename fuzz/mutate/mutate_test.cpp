// kiln_mutate: each text damage does exactly what it says and never grows past
// max_size; the random entry points reach the damage, the clone and the swap,
// and a seed reproduces every output.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::mutate {
namespace {

constexpr std::size_t kRoomy = 1 << 16;
constexpr int kSeeds = 2000;

// minstd_rand's first draws from a small seed are small (seed * 48271), so a
// sweep over seeds 1, 2, ... would draw the first choices alike: skip them.
Random rng_for(unsigned seed) {
  Random rng(seed);
  rng.discard(4);
  return rng;
}

Bytes text_sample() { return {'K', 'I', 'L', 'N', 0x0a, 'x', 0x0d, 'y', 0x0a}; }

Bytes damaged(Bytes bytes, TextDamage kind, std::size_t max_size = kRoomy,
              unsigned seed = 1) {
  Random rng = rng_for(seed);
  damage_as_text(bytes, kind, rng, max_size);
  return bytes;
}

Bytes concat(Bytes head, std::initializer_list<std::uint8_t> tail) {
  head.insert(head.end(), tail);
  return head;
}

bool starts_with(const Bytes& bytes, const Bytes& prefix) {
  return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

bool ends_with(const Bytes& bytes, const Bytes& suffix) {
  return bytes.size() >= suffix.size() && std::equal(suffix.rbegin(), suffix.rend(), bytes.rbegin());
}

TensorDescription tensor(std::string name, std::uint8_t first_byte) {
  TensorDescription t;
  t.name = std::move(name);
  t.dtype = 2;  // f32
  t.shape = {2};
  t.payload = {first_byte, 0, 0x80, 0x3f, 0, 0, 0, 0x40};
  return t;
}

BlockDescription two_tensors() { return {{tensor("weight", 0x00), tensor("bias", 0x01)}}; }

// ---- damage_as_text, kind by kind ----

TEST(DamageAsText, AppendsLineEndsAndMarksWhole) {
  const Bytes in = text_sample();
  EXPECT_EQ(damaged(in, TextDamage::kAppendLf), concat(in, {0x0a}));
  EXPECT_EQ(damaged(in, TextDamage::kAppendCrLf), concat(in, {0x0d, 0x0a}));
  EXPECT_EQ(damaged(in, TextDamage::kAppendDosEof), concat(in, {0x1a}));
  EXPECT_EQ(damaged(in, TextDamage::kAppendBom), concat(in, {0xef, 0xbb, 0xbf}));
  Bytes bom_first{0xef, 0xbb, 0xbf};
  bom_first.insert(bom_first.end(), in.begin(), in.end());
  EXPECT_EQ(damaged(in, TextDamage::kPrependBom), bom_first);
}

TEST(DamageAsText, LeavesOutWhatDoesNotFit) {
  const Bytes in = text_sample();
  for (TextDamage kind : {TextDamage::kAppendLf, TextDamage::kAppendCrLf, TextDamage::kAppendDosEof,
                          TextDamage::kAppendBom, TextDamage::kPrependBom, TextDamage::kAppendBytes,
                          TextDamage::kLfToCrLf})
    EXPECT_EQ(damaged(in, kind, in.size()), in) << static_cast<int>(kind);
  // A line end of two bytes, a BOM of three and two new 0d bytes need their room whole.
  EXPECT_EQ(damaged(in, TextDamage::kAppendCrLf, in.size() + 1), in);
  EXPECT_EQ(damaged(in, TextDamage::kAppendBom, in.size() + 2), in);
  EXPECT_EQ(damaged(in, TextDamage::kPrependBom, in.size() + 2), in);
  EXPECT_EQ(damaged(in, TextDamage::kLfToCrLf, in.size() + 1), in);
}

TEST(DamageAsText, TranslatesLineEndsBothWays) {
  const Bytes in = text_sample();
  const Bytes crlf{'K', 'I', 'L', 'N', 0x0d, 0x0a, 'x', 0x0d, 'y', 0x0d, 0x0a};
  EXPECT_EQ(damaged(in, TextDamage::kLfToCrLf), crlf);
  EXPECT_EQ(damaged(crlf, TextDamage::kCrLfToLf), in);
  // A lone 0d stays; 0d 0d 0a loses one 0d, as a text-mode read does.
  EXPECT_EQ(damaged({0x0d, 'a', 0x0d, 0x0d, 0x0a}, TextDamage::kCrLfToLf),
            (Bytes{0x0d, 'a', 0x0d, 0x0a}));
  EXPECT_EQ(damaged({'a', 'b'}, TextDamage::kLfToCrLf), (Bytes{'a', 'b'}));
}

TEST(DamageAsText, StripsOneTrailingLfOnly) {
  EXPECT_EQ(damaged({'a', 0x0a, 0x0a}, TextDamage::kStripTrailingLf), (Bytes{'a', 0x0a}));
  EXPECT_EQ(damaged({'a', 0x0a, 'b'}, TextDamage::kStripTrailingLf), (Bytes{'a', 0x0a, 'b'}));
  EXPECT_EQ(damaged({}, TextDamage::kStripTrailingLf), Bytes{});
}

TEST(DamageAsText, CutsOneToSixteenBytesOffTheEnd) {
  Bytes in(40);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i);
  std::set<std::size_t> cuts;
  for (unsigned seed = 1; seed <= 500; ++seed) {
    const Bytes out = damaged(in, TextDamage::kCutEnd, kRoomy, seed);
    ASSERT_TRUE(starts_with(in, out));
    cuts.insert(in.size() - out.size());
  }
  EXPECT_EQ(*cuts.begin(), 1u);
  EXPECT_EQ(*cuts.rbegin(), 16u);
  EXPECT_EQ(damaged({'a', 'b'}, TextDamage::kCutEnd), (Bytes{'a'}));  // never the whole input
  EXPECT_EQ(damaged({'a'}, TextDamage::kCutEnd), (Bytes{'a'}));
}

TEST(DamageAsText, AppendsZerosLfNoiseOrTheBlocksStart) {
  const Bytes in = text_sample();
  bool zeros = false, lfs = false, noise = false, start = false;
  std::set<std::size_t> lengths;
  for (unsigned seed = 1; seed <= 500; ++seed) {
    const Bytes out = damaged(in, TextDamage::kAppendBytes, kRoomy, seed);
    ASSERT_TRUE(starts_with(out, in));
    const Bytes tail(out.begin() + static_cast<std::ptrdiff_t>(in.size()), out.end());
    lengths.insert(tail.size());
    const auto all = [&](std::uint8_t b) {
      return std::all_of(tail.begin(), tail.end(), [b](std::uint8_t x) { return x == b; });
    };
    if (all(0x00)) zeros = true;
    else if (all(0x0a)) lfs = true;
    else if (starts_with(in, tail) || starts_with(tail, in)) start = true;
    else noise = true;
    // Room for 5: never more.
    EXPECT_LE(damaged(in, TextDamage::kAppendBytes, in.size() + 5, seed).size(), in.size() + 5);
  }
  EXPECT_TRUE(zeros && lfs && noise && start);
  EXPECT_EQ(*lengths.begin(), 1u);
  EXPECT_EQ(*lengths.rbegin(), 16u);
}

// ---- the random entry points ----

TEST(DamageAsText, ADrawnKindIsReproducibleAndStaysWithinMaxSize) {
  const Bytes in = text_sample();
  std::set<Bytes> outputs;
  for (unsigned seed = 1; seed <= 500; ++seed) {
    Bytes a = in, b = in;
    Random first = rng_for(seed), second = rng_for(seed);
    damage_as_text(a, first, in.size() + 4);
    damage_as_text(b, second, in.size() + 4);
    EXPECT_EQ(a, b);
    EXPECT_LE(a.size(), in.size() + 4);
    outputs.insert(a);
  }
  // Every kind is drawn: each one's output is among them.
  for (TextDamage kind : {TextDamage::kAppendLf, TextDamage::kAppendCrLf, TextDamage::kAppendDosEof,
                          TextDamage::kAppendBom, TextDamage::kPrependBom, TextDamage::kLfToCrLf,
                          TextDamage::kCrLfToLf, TextDamage::kStripTrailingLf})
    EXPECT_TRUE(outputs.count(damaged(in, kind))) << static_cast<int>(kind);
}

TEST(MutateBytes, IsReproducibleStaysWithinMaxSizeAndDamagesAsText) {
  const Bytes in = build(two_tensors()).value().bytes;
  bool bom = false, crlf_end = false;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    Bytes a = in, b = in;
    const std::size_t max_size = in.size() + 8;
    a.resize(max_size);
    b.resize(max_size);
    Random first = rng_for(seed), second = rng_for(seed);
    a.resize(mutate_bytes(a.data(), in.size(), max_size, first));
    b.resize(mutate_bytes(b.data(), in.size(), max_size, second));
    ASSERT_EQ(a, b);
    ASSERT_LE(a.size(), max_size);
    bom = bom || starts_with(a, {0xef, 0xbb, 0xbf});
    crlf_end = crlf_end || ends_with(a, {0x0d, 0x0a});
  }
  EXPECT_TRUE(bom);
  EXPECT_TRUE(crlf_end);
}

ByteMutator byte_mutator(Random& rng) {
  return [&rng](std::uint8_t* data, std::size_t size, std::size_t max_size) {
    return mutate_bytes(data, size, max_size, rng);
  };
}

TEST(MutateBlock, DamagesSomeOutputsAtTheirEndsAndIsReproducible) {
  const Bytes in = build(two_tensors()).value().bytes;
  const std::size_t max_size = 4096;
  int lf_after_block = 0, bom_before_block = 0, outputs = 0;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    Random first = rng_for(seed), second = rng_for(seed);
    const auto a = mutate_block(in, first, max_size, byte_mutator(first));
    const auto b = mutate_block(in, second, max_size, byte_mutator(second));
    ASSERT_EQ(a, b);
    if (!a) continue;
    ++outputs;
    ASSERT_LE(a->size(), max_size);
    // A block that decodes once its last byte, a 0a, is gone: a line end after it.
    if (a->back() == 0x0a && decode(std::span(*a).first(a->size() - 1))) ++lf_after_block;
    if (starts_with(*a, {0xef, 0xbb, 0xbf})) ++bom_before_block;
  }
  EXPECT_GT(lf_after_block, 0);
  EXPECT_GT(bom_before_block, 0);
  // One output in eight is damaged: ten kinds, so any one kind stays rare.
  EXPECT_LT(lf_after_block + bom_before_block, outputs / 8);
}

// ---- mutate_description: the clone and the swap ----

bool same_but_name(const TensorDescription& a, const TensorDescription& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.layout == b.layout &&
         a.block_size == b.block_size && a.payload == b.payload;
}

// The tensor itself, or a clone: the same but for a suffix "~N" to its name.
bool is_clone_of(const TensorDescription& t, const TensorDescription& original) {
  const std::string prefix = original.name + "~";
  return t == original ||
         (same_but_name(t, original) && t.name.size() > prefix.size() &&
          t.name.compare(0, prefix.size(), prefix) == 0 &&
          t.name.find_first_not_of("0123456789", prefix.size()) == std::string::npos);
}

TEST(MutateDescription, ClonesATensorUnderFreshNamesIntoAValidBlock) {
  const BlockDescription original = two_tensors();
  int valid_clones = 0;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    BlockDescription block = original;
    Random rng = rng_for(seed);
    mutate_description(block, rng, 4096, byte_mutator(rng));
    if (block.tensors.size() <= original.tensors.size() || block.tensors.size() > 5) continue;
    // Only the originals and clones of them, every name distinct: the clone step alone.
    std::set<std::string> names;
    bool clones_only = true;
    for (const auto& t : block.tensors) {
      names.insert(t.name);
      clones_only = clones_only && std::any_of(original.tensors.begin(), original.tensors.end(),
                                               [&](const auto& o) { return is_clone_of(t, o); });
    }
    if (!clones_only || names.size() != block.tensors.size()) continue;
    const auto built = build(block);
    ASSERT_TRUE(built);
    EXPECT_TRUE(decode(built.value().bytes)) << "seed " << seed;
    ++valid_clones;
  }
  EXPECT_GT(valid_clones, 0);
}

TEST(MutateDescription, SwapsTwoTensors) {
  const BlockDescription original = two_tensors();
  const BlockDescription swapped{{original.tensors[1], original.tensors[0]}};
  int swaps = 0;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    BlockDescription block = original;
    Random rng = rng_for(seed);
    mutate_description(block, rng, 4096, byte_mutator(rng));
    if (block == swapped) ++swaps;
  }
  EXPECT_GT(swaps, 0);
}

TEST(MutateDescription, IsReproducible) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    BlockDescription a = two_tensors(), b = two_tensors();
    Random first = rng_for(seed), second = rng_for(seed);
    mutate_description(a, first, 4096, byte_mutator(first));
    mutate_description(b, second, 4096, byte_mutator(second));
    ASSERT_EQ(a, b) << "seed " << seed;
  }
}

}  // namespace
}  // namespace kiln::mutate
