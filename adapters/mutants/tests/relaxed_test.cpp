// The loosened checks the relaxed mutants share (src/relaxed.hpp), at their
// strict settings, against the reference: a relaxed mutant must differ from the
// reference by its one loosening, not by a second, accidental bug of its reader.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/builder.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/decode.hpp"
#include "kiln/utf8.hpp"
#include "relaxed.hpp"

namespace kiln::mutants {
namespace {

bool deferred_to_the_reference(std::string_view rule) {
  // The relaxed reader leaves the names to the reference, which checks them in
  // the same pass as the frame: the class agrees, the rule reported first may not.
  return rule == "FRAME-NAME-EMPTY" || rule == "FRAME-NAME-UTF8" || rule == "FRAME-NAME-UNIQUE";
}

// What the mutant pipeline makes of a block with the strict relaxed reader: its
// reject, or the reference's verdict on the canonical block of what it read.
protocol::Outcome strict_reader_outcome(ByteSpan block) {
  auto read = relaxed::read_frame(block, relaxed::Leniency{});
  if (auto* reject = std::get_if<protocol::Reject>(&read)) return *reject;
  const auto& tensors = std::get<BlockDescription>(read);
  auto built = kiln::build(tensors);
  if (!built) return protocol::reject_from(built.error());
  auto judged = kiln::decode(built.value().bytes);
  if (!judged) return protocol::reject_from(judged.error());
  return protocol::Accept{tensors};
}

TEST(RelaxedReader, AtItsStrictSettingsAgreesWithTheReferenceOnEveryCaseBlock) {
  const conformance::CaseSet set = conformance::load_case_set(KILN_CASES_DIR);
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().describe();
  std::size_t compared = 0;
  for (const conformance::Case& test_case : set.cases) {
    const auto* body = test_case.body_as<conformance::KilnCase>();
    if (!body || !body->block) continue;
    ++compared;
    const auto& block = *body->block;
    const auto reference = kiln::decode(block);
    const protocol::Outcome relaxed = strict_reader_outcome(block);
    if (reference) {
      const auto* accept = std::get_if<protocol::Accept>(&relaxed);
      ASSERT_NE(accept, nullptr) << test_case.id << ": the strict relaxed reader rejects it";
      EXPECT_EQ(accept->description, reference.value().to_description()) << test_case.id;
      continue;
    }
    const auto* reject = std::get_if<protocol::Reject>(&relaxed);
    ASSERT_NE(reject, nullptr) << test_case.id << ": the strict relaxed reader accepts it";
    EXPECT_EQ(reject->error_class, reference.error().error_class()) << test_case.id;
    const std::string_view reference_rule = rule_info(reference.error().rule).id;
    if (!deferred_to_the_reference(reference_rule) && !deferred_to_the_reference(*reject->rule)) {
      EXPECT_EQ(*reject->rule, reference_rule) << test_case.id;
    }
  }
  EXPECT_GT(compared, 500u);
}

std::string bytes(std::initializer_list<int> values) {
  std::string text;
  for (int value : values) text.push_back(static_cast<char>(value));
  return text;
}

TEST(RelaxedUtf8, TheStrictClassesAreStrictUtf8) {
  // Every string of up to three bytes, and four-byte ones over each lead byte
  // with the second byte anything and the others at the continuation edges.
  std::string text;
  for (int length = 1; length <= 3; ++length) {
    const long total = 1L << (8 * length);
    for (long value = 0; value < total; ++value) {
      text.assign(static_cast<std::size_t>(length), '\0');
      for (int i = 0; i < length; ++i) text[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
      ASSERT_EQ(relaxed::valid_utf8(text, {}), is_valid_utf8(text)) << "length " << length
                                                                    << " value " << value;
    }
  }
  for (int lead = 0xF0; lead <= 0xF7; ++lead)
    for (int second = 0; second < 256; ++second)
      for (int edge : {0x7F, 0x80, 0xBF, 0xC0}) {
        text = bytes({lead, second, edge, 0x80});
        ASSERT_EQ(relaxed::valid_utf8(text, {}), is_valid_utf8(text)) << lead << " " << second;
        text = bytes({lead, second, 0x80, edge});
        ASSERT_EQ(relaxed::valid_utf8(text, {}), is_valid_utf8(text)) << lead << " " << second;
      }
}

TEST(RelaxedUtf8, EachLoosenedClassChangesTheVerdictOnItsBytes) {
  EXPECT_TRUE(relaxed::valid_utf8(bytes({0xC3, 0xC3}), {.continuation_max = 0xFF}));
  EXPECT_FALSE(relaxed::valid_utf8(bytes({0xC3, 0xC3}), {}));
  EXPECT_TRUE(relaxed::valid_utf8(bytes({0xE0, 0x80, 0x80}), {.e0_second_min = 0x80}));
  EXPECT_FALSE(relaxed::valid_utf8(bytes({0xE0, 0x80, 0x80}), {}));
  EXPECT_FALSE(relaxed::valid_utf8(bytes({0xED, 0x9F, 0xBF}), {.ed_second_max = 0x8F}));
  EXPECT_TRUE(relaxed::valid_utf8(bytes({0xED, 0x9F, 0xBF}), {}));
  EXPECT_FALSE(relaxed::valid_utf8(bytes({'a', 0x00}), {.nul_allowed = false}));
  EXPECT_TRUE(relaxed::valid_utf8(bytes({'a', 0x00}), {}));
}

}  // namespace
}  // namespace kiln::mutants
