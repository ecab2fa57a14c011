// The accepted side of every boundary: dtype code ranges, each closed dtype's
// exact byte length (from kiln::kDtypes, not a second table), packed counts,
// rank 0, zero dimensions, the 2^64 - 1 product, the empty block.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

constexpr std::uint64_t kMax64 = ~std::uint64_t{0};
constexpr std::uint64_t kTwo32 = std::uint64_t{1} << 32;

BlockDescription one(std::uint16_t dtype, std::vector<std::uint64_t> shape, Bytes payload,
                     std::string layout = {}, std::uint32_t block_size = 0) {
  return block({tensor("x", dtype, std::move(shape), std::move(payload), std::move(layout),
                       block_size)});
}

// Encoding the description is refused with `rule`, and so is decoding its built bytes.
::testing::AssertionResult rejected_with(const BlockDescription& description, Rule rule) {
  auto encoded = encode(description);
  if (encoded) return ::testing::AssertionFailure() << "encode accepted it";
  if (encoded.error().rule != rule)
    return ::testing::AssertionFailure() << "encode: " << encoded.error().describe();
  return decode_rejects(bytes_of(description), rule);
}

// The byte length a closed dtype needs for n elements, from the one dtype table.
std::uint64_t byte_length(const DtypeInfo& info, std::uint64_t n) {
  return info.packing == Packing::kNibble ? (n + 1) / 2 : n * info.width;
}

TEST(CodeBoundaries, ClosedRangeEndsAt19) {
  EXPECT_TRUE(description_round_trips(one(19, {1}, {0x7F})));
  EXPECT_TRUE(rejected_with(one(20, {1}, {0x7F}), Rule::kTypeCodeReserved));
}

TEST(CodeBoundaries, CodeZeroIsRejected) {
  EXPECT_TRUE(rejected_with(one(0, {1}, {0}), Rule::kTypeCodeZero));
}

TEST(CodeBoundaries, OpaqueRangeStartsAt4096) {
  EXPECT_TRUE(rejected_with(one(4095, {1}, {0}, "Q4_K", 1), Rule::kTypeCodeReserved));
  const auto opaque = one(4096, {32}, Bytes(36, 0xAB), "Q4_K", 18);
  EXPECT_TRUE(description_round_trips(opaque));
  const Bytes bytes = bytes_of(opaque);  // the views point into it
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded.value().tensors[0].layout, "Q4_K");
  EXPECT_EQ(decoded.value().tensors[0].block_size, 18u);
}

TEST(CodeBoundaries, OpaqueRangeEndsAt32767) {
  EXPECT_TRUE(description_round_trips(one(32767, {2}, Bytes(4, 1), "layout", 2)));
  EXPECT_TRUE(rejected_with(one(32768, {2}, Bytes(4, 1), "layout", 2), Rule::kTypeCodeAboveOpaque));
  EXPECT_TRUE(rejected_with(one(65535, {2}, Bytes(4, 1), "layout", 2), Rule::kTypeCodeAboveOpaque));
}

TEST(CodeBoundaries, OpaqueShapeProductIsNotChecked) {
  // The shape overflows and disagrees with the length: neither matters for opaque codes.
  EXPECT_TRUE(description_round_trips(one(5000, {kTwo32, kTwo32}, Bytes(6, 9), "blk", 3)));
}

TEST(CodeBoundaries, OpaqueByteLengthZeroAndLargestBlockSize) {
  EXPECT_TRUE(description_round_trips(one(4096, {7}, {}, "Q4_K", 18)));
  EXPECT_TRUE(description_round_trips(one(4096, {}, {}, "Q4_K", 0xFFFFFFFFu)));
}

