// The Hurray element codec (HURRAY.md): the seed's worked examples byte for byte,
// every rule broken, every remainder of every sub-byte width, scalars, zero-size
// and huge shapes, the whole tag space, and element reads that assemble bytes
// little-endian whatever the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/hex.hpp"
#include "kiln/hurray.hpp"

namespace kiln::hurray {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::uint64_t>;

constexpr std::uint64_t kMax = ~std::uint64_t{0};

const TypeInfo& type(std::string_view name) {
  const TypeInfo* info = type_by_name(name);
  if (info == nullptr) throw std::logic_error("no type " + std::string(name));
  return *info;
}

std::uint8_t tag(std::string_view name) { return type(name).tag; }

Bytes hex(std::string_view text) { return *from_hex(text, nullptr, true); }

std::vector<Element> elements(std::initializer_list<const char*> texts) {
  std::vector<Element> out;
  for (const char* text : texts) out.push_back(*element_from_hex(text));
  return out;
}

// The decoded elements as the protocol writes them.
std::vector<std::string> element_texts(const Decoded& decoded) {
  std::vector<std::string> out;
  for (std::uint64_t i = 0; i < decoded.count; ++i)
    out.push_back(element_to_hex(decoded.element(i), decoded.type->bits));
  return out;
}

std::string outcome(const Result<Decoded>& result) {
  if (!result) return "reject " + result.error().describe();
  if (result.value().opaque) return "opaque";
  return "accept";
}

// ---------------------------------------------------------------- worked examples

struct Worked {
  const char* id;
  const char* type;
  Shape shape;
  std::vector<std::string> elements;
  const char* bytes;
};

const std::vector<Worked> kWorked = {
    {"hurray-bool-5", "bool", {5}, {"1", "0", "1", "1", "0"}, "0d"},
    {"hurray-uint4-3", "uint4", {3}, {"5", "c", "3"}, "c503"},
    {"hurray-uint2-3", "uint2", {3}, {"3", "1", "2"}, "27"},
    {"hurray-float6-4", "float6_e2m3", {4}, {"01", "02", "04", "08"}, "814020"},
    {"brief complex64 1+2i", "complex64", {1}, {"400000003f800000"}, "0000803f00000040"},
};

TEST(HurrayWorkedExamples, DecodeGivesTheSeedsElements) {
  for (const Worked& example : kWorked) {
    SCOPED_TRACE(example.id);
    const Bytes bytes = hex(example.bytes);
    const auto decoded = decode(tag(example.type), example.shape, Mode::kStrict, bytes);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(element_texts(decoded.value()), example.elements);
    EXPECT_EQ(decoded.value().extra_bytes, 0u);
  }
}

TEST(HurrayWorkedExamples, EncodeGivesTheSeedsBytes) {
  for (const Worked& example : kWorked) {
    SCOPED_TRACE(example.id);
    std::vector<Element> values;
    for (const auto& text : example.elements) values.push_back(*element_from_hex(text));
    const auto encoded = encode(tag(example.type), example.shape, values);
    ASSERT_TRUE(encoded) << encoded.error().describe();
    EXPECT_EQ(to_hex(encoded.value()), example.bytes);
  }
}

TEST(HurrayWorkedExamples, E8m0ReservedPatternsAreDataRejects) {
  for (const char* text : {"00", "ff"}) {
    const auto decoded = decode(tag("float8_e8m0"), Shape{1}, Mode::kStrict, hex(text));
    ASSERT_FALSE(decoded) << text;
    EXPECT_EQ(decoded.error().rule, Rule::kE8m0Reserved);
    EXPECT_EQ(decoded.error().error_class(), ErrorClass::kData);
    EXPECT_EQ(decoded.error().offset, 0u);
    const auto encoded = encode(tag("float8_e8m0"), Shape{1}, elements({text}));
    ASSERT_FALSE(encoded) << text;
    EXPECT_EQ(encoded.error().rule, Rule::kE8m0Reserved);
  }
  // Its neighbours 01 and fe are ordinary scales.
  EXPECT_TRUE(decode(tag("float8_e8m0"), Shape{2}, Mode::kStrict, hex("01fe")));
}

// Encode checks each element in order, its value then its pattern: the first
// broken rule encode_broken_rules lists is the one encode reports, whichever
// element comes first (isolation reads that list; a property found the order
// wrong when a reserved e8m0 came before an out-of-range element).
TEST(HurrayWorkedExamples, EncodeBrokenRulesFollowTheElementsInOrder) {
  const std::uint8_t e8m0 = tag("float8_e8m0");
  const struct {
    std::vector<std::string> elements;
    std::vector<Rule> broken;
  } examples[] = {
      {{"ff", "1ff"}, {Rule::kE8m0Reserved, Rule::kEncodeRange}},
      {{"1ff", "ff"}, {Rule::kEncodeRange, Rule::kE8m0Reserved}},
      {{"01", "100"}, {Rule::kEncodeRange}},
      {{"00", "01"}, {Rule::kE8m0Reserved}},
  };
  for (const auto& example : examples) {
    std::vector<Element> values;
    for (const std::string& text : example.elements) values.push_back(*element_from_hex(text));
    const auto encoded = encode(e8m0, Shape{2}, values);
    ASSERT_FALSE(encoded) << example.elements[0];
    EXPECT_EQ(encode_broken_rules(e8m0, Shape{2}, values), example.broken) << example.elements[0];
    EXPECT_EQ(encoded.error().rule, example.broken.front()) << example.elements[0];
  }
}

TEST(HurrayWorkedExamples, Tags00AndFFAreRejectedInBothModesAnd47OnlyInStrict) {
  for (Mode mode : {Mode::kStrict, Mode::kPermissive}) {
    for (std::uint8_t bad : {std::uint8_t{0x00}, std::uint8_t{0xFF}}) {
      const auto decoded = decode(bad, Shape{1}, mode, hex("01"));
      ASSERT_FALSE(decoded);
      EXPECT_EQ(decoded.error().rule, Rule::kTagZeroFF);
      EXPECT_EQ(decoded.error().error_class(), ErrorClass::kTag);
    }
  }
  const auto strict = decode(0x47, Shape{1}, Mode::kStrict, hex("01"));
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().rule, Rule::kTagUnrecognized);
  const auto permissive = decode(0x47, Shape{1}, Mode::kPermissive, hex("01"));
  ASSERT_TRUE(permissive);
  EXPECT_TRUE(permissive.value().opaque);
  EXPECT_EQ(permissive.value().type, nullptr);
  EXPECT_EQ(permissive.value().data.size(), 1u);
}

