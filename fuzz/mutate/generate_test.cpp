// kiln::mutate's generation by construction: its catalogues hold what they
// promise, and within the first inputs of the schedule, at every seed, the
// generated blocks and descriptions reach every rule, every dtype at every
// position and beside every other, byte-asymmetric elements of every wide
// dtype, the look-alike names side by side, older versions, bytes before the
// magic, and FRAME and TYPE defects in one block; a seed reproduces them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/layout.hpp"
#include "kiln/mutate/generate.hpp"

namespace kiln::mutate {
namespace {

constexpr std::size_t kMaxBytes = 16 * 1024;  // kiln-conformance fuzz's kMaxFuzzInputBytes
// The generated inputs per op of a 10,000-input run (half decode, half
// encode, every other one generated), with room to spare.
constexpr std::uint64_t kGenerated = 2000;
constexpr unsigned kSeeds = 8;

bool contains(std::span<const std::uint64_t> values, std::uint64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

TEST(InterestingValues, HoldEdgesPowersOfTwoAndByteAsymmetricPatterns) {
  for (std::size_t width : {1u, 2u, 4u, 8u}) {
    const auto values = interesting_values(width);
    const unsigned bits = static_cast<unsigned>(8 * width);
    const std::uint64_t max = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    EXPECT_TRUE(contains(values, 0) && contains(values, 1) && contains(values, max) && contains(values, max - 1))
        << width;
    for (unsigned k = 1; k < bits; ++k) {
      const std::uint64_t power = std::uint64_t{1} << k;
      EXPECT_TRUE(contains(values, power - 1) && contains(values, power) && contains(values, power + 1))
          << width << " bytes, 2^" << k;
    }
    for (std::uint64_t value : values) EXPECT_LE(value, max) << width;
    EXPECT_EQ(std::set<std::uint64_t>(values.begin(), values.end()).size(), values.size()) << "duplicates";
  }
  EXPECT_TRUE(contains(interesting_values(2), 0x0102) && contains(interesting_values(2), 0x0201));
  EXPECT_TRUE(contains(interesting_values(4), 0x01020304) && contains(interesting_values(4), 0x04030201));
  EXPECT_TRUE(contains(interesting_values(8), 0x0102030405060708) &&
              contains(interesting_values(8), 0x0807060504030201));
}

TEST(InterestingNames, AreValidAndLookAlikesAreDistinctValidNames) {
  for (std::string_view name : interesting_names()) {
    BlockDescription block;
    block.tensors.push_back(TensorDescription{std::string(name), 9, {1}, "", 0, {7}});
    EXPECT_TRUE(decode(build(block).value().bytes)) << "not a valid name: " << testing::PrintToString(name);
  }
  for (const auto& [first, second] : look_alike_names()) {
    EXPECT_NE(first, second);
    BlockDescription block;
    block.tensors.push_back(TensorDescription{std::string(first), 9, {1}, "", 0, {7}});
    block.tensors.push_back(TensorDescription{std::string(second), 9, {1}, "", 0, {7}});
    EXPECT_TRUE(decode(build(block).value().bytes)) << testing::PrintToString(first);
  }
}

TEST(Generate, ASeedReproducesEveryInput) {
  for (std::uint64_t index = 0; index < 200; ++index) {
    Random a(7), b(7);
    EXPECT_EQ(generate_block(index, a, kMaxBytes), generate_block(index, b, kMaxBytes)) << index;
    EXPECT_EQ(generate_description(index, a, kMaxBytes), generate_description(index, b, kMaxBytes)) << index;
  }
}

// What the first kGenerated blocks reach at one seed.
struct Reach {
  std::set<std::string> rules;                              // every rule a block breaks first
  std::set<std::pair<std::uint16_t, std::string>> placed;   // dtype, "first" / "middle" / "last"
  std::set<std::pair<std::uint16_t, std::uint16_t>> neighbours;
  std::set<std::uint16_t> asymmetric;                       // wide dtypes with a byte-asymmetric element
  std::set<std::size_t> look_alikes;                        // pairs accepted side by side
  std::set<std::uint8_t> versions;
  bool before_magic = false, frame_over_type = false;
  std::size_t most_tensors = 0;
};

void note_accepted(Reach& reach, const BlockView& view) {
  const auto& tensors = view.tensors;
  reach.most_tensors = std::max(reach.most_tensors, tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::uint16_t code = tensors[i].dtype;
    if (!find_dtype(code)) continue;
    if (i == 0) reach.placed.emplace(code, "first");
    if (i + 1 == tensors.size() && i > 0) reach.placed.emplace(code, "last");
    if (i > 0 && i + 1 < tensors.size()) reach.placed.emplace(code, "middle");
    if (i > 0 && find_dtype(tensors[i - 1].dtype)) reach.neighbours.emplace(tensors[i - 1].dtype, code);
    const DtypeInfo& info = *find_dtype(code);
    for (std::size_t at = 0; info.width >= 2 && at + info.width <= tensors[i].payload.size(); at += info.width) {
      const auto element = tensors[i].payload.subspan(at, info.width);
      if (!std::equal(element.begin(), element.end(), element.rbegin())) reach.asymmetric.insert(code);
    }
  }
  const auto pairs = look_alike_names();
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto has = [&](std::string_view name) {
      return std::any_of(tensors.begin(), tensors.end(), [&](const TensorView& t) { return t.name == name; });
    };
    if (has(pairs[p].first) && has(pairs[p].second)) reach.look_alikes.insert(p);
  }
}

Reach reach_of_blocks(unsigned seed) {
  Reach reach;
  RuleSet every_frame_rule;
  for (const RuleInfo& info : all_rules())
    if (info.error_class == ErrorClass::kFrame) every_frame_rule.add(info.rule);
  Random rng(seed);
  for (std::uint64_t index = 0; index < kGenerated; ++index) {
    const Bytes block = generate_block(index, rng, kMaxBytes);
    EXPECT_LE(block.size(), kMaxBytes);
    if (block.size() > 4) reach.versions.insert(block[4]);
    if (block.size() >= 8 && !std::equal(kMagic.begin(), kMagic.end(), block.begin()) &&
        std::search(block.begin(), block.begin() + 8, kMagic.begin(), kMagic.end()) != block.begin() + 8)
      reach.before_magic = true;
    const auto decoded = decode(block);
    if (decoded) {
      note_accepted(reach, decoded.value());
      continue;
    }
    reach.rules.insert(std::string(rule_info(decoded.error().rule).id));
    if (decoded.error().error_class() == ErrorClass::kFrame) {
      const auto lenient = decode(block, DecodeOptions{every_frame_rule});
      if (!lenient && lenient.error().error_class() == ErrorClass::kType) reach.frame_over_type = true;
    }
  }
  return reach;
}

TEST(Generate, BlocksReachEveryRuleDtypePlaceAndPatternAtEverySeed) {
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Reach reach = reach_of_blocks(seed);
    for (const RuleInfo& info : all_rules())
      if (info.id != "FRAME-FIELD-RANGE") {  // an encoder's rule: no block breaks it
        EXPECT_TRUE(reach.rules.contains(std::string(info.id))) << "no block breaks " << info.id;
      }
    for (const DtypeInfo& info : kDtypes) {
      for (const char* place : {"first", "middle", "last"})
        EXPECT_TRUE(reach.placed.contains({info.code, place})) << info.name << " never " << place;
      for (const DtypeInfo& next : kDtypes)
        EXPECT_TRUE(reach.neighbours.contains({info.code, next.code})) << info.name << " then " << next.name;
      if (info.width >= 2) {
        EXPECT_TRUE(reach.asymmetric.contains(info.code)) << info.name;
      }
    }
    EXPECT_EQ(reach.look_alikes.size(), look_alike_names().size());
    for (std::uint8_t version : {0, 1, kVersion - 1}) EXPECT_TRUE(reach.versions.contains(version)) << int{version};
    EXPECT_TRUE(reach.before_magic);
    EXPECT_TRUE(reach.frame_over_type) << "no block with a FRAME defect beside a TYPE defect";
    EXPECT_GE(reach.most_tensors, 33u);
  }
}

TEST(Generate, DescriptionsReachEveryTypeRuleAndNameRuleAtEverySeed) {
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::set<std::string> rules;
    std::set<std::uint16_t> first;
    Random rng(seed);
    for (std::uint64_t index = 0; index < kGenerated; ++index) {
      const BlockDescription description = generate_description(index, rng, kMaxBytes);
      if (!description.tensors.empty()) first.insert(description.tensors.front().dtype);
      const auto built = build(description);
      ASSERT_TRUE(built) << index;
      const auto decoded = decode(built.value().bytes);
      if (!decoded) rules.insert(std::string(rule_info(decoded.error().rule).id));
    }
    for (const RuleInfo& info : all_rules()) {
      // What a description can break: every TYPE rule and the name rules.
      const bool reachable = info.error_class == ErrorClass::kType || info.id == "FRAME-NAME-EMPTY" ||
                             info.id == "FRAME-NAME-UTF8" || info.id == "FRAME-NAME-UNIQUE";
      if (reachable) {
        EXPECT_TRUE(rules.contains(std::string(info.id))) << "no description breaks " << info.id;
      }
    }
    for (const DtypeInfo& info : kDtypes) EXPECT_TRUE(first.contains(info.code)) << info.name;
  }
}

}  // namespace
}  // namespace kiln::mutate
