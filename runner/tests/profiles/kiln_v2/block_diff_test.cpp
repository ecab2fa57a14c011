// Byte differences named by the Kiln layout: each region of the worked example
// kiln-v2-u4, the summary and window of a difference, payload naming, and no
// crash or stray span on blocks whose placement fields are nonsense.
#include <gtest/gtest.h>

#include <random>

#include "kiln/conformance/block_diff.hpp"
#include "kiln/hex.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

std::vector<std::uint8_t> u4_block() { return *from_hex(testing::kU4BlockHex); }

TEST(LocateInBlock, NamesEveryRegionOfTheWorkedExample) {
  const auto block = u4_block();
  ASSERT_EQ(block.size(), 130u);
  EXPECT_EQ(locate_in_block(block, 0).name, "header magic");
  EXPECT_EQ(locate_in_block(block, 9).name, "header tensor_count");
  EXPECT_EQ(locate_in_block(block, 31).name, "header payload_length");
  const ByteSpan dtype = locate_in_block(block, 41);
  EXPECT_EQ(dtype.name, "entry 0 dtype");
  EXPECT_EQ(dtype.start, 40u);
  EXPECT_EQ(dtype.length, 2u);
  EXPECT_EQ(locate_in_block(block, 32 + 32).name, "entry 0 data_offset");
  EXPECT_EQ(locate_in_block(block, 95).name, "entry 0 reserved56");
  EXPECT_EQ(locate_in_block(block, 96).name, "tensor 0 shape");
  EXPECT_EQ(locate_in_block(block, 104).name, "tensor 0 name");
  const ByteSpan padding = locate_in_block(block, 107);
  EXPECT_EQ(padding.name, "tensor 0 heap padding");
  EXPECT_EQ(padding.start, 105u);
  EXPECT_EQ(padding.length, 7u);
  const ByteSpan gap = locate_in_block(block, 120);
  EXPECT_EQ(gap.name, "gap");
  EXPECT_EQ(gap.start, 112u);
  EXPECT_EQ(gap.length, 16u);
  EXPECT_EQ(locate_in_block(block, 129).name, "tensor 0 payload");
  EXPECT_EQ(locate_in_block(block, 130).name, "past the expected block's end");
}

TEST(CompareBytes, SummarisesTheFieldWithBothSidesAndAWindow) {
  const auto expected = u4_block();
  auto got = expected;
  std::swap(got[40], got[41]);  // dtype read or written big-endian
  const auto difference = compare_bytes(expected, got);
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->offset, 40u);
  EXPECT_EQ(difference->summary(), "byte 40: entry 0 dtype: expected 11 00, got 00 11");
  EXPECT_EQ(difference->window_start, 16u);
  EXPECT_EQ(difference->expected_window.size(), 48u);
  EXPECT_EQ(difference->got_window[40 - 16], 0x00);
  EXPECT_EQ(difference->got_window[41 - 16], 0x11);
  // The window's spans cover it without a gap, in order.
  std::uint64_t at = difference->window_start;
  for (const ByteSpan& span : difference->window_fields) {
    EXPECT_EQ(span.start, at) << span.name;
    at = span.start + span.length;
  }
  EXPECT_EQ(at, 64u);
  const auto lines = window_lines(*difference);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_NE(lines[2].find("[11]"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("[00]"), std::string::npos) << lines[3];
  EXPECT_FALSE(compare_bytes(expected, expected));
}

TEST(CompareBytes, SaysWhereASideEnds) {
  const auto expected = u4_block();
  std::vector<std::uint8_t> shorter(expected.begin(), expected.begin() + 100);
  auto difference = compare_bytes(expected, shorter);
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->summary(), "byte 100: tensor 0 shape: expected 03 00 00 00 00 00 00 00, got 03 00 00 00 (end)");
  auto longer = expected;
  longer.push_back(7);
  difference = compare_bytes(expected, longer);
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->summary(), "byte 130: past the expected block's end: expected nothing (it ends at byte 130), got 07 (end)");
}

TEST(CompareBytes, NamesADecodedTensorsPayload) {
  const std::vector<std::uint8_t> want{1, 2, 3, 4}, have{1, 2, 9, 4};
  const auto difference = compare_bytes(want, have, Naming{Naming::Kind::kPayload, 2});
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->summary(), "byte 2: tensor 2 payload: expected 01 02 03 04, got 01 02 09 04");
}

// Placement fields from outside may say anything: every offset still gets one
// span that holds it, and nothing reads past the block.
TEST(LocateInBlock, NonsenseFieldsGiveASpanThatHoldsTheOffset) {
  std::mt19937 random(17);
  for (int round = 0; round < 200; ++round) {
    auto block = u4_block();
    block.resize(32 + random() % 200);
    for (int k = 0; k < 6; ++k) block[random() % block.size()] = static_cast<std::uint8_t>(random());
    if (round % 3 == 0) std::fill(block.begin() + 8, block.begin() + 32, 0xFF);  // huge counts and offsets
    for (std::uint64_t offset = 0; offset < block.size() + 4; ++offset) {
      const ByteSpan span = locate_in_block(block, offset);
      EXPECT_FALSE(span.name.empty());
      EXPECT_LE(span.start, offset) << span.name << " round " << round;
      EXPECT_GE(span.start + (span.length - 1), offset) << span.name << " round " << round;
    }
    auto other = block;
    const std::size_t changed = random() % other.size();
    other[changed] ^= 0x5A;
    const auto difference = compare_bytes(block, other);
    ASSERT_TRUE(difference) << "round " << round;
    EXPECT_EQ(difference->offset, changed);
    EXPECT_FALSE(difference->summary().empty());
  }
}

}  // namespace
}  // namespace kiln::conformance