// ---------------------------------------------------------------- every rule broken

struct Breaking {
  Rule rule;
  std::string what;
  std::optional<std::uint64_t> offset;  // decoder cases; element index for encoder cases
  bool encoder;
  std::uint8_t tag;
  Shape shape;
  Bytes data;                      // decoder input
  std::vector<Element> elements;   // encoder input
};

std::vector<Breaking> breaking_cases() {
  const Element wide = *element_from_hex("1" + std::string(32, '0'));  // 2^128
  return {
      {Rule::kTagZeroFF, "decode tag 00", std::nullopt, false, 0x00, {1}, hex("01"), {}},
      {Rule::kTagZeroFF, "encode tag ff", std::nullopt, true, 0xFF, {1}, {}, elements({"01"})},
      {Rule::kTagUnrecognized, "decode tag 05", std::nullopt, false, 0x05, {1}, hex("01"), {}},
      {Rule::kTagUnrecognized, "encode tag 80", std::nullopt, true, 0x80, {1}, {}, elements({"1"})},
      {Rule::kCountOverflow, "decode 2^32 x 2^32", std::nullopt, false, tag("uint8"),
       {1ull << 32, 1ull << 32}, hex("01"), {}},
      {Rule::kCountOverflow, "encode 2^63 x 2", std::nullopt, true, tag("bool"),
       {1ull << 63, 2}, {}, elements({"1"})},
      {Rule::kSizeOverflow, "decode float32 x 2^62", std::nullopt, false, tag("float32"),
       {1ull << 62}, hex("00000000"), {}},
      {Rule::kSizeOverflow, "encode complex128 x 2^60", std::nullopt, true, tag("complex128"),
       {1ull << 60}, {}, elements({"1"})},
      {Rule::kDataShort, "decode uint16 [2] in 3 bytes", 3, false, tag("uint16"), {2},
       hex("010203"), {}},
      {Rule::kPadBool, "decode bool [5] with bit 5 set", 0, false, tag("bool"), {5}, hex("2d"), {}},
      {Rule::kPad2Bit, "decode uint2 [3] with bit 6 set", 0, false, tag("uint2"), {3}, hex("67"),
       {}},
      {Rule::kPad4Bit, "decode uint4 [3] with a high nibble", 1, false, tag("uint4"), {3},
       hex("c513"), {}},
      {Rule::kPad6Bit, "decode float6_e3m2 [1], byte 2 of the group", 2, false,
       tag("float6_e3m2"), {1}, hex("010080"), {}},
      {Rule::kE8m0Reserved, "decode e8m0 ff at byte 2", 2, false, tag("float8_e8m0"), {3},
       hex("7f80ff"), {}},
      {Rule::kE8m0Reserved, "encode e8m0 00 at element 1", 1, true, tag("float8_e8m0"), {2}, {},
       elements({"7f", "00"})},
      {Rule::kEncodeCount, "encode 2 elements for [3]", std::nullopt, true, tag("uint8"), {3}, {},
       elements({"1", "2"})},
      {Rule::kEncodeRange, "encode 10 as uint4", 1, true, tag("uint4"), {2}, {},
       elements({"f", "10"})},
      {Rule::kEncodeRange, "encode 2^128 as float128", 0, true, tag("float128"), {1}, {}, {wide}},
  };
}

