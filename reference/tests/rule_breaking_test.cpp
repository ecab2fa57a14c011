// Every rule of kiln::all_rules() broken at least once: class, rule ID, byte
// offset and tensor index. Raw faults come from the unchecked builder plus field
// writes, byte overwrites, truncation and appending; description cases go through
// the builder and the encoder, which must refuse them with the same rule.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <variant>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

constexpr std::uint64_t kTwo62 = std::uint64_t{1} << 62;
constexpr std::uint64_t kTwo32 = std::uint64_t{1} << 32;

// Case kiln-v2-u4 (130 bytes): header 0..31, entry 32..95, heap 96..111 (dim at
// 96, "x" at 104, padding 105..111), gap 112..127, payload 128..129.
Bytes worked() { return bytes_of(block({tensor("x", 17, {3}, {0x21, 0x03})})); }

// Two u8 tensors (258 bytes): entries at 32 and 96, heap 160..191 ("a" segment
// 160..175 with padding 169..175, "b" segment 176..191 with padding 185..191),
// payload region from 192: "a" at 192..194, zero padding 195..255, "b" at 256..257.
Bytes pair() {
  return bytes_of(block({tensor("a", 9, {3}, {1, 2, 3}), tensor("b", 9, {2}, {4, 5})}));
}

// The 64-byte block with no tensors.
Bytes empty() { return bytes_of(block({})); }

// A u4 [3] tensor named by raw bytes (its name starts at heap byte 8, block byte 104).
BlockDescription named(std::string name) {
  return block({tensor(std::move(name), 17, {3}, {0x21, 0x03})});
}

// One tensor "x" of shape [1]/whatever: entry at 32, heap at 96.
BlockDescription one(std::uint16_t dtype, std::vector<std::uint64_t> shape, Bytes payload,
                     std::string layout = {}, std::uint32_t block_size = 0) {
  return block({tensor("x", dtype, std::move(shape), std::move(payload), std::move(layout),
                       block_size)});
}

Bytes counting_bytes(std::size_t size) {
  Bytes payload(size);
  for (std::size_t i = 0; i < size; ++i) payload[i] = static_cast<std::uint8_t>(i);
  return payload;
}

std::vector<std::uint64_t> ones(std::size_t rank) { return std::vector<std::uint64_t>(rank, 1); }

const std::optional<std::uint32_t> kHeader = std::nullopt;  // a header field, not an entry's

struct BreakingCase {
  std::string label;
  Expected expected;
  // Raw bytes for the decoder, or a description for the builder and the encoder.
  std::variant<std::function<Bytes()>, BlockDescription> input;
};

BreakingCase raw(std::string label, Rule rule, std::optional<std::uint64_t> offset,
                 std::optional<std::uint32_t> who, std::function<Bytes()> make) {
  return {std::move(label), Expected{rule, offset, who}, std::move(make)};
}

BreakingCase described(std::string label, Rule rule, std::optional<std::uint64_t> offset,
                       std::optional<std::uint32_t> who, BlockDescription description) {
  return {std::move(label), Expected{rule, offset, who}, std::move(description)};
}

