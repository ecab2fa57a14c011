// Lenient decoding: a waived rule is skipped and the decoder reads on from the
// canonical positions; the bounds that keep it inside the input are never waived.
#include <gtest/gtest.h>

#include <random>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

DecodeOptions waiving(std::initializer_list<Rule> rules) {
  DecodeOptions options;
  for (Rule rule : rules) options.waived.add(rule);
  return options;
}

DecodeOptions waiving_everything() {
  DecodeOptions options;
  for (const RuleInfo& info : all_rules())
    if (is_waivable(info.rule)) options.waived.add(info.rule);
  return options;
}

const BlockDescription kTwoTensors = block({tensor("a", 2, {1}, {0, 0, 0x80, 0x3f}),
                                            tensor("b", 17, {3}, {0x21, 0x03})});

TEST(LenientDecode, AWaivedHeaderRuleReadsTheBlockAsIfItHeld) {
  const Bytes bytes = with_byte(bytes_of(kTwoTensors), 0, 'X');
  EXPECT_EQ(decode(bytes).error().rule, Rule::kFrameMagic);
  const auto lenient = decode(bytes, waiving({Rule::kFrameMagic}));
  ASSERT_TRUE(lenient.ok()) << lenient.error().describe();
  EXPECT_EQ(lenient.value().to_description(), kTwoTensors);
}

TEST(LenientDecode, AWaivedOffsetIsReadFromTheCanonicalPosition) {
  const Bytes bytes = with_field(bytes_of(kTwoTensors), 1, entry::kDataOffset, 65);
  EXPECT_EQ(decode(bytes).error().rule, Rule::kFrameDataOffset);
  const auto lenient = decode(bytes, waiving({Rule::kFrameDataOffset}));
  ASSERT_TRUE(lenient.ok()) << lenient.error().describe();
  EXPECT_EQ(lenient.value().to_description(), kTwoTensors);

  const Bytes moved_name = with_field(bytes_of(kTwoTensors), 0, entry::kNameOffset, 0);
  const auto read = decode(moved_name, waiving({Rule::kFrameNameOffset}));
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(read.value().tensors[0].name, "a");
}

TEST(LenientDecode, OtherRulesStillHoldWhenOneIsWaived) {
  Bytes bytes = with_byte(bytes_of(kTwoTensors), 0, 'X');
  bytes = with_byte(bytes, 4, 3);
  const auto lenient = decode(bytes, waiving({Rule::kFrameMagic}));
  ASSERT_FALSE(lenient.ok());
  EXPECT_EQ(lenient.error().rule, Rule::kFrameVersion);
}

TEST(LenientDecode, AWaivedLengthDoesNotLetLaterChecksReadPastThePayload) {
  // u4 [3] with no payload bytes: the high-nibble check must not touch a last byte.
  const BlockDescription empty_packed = block({tensor("x", 17, {3}, {})});
  EXPECT_EQ(decode(bytes_of(empty_packed)).error().rule, Rule::kTypeByteLength);
  const auto lenient = decode(bytes_of(empty_packed), waiving({Rule::kTypeByteLength}));
  ASSERT_TRUE(lenient.ok()) << lenient.error().describe();
  EXPECT_TRUE(lenient.value().tensors[0].payload.empty());
}

TEST(LenientDecode, AWaivedBlockSizeDoesNotDivideByZero) {
  const BlockDescription opaque = block({tensor("q", 4096, {1}, {1, 2, 3}, "Q4_K", 0)});
  EXPECT_EQ(decode(bytes_of(opaque)).error().rule, Rule::kTypeOpaqueBlockSize);
  EXPECT_TRUE(decode(bytes_of(opaque), waiving({Rule::kTypeOpaqueBlockSize})).ok());
}

