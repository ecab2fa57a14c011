// The one level: every case is `level: required` (cases/README.md, level). The
// recommended level was removed, since no normative page leaves a choice that a
// case could test; a case file that still says `recommended` is refused where
// it says so, by the loader and so by `run`, rather than run as required.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/run.hpp"
#include "run/runner_fixture.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using testing::read_text;
using testing::write_text;

// A seed case as its file has it, with its level line replaced.
std::string with_level(const std::string& text, const std::string& level_line) {
  std::string changed = text;
  const auto at = changed.find("level: required\n");
  if (at == std::string::npos) return {};
  changed.replace(at, std::strlen("level: required"), level_line);
  return changed;
}

// The line and column (1-based) of the first `what` in text.
std::pair<int, int> position_of(const std::string& text, const std::string& what) {
  const auto at = text.find(what);
  const auto line_start = text.rfind('\n', at);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  const auto column = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return {line, static_cast<int>(column)};
}

std::string opaque_case_text() {
  return read_text(std::filesystem::path(KILN_SOURCE_CASES_DIR) / "seed" / "kiln-v2-opaque.yaml");
}

TEST(CaseLevel, RecommendedIsRefusedAtItsValueWithWhy) {
  const std::string text = with_level(opaque_case_text(), "level: recommended");
  ASSERT_FALSE(text.empty());
  const auto loaded = load_case_text(text, "cases/seed/kiln-v2-opaque.yaml", CaseSchema::builtin());
  ASSERT_FALSE(loaded) << "a recommended case loaded";
  const auto [line, column] = position_of(text, "recommended");
  EXPECT_EQ(loaded.error().where.line, line);
  EXPECT_EQ(loaded.error().where.column, column);
  EXPECT_EQ(loaded.error().describe(),
            "cases/seed/kiln-v2-opaque.yaml:" + std::to_string(line) + ":" + std::to_string(column) +
                ": level is 'required', not 'recommended': every case is required (the recommended level "
                "was removed, cases/README.md, level)");
}

TEST(CaseLevel, RequiredLoadsAndAnyOtherValueOrNoneIsRefused) {
  const std::string text = opaque_case_text();
  const CaseSchema& schema = CaseSchema::builtin();
  EXPECT_TRUE(load_case_text(text, "kiln-v2-opaque.yaml", schema));
  const auto optional = load_case_text(with_level(text, "level: optional"), "kiln-v2-opaque.yaml", schema);
  ASSERT_FALSE(optional);
  EXPECT_NE(optional.error().message.find("level is 'required', not 'optional'"), std::string::npos)
      << optional.error().describe();
  // The key itself stays: a later format version may add a level.
  std::string without = text;
  without.erase(without.find("level: required\n"), std::strlen("level: required\n"));
  const auto none = load_case_text(without, "kiln-v2-opaque.yaml", schema);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("level"), std::string::npos) << none.error().describe();
}

// `run` over a case set with such a case: an unusable case set (exit 2) that
// names the file, line and column, and nothing is sent.
class RecommendedCaseFile : public RunnerTest {};

TEST_F(RecommendedCaseFile, MakesTheCaseSetUnusableForRun) {
  const auto file = cases_ / "other" / "kiln-v2-opaque.yaml";
  const std::string text = with_level(read_text(file), "level: recommended");
  ASSERT_FALSE(text.empty());
  write_text(file, text);
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitUsage) << out_ << err_;
  EXPECT_TRUE(summary.results.empty());
  const auto [line, column] = position_of(text, "recommended");
  EXPECT_NE(err_.find("kiln-v2-opaque.yaml:" + std::to_string(line) + ":" + std::to_string(column) +
                      ": level is 'required', not 'recommended'"),
            std::string::npos)
      << err_;
  EXPECT_NE(err_.find("is unusable"), std::string::npos) << err_;
}

}  // namespace
}  // namespace kiln::conformance
