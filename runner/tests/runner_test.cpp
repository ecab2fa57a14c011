// `kiln-conformance run` against fake adapters that misbehave on purpose (issue 4
// item 4): each misbehaviour fails only the case it happens on, with the right
// status, and the run goes on; expected failures; reports that agree with the
// console; exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

// Every (case, op) of the seed case set; le-clear has faults, so decode only.
constexpr std::size_t kResultCount = 11;
constexpr std::size_t kEncodeResults = 5;

// `exec` so that the adapter is the shell's process itself: its own exit status
// and a stdout it closes reach the runner, not the waiting shell's.
std::string fake_adapter(const std::string& flags) {
  return "exec " + shell_quote(KILN_FAKE_ADAPTER) + (flags.empty() ? "" : " " + flags);
}

std::size_t line_count(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(cases_));
    options_.cases_dir = cases_;
    options_.quiet_progress = true;
    options_.timeout_ms = 5000;
  }

  RunSummary run(const std::string& adapter) {
    options_.adapter = adapter;
    std::ostringstream out, err;
    RunSummary summary = run_suite(options_, out, err);
    out_ = out.str();
    err_ = err.str();
    return summary;
  }

  // The status of one (case, op); fails the test when there is no such result.
  static Status status_of(const RunSummary& summary, const std::string& id, Operation op) {
    for (const auto& result : summary.results)
      if (result.case_id == id && result.op == op) return result.status;
    ADD_FAILURE() << "no result for " << id << " " << to_string(op);
    return Status::kSkip;
  }

  // Every result of case `id` has `status`; every other result passes.
  static void expect_only_case(const RunSummary& summary, const std::string& id, Status status) {
    ASSERT_EQ(summary.results.size(), kResultCount);
    std::size_t hits = 0;
    for (const auto& result : summary.results) {
      if (result.case_id == id) {
        ++hits;
        EXPECT_EQ(to_string(result.status), to_string(status))
            << result.case_id << " " << to_string(result.op) << ": " << result.detail;
      } else {
        EXPECT_EQ(to_string(result.status), "PASS")
            << result.case_id << " " << to_string(result.op) << ": " << result.detail;
      }
    }
    EXPECT_GT(hits, 0u) << id;
  }

  ScratchDir scratch_;
  std::filesystem::path cases_ = scratch_ / "cases";
  RunOptions options_;
  std::string out_, err_;
};

TEST_F(RunnerTest, FakeAdapterWithoutMisbehaviourPassesEverything) {
  const auto summary = run(fake_adapter("--count-starts " + shell_quote((scratch_ / "starts").string())));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.results.size(), kResultCount);
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-fake ", 0), 0u) << summary.certificate;
  EXPECT_EQ(line_count(scratch_ / "starts"), 1u) << "a persistent adapter is started once";
}

TEST_F(RunnerTest, BuiltinReferencePassesEverythingAndIsConformant) {
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.totals.failed + summary.totals.skipped + summary.totals.expected_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
}

TEST_F(RunnerTest, OneShotModeWithTheReferenceAdapterPassesEverything) {
  options_.one_shot = true;
  const auto summary = run(shell_quote(KILN_REFERENCE_ADAPTER));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
}

TEST_F(RunnerTest, OneShotModeStartsAProcessPerRequestAndIsolatesACrash) {
  options_.one_shot = true;
  const auto starts = scratch_ / "starts";
  const auto summary = run(fake_adapter("--crash-on kiln-v2-high-nibble --count-starts " +
                                        shell_quote(starts.string())));
  expect_only_case(summary, "kiln-v2-high-nibble", Status::kCrash);
  EXPECT_EQ(line_count(starts), 1 + kResultCount) << "hello plus one process per request";
  EXPECT_EQ(summary.exit_code, kExitFailures);
}

// ---- misbehaviours, one case at a time ----

