// One breaking generator per rule ID, and the decoder must report that rule.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "breakers.hpp"
#include "check_support.hpp"
#include "generators.hpp"

namespace kiln {
// Names the parameter in gtest's output instead of dumping its bytes.
void PrintTo(const RuleInfo& info, std::ostream* os) { *os << info.id; }
}  // namespace kiln

namespace kiln::properties {
namespace {

// A rule added to rules.hpp without a generator here fails this test, so no
// rule goes unchecked.
TEST(RuleBreakers, EveryRuleHasExactlyOneBreakingGenerator) {
  for (const RuleInfo& info : all_rules()) {
    const auto breakers = rule_breakers();
    const auto count = std::count_if(breakers.begin(), breakers.end(),
                                     [&](const RuleBreaker& b) { return b.rule == info.rule; });
    EXPECT_EQ(count, 1) << info.id << " needs exactly one breaking generator in breakers.cpp";
  }
  EXPECT_EQ(rule_breakers().size(), all_rules().size());
}

class BreakingGenerator : public testing::TestWithParam<RuleInfo> {};

TEST_P(BreakingGenerator, DecoderReportsThatClassAndRule) {
  const RuleInfo info = GetParam();
  const RuleBreaker* breaker = find_breaker(info.rule);
  ASSERT_NE(breaker, nullptr) << info.id << " has no breaking generator";
  // The id keys RapidCheck's reproduce map: RC_PARAMS="reproduce=..." replays it.
  const std::string id = "BreakingGenerator/" + std::string(info.id);
  EXPECT_TRUE(rc::check(id, [breaker] {
    const BrokenBlock broken = *breaker->make(Base::kValid);
    require_reported(broken);
  }));
}

std::string test_name(const testing::TestParamInfo<RuleInfo>& param) {
  std::string name{param.param.id};
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryRule, BreakingGenerator,
                         testing::ValuesIn(all_rules().begin(), all_rules().end()), test_name);

std::vector<const RuleBreaker*> frame_breakers() {
  std::vector<const RuleBreaker*> frame;
  for (const RuleBreaker& breaker : rule_breakers())
    if (rule_info(breaker.rule).error_class == ErrorClass::kFrame) frame.push_back(&breaker);
  return frame;
}

RC_GTEST_PROP(RuleBreakers, FrameDefectWinsOverTypeDefect, ()) {
  const auto frame = frame_breakers();
  const RuleBreaker& breaker = *frame[*rc::gen::inRange<std::size_t>(0, frame.size())];
  const BrokenBlock broken = *breaker.make(Base::kWithTypeDefect);
  RC_TAG(std::string(rule_info(broken.rule).id));
  // With the byte edit undone, the same content is a TYPE error: both defects are there.
  if (broken.byte_edits) {
    const auto content = decode(build(broken.description).value().bytes);
    RC_ASSERT(!content.ok());
    RC_ASSERT(content.error().error_class() == ErrorClass::kType);
  }
  require_reported(broken);
}

}  // namespace
}  // namespace kiln::properties
