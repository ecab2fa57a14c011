// Unit tests of the small pieces: strict UTF-8, hex, little-endian loads and
// stores, the tensor view vector, the rule table, the dtype table and the field
// table.
#include <gtest/gtest.h>

#include <set>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

// --- UTF-8 ---------------------------------------------------------------

TEST(Utf8, ValidTextHasNoInvalidIndex) {
  for (std::string_view text :
       {std::string_view(""), std::string_view("abc"), std::string_view("a\0b", 3),
        std::string_view("\xc2\x80"), std::string_view("\xdf\xbf"),
        std::string_view("\xe0\xa0\x80"), std::string_view("\xe2\x82\xac"),
        std::string_view("\xed\x9f\xbf"), std::string_view("\xee\x80\x80"),
        std::string_view("\xf0\x90\x80\x80"), std::string_view("\xf4\x8f\xbf\xbf")}) {
    EXPECT_EQ(find_invalid_utf8(text), std::nullopt) << to_hex({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    EXPECT_TRUE(is_valid_utf8(text));
  }
}

TEST(Utf8, ReportsTheIndexOfTheFirstBadSequence) {
  struct Bad {
    std::string_view text;
    std::size_t index;
  };
  for (const Bad& bad : {
           Bad{"\xc0\x80", 0},              // overlong U+0000
           Bad{"\xc1\xbf", 0},              // overlong U+007F
           Bad{"ab\xe0\x80\x80", 2},        // overlong U+0000, 3 bytes
           Bad{"\xe0\x9f\xbf", 0},          // overlong U+07FF
           Bad{"\xed\xa0\x80", 0},          // surrogate U+D800
           Bad{"x\xed\xbf\xbf", 1},         // surrogate U+DFFF
           Bad{"\xf0\x8f\xbf\xbf", 0},      // overlong U+FFFF
           Bad{"\xf4\x90\x80\x80", 0},      // U+110000
           Bad{"\xf5\x80\x80\x80", 0},      // lead byte above F4
           Bad{"\xff", 0},
           Bad{"\x80", 0},                  // continuation as lead
           Bad{"\xe2\x82", 0},              // cut short
           Bad{"\xe2\x82\xac\xe2\x82", 3},  // valid euro, then cut short
           Bad{"\xe2\x28\xa1", 0},          // second byte not a continuation
           Bad{"\xf0\x90\x80\x41", 0},      // fourth byte not a continuation
           Bad{"ok\xc2", 2},                // cut short at the end
       }) {
    EXPECT_EQ(find_invalid_utf8(bad.text), bad.index)
        << to_hex({reinterpret_cast<const std::uint8_t*>(bad.text.data()), bad.text.size()});
    EXPECT_FALSE(is_valid_utf8(bad.text));
  }
}

// --- hex -----------------------------------------------------------------

TEST(Hex, ToHexIsLowerCaseTwoDigitsPerByte) {
  EXPECT_EQ(to_hex(Bytes{}), "");
  EXPECT_EQ(to_hex(Bytes{0x00, 0x0f, 0xa0, 0xff, 0x4b}), "000fa0ff4b");
}

TEST(Hex, FromHexAcceptsBothCases) {
  EXPECT_EQ(from_hex("000FA0ff4B"), (Bytes{0x00, 0x0f, 0xa0, 0xff, 0x4b}));
  EXPECT_EQ(from_hex(""), Bytes{});
}

TEST(Hex, RoundTripsEveryByteValue) {
  Bytes all(256);
  for (int i = 0; i < 256; ++i) all[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(from_hex(to_hex(all)), all);
}

TEST(Hex, OddDigitCountPointsAtTheDanglingDigit) {
  HexError error{};
  EXPECT_EQ(from_hex("abc", &error), std::nullopt);
  EXPECT_EQ(error.position, 2u);
  EXPECT_EQ(from_hex("a", nullptr), std::nullopt);  // no error out-parameter is fine
}

TEST(Hex, BadDigitPointsAtItsPosition) {
  HexError error{};
  EXPECT_EQ(from_hex("0g", &error), std::nullopt);
  EXPECT_EQ(error.position, 1u);
  EXPECT_EQ(from_hex("zz00", &error), std::nullopt);
  EXPECT_EQ(error.position, 0u);
  EXPECT_EQ(from_hex("0011-2", &error), std::nullopt);
  EXPECT_EQ(error.position, 4u);
}

TEST(Hex, WhiteSpaceOnlyBetweenBytesAndOnlyWhenAllowed) {
  EXPECT_EQ(from_hex(" 21 03\n\t04\r\n", nullptr, true), (Bytes{0x21, 0x03, 0x04}));
  HexError error{};
  EXPECT_EQ(from_hex("21 03", &error, false), std::nullopt);
  EXPECT_EQ(error.position, 2u);
  EXPECT_EQ(from_hex("2 103", &error, true), std::nullopt);
  EXPECT_EQ(error.position, 1u);
}

// --- little-endian loads and stores --------------------------------------

TEST(Endian, StoreWritesExactlyWidthBytesLeastSignificantFirst) {
  const std::uint64_t value = 0x0807060504030201ull;
  for (std::size_t width = 1; width <= 8; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    Bytes out(10, 0xEE);
    store_le(out.data(), width, value);
    Bytes expected(10, 0xEE);
    for (std::size_t i = 0; i < width; ++i) expected[i] = static_cast<std::uint8_t>(i + 1);
    EXPECT_EQ(out, expected);
  }
}

TEST(Endian, LoadAssemblesLeastSignificantFirst) {
  const Bytes bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xEE};
  const std::uint64_t expected[] = {0x01,           0x0201,           0x030201,
                                    0x04030201,     0x0504030201,     0x060504030201,
                                    0x07060504030201, 0x0807060504030201};
  for (std::size_t width = 1; width <= 8; ++width)
    EXPECT_EQ(load_le(bytes.data(), width), expected[width - 1]) << "width " << width;
  EXPECT_EQ(load_u16(hex("34 12").data()), 0x1234u);
  EXPECT_EQ(load_u32(hex("78 56 34 12").data()), 0x12345678u);
  EXPECT_EQ(load_u64(hex("01 00 00 00 00 00 f8 7f").data()), 0x7FF8000000000001ull);
}

TEST(Endian, StoreThenLoadRoundTripsForEveryWidth) {
  for (std::size_t width = 1; width <= 8; ++width) {
    const std::uint64_t mask = width == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * width)) - 1;
    for (std::uint64_t value : {std::uint64_t{0}, std::uint64_t{1},
                                std::uint64_t{0x8000000000000080}, std::uint64_t{0xFEDCBA9876543210},
                                ~std::uint64_t{0}}) {
      std::uint8_t buffer[8] = {};
      store_le(buffer, width, value);
      EXPECT_EQ(load_le(buffer, width), value & mask) << "width " << width << " value " << value;
    }
  }
}