TEST(LenientDecode, AWaivedShapeOverflowWraps) {
  // 2^32 * 2^32 wraps to 0 elements, so an empty u8 payload then fits.
  const BlockDescription wrapping = block({tensor("w", 9, {1ull << 32, 1ull << 32}, {})});
  EXPECT_EQ(decode(bytes_of(wrapping)).error().rule, Rule::kTypeShapeOverflow);
  EXPECT_TRUE(decode(bytes_of(wrapping), waiving({Rule::kTypeShapeOverflow})).ok());
}

TEST(LenientDecode, TruncationIsNeverWaived) {
  EXPECT_FALSE(is_waivable(Rule::kFrameTruncated));
  const Bytes bytes = truncated(bytes_of(kTwoTensors), 100);
  const auto lenient = decode(bytes, waiving_everything());
  ASSERT_FALSE(lenient.ok());
  EXPECT_EQ(lenient.error().rule, Rule::kFrameTruncated);
}

TEST(LenientDecode, HeapAndPayloadBoundsHoldWithTheirTotalsWaived) {
  // A name that runs past the heap, and a payload past the payload region.
  const Bytes long_name = with_field(bytes_of(kTwoTensors), 1, entry::kNameLength, 4096);
  const auto heap = decode(long_name, waiving_everything());
  ASSERT_FALSE(heap.ok());
  EXPECT_EQ(heap.error().rule, Rule::kFrameHeapLength);
  const Bytes long_payload = with_field(bytes_of(kTwoTensors), 1, entry::kByteLength, 1u << 20);
  const auto payload = decode(long_payload, waiving_everything());
  ASSERT_FALSE(payload.ok());
  EXPECT_EQ(payload.error().rule, Rule::kFramePayloadLength);
}

TEST(LenientDecode, EachSingleWaiverNeverReadsOutsideTheInputAndFailsOnlyOnOtherRules) {
  // The mutants waive one rule at a time: mixed paths that waiving all never takes.
  const BlockDescription mixed =
      block({tensor("a", 2, {1}, {0, 0, 0x80, 0x3f}), tensor("b", 17, {3}, {0x21, 0x03}),
             tensor("q", 4096, {7}, Bytes(36, 1), "Q4_K", 18), tensor("c", 7, {}, {1})});
  const Bytes valid = bytes_of(mixed);
  std::mt19937_64 random(7);
  for (const RuleInfo& info : all_rules()) {
    if (!is_waivable(info.rule)) continue;
    const DecodeOptions single = waiving({info.rule});
    for (int round = 0; round < 3000; ++round) {
      Bytes bytes = valid;
      const int edits = 1 + static_cast<int>(random() % 3);
      for (int edit = 0; edit < edits; ++edit)
        bytes[random() % bytes.size()] = static_cast<std::uint8_t>(random());
      const auto lenient = decode(bytes, single);
      if (lenient.ok()) continue;
      ASSERT_LE(lenient.error().offset, bytes.size()) << info.id;
      const Rule rule = lenient.error().rule;
      ASSERT_TRUE(rule != info.rule || rule == Rule::kFrameHeapLength ||
                  rule == Rule::kFramePayloadLength)
          << info.id << " was waived but reported";
    }
  }
}

TEST(LenientDecode, RandomDamageNeverReadsOutsideTheInput) {
  // Run under ASan in CI: any out-of-bounds read fails the test run.
  const Bytes valid = bytes_of(kTwoTensors);
  std::mt19937_64 random(20261130);
  const DecodeOptions everything = waiving_everything();
  for (int round = 0; round < 20000; ++round) {
    Bytes bytes = valid;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int edit = 0; edit < edits; ++edit)
      bytes[random() % bytes.size()] = static_cast<std::uint8_t>(random());
    if (random() % 4 == 0) bytes.resize(random() % bytes.size());
    const auto strict = decode(bytes);
    const auto lenient = decode(bytes, everything);
    if (strict.ok()) {
      ASSERT_TRUE(lenient.ok());
      ASSERT_EQ(lenient.value().to_description(), strict.value().to_description());
    }
    if (!lenient.ok()) {
      ASSERT_LE(lenient.error().offset, bytes.size());
    }
  }
}

}  // namespace
}  // namespace kiln::testing