TEST(ClosedDtypes, EachAcceptsItsExactLengthAndRejectsOneByteMore) {
  for (const DtypeInfo& info : kDtypes) {
    SCOPED_TRACE(std::string(info.name));
    for (std::uint64_t n : {0, 1, 2, 3, 8}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      const Bytes exact(byte_length(info, n), 0);  // zero bytes are valid for every dtype
      EXPECT_TRUE(description_round_trips(one(info.code, {n}, exact)));
      Bytes longer = exact;
      longer.push_back(0);
      EXPECT_TRUE(rejected_with(one(info.code, {n}, longer), Rule::kTypeByteLength));
      if (!exact.empty()) {
        const Bytes shorter(exact.begin(), exact.end() - 1);
        EXPECT_TRUE(rejected_with(one(info.code, {n}, shorter), Rule::kTypeByteLength));
      }
    }
  }
}

TEST(ClosedDtypes, RankZeroIsOneElement) {
  for (const DtypeInfo& info : kDtypes) {
    SCOPED_TRACE(std::string(info.name));
    EXPECT_TRUE(description_round_trips(one(info.code, {}, Bytes(byte_length(info, 1), 1))));
    EXPECT_TRUE(rejected_with(one(info.code, {}, {}), Rule::kTypeByteLength));
  }
}

TEST(ClosedDtypes, AnyBitPatternIsStoredForNonBoolDtypes) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.values != ValueRule::kAnyBits) continue;
    SCOPED_TRACE(std::string(info.name));
    // An even count, so that packed dtypes use both nibbles of every byte.
    EXPECT_TRUE(description_round_trips(one(info.code, {2}, Bytes(byte_length(info, 2), 0xFF))));
  }
}

TEST(ClosedDtypes, E8m0AllOnesIsStored) {
  const auto* e8m0 = find_dtype("e8m0");
  ASSERT_NE(e8m0, nullptr);
  EXPECT_TRUE(description_round_trips(one(e8m0->code, {1}, {0xFF})));
}

TEST(ClosedDtypes, BoolAcceptsZeroAndOne) {
  const auto* boolean = find_dtype("bool");
  ASSERT_NE(boolean, nullptr);
  EXPECT_TRUE(description_round_trips(one(boolean->code, {9}, {0, 1, 1, 0, 1, 0, 0, 1, 1})));
  EXPECT_TRUE(rejected_with(one(boolean->code, {1}, {0x80}), Rule::kTypeBoolByte));
}

TEST(PackedDtypes, OddCountNeedsAZeroHighNibbleEvenCountDoesNot) {
  int packed = 0;
  for (const DtypeInfo& info : kDtypes) {
    if (info.packing != Packing::kNibble) continue;
    ++packed;
    SCOPED_TRACE(std::string(info.name));
    EXPECT_TRUE(description_round_trips(one(info.code, {3}, {0x21, 0x03})));
    EXPECT_TRUE(rejected_with(one(info.code, {3}, {0x21, 0x13}), Rule::kTypeHighNibble));
    EXPECT_TRUE(description_round_trips(one(info.code, {4}, {0x21, 0xF3})));
    EXPECT_TRUE(description_round_trips(one(info.code, {1}, {0x0F})));
    EXPECT_TRUE(rejected_with(one(info.code, {1}, {0x10}), Rule::kTypeHighNibble));
    EXPECT_TRUE(description_round_trips(one(info.code, {2}, {0xFF})));
  }
  EXPECT_EQ(packed, 3);  // i4, u4, e2m1
}

TEST(Shapes, ZeroDimensionBesideTheLargestIsEmpty) {
  EXPECT_TRUE(description_round_trips(one(9, {0, kMax64}, {})));
  EXPECT_TRUE(description_round_trips(one(1, {kMax64, 0}, {})));
  EXPECT_TRUE(description_round_trips(one(2, {kTwo32, kTwo32, 0}, {})));  // overflows but for the 0
  EXPECT_TRUE(rejected_with(one(9, {0, kMax64}, {0}), Rule::kTypeByteLength));
}