TEST(HurrayRules, EveryRuleIsBrokenByACase) {
  std::set<Rule> broken;
  for (const Breaking& c : breaking_cases()) broken.insert(c.rule);
  for (const RuleInfo& info : all_rules())
    EXPECT_TRUE(broken.count(info.rule)) << info.id << " has no breaking case";
}

TEST(HurrayRules, EachBreakingCaseIsRejectedWithItsRuleClassAndPosition) {
  for (const Breaking& c : breaking_cases()) {
    SCOPED_TRACE(c.what);
    if (c.encoder) {
      const auto encoded = encode(c.tag, c.shape, c.elements);
      ASSERT_FALSE(encoded);
      EXPECT_EQ(encoded.error().rule_id(), rule_info(c.rule).id) << encoded.error().describe();
      EXPECT_EQ(encoded.error().element, c.offset);
    } else {
      for (Mode mode : {Mode::kStrict, Mode::kPermissive}) {
        if (mode == Mode::kPermissive && c.rule == Rule::kTagUnrecognized) continue;
        const auto decoded = decode(c.tag, c.shape, mode, c.data);
        ASSERT_FALSE(decoded);
        EXPECT_EQ(decoded.error().rule_id(), rule_info(c.rule).id) << decoded.error().describe();
        EXPECT_EQ(decoded.error().error_class(), rule_info(c.rule).error_class);
        EXPECT_EQ(decoded.error().offset, c.offset);
        EXPECT_FALSE(decoded.error().message.empty());
      }
    }
  }
}

TEST(HurrayRules, TagRulesAreTagClassAndTheRestData) {
  for (const RuleInfo& info : all_rules()) {
    const bool tag_rule = info.id.starts_with("HURRAY-TAG-");
    EXPECT_EQ(info.error_class, tag_rule ? ErrorClass::kTag : ErrorClass::kData) << info.id;
    EXPECT_EQ(rule_from_id(info.id), info.rule);
    EXPECT_EQ(&rule_info(info.rule), &info);
  }
  EXPECT_FALSE(rule_from_id("TYPE-BOOL-BYTE"));
  EXPECT_EQ(error_class_from_string("TAG"), ErrorClass::kTag);
  EXPECT_EQ(error_class_from_string("DATA"), ErrorClass::kData);
  EXPECT_FALSE(error_class_from_string("FRAME"));
}

