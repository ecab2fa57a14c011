// An expected-failures list in a `kiln-conformance run` (the list on its own is
// expected_failures_test.cpp): a listed failure does not fail the run, a stale
// or unused entry does, counted as a stale expected failure (not as failed) on
// the console, in the certificate and in the reports; op suffixes and globs, the
// status an entry records, and a written list, even of a hostile adapter, that
// reads back and passes the run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <sstream>
#include <string>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/html_report.hpp"
#include "kiln/conformance/run.hpp"
#include "run/runner_fixture.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using run_tests::failing_adapter;
using run_tests::fake_adapter;
using run_tests::kResultCount;
using run_tests::python_adapter;
using testing::read_text;
using testing::write_text;

class ExpectedFailures : public RunnerTest {
 protected:
  RunSummary run_with_list(const std::string& adapter_flags, const std::string& list) {
    write_text(scratch_ / "expected.txt", list);
    options_.expected_failures = scratch_ / "expected.txt";
    return run(fake_adapter(adapter_flags));
  }
};

TEST_F(ExpectedFailures, AListedFailureDoesNotFailTheRun) {
  const auto summary = run_with_list("--crash-on kiln-v2-high-nibble",
                                     "# known problems\n"
                                     "kiln-v2-high-nibble   aborts on a bad nibble  # bug 12\n");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.expected_failures, 2u);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.passed, kResultCount - 2);
  for (const auto& result : summary.results) {
    if (result.case_id != "kiln-v2-high-nibble") continue;
    EXPECT_EQ(to_string(result.status), "CRASH");
    EXPECT_TRUE(result.expected_failure());
    EXPECT_EQ(result.listed_reason, "aborts on a bad nibble");
  }
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT", 0), 0u) << summary.certificate;
  // No stale expected failure: neither its count nor its column is shown.
  EXPECT_NE(out_.find("\n9 passed, 0 failed, 0 skipped, 2 expected failures\n"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("stale"), std::string::npos) << out_;
}

// A listed case that passes is no wrong answer: it is counted apart, and still
// fails the run (exit 1), since the list only shrinks.
TEST_F(ExpectedFailures, AListedCaseThatPassesIsAStaleExpectedFailureAndFailsTheRun) {
  options_.json_report = scratch_ / "report.json";
  options_.markdown_report = scratch_ / "report.md";
  const auto summary = run_with_list("", "kiln-v2-f32 was broken once\n");
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.stale_expected_failures, 2u);
  EXPECT_EQ(summary.totals.passed, kResultCount - 2);
  for (const auto& result : summary.results)
    EXPECT_EQ(result.stale_listing(), result.case_id == "kiln-v2-f32") << result.case_id;
  EXPECT_NE(out_.find("PASS, but listed as an expected failure  kiln-v2-f32"), std::string::npos)
      << out_;
  EXPECT_NE(summary.certificate.find(
                " has 0 unexpected and 0 expected failure(s) and 2 stale expected failure(s); case set "),
            std::string::npos)
      << summary.certificate;
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(out_.find("\n9 passed, 0 failed, 0 skipped, 0 expected failures, 2 stale expected failures\n"),
            std::string::npos)
      << out_;
  // The tables have the stale column, with f32's topic and profile holding both.
  EXPECT_NE(out_.find("\ntopic              passed   failed  skipped  expected  stale\n"), std::string::npos) << out_;
  const auto other = out_.find("\nother ");
  ASSERT_NE(other, std::string::npos) << out_;
  const std::string other_row = out_.substr(other + 1, out_.find('\n', other + 1) - other - 1);
  EXPECT_EQ(other_row, "other                   5        0        0         0      2");
  EXPECT_NE(out_.find("\nkiln-v2                 9        0        0         0      2  not conformant\n"),
            std::string::npos)
      << out_;
  ASSERT_EQ(summary.profiles.size(), 1u);
  EXPECT_EQ(summary.profiles[0].totals.stale_expected_failures, 2u);
  EXPECT_EQ(summary.profiles[0].verdict, "not conformant");

  const auto report = nlohmann::json::parse(read_text(scratch_ / "report.json"));
  EXPECT_EQ(report["totals"]["failed"], 0);
  EXPECT_EQ(report["totals"]["stale_expected_failures"], 2);
  EXPECT_EQ(report["profiles"][0]["failed"], 0);
  EXPECT_EQ(report["profiles"][0]["stale_expected_failures"], 2);
  EXPECT_EQ(report["unmatched_expected_failures"], nlohmann::json::array());
  std::size_t stale_items = 0;
  for (const auto& item : report["results"]) {
    if (item["verdict"] != "stale-listing") continue;
    ++stale_items;
    EXPECT_EQ(item["unexpected"], true);  // it fails the run
  }
  EXPECT_EQ(stale_items, 2u);
  // The report's own consistency check takes it as written.
  const auto loaded = load_run_report(scratch_ / "report.json");
  EXPECT_TRUE(loaded) << loaded.error();
  const std::string markdown = read_text(scratch_ / "report.md");
  EXPECT_NE(markdown.find("| passed | failed | skipped | expected failures | stale expected failures | results |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| `kiln-v2-f32` | decode | PASS (a stale expected failure) |"), std::string::npos)
      << markdown;
}