std::vector<BreakingCase> breaking_cases() {
  using R = Rule;
  std::vector<BreakingCase> cases;
  auto add = [&](BreakingCase c) { cases.push_back(std::move(c)); };
  const std::optional<std::uint32_t> none = std::nullopt;

  // FRAME-TRUNCATED: the offset is where the input ends.
  for (std::size_t size : {0, 3, 4, 5, 31})
    add(raw("truncated_in_header_at_" + std::to_string(size), R::kFrameTruncated, size, none,
            [size] { return truncated(worked(), size); }));
  add(raw("truncated_at_header_end", R::kFrameTruncated, 32, none,
          [] { return truncated(worked(), 32); }));
  add(raw("truncated_at_directory_end", R::kFrameTruncated, 96, none,
          [] { return truncated(worked(), 96); }));
  add(raw("truncated_inside_heap", R::kFrameTruncated, 100, none,
          [] { return truncated(worked(), 100); }));
  add(raw("truncated_at_heap_end", R::kFrameTruncated, 112, none,
          [] { return truncated(worked(), 112); }));
  add(raw("truncated_at_payload_offset", R::kFrameTruncated, 128, none,
          [] { return truncated(worked(), 128); }));
  add(raw("truncated_inside_payload", R::kFrameTruncated, 129, none,
          [] { return truncated(worked(), 129); }));
  add(raw("truncated_between_payloads", R::kFrameTruncated, 200, none,
          [] { return truncated(pair(), 200); }));
  add(raw("truncated_inside_second_payload", R::kFrameTruncated, 257, none,
          [] { return truncated(pair(), 257); }));
  add(raw("declared_payload_length_2_62", R::kFrameTruncated, 130, none, [] {
    return with_field(with_field(worked(), kHeader, header::kPayloadLength, kTwo62), 0,
                      entry::kByteLength, kTwo62);
  }));

  add(raw("magic_first_byte", R::kFrameMagic, 0, none, [] { return with_byte(worked(), 0, 'k'); }));
  add(raw("magic_last_byte", R::kFrameMagic, 0, none, [] { return with_byte(worked(), 3, 0); }));
  add(raw("magic_wrong_in_four_bytes", R::kFrameMagic, 0, none,
          [] { return Bytes{'K', 'I', 'L', 'M'}; }));

  for (std::uint8_t version : {0, 1, 3, 0xFF})
    add(raw("version_" + std::to_string(version), R::kFrameVersion, 4, none,
            [version] { return with_byte(worked(), 4, version); }));

  for (std::uint8_t flags : {0x00, 0x01, 0xFD})
    add(raw("le_flag_clear_flags_" + std::to_string(flags), R::kFrameLeFlag, 5, none,
            [flags] { return with_field(worked(), kHeader, header::kFlags, flags); }));
  for (std::uint8_t flags : {0x03, 0x06, 0x82})
    add(raw("flags_reserved_bit_flags_" + std::to_string(flags), R::kFrameFlagsReserved, 5, none,
            [flags] { return with_field(worked(), kHeader, header::kFlags, flags); }));

  for (std::uint64_t value : {0x0001, 0x8000})
    add(raw("header_reserved_" + std::to_string(value), R::kFrameHeaderReserved, 6, none,
            [value] { return with_field(worked(), kHeader, header::kReserved, value); }));

  for (std::uint64_t heap : {15, 17, 20})
    add(raw("heap_length_" + std::to_string(heap) + "_not_multiple_of_8", R::kFrameHeapAlign, 12,
            none, [heap] { return with_field(worked(), kHeader, header::kHeapLength, heap); }));

  // Canonical payload_offset is 128: off by 1, 8 and 64 either way, and 0.
  for (std::uint64_t offset : {127, 129, 120, 136, 64, 192, 0})
    add(raw("payload_offset_" + std::to_string(offset), R::kFramePayloadOffset, 16, none,
            [offset] { return with_field(worked(), kHeader, header::kPayloadOffset, offset); }));

  add(raw("trailing_zero_byte", R::kFrameTrailing, 130, none, [] { return appended(worked(), 0); }));
  add(raw("trailing_ff_byte", R::kFrameTrailing, 130, none,
          [] { return appended(worked(), 0xFF); }));
  add(raw("trailing_byte_after_empty_block", R::kFrameTrailing, 64, none,
          [] { return appended(empty(), 0); }));

  add(raw("entry_reserved_28", R::kFrameEntryReserved, 60, 0,
          [] { return with_field(worked(), 0, entry::kReserved28, 1); }));
  add(raw("entry_reserved_48", R::kFrameEntryReserved, 80, 0,
          [] { return with_field(worked(), 0, entry::kReserved48, 1); }));
  add(raw("entry_reserved_63", R::kFrameEntryReserved, 88, 0,
          [] { return with_byte(worked(), 32 + 63, 1); }));
  add(raw("entry_reserved_second_entry", R::kFrameEntryReserved, 124, 1,
          [] { return with_field(pair(), 1, entry::kReserved28, 0x80000000); }));

  add(raw("name_length_0", R::kFrameNameEmpty, 36, 0,
          [] { return with_field(worked(), 0, entry::kNameLength, 0); }));
  add(described("empty_name", R::kFrameNameEmpty, 36, 0, named("")));
  add(described("empty_name_second_tensor", R::kFrameNameEmpty, 100, 1,
                block({tensor("a", 9, {1}, {1}), tensor("", 9, {1}, {2})})));

  // Canonical shape_offset is 0 for entry 0 and 16 for entry 1 of pair().
  for (std::uint64_t shape : {1, 8, 64})
    add(raw("shape_offset_" + std::to_string(shape), R::kFrameShapeOffset, 44, 0,
            [shape] { return with_field(worked(), 0, entry::kShapeOffset, shape); }));
  for (std::uint64_t shape : {17, 24, 8, 80})
    add(raw("second_shape_offset_" + std::to_string(shape), R::kFrameShapeOffset, 108, 1,
            [shape] { return with_field(pair(), 1, entry::kShapeOffset, shape); }));

  // Canonical name_offset is 8 (after one dimension).
  for (std::uint64_t name : {9, 7, 16, 0, 72})
    add(raw("name_offset_" + std::to_string(name), R::kFrameNameOffset, 32, 0,
            [name] { return with_field(worked(), 0, entry::kNameOffset, name); }));
  add(raw("second_name_offset_off_by_1", R::kFrameNameOffset, 96, 1,
          [] { return with_field(pair(), 1, entry::kNameOffset, 25); }));

  add(raw("layout_offset_without_layout", R::kFrameLayoutOffset, 48, 0,
          [] { return with_field(worked(), 0, entry::kLayoutOffset, 9); }));
  // The opaque seed: dim at heap 0, name at 8, layout "Q4_K" at 9.
  for (std::uint64_t layout : {10, 17, 73, 0})
    add(raw("layout_offset_" + std::to_string(layout), R::kFrameLayoutOffset, 48, 0, [layout] {
      return with_field(bytes_of(one(4096, {32}, counting_bytes(18), "Q4_K", 18)), 0,
                        entry::kLayoutOffset, layout);
    }));

  add(raw("name_runs_past_heap_length", R::kFrameHeapLength, 12, 0,
          [] { return with_field(worked(), 0, entry::kNameLength, 9); }));
  add(raw("heap_length_8_too_short", R::kFrameHeapLength, 12, 0,
          [] { return with_field(worked(), kHeader, header::kHeapLength, 8); }));
  add(raw("heap_length_0", R::kFrameHeapLength, 12, 0,
          [] { return with_field(worked(), kHeader, header::kHeapLength, 0); }));
  // 24 keeps payload_offset at 128; the spare heap bytes are zero and still FRAME.
  add(raw("spare_zero_heap_bytes", R::kFrameHeapLength, 12, none,
          [] { return with_field(worked(), kHeader, header::kHeapLength, 24); }));
  add(raw("layout_runs_past_heap_length", R::kFrameHeapLength, 12, 0, [] {
    return with_field(bytes_of(one(4096, {32}, counting_bytes(18), "Q4_K", 18)), 0,
                      entry::kLayoutLength, 8);
  }));

  add(raw("heap_padding_first_byte", R::kFramePadHeap, 105, 0,
          [] { return with_byte(worked(), 105, 1); }));
  add(raw("heap_padding_last_byte", R::kFramePadHeap, 111, 0,
          [] { return with_byte(worked(), 111, 0x80); }));
  add(raw("heap_padding_second_segment", R::kFramePadHeap, 185, 1,
          [] { return with_byte(pair(), 185, 1); }));

  // Names are strict UTF-8; the offset is the first bad byte (name at 104).
  add(described("name_overlong_c0_80", R::kFrameNameUtf8, 104, 0, named("\xc0\x80")));
  add(described("name_overlong_e0_80_80", R::kFrameNameUtf8, 104, 0, named("\xe0\x80\x80")));
  add(described("name_surrogate_ed_a0_80", R::kFrameNameUtf8, 104, 0, named("\xed\xa0\x80")));
  add(described("name_above_10ffff_f4_90_80_80", R::kFrameNameUtf8, 104, 0,
                named("\xf4\x90\x80\x80")));
  add(described("name_cut_short_e2_82", R::kFrameNameUtf8, 104, 0, named("\xe2\x82")));
  add(described("name_cut_short_after_ascii", R::kFrameNameUtf8, 106, 0, named("ab\xe2\x82")));
  add(raw("name_byte_overwritten_with_continuation", R::kFrameNameUtf8, 104, 0,
          [] { return with_byte(worked(), 104, 0x80); }));

  add(described("duplicate_name", R::kFrameNameUnique, 96, 1,
                block({tensor("x", 9, {1}, {1}), tensor("x", 9, {1}, {2})})));
  add(described("duplicate_name_with_nul", R::kFrameNameUnique, 96, 1,
                block({tensor(std::string("a\0b", 3), 9, {1}, {1}),
                       tensor(std::string("a\0b", 3), 9, {1}, {2})})));
  add(described("duplicate_of_first_in_third", R::kFrameNameUnique, 160, 2,
                block({tensor("a", 9, {1}, {1}), tensor("b", 9, {1}, {2}),
                       tensor("a", 9, {1}, {3})})));

  for (std::uint64_t data : {1, 8, 64})
    add(raw("data_offset_" + std::to_string(data), R::kFrameDataOffset, 64, 0,
            [data] { return with_field(worked(), 0, entry::kDataOffset, data); }));
  // Canonical is 64 for the second payload of pair(); 3 is unaligned back-to-back.
  for (std::uint64_t data : {3, 65, 72, 128, 0})
    add(raw("second_data_offset_" + std::to_string(data), R::kFrameDataOffset, 128, 1,
            [data] { return with_field(pair(), 1, entry::kDataOffset, data); }));

  add(raw("payload_padding_first_byte", R::kFramePadPayload, 195, 1,
          [] { return with_byte(pair(), 195, 1); }));
  add(raw("payload_padding_middle_byte", R::kFramePadPayload, 200, 1,
          [] { return with_byte(pair(), 200, 0xFF); }));
  add(raw("payload_padding_last_byte", R::kFramePadPayload, 255, 1,
          [] { return with_byte(pair(), 255, 1); }));

  add(raw("byte_length_past_payload_length", R::kFramePayloadLength, 24, 0,
          [] { return with_field(worked(), 0, entry::kByteLength, 3); }));
  add(raw("byte_length_2_64_minus_1", R::kFramePayloadLength, 24, 0,
          [] { return with_field(worked(), 0, entry::kByteLength, ~std::uint64_t{0}); }));
  add(raw("payload_length_past_last_payload", R::kFramePayloadLength, 24, none, [] {
    return appended(with_field(worked(), kHeader, header::kPayloadLength, 3), 0);
  }));
  add(raw("payload_length_with_no_tensors", R::kFramePayloadLength, 24, none, [] {
    return appended(with_field(empty(), kHeader, header::kPayloadLength, 1), 0);
  }));

  add(raw("gap_padding_first_byte", R::kFramePadGap, 112, none,
          [] { return with_byte(worked(), 112, 1); }));
  add(raw("gap_padding_last_byte", R::kFramePadGap, 127, none,
          [] { return with_byte(worked(), 127, 1); }));
  add(raw("gap_padding_in_empty_block", R::kFramePadGap, 40, none,
          [] { return with_byte(empty(), 40, 1); }));

  // Encoder side: a rank that does not fit the u16 field.
  add(described("rank_65536", R::kFrameFieldRange, 0, 0, one(9, ones(65536), {7})));
  add(described("rank_65536_second_tensor", R::kFrameFieldRange, 0, 1,
                block({tensor("a", 9, {1}, {1}), tensor("b", 9, ones(65536), {7})})));

  // TYPE rules, from descriptions: the entry is at 32, its dtype at 40,
  // layout_length at 52, block_size at 56, byte_length at 72; dims at 96.
  add(described("code_0", R::kTypeCodeZero, 40, 0, one(0, {1}, {0})));
  for (std::uint16_t code : {20, 100, 4095})
    add(described("code_" + std::to_string(code), R::kTypeCodeReserved, 40, 0,
                  one(code, {1}, {0})));
  for (std::uint16_t code : {32768, 40000, 65535})
    add(described("code_" + std::to_string(code), R::kTypeCodeAboveOpaque, 40, 0,
                  one(code, {1}, {0})));

  add(described("f32_with_layout", R::kTypeClosedLayout, 52, 0,
                one(2, {1}, {0, 0, 0x80, 0x3f}, "Q4_K")));
  add(described("u4_with_layout_and_block_size", R::kTypeClosedLayout, 52, 0,
                one(17, {3}, {0x21, 0x03}, "Q4_K", 18)));
  add(described("f32_with_block_size", R::kTypeClosedBlockSize, 56, 0,
                one(2, {1}, {0, 0, 0x80, 0x3f}, "", 4)));

  add(described("shape_2_32_by_2_32", R::kTypeShapeOverflow, 96, 0, one(9, {kTwo32, kTwo32}, {})));
  add(described("shape_2_63_by_2", R::kTypeShapeOverflow, 96, 0,
                one(2, {std::uint64_t{1} << 63, 2}, {})));
  add(described("shape_overflow_third_axis", R::kTypeShapeOverflow, 96, 0,
                one(17, {kTwo32, 1u << 16, 1u << 16}, {})));
  // Second tensor: its heap segment starts at 16, block byte 160 + 16.
  add(described("shape_overflow_second_tensor", R::kTypeShapeOverflow, 176, 1,
                block({tensor("a", 9, {1}, {1}), tensor("b", 9, {kTwo32, kTwo32}, {})})));

  add(described("f32_three_bytes", R::kTypeByteLength, 72, 0, one(2, {1}, {0, 0, 0x80})));
  add(described("f32_five_bytes", R::kTypeByteLength, 72, 0, one(2, {1}, {0, 0, 0x80, 0x3f, 0})));
  add(described("u4_three_one_byte", R::kTypeByteLength, 72, 0, one(17, {3}, {0x21})));
  add(described("u4_three_three_bytes", R::kTypeByteLength, 72, 0, one(17, {3}, {0x21, 3, 0})));
  add(described("f32_element_bytes_overflow", R::kTypeByteLength, 72, 0, one(2, {kTwo62}, {})));
  // (2^32 - 1)(2^32 + 1) = 2^64 - 1: fits, so the length rule, not the overflow rule.
  add(described("product_exactly_2_64_minus_1", R::kTypeByteLength, 72, 0,
                one(9, {kTwo32 - 1, kTwo32 + 1}, {})));

  add(described("bool_byte_2", R::kTypeBoolByte, 129, 0, one(7, {2}, {0x01, 0x02})));
  add(described("bool_byte_ff_in_first_word", R::kTypeBoolByte, 131, 0,
                one(7, {8}, {0, 1, 0, 0xFF, 1, 1, 0, 0})));
  add(described("bool_byte_after_first_word", R::kTypeBoolByte, 136, 0,
                one(7, {9}, {0, 1, 0, 1, 1, 1, 0, 0, 2})));

  add(described("u4_high_nibble", R::kTypeHighNibble, 129, 0, one(17, {3}, {0x21, 0x13})));
  add(described("i4_one_high_nibble", R::kTypeHighNibble, 128, 0, one(16, {1}, {0x10})));
  add(described("e2m1_five_high_nibble", R::kTypeHighNibble, 130, 0, one(18, {5}, {0, 0, 0xF0})));

  add(described("opaque_no_layout", R::kTypeOpaqueLayout, 52, 0,
                one(4096, {32}, counting_bytes(18), "", 18)));
  add(described("opaque_32767_no_layout", R::kTypeOpaqueLayout, 52, 0, one(32767, {}, {}, "", 1)));
  // The layout name follows the dim (96..103) and "x" (104): it starts at 105.
  add(described("opaque_layout_overlong", R::kTypeOpaqueLayoutUtf8, 105, 0,
                one(4096, {32}, counting_bytes(18), "\xc0\x80", 18)));
  add(described("opaque_layout_surrogate_after_ascii", R::kTypeOpaqueLayoutUtf8, 107, 0,
                one(4096, {32}, counting_bytes(18), "Q4\xed\xa0\x80", 18)));
  add(described("opaque_block_size_0", R::kTypeOpaqueBlockSize, 56, 0,
                one(4096, {32}, counting_bytes(18), "Q4_K", 0)));
  add(described("opaque_17_bytes_block_18", R::kTypeOpaqueMultiple, 72, 0,
                one(4096, {32}, counting_bytes(17), "Q4_K", 18)));
  add(described("opaque_19_bytes_block_18", R::kTypeOpaqueMultiple, 72, 0,
                one(4096, {32}, counting_bytes(19), "Q4_K", 18)));

  // FRAME before TYPE: a block with both defects reports the FRAME one.
  add(raw("bool_byte_and_trailing_byte", R::kFrameTrailing, 130, none,
          [] { return appended(bytes_of(one(7, {2}, {0x01, 0x02})), 0); }));
  add(raw("code_0_and_entry_reserved", R::kFrameEntryReserved, 60, 0,
          [] { return with_field(bytes_of(one(0, {1}, {0})), 0, entry::kReserved28, 1); }));
  add(raw("second_tensor_type_first_tensor_frame_later", R::kFramePadPayload, 200, 1, [] {
    return with_byte(bytes_of(block({tensor("a", 0, {3}, {1, 2, 3}), tensor("b", 9, {2}, {4, 5})})),
                     200, 1);
  }));
  // Within TYPE the first tensor in directory order, whatever the rule order.
  add(described("first_type_defect_in_directory_order", R::kTypeCodeZero, 104, 1,
                block({tensor("a", 9, {1}, {1}), tensor("b", 0, {1}, {0}),
                       tensor("c", 7, {1}, {2})})));
  add(described("later_rule_in_earlier_tensor_wins", R::kTypeHighNibble, 192, 0,
                block({tensor("a", 17, {1}, {0x10}), tensor("b", 0, {1}, {0})})));
  return cases;
}