struct Misbehaviour {
  std::string name;
  std::string flag;      // takes the case id
  std::string case_id;   // not the last case, so the run must go on after it
  Status status;
  std::string detail;    // a fragment of the result's detail
  int timeout_ms;
};

void PrintTo(const Misbehaviour& m, std::ostream* out) { *out << m.flag << " " << m.case_id; }

class MisbehavingAdapter : public RunnerTest, public ::testing::WithParamInterface<Misbehaviour> {};

TEST_P(MisbehavingAdapter, FailsThatCaseOnlyAndTheRunGoesOn) {
  const Misbehaviour& m = GetParam();
  options_.timeout_ms = m.timeout_ms;
  const auto starts = scratch_ / "starts";
  const auto summary = run(fake_adapter(m.flag + " " + m.case_id + " --count-starts " +
                                        shell_quote(starts.string())));
  expect_only_case(summary, m.case_id, m.status);
  std::size_t failures = 0;
  for (const auto& result : summary.results) {
    if (result.case_id != m.case_id) continue;
    ++failures;
    EXPECT_NE(result.detail.find(m.detail), std::string::npos) << result.detail;
    EXPECT_TRUE(result.unexpected());
  }
  EXPECT_EQ(summary.totals.failed, failures);
  EXPECT_EQ(summary.totals.passed, kResultCount - failures);
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT", 0), 0u) << summary.certificate;
  // Each failure leaves a dead or killed adapter; the next request starts a fresh one.
  EXPECT_EQ(line_count(starts), 1 + failures);
  // The console names the case with its status and a replay command.
  EXPECT_NE(out_.find(std::string(to_string(m.status)) + "  " + m.case_id), std::string::npos) << out_;
  EXPECT_NE(out_.find("--filter " + m.case_id), std::string::npos) << out_;
}

INSTANTIATE_TEST_SUITE_P(
    Runner, MisbehavingAdapter,
    ::testing::Values(
        // A reject case: an abort must not pass as a rejection.
        Misbehaviour{"crash_on_a_reject_case", "--crash-on", "kiln-v2-high-nibble", Status::kCrash,
                     "killed by signal 6", 5000},
        Misbehaviour{"crash_on_a_frame_case", "--crash-on", "kiln-v2-le-clear", Status::kCrash,
                     "killed by signal 6 (SIGABRT) without replying", 5000},
        Misbehaviour{"hang", "--hang-on", "kiln-v2-f32", Status::kTimeout, "no reply within 700 ms",
                     700},
        Misbehaviour{"garbage", "--garbage-on", "kiln-v2-f32", Status::kProtocol,
                     "malformed reply", 5000},
        Misbehaviour{"partial_line_then_exit", "--partial-then-exit-on", "kiln-v2-opaque",
                     Status::kCrash, "exited with status 0 without replying", 5000},
        Misbehaviour{"huge_line_without_newline", "--huge-line-on", "kiln-v2-bool-byte",
                     Status::kProtocol, "reply line longer than", 20000},
        Misbehaviour{"huge_line_with_newline", "--huge-newline-on", "kiln-v2-bool-byte",
                     Status::kProtocol, "reply line longer than", 20000},
        Misbehaviour{"close_stdout", "--close-stdout-on", "kiln-v2-high-nibble", Status::kCrash,
                     "closed its stdout", 5000},
        Misbehaviour{"wrong_case_id", "--wrong-case-on", "kiln-v2-high-nibble", Status::kProtocol,
                     "the reply answers case \"some-other-id\"", 5000}),
    [](const auto& info) { return info.param.name; });