TEST(HurrayRules, CheckOrderPutsEarlierRulesFirst) {
  // Short data and a set padding bit: the size wins.
  auto decoded = decode(tag("bool"), Shape{9}, Mode::kStrict, hex("ff"));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().rule, Rule::kDataShort);
  // Overflowing count with an unrecognized tag: the tag wins.
  decoded = decode(0x05, Shape{kMax, kMax}, Mode::kStrict, {});
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().rule, Rule::kTagUnrecognized);
  // Permissive mode checks nothing after the tag: even an overflowing shape is opaque.
  decoded = decode(0x05, Shape{kMax, kMax}, Mode::kPermissive, {});
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(decoded.value().opaque);
  // Encoder: count before range.
  const auto encoded = encode(tag("uint2"), Shape{3}, elements({"4"}));
  ASSERT_FALSE(encoded);
  EXPECT_EQ(encoded.error().rule, Rule::kEncodeCount);
}

TEST(HurrayRules, DescribeNamesClassRuleAndPosition) {
  const auto decoded = decode(tag("uint4"), Shape{3}, Mode::kStrict, hex("c513"));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().describe().rfind("DATA HURRAY-PAD-4BIT at byte 1: ", 0), 0u)
      << decoded.error().describe();
  const auto encoded = encode(tag("uint4"), Shape{1}, elements({"10"}));
  ASSERT_FALSE(encoded);
  EXPECT_EQ(encoded.error().describe().rfind("DATA HURRAY-ENC-RANGE at element 0: ", 0), 0u);
}

// ---------------------------------------------------------------- remainders and padding