// An entry that matches no case is as stale as one whose case passes: each
// such entry is one stale expected failure of the run's totals (of no topic or
// profile), listed in the reports.
TEST_F(ExpectedFailures, APatternThatMatchesNoCaseIsAStaleExpectedFailure) {
  options_.json_report = scratch_ / "report.json";
  options_.markdown_report = scratch_ / "report.md";
  options_.html_report = scratch_ / "report.html";
  const auto summary =
      run_with_list("", "kiln-v2-f32:decode\nkiln-v2-gone-*  removed long ago\nkiln-v2-also-gone:encode\n");
  // f32 decode passes (stale) and the other two lines match nothing.
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_NE(err_.find("expected.txt:2: 'kiln-v2-gone-*' matches no case"), std::string::npos) << err_;
  EXPECT_NE(err_.find("expected.txt:3: 'kiln-v2-also-gone:encode' matches no case"), std::string::npos) << err_;
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.stale_expected_failures, 3u);
  ASSERT_EQ(summary.unmatched_entries.size(), 2u);
  EXPECT_EQ(summary.unmatched_entries[0].line, 2);
  EXPECT_EQ(summary.unmatched_entries[0].pattern, "kiln-v2-gone-*");
  EXPECT_EQ(summary.unmatched_entries[1].pattern, "kiln-v2-also-gone:encode");
  EXPECT_EQ(summary.profiles[0].totals.stale_expected_failures, 1u);
  EXPECT_NE(out_.find("\n10 passed, 0 failed, 0 skipped, 0 expected failures, 3 stale expected failures\n"),
            std::string::npos)
      << out_;

  const auto report = nlohmann::json::parse(read_text(scratch_ / "report.json"));
  EXPECT_EQ(report["totals"]["failed"], 0);
  EXPECT_EQ(report["totals"]["stale_expected_failures"], 3);
  EXPECT_EQ(report["profiles"][0]["stale_expected_failures"], 1);
  ASSERT_EQ(report["unmatched_expected_failures"].size(), 2u) << report["unmatched_expected_failures"].dump();
  EXPECT_EQ(report["unmatched_expected_failures"][0],
            (nlohmann::json{
                {"list", (scratch_ / "expected.txt").string()}, {"line", 2}, {"pattern", "kiln-v2-gone-*"}}));
  const auto loaded = load_run_report(scratch_ / "report.json");
  EXPECT_TRUE(loaded) << loaded.error();
  const std::string markdown = read_text(scratch_ / "report.md");
  EXPECT_NE(markdown.find("### Expected-failures entries that match no case"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" | 3 | `kiln-v2-also-gone:encode` |\n"), std::string::npos) << markdown;
  EXPECT_NE(read_text(scratch_ / "report.html").find("kiln-v2-also-gone:encode"), std::string::npos);
}