const std::vector<BreakingCase>& all_breaking_cases() {
  static const std::vector<BreakingCase> cases = breaking_cases();
  return cases;
}

class RuleBreakingTest : public ::testing::TestWithParam<BreakingCase> {};

TEST_P(RuleBreakingTest, DecoderReportsTheRule) {
  const BreakingCase& c = GetParam();
  if (const auto* make = std::get_if<std::function<Bytes()>>(&c.input)) {
    EXPECT_TRUE(decode_rejects((*make)(), c.expected));
    return;
  }
  const auto& description = std::get<BlockDescription>(c.input);
  auto built = build(description);
  if (!built) {
    // Only a field that cannot hold its value stops the builder itself.
    EXPECT_TRUE(matches(built.error(), c.expected));
    auto placed = place(description);
    ASSERT_FALSE(placed);
    EXPECT_TRUE(matches(placed.error(), c.expected));
    return;
  }
  EXPECT_TRUE(decode_rejects(built.value().bytes, c.expected));
}

std::string case_name(const ::testing::TestParamInfo<BreakingCase>& info) {
  return info.param.label;
}

INSTANTIATE_TEST_SUITE_P(AllRules, RuleBreakingTest, ::testing::ValuesIn(all_breaking_cases()),
                         case_name);

// An encoder refuses what a reader rejects, with the same rule, offset and tensor,
// for every case built from a description (raw faults have no description).
TEST(EncoderRefusal, SameRuleAsTheDecoderForEveryDescriptionCase) {
  int checked = 0;
  for (const auto& c : all_breaking_cases()) {
    const auto* description = std::get_if<BlockDescription>(&c.input);
    if (!description) continue;
    SCOPED_TRACE(c.label);
    ++checked;
    auto encoded = encode(*description);
    ASSERT_FALSE(encoded) << "encode accepted a description the decoder rejects";
    EXPECT_TRUE(matches(encoded.error(), c.expected));
  }
  EXPECT_GT(checked, 0);
}

// A rule added to all_rules() without a breaking input here fails this test.
TEST(RuleCoverage, EveryRuleHasABreakingInput) {
  std::map<Rule, int> count;
  for (const auto& c : all_breaking_cases()) ++count[c.expected.rule];
  for (const RuleInfo& info : all_rules())
    EXPECT_GT(count[info.rule], 0) << info.id << " has no breaking input in the table";
}

// Every TYPE rule is exercised through a description, so the encoder is held to it.
TEST(RuleCoverage, EveryTypeRuleHasADescriptionCase) {
  std::map<Rule, int> count;
  for (const auto& c : all_breaking_cases())
    if (std::holds_alternative<BlockDescription>(c.input)) ++count[c.expected.rule];
  for (const RuleInfo& info : all_rules()) {
    if (info.error_class != ErrorClass::kType) continue;
    EXPECT_GT(count[info.rule], 0) << info.id << " has no description case";
  }
}

TEST(RuleCoverage, LabelsAreUnique) {
  std::map<std::string, int> seen;
  for (const auto& c : all_breaking_cases()) EXPECT_EQ(++seen[c.label], 1) << c.label;
}

}  // namespace
}  // namespace kiln::testing