// --- tensor views --------------------------------------------------------

// TensorViews: the vector of a BlockView, one view in place and more on the
// heap; copies and moves keep every view, in either storage.
TensorView numbered_view(std::uint32_t i) {
  TensorView view;
  view.name = "name";
  view.dtype = static_cast<std::uint16_t>(i);
  view.block_size = i;
  return view;
}

void expect_numbered(const TensorViews& views, std::size_t count) {
  ASSERT_EQ(views.size(), count);
  EXPECT_EQ(views.empty(), count == 0);
  std::size_t seen = 0;
  for (const TensorView& view : views) EXPECT_EQ(view.block_size, seen++);
  EXPECT_EQ(seen, count);
  if (count == 0) return;
  EXPECT_EQ(views.front().block_size, 0u);
  EXPECT_EQ(views.back().block_size, count - 1);
  EXPECT_EQ(views.at(count - 1).dtype, count - 1);
  EXPECT_EQ(views.data() + count, views.end());
}

TEST(TensorViews, HoldsOneViewInPlaceAndMoreOnTheHeap) {
  for (std::size_t count : {0, 1, 2, 3, 17}) {
    TensorViews views;
    for (std::uint32_t i = 0; i < count; ++i) views.push_back(numbered_view(i));
    expect_numbered(views, count);
    EXPECT_GE(views.capacity(), count);
    TensorViews copy(views);
    expect_numbered(copy, count);
    TensorViews moved(std::move(copy));
    expect_numbered(moved, count);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    TensorViews assigned;
    assigned.push_back(numbered_view(7));
    assigned = views;
    expect_numbered(assigned, count);
    TensorViews move_assigned;
    move_assigned = std::move(assigned);
    expect_numbered(move_assigned, count);
    EXPECT_THROW(static_cast<void>(views.at(count)), std::out_of_range);
    if (count == 0) continue;
    views.push_back(views.front());  // one of its own views, whatever its capacity
    EXPECT_EQ(views.size(), count + 1);
    EXPECT_EQ(views.back().block_size, 0u);
    EXPECT_EQ(views.back().name, "name");
  }
}