TEST_F(RunnerTest, AnAdapterThatExitsAtHelloGivesCrashResultsWithoutEndlessRestarts) {
  const auto starts = scratch_ / "starts";
  const auto summary =
      run(fake_adapter("--exit-at-hello --count-starts " + shell_quote(starts.string())));
  ASSERT_EQ(summary.results.size(), kResultCount);
  for (const auto& result : summary.results)
    EXPECT_EQ(to_string(result.status), "CRASH") << result.case_id << ": " << result.detail;
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.totals.failed, kResultCount);
  EXPECT_EQ(summary.exit_code, kExitFailures);
  // The first start, then a bounded number of restarts: not one per case.
  EXPECT_LE(line_count(starts), 4u);
  EXPECT_GE(line_count(starts), 2u);
}

TEST_F(RunnerTest, AnAdapterWithoutEncoderIsSkippedOnEncodeAndPartiallyConformant) {
  const auto summary = run(fake_adapter("--no-encode"));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  ASSERT_EQ(summary.results.size(), kResultCount);
  for (const auto& result : summary.results)
    EXPECT_EQ(to_string(result.status), result.op == Operation::kEncode ? "SKIP" : "PASS")
        << result.case_id << " " << to_string(result.op);
  EXPECT_EQ(summary.totals.skipped, kEncodeResults);
  EXPECT_EQ(summary.totals.passed, kResultCount - kEncodeResults);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT (partial): kiln-fake ", 0), 0u)
      << summary.certificate;
}

TEST_F(RunnerTest, StderrFloodIsBoundedAndDoesNotDisturbTheAnswers) {
  const auto summary = run(fake_adapter("--flood-stderr"));
  EXPECT_EQ(summary.exit_code, kExitOk) << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  for (const auto& result : summary.results) {
    EXPECT_LE(result.adapter_stderr.size(), 17u * 1024) << result.case_id;
    EXPECT_NE(result.adapter_stderr.find("flood done"), std::string::npos) << result.case_id;
  }
}

TEST_F(RunnerTest, ARejectEverythingAdapterFailsAllButTheFrameRejectCase) {
  const auto summary = run(fake_adapter("--reject-everything"));
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(to_string(status_of(summary, "kiln-v2-le-clear", Operation::kDecode)), "PASS");
  EXPECT_EQ(summary.totals.passed, 1u);
  EXPECT_EQ(summary.totals.failed, kResultCount - 1);
  // A FRAME reject of a TYPE case is the wrong class.
  EXPECT_EQ(to_string(status_of(summary, "kiln-v2-high-nibble", Operation::kDecode)), "FAIL");
}

// ---- expected failures ----

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
}

TEST_F(ExpectedFailures, AListedCaseThatPassesIsStaleAndFailsTheRun) {
  const auto summary = run_with_list("", "kiln-v2-f32 was broken once\n");
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(summary.totals.failed, 2u);
  for (const auto& result : summary.results)
    EXPECT_EQ(result.stale_listing(), result.case_id == "kiln-v2-f32") << result.case_id;
  EXPECT_NE(out_.find("PASS, but listed as an expected failure  kiln-v2-f32"), std::string::npos)
      << out_;
}

TEST_F(ExpectedFailures, APatternThatMatchesNoCaseFailsTheRun) {
  const auto summary = run_with_list("", "kiln-v2-f32:decode\nkiln-v2-gone-*  removed long ago\n");
  // f32 decode passes (stale) and the second line matches nothing.
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_NE(err_.find("expected.txt:2: 'kiln-v2-gone-*' matches no case"), std::string::npos) << err_;
}

TEST_F(ExpectedFailures, APatternThatMatchesNoCaseAloneFailsTheRun) {
  const auto summary = run_with_list("", "kiln-v2-gone\n");
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_NE(err_.find("expected.txt:1: 'kiln-v2-gone' matches no case"), std::string::npos) << err_;
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
}

// ---- the CLI: console, reports, exit codes ----

class RunnerCli : public RunnerTest {
 protected:
  testing::CommandResult cli(std::vector<std::string> args) {
    return testing::run_program(KILN_CONFORMANCE_CLI, args, scratch_);
  }
};

struct ClosingLine {
  std::size_t passed, failed, skipped, expected_failures;
};