TEST(Shapes, ElementCountBoundaries) {
  using Shape = std::vector<std::uint64_t>;
  EXPECT_EQ(element_count(Shape{}), 1u);
  EXPECT_EQ(element_count(Shape{kMax64}), kMax64);
  EXPECT_EQ(element_count(Shape{kTwo32 - 1, kTwo32 + 1}), kMax64);  // exactly 2^64 - 1
  EXPECT_EQ(element_count(Shape{3, 0x5555555555555555ull}), kMax64);
  EXPECT_EQ(element_count(Shape{kTwo32, kTwo32}), std::nullopt);    // exactly 2^64
  EXPECT_EQ(element_count(Shape{kMax64, 2}), std::nullopt);
  EXPECT_EQ(element_count(Shape{kMax64, kMax64, 0}), 0u);
  EXPECT_EQ(element_count(Shape{0, kMax64, kMax64}), 0u);
}

TEST(Shapes, OverflowingProductIsTypeShapeOverflow) {
  EXPECT_TRUE(rejected_with(one(9, {kTwo32, kTwo32}, {}), Rule::kTypeShapeOverflow));
  // 2^64 - 1 elements fit; they just cannot have real bytes here.
  EXPECT_TRUE(rejected_with(one(9, {kTwo32 - 1, kTwo32 + 1}, {}), Rule::kTypeByteLength));
}

TEST(Names, NulInsideANameIsValid) {
  const std::string name("a\0b", 3);
  const auto description = block({tensor(name, 9, {1}, {1}),
                                  tensor(std::string("a\0c", 3), 9, {1}, {2})});
  EXPECT_TRUE(description_round_trips(description));
  const Bytes bytes = bytes_of(description);  // the views point into it
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded.value().tensors[0].name, name);
  EXPECT_EQ(decoded.value().tensors[0].name.size(), 3u);
}

TEST(Names, MultiByteUtf8NamesAreValid) {
  // U+20AC, U+10FFFF, U+D7FF (just below the surrogates), U+0080.
  EXPECT_TRUE(description_round_trips(block({tensor("\xe2\x82\xac", 9, {1}, {1}),
                                             tensor("\xf4\x8f\xbf\xbf", 9, {1}, {1}),
                                             tensor("\xed\x9f\xbf", 9, {1}, {1}),
                                             tensor("\xc2\x80", 9, {1}, {1})})));
}

TEST(Names, OrderIsPartOfTheValue) {
  const auto ab = encode(block({tensor("a", 9, {1}, {1}), tensor("b", 9, {1}, {2})}));
  const auto ba = encode(block({tensor("b", 9, {1}, {2}), tensor("a", 9, {1}, {1})}));
  ASSERT_TRUE(ab);
  ASSERT_TRUE(ba);
  EXPECT_NE(ab.value(), ba.value());
}

TEST(Blocks, EmptyBlockIsExactly64Bytes) {
  auto encoded = encode(block({}));
  ASSERT_TRUE(encoded);
  EXPECT_EQ(to_hex(encoded.value()),
            to_hex(hex("4b494c4e 02 02 0000 00000000 00000000 4000000000000000 0000000000000000"
                       "0000000000000000000000000000000000000000000000000000000000000000")));
  EXPECT_TRUE(round_trips(encoded.value()));
  auto decoded = decode(encoded.value());
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(decoded.value().tensors.empty());
}

TEST(Blocks, EmptyLastPayloadStillStartsAligned) {
  const auto description = block({tensor("a", 9, {3}, {1, 2, 3}), tensor("b", 9, {0}, {})});
  const Bytes bytes = bytes_of(description);
  EXPECT_EQ(read_field(bytes, 0, header::kPayloadLength), 64u);
  EXPECT_EQ(read_field(bytes, entry_start(1), entry::kDataOffset), 64u);
  EXPECT_TRUE(description_round_trips(description));
}

TEST(Blocks, ManyTensorsRoundTrip) {
  BlockDescription description;
  for (int i = 0; i < 40; ++i)
    description.tensors.push_back(
        tensor("t" + std::to_string(i), static_cast<std::uint16_t>(1 + i % 19),
               std::vector<std::uint64_t>(static_cast<std::size_t>(i % 4), 1),
               Bytes(byte_length(kDtypes[static_cast<std::size_t>(i % 19)], 1), 0)));
  EXPECT_TRUE(description_round_trips(description));
}

}  // namespace
}  // namespace kiln::testing