// Every count up to three whole units past each remainder, for every sub-byte
// type: the size is the formula's, the packing round-trips, every unused bit
// breaks the width's padding rule at its byte, and no used bit does.
TEST(HurrayRemainders, EverySubByteCountPacksAndEveryPaddingBitIsChecked) {
  for (const TypeInfo& info : kTypes) {
    if (info.bits >= 8) continue;
    SCOPED_TRACE(std::string(info.name));
    const unsigned per_unit = info.bits == 6 ? 4 : 8 / info.bits;
    const unsigned unit_bytes = info.bits == 6 ? 3 : 1;
    for (std::uint64_t n = 0; n <= 3 * per_unit; ++n) {
      SCOPED_TRACE("N = " + std::to_string(n));
      std::vector<Element> values;
      const std::uint64_t all_ones = (std::uint64_t{1} << info.bits) - 1;
      for (std::uint64_t i = 0; i < n; ++i) values.push_back({(i * 0x5Bu + 1) & all_ones});
      const auto encoded = encode(info.tag, Shape{n}, values);
      ASSERT_TRUE(encoded) << encoded.error().describe();
      const Bytes& bytes = encoded.value();
      ASSERT_EQ(bytes.size(), (n + per_unit - 1) / per_unit * unit_bytes);
      ASSERT_EQ(data_size(info, n), bytes.size());
      const auto decoded = decode(info.tag, Shape{n}, Mode::kStrict, bytes);
      ASSERT_TRUE(decoded) << decoded.error().describe();
      for (std::uint64_t i = 0; i < n; ++i) EXPECT_EQ(decoded.value().element(i), values[i]);

      // Flip each bit of the last unit: used bits change an element, unused ones
      // break the padding rule, reported at the flipped bit's byte.
      if (bytes.empty()) continue;
      const std::uint64_t unit_start = bytes.size() - unit_bytes;
      const unsigned used_bits = static_cast<unsigned>(n - (unit_start / unit_bytes) * per_unit) *
                                 info.bits;
      for (unsigned bit = 0; bit < 8 * unit_bytes; ++bit) {
        Bytes flipped = bytes;
        flipped[unit_start + bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        const auto result = decode(info.tag, Shape{n}, Mode::kStrict, flipped);
        if (bit < used_bits) {
          EXPECT_TRUE(result) << "bit " << bit << ": " << outcome(result);
        } else {
          ASSERT_FALSE(result) << "bit " << bit;
          EXPECT_EQ(result.error().rule_id(),
                    info.bits == 1   ? "HURRAY-PAD-BOOL"
                    : info.bits == 2 ? "HURRAY-PAD-2BIT"
                    : info.bits == 4 ? "HURRAY-PAD-4BIT"
                                     : "HURRAY-PAD-6BIT");
          EXPECT_EQ(result.error().offset, unit_start + bit / 8);
        }
      }
    }
  }
}

// The 6-bit padding covers the whole final group, not only its last byte.
TEST(HurrayRemainders, SixBitPaddingIsEveryUnusedBitOfTheFinalGroup) {
  const std::uint8_t t = tag("float6_e2m3");
  // N = 1 uses bits 0..5: bit 6 (byte 0) and all of bytes 1 and 2 are padding.
  EXPECT_TRUE(decode(t, Shape{1}, Mode::kStrict, hex("3f0000")));
  EXPECT_EQ(decode(t, Shape{1}, Mode::kStrict, hex("400000")).error().offset, 0u);
  EXPECT_EQ(decode(t, Shape{1}, Mode::kStrict, hex("000100")).error().offset, 1u);
  // N = 2 uses bits 0..11: the high nibble of byte 1 and byte 2.
  EXPECT_TRUE(decode(t, Shape{2}, Mode::kStrict, hex("ff0f00")));
  EXPECT_EQ(decode(t, Shape{2}, Mode::kStrict, hex("ff1f00")).error().offset, 1u);
  // N = 3 uses bits 0..17: bits 2..7 of byte 2.
  EXPECT_TRUE(decode(t, Shape{3}, Mode::kStrict, hex("ffff03")));
  EXPECT_EQ(decode(t, Shape{3}, Mode::kStrict, hex("ffff04")).error().rule, Rule::kPad6Bit);
  // ceil(6N / 8) bytes is short: N = 1 in 1 byte, N = 2 in 2 bytes, N = 5 in 4 bytes.
  EXPECT_EQ(decode(t, Shape{1}, Mode::kStrict, hex("01")).error().rule, Rule::kDataShort);
  EXPECT_EQ(decode(t, Shape{2}, Mode::kStrict, hex("0100")).error().rule, Rule::kDataShort);
  EXPECT_EQ(decode(t, Shape{5}, Mode::kStrict, hex("00000000")).error().rule, Rule::kDataShort);
}

// ---------------------------------------------------------------- shapes and sizes

TEST(HurrayShapes, AScalarHoldsOneElementOfEveryType) {
  for (const TypeInfo& info : kTypes) {
    SCOPED_TRACE(std::string(info.name));
    const std::uint64_t size = info.bits == 6 ? 3 : (info.bits + 7) / 8;
    EXPECT_EQ(data_size(info, 1), size);
    if (info.bits < 8) {
      // Element 0 is 1; every other bit is padding.
      Bytes first_only(size, 0);
      first_only[0] = 1;
      const auto scalar = decode(info.tag, Shape{}, Mode::kStrict, first_only);
      ASSERT_TRUE(scalar) << scalar.error().describe();
      EXPECT_EQ(scalar.value().count, 1u);
      EXPECT_EQ(scalar.value().element(0), Element{1});
      continue;
    }
    const Bytes data(size, 0x01);  // 0x01 bytes: valid for e8m0 too
    const auto decoded = decode(info.tag, Shape{}, Mode::kStrict, data);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(decoded.value().count, 1u);
    EXPECT_EQ(decoded.value().data.size(), size);
    const auto encoded = encode(info.tag, Shape{}, std::vector<Element>{decoded.value().element(0)});
    ASSERT_TRUE(encoded);
    EXPECT_EQ(encoded.value(), data);
  }
}

TEST(HurrayShapes, AZeroDimensionMakesNZeroWhateverTheOthersAre) {
  EXPECT_EQ(element_count(Shape{0}), 0u);
  EXPECT_EQ(element_count(Shape{kMax, 0, kMax}), 0u);
  EXPECT_EQ(element_count(Shape{}), 1u);
  EXPECT_EQ(element_count(Shape{kMax}), kMax);
  EXPECT_EQ(element_count(Shape{kMax, 1, 1}), kMax);
  EXPECT_FALSE(element_count(Shape{kMax, 2}));
  EXPECT_FALSE(element_count(Shape{1ull << 32, 1ull << 32}));
  EXPECT_EQ(element_count(Shape{1ull << 32, (1ull << 32) - 1}), kMax - (1ull << 32) + 1);
  for (const TypeInfo& info : kTypes) {
    const auto decoded = decode(info.tag, Shape{kMax, 0, kMax}, Mode::kStrict, {});
    ASSERT_TRUE(decoded) << info.name;
    EXPECT_EQ(decoded.value().count, 0u);
    EXPECT_TRUE(decoded.value().data.empty());
    const auto encoded = encode(info.tag, Shape{3, 0}, std::vector<Element>{});
    ASSERT_TRUE(encoded) << info.name;
    EXPECT_TRUE(encoded.value().empty());
  }
}

TEST(HurrayShapes, SizesNear2To64AreCheckedNotWrapped) {
  // 6-bit: ceil(N / 4) * 3 never overflows (N * 6 / 8 would): N = 2^64 - 1 needs 3 * 2^62.
  EXPECT_EQ(data_size(type("float6_e2m3"), kMax), 3 * (1ull << 62));
  EXPECT_EQ(data_size(type("bool"), kMax), (1ull << 61));
  EXPECT_EQ(data_size(type("uint2"), kMax), (1ull << 62));
  EXPECT_EQ(data_size(type("uint4"), kMax), (1ull << 63));
  EXPECT_EQ(data_size(type("uint8"), kMax), kMax);
  EXPECT_EQ(data_size(type("uint16"), kMax / 2), kMax - 1);
  EXPECT_FALSE(data_size(type("uint16"), kMax / 2 + 1));
  EXPECT_EQ(data_size(type("float128"), kMax / 16), kMax - 15);
  EXPECT_FALSE(data_size(type("float128"), kMax / 16 + 1));
  EXPECT_FALSE(data_size(type("complex64"), (1ull << 61)));
}

TEST(HurrayShapes, HugeDeclaredShapesWithTinyDataAreShort) {
  for (const TypeInfo& info : kTypes) {
    SCOPED_TRACE(std::string(info.name));
    const Bytes tiny = hex("0102");  // 2^59 elements: S fits u64 for every width
    const auto decoded = decode(info.tag, Shape{1ull << 40, 1ull << 19}, Mode::kStrict, tiny);
    ASSERT_FALSE(decoded);
    EXPECT_EQ(decoded.error().rule, Rule::kDataShort);
    EXPECT_EQ(decoded.error().offset, 2u);
  }
}

// The seed's S is a minimum: bytes after it are the container's, reported and not read.
TEST(HurrayShapes, BytesAfterSAreReportedNotJudged) {
  const auto decoded = decode(tag("uint4"), Shape{3}, Mode::kStrict, hex("c503ff00"));
  ASSERT_TRUE(decoded) << decoded.error().describe();
  EXPECT_EQ(decoded.value().data.size(), 2u);
  EXPECT_EQ(decoded.value().extra_bytes, 2u);
  // Padding bits are those of byte S - 1, not of the last byte given.
  EXPECT_EQ(decode(tag("uint4"), Shape{3}, Mode::kStrict, hex("c513ff")).error().rule,
            Rule::kPad4Bit);
  // An e8m0 00 after S is not an element.
  EXPECT_TRUE(decode(tag("float8_e8m0"), Shape{1}, Mode::kStrict, hex("0100")));
}

// ---------------------------------------------------------------- tags

TEST(HurrayTags, EveryTagIsClassifiedAsTheSeedPartitionsTheSpace) {
  std::set<std::uint8_t> table_tags;
  for (const TypeInfo& info : kTypes) table_tags.insert(info.tag);
  for (unsigned t = 0; t < 256; ++t) {
    const auto tag8 = static_cast<std::uint8_t>(t);
    const TagClass c = classify_tag(tag8);
    if (t == 0x00 || t == 0xFF) EXPECT_EQ(c, TagClass::kZeroOrFF);
    else if (table_tags.count(tag8)) EXPECT_TRUE(c == TagClass::kTier1 || c == TagClass::kTier2);
    else if (t <= 0x3F) EXPECT_EQ(c, TagClass::kTier1Unassigned) << t;
    else if (t == 0x47) EXPECT_EQ(c, TagClass::kReserved47);
    else if (t <= 0x7F) EXPECT_EQ(c, TagClass::kTier2Unassigned) << t;
    else if (t <= 0xEF) EXPECT_EQ(c, TagClass::kReservedFuture) << t;
    else EXPECT_EQ(c, TagClass::kPrivate) << t;
  }
  EXPECT_EQ(classify_tag(0x01), TagClass::kTier1);
  EXPECT_EQ(classify_tag(0x46), TagClass::kTier2);
}

// Every tag, both modes, with all, none and one of the Tier 2 types supported.
TEST(HurrayTags, DecodeOutcomeFollowsTagClassModeAndSupportedSet) {
  TagSet only_e5m2;
  only_e5m2.add(tag("float8_e5m2"));
  for (const TagSet& supported : {TagSet::all_tier2(), TagSet{}, only_e5m2}) {
    for (unsigned t = 0; t < 256; ++t) {
      const auto tag8 = static_cast<std::uint8_t>(t);
      const TypeInfo* info = type_by_tag(tag8);
      const bool recognized =
          info != nullptr && (info->tier == Tier::k1 || supported.contains(tag8));
      // One element's worth of 0x01 bytes (three for 6-bit, whose later bytes are padding).
      Bytes data(info ? *data_size(*info, 1) : 1, 0);
      data[0] = 1;
      for (Mode mode : {Mode::kStrict, Mode::kPermissive}) {
        SCOPED_TRACE("tag " + std::to_string(t) + " " + std::string(to_string(mode)));
        const auto decoded = decode(tag8, Shape{}, mode, data, supported);
        if (t == 0x00 || t == 0xFF) {
          ASSERT_FALSE(decoded);
          EXPECT_EQ(decoded.error().rule, Rule::kTagZeroFF);
        } else if (recognized) {
          ASSERT_TRUE(decoded) << decoded.error().describe();
          EXPECT_EQ(decoded.value().type, info);
        } else if (mode == Mode::kStrict) {
          ASSERT_FALSE(decoded);
          EXPECT_EQ(decoded.error().rule, Rule::kTagUnrecognized);
        } else {
          ASSERT_TRUE(decoded);
          EXPECT_TRUE(decoded.value().opaque);
        }
        const auto encoded = encode(tag8, Shape{}, std::vector<Element>{{1}}, supported);
        if (recognized) EXPECT_TRUE(encoded);
        else EXPECT_EQ(encoded.error().error_class(), ErrorClass::kTag);
      }
    }
  }
}

TEST(HurrayTags, TableLookupsAgree) {
  for (const TypeInfo& info : kTypes) {
    EXPECT_EQ(type_by_tag(info.tag), &info);
    EXPECT_EQ(type_by_name(info.name), &info);
  }
  EXPECT_EQ(type_by_tag(0x47), nullptr);
  EXPECT_EQ(type_by_name("f32"), nullptr);  // Kiln's name, not Hurray's
  EXPECT_EQ(type("float8_e8m0").tag, kE8m0Tag);
}

// ---------------------------------------------------------------- elements and byte order

// Each multi-byte element is assembled from its bytes little-endian, so these hold
// on any host; a native load would give other values on a big-endian one.
TEST(HurrayByteOrder, ElementsAreLittleEndianByteAssemblies) {
  struct Case {
    const char* type;
    const char* bytes;
    const char* element;
  };
  for (const Case& c : std::vector<Case>{
           {"float16", "003c", "3c00"},
           {"bfloat16", "803f", "3f80"},
           {"float32", "0000803f", "3f800000"},
           {"int16", "feff", "fffe"},
           {"uint32", "01020304", "04030201"},
           {"float64", "000000000000f03f", "3ff0000000000000"},
           {"uint64", "0102030405060708", "0807060504030201"},
           {"complex128", "000000000000f03f0000000000000040",
            "40000000000000003ff0000000000000"},
           {"float128", "0102030405060708090a0b0c0d0e0f10", "100f0e0d0c0b0a090807060504030201"},
       }) {
    SCOPED_TRACE(c.type);
    const Bytes bytes = hex(c.bytes);
    const auto decoded = decode(tag(c.type), Shape{1}, Mode::kStrict, bytes);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(element_to_hex(decoded.value().element(0), type(c.type).bits), c.element);
    const auto encoded = encode(tag(c.type), Shape{1}, elements({c.element}));
    ASSERT_TRUE(encoded);
    EXPECT_EQ(encoded.value(), bytes);
  }
}

TEST(HurrayElements, EncodeKeepsEveryBitOfSpecialValues) {
  struct Case {
    const char* type;
    std::vector<std::string> values;
  };
  for (const Case& c : std::vector<Case>{
           {"float32", {"7fa00001", "ffc00000", "80000000", "00000001", "7f800000"}},
           {"float16", {"7c01", "fe00", "8000", "0001", "03ff"}},
           {"float64", {"7ff0000000000001", "fff8000000000000", "8000000000000000"}},
           {"float8_e4m3", {"7f", "ff", "80", "01"}},
           {"float8_e5m2", {"7c", "fc", "7d", "ff"}},
           {"float8_e8m0", {"01", "fe", "7f"}},
           {"float128", {"7fff0000000000000000000000000001", "80000000000000000000000000000000"}},
           {"complex64", {"7fc000017fa00000"}},
       }) {
    SCOPED_TRACE(c.type);
    std::vector<Element> values;
    for (const auto& text : c.values) values.push_back(*element_from_hex(text));
    const auto encoded = encode(tag(c.type), Shape{values.size()}, values);
    ASSERT_TRUE(encoded) << encoded.error().describe();
    const auto decoded = decode(tag(c.type), Shape{values.size()}, Mode::kStrict, encoded.value());
    ASSERT_TRUE(decoded);
    EXPECT_EQ(element_texts(decoded.value()), c.values);
  }
}

TEST(HurrayElements, HexIsJudgedByValue) {
  EXPECT_EQ(element_from_hex("000f"), Element{15});
  EXPECT_EQ(element_from_hex("F"), Element{15});
  EXPECT_FALSE(element_from_hex(""));
  EXPECT_FALSE(element_from_hex("0x1"));
  EXPECT_FALSE(element_from_hex("g"));
  EXPECT_FALSE(element_from_hex(" 1"));
  EXPECT_TRUE(fits(*element_from_hex("000f"), 4));
  EXPECT_FALSE(fits(*element_from_hex("10"), 4));
  EXPECT_FALSE(fits(*element_from_hex("2"), 1));
  EXPECT_TRUE(fits(*element_from_hex("3f"), 6));
  EXPECT_FALSE(fits(*element_from_hex("40"), 6));
  const std::string ones128(32, 'f');
  EXPECT_TRUE(fits(*element_from_hex(ones128), 128));
  EXPECT_TRUE(fits(*element_from_hex("0000" + ones128), 128));
  EXPECT_FALSE(fits(*element_from_hex("1" + ones128), 128));
  EXPECT_TRUE(element_from_hex("1" + ones128)->wider_than_128);
  EXPECT_FALSE(fits(*element_from_hex("1" + std::string(40, '0')), 128));
  EXPECT_EQ(element_to_hex(Element{1}, 1), "1");
  EXPECT_EQ(element_to_hex(Element{0x3f}, 6), "3f");
  EXPECT_EQ(element_to_hex(Element{5}, 16), "0005");
  EXPECT_EQ(element_to_hex(*element_from_hex(ones128), 128), ones128);
  // Every width refuses its first value that does not fit.
  for (const TypeInfo& info : kTypes) {
    Element too_big;
    if (info.bits == 128) too_big = *element_from_hex("1" + std::string(32, '0'));
    else if (info.bits == 64) too_big = Element{0, 1};
    else too_big = Element{std::uint64_t{1} << info.bits};
    const auto encoded = encode(info.tag, Shape{1}, std::vector<Element>{too_big});
    ASSERT_FALSE(encoded) << info.name;
    EXPECT_EQ(encoded.error().rule, Rule::kEncodeRange) << info.name;
  }
}

TEST(HurrayModes, NamesRoundTrip) {
  EXPECT_EQ(mode_from_string("strict"), Mode::kStrict);
  EXPECT_EQ(mode_from_string("permissive"), Mode::kPermissive);
  EXPECT_FALSE(mode_from_string("lenient"));
  EXPECT_EQ(to_string(Mode::kPermissive), "permissive");
}

}  // namespace
}  // namespace kiln::hurray