TEST_F(ExpectedFailures, APatternThatMatchesNoCaseAloneFailsTheRun) {
  const auto summary = run_with_list("", "kiln-v2-gone\n");
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_NE(err_.find("expected.txt:1: 'kiln-v2-gone' matches no case"), std::string::npos) << err_;
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.stale_expected_failures, 1u);
  EXPECT_NE(summary.certificate.find(
                " has 0 unexpected and 0 expected failure(s) and 1 stale expected failure(s); case set "),
            std::string::npos)
      << summary.certificate;
  // Every result passed: the profile's own counts hold no stale one.
  ASSERT_EQ(summary.profiles.size(), 1u);
  EXPECT_EQ(summary.profiles[0].verdict, "conformant");
}

// A filtered run certifies nothing and cannot tell an unmatched entry, but a
// listed case that passes is stale there too, and fails it.
TEST_F(ExpectedFailures, AStaleListingFailsAFilteredRun) {
  options_.filters = {"kiln-v2-f32"};
  const auto summary = run_with_list("", "kiln-v2-f32:encode FAIL: was broken once\nkiln-v2-gone\n");
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.stale_expected_failures, 1u);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_TRUE(summary.unmatched_entries.empty());
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: a filtered run certifies nothing", 0), 0u)
      << summary.certificate;
  EXPECT_NE(out_.find("\n1 passed, 0 failed, 0 skipped, 0 expected failures, 1 stale expected failures\n"),
            std::string::npos)
      << out_;
}

// One list for both profiles: a run of one profile leaves the other's entries
// outside it, neither used nor stale, and still tells an entry that names nothing.
TEST_F(ExpectedFailures, AProfileRunLeavesTheOtherProfilesEntriesOutside) {
  const std::filesystem::path hurray_case = std::filesystem::path(KILN_SOURCE_CASES_DIR) / "hurray" / "e8m0" /
                                            "hurray-e8m0-00-encode.yaml";
  std::filesystem::create_directories(cases_ / "hurray");
  std::filesystem::copy_file(hurray_case, cases_ / "hurray" / hurray_case.filename());
  options_.profiles = {"kiln-v2"};
  const auto clean = run_with_list("", "hurray-e8m0-00-encode FAIL: the other profile's\n");
  EXPECT_EQ(clean.exit_code, kExitOk) << err_;
  EXPECT_EQ(clean.totals.failed, 0u);
  EXPECT_EQ(clean.totals.passed, kResultCount);
  EXPECT_EQ(err_.find("matches no case"), std::string::npos) << err_;

  const auto stale = run_with_list("", "hurray-e8m0-00-encode FAIL: the other profile's\nkiln-v2-gone\n");
  EXPECT_EQ(stale.exit_code, kExitFailures);
  EXPECT_EQ(stale.totals.stale_expected_failures, 1u);
  EXPECT_EQ(stale.totals.failed, 0u);
  EXPECT_NE(err_.find("expected.txt:2: 'kiln-v2-gone' matches no case"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("expected.txt:1:"), std::string::npos) << err_;
}

TEST_F(ExpectedFailures, AnOpSuffixListsOneOperationOnly) {
  const auto summary =
      run_with_list("--crash-on kiln-v2-high-nibble", "kiln-v2-high-nibble:decode crashes\n");
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(summary.totals.expected_failures, 1u);
  EXPECT_EQ(summary.totals.failed, 1u);
  for (const auto& result : summary.results) {
    const bool listed = result.case_id == "kiln-v2-high-nibble" && result.op == Operation::kDecode;
    EXPECT_EQ(result.listed, listed) << result.case_id << " " << to_string(result.op);
  }
}

TEST_F(ExpectedFailures, BothOpSuffixesAndGlobsWork) {
  const auto summary = run_with_list("--crash-on kiln-v2-high-nibble --garbage-on kiln-v2-bool-byte",
                                     "kiln-v2-high-*:decode\n"
                                     "kiln-v2-high-nibble:encode\n"
                                     "kiln-v2-bool-?yte\n");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.expected_failures, 4u);
  EXPECT_EQ(summary.totals.passed, kResultCount - 4);
}