TEST(TensorViews, ReserveKeepsTheViewsAndEmplaceBuildsInPlace) {
  TensorViews views;
  views.push_back(numbered_view(0));
  views.reserve(100);
  EXPECT_GE(views.capacity(), 100u);
  for (std::uint32_t i = 1; i < 5; ++i) {
    const TensorView& view =
        views.emplace_back(std::string_view("n"), static_cast<std::uint16_t>(i), std::uint16_t{0},
                           nullptr, std::string_view(), i, std::span<const std::uint8_t>());
    EXPECT_EQ(view.block_size, i);
  }
  expect_numbered(views, 5);
  EXPECT_EQ(views[4].name, "n");
  // Fields read from one of its own views, at the moment it grows.
  TensorViews grown;
  grown.push_back(numbered_view(0));
  const TensorView& first = grown.front();
  grown.emplace_back(first.name, first.dtype, first.rank, first.shape_bytes, first.layout,
                     first.block_size, first.payload);
  EXPECT_EQ(grown.size(), 2u);
  EXPECT_EQ(grown.back().name, "name");
  EXPECT_EQ(views[4].rank, 0u);
  views.clear();
  EXPECT_TRUE(views.empty());
}

// --- rule table ----------------------------------------------------------

TEST(Rules, IdsAreUniqueAndPrefixedByTheirClass) {
  std::set<std::string_view> ids;
  for (const RuleInfo& info : all_rules()) {
    EXPECT_TRUE(ids.insert(info.id).second) << "duplicate " << info.id;
    const std::string prefix = std::string(to_string(info.error_class)) + "-";
    EXPECT_EQ(info.id.substr(0, prefix.size()), prefix) << info.id;
    EXPECT_FALSE(info.summary.empty()) << info.id;
  }
}

TEST(Rules, LookupsRoundTrip) {
  for (const RuleInfo& info : all_rules()) {
    EXPECT_EQ(&rule_info(info.rule), &info);
    EXPECT_EQ(rule_from_id(info.id), info.rule);
  }
  EXPECT_EQ(rule_from_id("FRAME-NOPE"), std::nullopt);
  EXPECT_EQ(rule_from_id("frame-magic"), std::nullopt);
  EXPECT_EQ(rule_from_id(""), std::nullopt);
}

TEST(Rules, FrameRulesComeBeforeTypeRules) {
  bool seen_type = false;
  for (const RuleInfo& info : all_rules()) {
    if (info.error_class == ErrorClass::kType) {
      seen_type = true;
    } else {
      EXPECT_FALSE(seen_type) << info.id << " is FRAME after a TYPE rule";
    }
  }
  EXPECT_TRUE(seen_type);
}

TEST(Rules, ErrorClassNamesRoundTrip) {
  for (ErrorClass c : {ErrorClass::kFrame, ErrorClass::kType})
    EXPECT_EQ(error_class_from_string(to_string(c)), c);
  EXPECT_EQ(to_string(ErrorClass::kFrame), "FRAME");
  EXPECT_EQ(to_string(ErrorClass::kType), "TYPE");
  EXPECT_EQ(error_class_from_string("frame"), std::nullopt);
}

TEST(Rules, DescribeNamesClassRuleOffsetAndTensor) {
  const Error error{Rule::kTypeBoolByte, 129, 0, "bool byte is 2"};
  EXPECT_EQ(error.describe(), "TYPE TYPE-BOOL-BYTE at byte 129 (tensor 0): bool byte is 2");
  const Error frame{Rule::kFrameMagic, 0, std::nullopt, "bad"};
  EXPECT_EQ(frame.describe(), "FRAME FRAME-MAGIC at byte 0: bad");
}

// --- dtype table ---------------------------------------------------------

TEST(Dtypes, CodesAreOneToNineteenInOrder) {
  ASSERT_EQ(kDtypes.size(), 19u);
  for (std::size_t i = 0; i < kDtypes.size(); ++i) EXPECT_EQ(kDtypes[i].code, i + 1);
}