// The console's last line. (No <regex>: GCC 12 warns inside it under ASan.)
ClosingLine closing_line(const std::string& console) {
  const auto start = console.rfind('\n', console.size() >= 2 ? console.size() - 2 : 0);
  const std::string last = console.substr(start == std::string::npos ? 0 : start + 1);
  ClosingLine line{};
  char end = 0;
  if (std::sscanf(last.c_str(), "%zu passed, %zu failed, %zu skipped, %zu expected failures%c",
                  &line.passed, &line.failed, &line.skipped, &line.expected_failures, &end) != 5 ||
      end != '\n')
    ADD_FAILURE() << "no closing line in\n" << console;
  return line;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

std::size_t xml_attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = element.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << name << " missing in " << element;
    return 0;
  }
  return std::stoul(element.substr(at + key.size()));
}

TEST_F(RunnerCli, ReportsParseAndCountWhatTheConsoleSays) {
  write_text(scratch_ / "expected.txt", "kiln-v2-u4 known\n");
  const auto json_file = scratch_ / "report.json";
  const auto junit_file = scratch_ / "report.xml";
  const auto markdown_file = scratch_ / "report.md";
  // A mix: a crash, a listed failure pair, a wrong class, a skipped encoder.
  const auto result = cli({"run", "--adapter",
                           fake_adapter("--no-encode --crash-on kiln-v2-f32 --garbage-on kiln-v2-u4 "
                                        "--reject-everything"),
                           "--cases", cases_.string(), "--timeout-ms", "5000", "--expected-failures",
                           (scratch_ / "expected.txt").string(), "--json", json_file.string(),
                           "--junit", junit_file.string(), "--markdown", markdown_file.string()});
  EXPECT_EQ(result.exit_code, kExitFailures) << result.out << result.err;
  const ClosingLine console = closing_line(result.out);
  // bool-byte, high-nibble, opaque decode FAIL; f32 decode CRASH; u4 decode listed; encode skipped.
  EXPECT_EQ(console.passed, 1u);
  EXPECT_EQ(console.failed, 4u);
  EXPECT_EQ(console.skipped, kEncodeResults);
  EXPECT_EQ(console.expected_failures, 1u);

  const auto report = nlohmann::json::parse(read_text(json_file));
  EXPECT_EQ(report["report_version"], kJsonReportVersion);
  EXPECT_EQ(report["totals"]["passed"], console.passed);
  EXPECT_EQ(report["totals"]["failed"], console.failed);
  EXPECT_EQ(report["totals"]["skipped"], console.skipped);
  EXPECT_EQ(report["totals"]["expected_failures"], console.expected_failures);
  EXPECT_EQ(report["results"].size(), kResultCount);
  EXPECT_EQ(report["adapter"]["name"], "kiln-fake");
  EXPECT_EQ(report["adapter"]["ops"], nlohmann::json::parse(R"(["decode"])"));
  EXPECT_EQ(report["case_set_sha256"].get<std::string>().size(), 64u);
  std::map<std::string, std::size_t> statuses;
  for (const auto& item : report["results"]) ++statuses[item["status"].get<std::string>()];
  EXPECT_EQ(statuses, (std::map<std::string, std::size_t>{
                          {"PASS", 1}, {"FAIL", 3}, {"CRASH", 1}, {"PROTOCOL", 1}, {"SKIP", 5}}));

  // JUnit: well formed, one testcase per result, and its counts agree.
  const std::string xml = read_text(junit_file);
  EXPECT_EQ(std::system(("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " +
                         shell_quote(junit_file.string()))
                            .c_str()),
            0)
      << xml;
  EXPECT_EQ(count_of(xml, "<testcase "), kResultCount);
  const auto suites_at = xml.find("<testsuites ");
  ASSERT_NE(suites_at, std::string::npos) << xml;
  const std::string suites = xml.substr(suites_at, xml.find('>', suites_at) - suites_at);
  EXPECT_EQ(xml_attribute(suites, "tests"), kResultCount);
  // failures are FAILs, errors are CRASH/TIMEOUT/PROTOCOL, skipped holds the listed ones too.
  EXPECT_EQ(xml_attribute(suites, "failures"), count_of(xml, "<failure "));
  EXPECT_EQ(xml_attribute(suites, "errors"), count_of(xml, "<error "));
  EXPECT_EQ(xml_attribute(suites, "skipped"), count_of(xml, "<skipped "));
  EXPECT_EQ(xml_attribute(suites, "failures") + xml_attribute(suites, "errors"), console.failed);
  EXPECT_EQ(xml_attribute(suites, "skipped"), console.skipped + console.expected_failures);

  const std::string markdown = read_text(markdown_file);
  EXPECT_NE(markdown.find("**" + report["certificate"].get<std::string>() + "**"), std::string::npos)
      << markdown;
  EXPECT_EQ(report["certificate"].get<std::string>().rfind("NOT CONFORMANT", 0), 0u);
  EXPECT_NE(result.out.find(report["certificate"].get<std::string>() + "\n"), std::string::npos);
}

