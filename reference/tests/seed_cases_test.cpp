// The ten seed cases of the design brief: outcome, class and rule, and for the
// accepted ones the round-trip oracle in both directions.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

Bytes opaque_payload() {
  Bytes payload(18);
  std::iota(payload.begin(), payload.end(), std::uint8_t{0});  // 00 01 ... 11
  return payload;
}

struct SeedCase {
  const char* id;
  BlockDescription description;
  std::function<Bytes(Bytes)> fault;  // applied to the built bytes; empty for none
  std::optional<Rule> rejected_by;    // nullopt: accept
};

std::vector<SeedCase> seed_cases() {
  return {
      {"kiln-v2-u4", block({tensor("x", 17, {3}, {0x21, 0x03})}), {}, std::nullopt},
      {"kiln-v2-high-nibble", block({tensor("x", 17, {3}, {0x21, 0x13})}), {},
       Rule::kTypeHighNibble},
      {"kiln-v2-bool-byte", block({tensor("x", 7, {2}, {0x01, 0x02})}), {}, Rule::kTypeBoolByte},
      {"kiln-v2-f8-pair", block({tensor("a", 5, {1}, {0x38}), tensor("b", 6, {1}, {0x3c})}), {},
       std::nullopt},
      {"kiln-v2-f32", block({tensor("x", 2, {1}, {0x00, 0x00, 0x80, 0x3f})}), {}, std::nullopt},
      {"kiln-v2-f32-negzero", block({tensor("x", 2, {1}, {0x00, 0x00, 0x00, 0x80})}), {},
       std::nullopt},
      {"kiln-v2-f64-nan",
       block({tensor("x", 1, {1}, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x7f})}), {},
       std::nullopt},
      {"kiln-v2-le-clear", block({tensor("x", 17, {3}, {0x21, 0x03})}),
       [](Bytes b) { return with_field(std::move(b), std::nullopt, header::kFlags, 0x00); },
       Rule::kFrameLeFlag},
      {"kiln-v2-opaque", block({tensor("x", 4096, {32}, opaque_payload(), "Q4_K", 18)}), {},
       std::nullopt},
      {"kiln-v2-opaque-no-layout", block({tensor("x", 4096, {32}, opaque_payload(), "", 18)}), {},
       Rule::kTypeOpaqueLayout},
  };
}

class SeedCaseTest : public ::testing::TestWithParam<SeedCase> {};

TEST_P(SeedCaseTest, HasTheExpectedOutcome) {
  const SeedCase& seed = GetParam();
  Bytes bytes = bytes_of(seed.description);
  if (seed.fault) bytes = seed.fault(std::move(bytes));

  if (seed.rejected_by) {
    EXPECT_TRUE(decode_rejects(bytes, *seed.rejected_by));
    if (!seed.fault) {
      // An encoder refuses what a reader rejects, with the same rule.
      auto encoded = encode(seed.description);
      ASSERT_FALSE(encoded);
      EXPECT_EQ(encoded.error().rule_id(), rule_info(*seed.rejected_by).id);
    }
    return;
  }
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().describe();
  EXPECT_EQ(decoded.value().to_description(), seed.description);
  EXPECT_TRUE(round_trips(bytes));
  EXPECT_TRUE(description_round_trips(seed.description));
}

std::string seed_name(const ::testing::TestParamInfo<SeedCase>& info) {
  std::string name = info.param.id;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedCaseTest, ::testing::ValuesIn(seed_cases()), seed_name);

// The payload is bits: no NaN quieting, no -0 to +0, in either direction.
TEST(SeedCaseBits, F64NanKeepsItsPayloadBits) {
  const Bytes bits{0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x7f};
  auto encoded = encode(block({tensor("x", 1, {1}, bits)}));
  ASSERT_TRUE(encoded);
  ASSERT_EQ(encoded.value().size(), 128u + 8u);
  EXPECT_EQ(Bytes(encoded.value().begin() + 128, encoded.value().end()), bits);
  auto decoded = decode(encoded.value());
  ASSERT_TRUE(decoded);
  const auto payload = decoded.value().tensors.at(0).payload;
  EXPECT_EQ(Bytes(payload.begin(), payload.end()), bits);
  EXPECT_EQ(load_u64(payload.data()), 0x7FF8000000000001ull);
}

TEST(SeedCaseBits, F32NegativeZeroKeepsItsSignBit) {
  const Bytes bits{0x00, 0x00, 0x00, 0x80};
  auto encoded = encode(block({tensor("x", 2, {1}, bits)}));
  ASSERT_TRUE(encoded);
  EXPECT_EQ(Bytes(encoded.value().end() - 4, encoded.value().end()), bits);
  auto decoded = decode(encoded.value());
  ASSERT_TRUE(decoded);
  const auto payload = decoded.value().tensors.at(0).payload;
  EXPECT_EQ(Bytes(payload.begin(), payload.end()), bits);
}

TEST(SeedCaseBits, LeClearDiffersFromTheWorkedExampleOnlyInTheFlagsByte) {
  const Bytes valid = bytes_of(block({tensor("x", 17, {3}, {0x21, 0x03})}));
  const Bytes cleared = with_field(valid, std::nullopt, header::kFlags, 0x00);
  ASSERT_EQ(valid.size(), cleared.size());
  for (std::size_t i = 0; i < valid.size(); ++i)
    EXPECT_EQ(valid[i] != cleared[i], i == 5) << "byte " << i;
  EXPECT_TRUE(decode_rejects(cleared, Expected{Rule::kFrameLeFlag, 5, std::nullopt}));
}

}  // namespace
}  // namespace kiln::testing
