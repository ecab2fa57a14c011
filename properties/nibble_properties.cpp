// Packed nibbles (i4, u4, e2m1): the test helper, and the decoder's view of it.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "check_support.hpp"
#include "generators.hpp"
#include "nibble.hpp"

namespace kiln::properties {
namespace {

bool is_nibble(const DtypeInfo& info) { return info.packing == Packing::kNibble; }

// Seed page 000, case kiln-v2-u4: 1, 2, 3 are the bytes 21 03.
TEST(Nibble, PacksTheSeedCaseU4) {
  const std::vector<std::uint8_t> values{1, 2, 3};
  EXPECT_EQ(to_hex(pack_nibbles(values)), "2103");
  EXPECT_EQ(unpack_nibbles(pack_nibbles(values), 3), values);
}

RC_GTEST_PROP(Nibble, PackThenUnpackIsIdentityAndOddCountsLeaveTheHighNibbleZero, ()) {
  const auto values = *rc::gen::container<std::vector<std::uint8_t>>(
      rc::gen::inRange<std::uint8_t>(0, 16));
  const auto packed = pack_nibbles(values);
  RC_CLASSIFY(values.size() % 2 == 1, "odd count");
  RC_ASSERT(packed.size() == values.size() / 2 + values.size() % 2);
  RC_ASSERT(unpack_nibbles(packed, values.size()) == values);
  if (values.size() % 2 == 1) RC_ASSERT((packed.back() >> 4) == 0);
}

// A packed payload is accepted and kept; on an odd count a nonzero high nibble
// in the last byte is TYPE-HIGH-NIBBLE for both the decoder and the encoder,
// while on an even count that nibble is just the last element.
RC_GTEST_PROP(Nibble, DecoderAcceptsPackedPayloadsAndRejectsAHighNibbleOnOddCounts, ()) {
  const auto count = *rc::gen::inRange<std::size_t>(1, 2 * kMaxPayloadBytes + 1);
  const auto values = *rc::gen::container<std::vector<std::uint8_t>>(
      count, rc::gen::inRange<std::uint8_t>(0, 16));
  BlockDescription block = *valid_block(0, kMaxTensors - 1);
  // A copy: the predicate runs again while shrinking, after this case returns.
  const auto name = *rc::gen::suchThat(utf8_text(), [taken = block](const std::string& candidate) {
    for (const auto& tensor : taken.tensors)
      if (tensor.name == candidate) return false;
    return true;
  });
  const auto code = *closed_dtype_code_where(is_nibble);
  const auto at = *rc::gen::inRange<std::size_t>(0, block.tensors.size() + 1);
  block.tensors.insert(block.tensors.begin() + static_cast<std::ptrdiff_t>(at),
                       TensorDescription{name, code, {count}, "", 0, pack_nibbles(values)});
  RC_CLASSIFY(count % 2 == 1, "odd count");

  const auto encoded = encode(block);
  if (!encoded.ok()) RC_FAIL("packed payload refused: " + encoded.error().describe());
  const auto decoded = decode(encoded.value());
  RC_ASSERT(decoded.ok());
  const auto payload = decoded.value().tensors[at].payload;
  RC_ASSERT(unpack_nibbles(payload, count) == values);

  auto& last = block.tensors[at].payload.back();
  last |= static_cast<std::uint8_t>(*rc::gen::inRange(1, 16) << 4);
  const auto high = encode(block);
  if (count % 2 == 0) {
    RC_ASSERT(high.ok());
    return;
  }
  RC_ASSERT(!high.ok());
  require_error(high.error(), rule_info(Rule::kTypeHighNibble), "encoder");
  const auto rejected = decode(build(block).value().bytes);
  RC_ASSERT(!rejected.ok());
  require_error(rejected.error(), rule_info(Rule::kTypeHighNibble), "decoder");
}

}  // namespace
}  // namespace kiln::properties