TEST_F(ExpectedFailures, AMalformedLineIsAUsageError) {
  const auto summary = run_with_list("", "kiln-v2-f32\nkiln-v2-u4:transcode broken\n");
  EXPECT_EQ(summary.exit_code, kExitUsage);
  EXPECT_TRUE(summary.results.empty());
  EXPECT_NE(err_.find("expected.txt:2:12: the operation after ':' is decode or encode, not "
                      "'transcode'"),
            std::string::npos)
      << err_;
}

TEST_F(ExpectedFailures, AWrittenListFedBackPassesTheRun) {
  options_.write_expected_failures = scratch_ / "written.txt";
  const auto first = run(fake_adapter("--reject-everything --crash-on kiln-v2-opaque"));
  EXPECT_EQ(first.exit_code, kExitFailures);
  const std::string written = read_text(scratch_ / "written.txt");
  EXPECT_NE(written.find("kiln-v2-opaque:decode  CRASH"), std::string::npos) << written;
  EXPECT_EQ(written.find("kiln-v2-le-clear"), std::string::npos) << written;  // it passed

  options_.write_expected_failures.reset();
  options_.expected_failures = scratch_ / "written.txt";
  const auto second = run(fake_adapter("--reject-everything --crash-on kiln-v2-opaque"));
  EXPECT_EQ(second.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(second.totals.expected_failures, kResultCount - 1);
  EXPECT_EQ(second.totals.passed, 1u);
  EXPECT_EQ(second.totals.failed, 0u);

  // The list kept each status: f32, written as FAIL, now crashes on both ops.
  EXPECT_NE(written.find("kiln-v2-f32:decode  FAIL: "), std::string::npos) << written;
  const auto third =
      run(fake_adapter("--reject-everything --crash-on kiln-v2-opaque --crash-on kiln-v2-f32"));
  EXPECT_EQ(third.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(third.totals.failed, 2u) << out_;
  EXPECT_EQ(third.totals.expected_failures, kResultCount - 3);
  for (const auto& result : third.results)
    EXPECT_EQ(result.changed_failure(), result.case_id == "kiln-v2-f32") << result.case_id;
  EXPECT_NE(out_.find("CRASH, but listed as FAIL  kiln-v2-f32 decode\n"), std::string::npos) << out_;
}

// The list records how a case fails: a listed FAIL that starts to crash is an
// unexpected change, not an expected failure; one that still FAILs is expected.
TEST_F(ExpectedFailures, AListedFailThatNowCrashesIsAChangedFailure) {
  options_.json_report = scratch_ / "report.json";
  const auto summary = run_with_list("--crash-on kiln-v2-high-nibble",
                                     "kiln-v2-high-nibble  FAIL: answers FRAME for a TYPE problem\n");
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.failed, 2u);
  EXPECT_EQ(summary.totals.expected_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  for (const auto& result : summary.results) {
    if (result.case_id != "kiln-v2-high-nibble") continue;
    EXPECT_EQ(to_string(result.status), "CRASH");
    EXPECT_TRUE(result.changed_failure());
    EXPECT_TRUE(result.unexpected());
    EXPECT_EQ(result.listed_reason, "answers FRAME for a TYPE problem");
  }
  EXPECT_NE(out_.find("CRASH, but listed as FAIL  kiln-v2-high-nibble decode\n"), std::string::npos)
      << out_;
  EXPECT_NE(out_.find("    listed:   FAIL: answers FRAME for a TYPE problem\n"), std::string::npos)
      << out_;
  const auto report = nlohmann::json::parse(read_text(scratch_ / "report.json"));
  std::size_t changed = 0;
  for (const auto& item : report["results"])
    if (item["verdict"] == "changed-failure") {
      ++changed;
      EXPECT_EQ(item["listed_status"], "FAIL");
      EXPECT_EQ(item["status"], "CRASH");
      EXPECT_EQ(item["unexpected"], true);
    }
  EXPECT_EQ(changed, 2u);
}

TEST_F(ExpectedFailures, AListedFailThatStillFailsIsExpected) {
  write_text(scratch_ / "expected.txt", "kiln-v2-high-nibble  FAIL: answers FRAME for a TYPE problem\n");
  options_.expected_failures = scratch_ / "expected.txt";
  const auto summary = run(failing_adapter(scratch_ / "fails.py", "kiln-v2-high-nibble"));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.expected_failures, 2u);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.passed, kResultCount - 2);
  EXPECT_EQ(to_string(status_of(summary, "kiln-v2-high-nibble", Operation::kEncode)), "FAIL");
}