TEST_F(RunnerCli, AConformantRunExitsZeroWithTheCertificateInEveryReport) {
  const auto markdown_file = scratch_ / "report.md";
  const auto result = cli({"run", "--adapter", shell_quote(KILN_REFERENCE_ADAPTER), "--cases",
                           cases_.string(), "--markdown", markdown_file.string()});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  const ClosingLine console = closing_line(result.out);
  EXPECT_EQ(console.passed, kResultCount);
  EXPECT_NE(read_text(markdown_file).find("**CONFORMANT: kiln-reference "), std::string::npos);
}

TEST_F(RunnerCli, ExitCodes) {
  const std::string adapter = "builtin:reference";
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", (scratch_ / "missing").string()}).exit_code,
            kExitUsage);
  const auto unknown_rule =
      cli({"run", "--adapter", adapter, "--cases", cases_.string(), "--rules", "TYPE-NO-SUCH"});
  EXPECT_EQ(unknown_rule.exit_code, kExitUsage);
  EXPECT_NE(unknown_rule.err.find("'TYPE-NO-SUCH' is not a rule ID"), std::string::npos)
      << unknown_rule.err;
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", cases_.string(), "--no-such-flag"}).exit_code,
            kExitUsage);
  EXPECT_EQ(cli({"run", "--adapter", "builtin:nothing", "--cases", cases_.string()}).exit_code,
            kExitUsage);
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", cases_.string()}).exit_code, kExitOk);
  EXPECT_EQ(cli({"run", "--adapter", fake_adapter("--reject-everything"), "--cases", cases_.string()})
                .exit_code,
            kExitFailures);
}

TEST_F(RunnerCli, RulesAndFilterSelectCasesAndCertifyNothing) {
  const auto by_rule = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                            "--rules", "TYPE-BOOL-BYTE,FRAME-LE-FLAG", "--verbose"});
  EXPECT_EQ(by_rule.exit_code, kExitOk) << by_rule.err;
  EXPECT_EQ(closing_line(by_rule.out).passed, 3u);  // bool-byte decode+encode, le-clear decode
  EXPECT_NE(by_rule.out.find("PASS  kiln-v2-bool-byte encode"), std::string::npos) << by_rule.out;
  EXPECT_NE(by_rule.out.find("NO CERTIFICATE"), std::string::npos) << by_rule.out;

  const auto by_glob = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                            "--filter", "kiln-v2-*-*", "--ops", "encode"});
  EXPECT_EQ(by_glob.exit_code, kExitOk) << by_glob.err;
  EXPECT_EQ(closing_line(by_glob.out).passed, 2u);  // bool-byte and high-nibble encode
}

}  // namespace
}  // namespace kiln::conformance
