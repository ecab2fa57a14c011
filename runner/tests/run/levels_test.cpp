// The levels of `kiln-conformance run`: a recommended case (where the format
// leaves a choice) that fails is reported, in the console and every report,
// without denying the certificate; the same failure of a required case, or a
// crash of a recommended one, denies it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/run.hpp"
#include "run/runner_fixture.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using run_tests::failing_adapter;
using run_tests::fake_adapter;
using run_tests::kResultCount;
using testing::read_text;
using testing::write_text;

// cases/README.md: `recommended` is where the format leaves a choice. The seed
// cases are all required; these tests make one recommended.
class RecommendedCases : public RunnerTest {
 protected:
  void make_recommended(const std::string& id) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(cases_)) {
      if (entry.path().filename() != id + ".yaml") continue;
      std::string text = read_text(entry.path());
      const auto at = text.find("level: required\n");
      ASSERT_NE(at, std::string::npos) << text;
      text.replace(at, std::strlen("level: required"), "level: recommended");
      write_text(entry.path(), text);
      return;
    }
    FAIL() << "no case file for " << id;
  }
  // opaque: an accept case, so decode and encode.
  static constexpr std::size_t kOpaqueResults = 2;
};

TEST_F(RecommendedCases, AllPassingIsConformantAndSaysSo) {
  ASSERT_NO_FATAL_FAILURE(make_recommended("kiln-v2-opaque"));
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find(" passes all " + std::to_string(kResultCount - kOpaqueResults) +
                                     " required checks (decode and encode), cases only, of kiln-conformance "),
            std::string::npos)
      << summary.certificate;
  EXPECT_NE(summary.certificate.find("; all 2 recommended checks pass; case set "), std::string::npos)
      << summary.certificate;
}

TEST_F(RecommendedCases, ARecommendedFailureIsReportedWithoutDenyingTheCertificate) {
  ASSERT_NO_FATAL_FAILURE(make_recommended("kiln-v2-opaque"));
  options_.json_report = scratch_ / "report.json";
  options_.markdown_report = scratch_ / "report.md";
  options_.write_expected_failures = scratch_ / "written.txt";
  const auto summary = run(failing_adapter(scratch_ / "fails.py", "kiln-v2-opaque"));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.recommended_failures, kOpaqueResults);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.passed, kResultCount - kOpaqueResults);
  for (const auto& result : summary.results)
    EXPECT_EQ(result.recommended_failure(), result.case_id == "kiln-v2-opaque") << result.case_id;
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find(" passes all 9 required checks (decode and encode)"), std::string::npos)
      << summary.certificate;
  EXPECT_NE(summary.certificate.find("; 2 of 2 recommended checks fail; case set "), std::string::npos)
      << summary.certificate;
  // The console shows each with what came back, without being asked to.
  EXPECT_NE(out_.find("FAIL (recommended)  kiln-v2-opaque decode\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("FAIL (recommended)  kiln-v2-opaque encode\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("\n9 passed, 0 failed, 0 skipped, 0 expected failures, 2 recommended failures\n"),
            std::string::npos)
      << out_;
  const auto report = nlohmann::json::parse(read_text(scratch_ / "report.json"));
  EXPECT_EQ(report["totals"]["recommended_failures"], kOpaqueResults);
  EXPECT_EQ(report["totals"]["failed"], 0);
  const std::string markdown = read_text(scratch_ / "report.md");
  EXPECT_NE(markdown.find("### Recommended checks that fail"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("### Unexpected results"), std::string::npos) << markdown;
  // Nothing to list: the run passes without an entry.
  EXPECT_EQ(read_text(scratch_ / "written.txt").find("kiln-v2-"), std::string::npos);
}

// The control: the same answers where the case is required deny the certificate.
TEST_F(RecommendedCases, TheSameFailureOfARequiredCaseIsNotConformant) {
  const auto summary = run(failing_adapter(scratch_ / "fails.py", "kiln-v2-opaque"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.failed, kOpaqueResults);
  EXPECT_EQ(summary.totals.recommended_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
}

// A crash is no choice the format leaves.
TEST_F(RecommendedCases, ARecommendedCaseThatCrashesIsNotConformant) {
  ASSERT_NO_FATAL_FAILURE(make_recommended("kiln-v2-opaque"));
  const auto summary = run(fake_adapter("--crash-on kiln-v2-opaque"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.failed, kOpaqueResults);
  EXPECT_EQ(summary.totals.recommended_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(out_.find("CRASH  kiln-v2-opaque decode\n"), std::string::npos) << out_;
}

// A listed recommended failure needs no entry; listing it does not make it worse.
TEST_F(RecommendedCases, AListedRecommendedFailureIsStillOnlyRecommended) {
  ASSERT_NO_FATAL_FAILURE(make_recommended("kiln-v2-opaque"));
  write_text(scratch_ / "expected.txt", "kiln-v2-opaque FAIL: refuses opaque codes\n");
  options_.expected_failures = scratch_ / "expected.txt";
  const auto summary = run(failing_adapter(scratch_ / "fails.py", "kiln-v2-opaque"));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.recommended_failures, kOpaqueResults);
  EXPECT_EQ(summary.totals.expected_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
}

}  // namespace
}  // namespace kiln::conformance