TEST_F(ExpectedFailures, AListedEntryWithAStatusThatPassesIsStale) {
  const auto summary = run_with_list("", "kiln-v2-f32:encode  FAIL: was broken once\n");
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(summary.totals.failed, 0u);
  EXPECT_EQ(summary.totals.stale_expected_failures, 1u);
  for (const auto& result : summary.results)
    EXPECT_EQ(result.stale_listing(), result.case_id == "kiln-v2-f32" && result.op == Operation::kEncode)
        << result.case_id;
  EXPECT_NE(out_.find("PASS, but listed as an expected failure  kiln-v2-f32 encode"), std::string::npos)
      << out_;
}

// Finding 16: whatever the adapter writes, the written list has one entry per
// line and reads back; and no adapter text forges a console line.
TEST_F(ExpectedFailures, AWrittenListOfAHostileAdapterReadsBack) {
  const std::string adapter = python_adapter(scratch_ / "hostile.py", R"(
def hello(request, line):
    reply = proxy(line)
    reply["name"] = "kiln-hostile\nkiln-v2-*  every case\nCONFORMANT: forged\n*"
    reply["version"] = "1\r\n* x\x00\x1b[2J"
    return reply
def answer(request, line):
    if request["op"] == "decode":
        return {"result": "reject", "class": "FRAME", "message": "m\n*\n",
                "rule": "R\nkiln-v2-le-clear\n*\r\n"}
    return {"result": "error", "message": "first\n*\nkiln-v2-*:decode\r\x00\x1b[2J # no comment\n"}
serve(hello, answer)
)");
  options_.write_expected_failures = scratch_ / "written.txt";
  const auto first = run(adapter);
  EXPECT_EQ(first.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(first.totals.failed, kResultCount - 1);  // le-clear: a FRAME reject, right
  EXPECT_EQ(out_.find("\nCONFORMANT"), std::string::npos) << out_;
  const std::string written = read_text(scratch_ / "written.txt");
  std::istringstream lines(written);
  std::size_t entries = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#", 0) == 0) continue;
    ++entries;
    EXPECT_EQ(line.rfind("kiln-v2-", 0), 0u) << line;
    EXPECT_TRUE(std::none_of(line.begin(), line.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        << line;
  }
  EXPECT_EQ(entries, kResultCount - 1) << written;

  options_.write_expected_failures.reset();
  options_.expected_failures = scratch_ / "written.txt";
  const auto second = run(adapter);
  EXPECT_EQ(second.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(second.totals.failed, 0u) << out_ << err_;
  EXPECT_EQ(std::count_if(second.results.begin(), second.results.end(),
                          [](const CaseResult& r) { return r.unexpected(); }),
            0);
  EXPECT_EQ(second.totals.expected_failures, kResultCount - 1);
  EXPECT_EQ(second.totals.passed, 1u);
}

// Finding 30: a BOM and CRLF line ends, as Windows editors write them.
TEST_F(ExpectedFailures, ABomAndCrlfLineEndsAreAccepted) {
  const auto summary = run_with_list("--crash-on kiln-v2-high-nibble --garbage-on kiln-v2-bool-byte",
                                     "\xEF\xBB\xBFkiln-v2-high-nibble crashes\r\n"
                                     "# a comment\r\n"
                                     "kiln-v2-bool-byte:decode\r\n"
                                     "kiln-v2-bool-byte:encode garbage  \r\n");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.expected_failures, 4u);
  EXPECT_EQ(summary.totals.failed, 0u);
  for (const auto& result : summary.results)
    if (result.case_id == "kiln-v2-high-nibble") {
      EXPECT_EQ(result.listed_reason, "crashes");
    }
}

}  // namespace
}  // namespace kiln::conformance