TEST(Dtypes, FindByCodeAndByName) {
  std::set<std::string_view> names;
  for (const DtypeInfo& info : kDtypes) {
    EXPECT_EQ(find_dtype(info.code), &info);
    EXPECT_EQ(find_dtype(info.name), &info);
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate " << info.name;
    // Whole-byte dtypes have a width; packed ones do not.
    EXPECT_EQ(info.packing == Packing::kNibble, info.width == 0) << info.name;
  }
  for (std::uint16_t code : {0, 20, 4095, 4096, 32767, 32768, 65535})
    EXPECT_EQ(find_dtype(code), nullptr) << code;
  EXPECT_EQ(find_dtype("f128"), nullptr);
  EXPECT_EQ(find_dtype(""), nullptr);
  EXPECT_EQ(find_dtype("u4")->code, 17);
  EXPECT_EQ(find_dtype("bool")->values, ValueRule::kBoolByte);
}

TEST(Dtypes, FloatLayoutsAreTheIeeeFields) {
  const auto f16 = float_layout(*find_dtype("f16"));
  ASSERT_TRUE(f16);
  EXPECT_EQ(f16->sign_mask, 0x8000u);
  EXPECT_EQ(f16->exponent_mask, 0x7C00u);
  EXPECT_EQ(f16->fraction_mask, 0x03FFu);
  EXPECT_EQ(f16->quiet_bit, 0x0200u);
  const auto bf16 = float_layout(*find_dtype("bf16"));
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->exponent_mask, 0x7F80u);
  EXPECT_EQ(bf16->fraction_mask, 0x007Fu);
  const auto f64 = float_layout(*find_dtype("f64"));
  ASSERT_TRUE(f64);
  EXPECT_EQ(f64->exponent_mask | f64->quiet_bit, 0x7FF8000000000000u);  // the quiet NaN
  EXPECT_EQ(float_layout(*find_dtype("f32"))->fraction_bits, 23u);
  std::size_t floats = 0;
  for (const DtypeInfo& info : kDtypes) floats += float_layout(info).has_value();
  EXPECT_EQ(floats, 4u);  // f8, e2m1 and e8m0 are stored bits, not IEEE fields
}

TEST(Dtypes, ClassifyCodeBoundaries) {
  EXPECT_EQ(classify_code(0), CodeClass::kZero);
  EXPECT_EQ(classify_code(1), CodeClass::kClosed);
  EXPECT_EQ(classify_code(19), CodeClass::kClosed);
  EXPECT_EQ(classify_code(20), CodeClass::kReserved);
  EXPECT_EQ(classify_code(4095), CodeClass::kReserved);
  EXPECT_EQ(classify_code(4096), CodeClass::kOpaque);
  EXPECT_EQ(classify_code(32767), CodeClass::kOpaque);
  EXPECT_EQ(classify_code(32768), CodeClass::kAboveOpaque);
  EXPECT_EQ(classify_code(65535), CodeClass::kAboveOpaque);
}

// --- field table ---------------------------------------------------------

TEST(Fields, HeaderAndEntryFieldsTileTheirBytes) {
  auto check_tiling = [](auto fields, std::uint64_t size) {
    std::uint64_t next = 0;
    for (const Field& field : fields) {
      EXPECT_EQ(field.offset, next) << field.name;
      EXPECT_TRUE(field.width >= 1 && field.width <= 8) << field.name;
      next = field.offset + field.width;
    }
    EXPECT_EQ(next, size);
  };
  check_tiling(header::kAll, kHeaderSize);
  check_tiling(entry::kAll, kEntrySize);
  EXPECT_EQ(find_field("payload_offset", false), &header::kAll[6]);
  EXPECT_EQ(find_field("byte_length", true)->offset, 40);
  EXPECT_EQ(find_field("byte_length", false), nullptr);
}

TEST(Fields, WriteAndReadFieldStayInsideTheBytes) {
  Bytes bytes(64, 0);
  EXPECT_TRUE(write_field(bytes, 0, header::kPayloadOffset, 0x1122334455667788ull));
  EXPECT_EQ(to_hex(Bytes(bytes.begin() + 16, bytes.begin() + 24)), "8877665544332211");
  EXPECT_EQ(read_field(bytes, 0, header::kPayloadOffset), 0x1122334455667788ull);
  EXPECT_FALSE(write_field(bytes, entry_start(0), entry::kReserved56, 1));  // ends at 96 > 64
  EXPECT_EQ(read_field(bytes, entry_start(0), entry::kDataOffset), std::nullopt);
  EXPECT_FALSE(write_field(bytes, 1000, header::kMagicField, 1));
  EXPECT_TRUE(write_field(bytes, 0, entry::kReserved56, 1));    // bytes 56..63 fit
}

}  // namespace
}  // namespace kiln::testing
