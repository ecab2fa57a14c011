// `kiln-conformance run` against fake adapters that misbehave on purpose (issue 4
// item 4): each misbehaviour fails only the case it happens on, with the right
// status, and the run goes on; expected failures; reports that agree with the
// console; exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <sys/wait.h>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/first_difference.hpp"
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

// A python3 adapter for behaviours the fake adapter lacks: the script defines
// hello(request) and answer(request), each returning the reply object, and calls
// serve(hello, answer). proxy(line) asks the reference adapter instead.
constexpr const char* kPythonPrelude = R"(import json, os, subprocess, sys
reference = None
def proxy(line):
    global reference
    if reference is None:
        reference = subprocess.Popen([REFERENCE], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    reference.stdin.write(line)
    reference.stdin.flush()
    return json.loads(reference.stdout.readline())
def serve(hello, answer):
    for line in sys.stdin.buffer:
        request = json.loads(line)
        reply = hello(request, line) if request.get("op") == "hello" else answer(request, line)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
)";

std::string python_adapter(const std::filesystem::path& script, const std::string& body) {
  write_text(script, "REFERENCE = " + nlohmann::json(std::string(KILN_REFERENCE_ADAPTER)).dump() +
                         "\n" + kPythonPrelude + body);
  return "exec python3 " + shell_quote(script.string());
}

// A proxy of the reference adapter that rejects every request about case_id as
// FRAME: a FAIL of that case (for a TYPE reject or an accept case), nothing else.
std::string failing_adapter(const std::filesystem::path& script, const std::string& case_id) {
  return python_adapter(script, "FAILING = " + nlohmann::json(case_id).dump() + R"(
def answer(request, line):
    if request.get("case") == FAILING:
        return {"result": "reject", "class": "FRAME", "message": "refused on purpose"}
    return proxy(line)
serve(lambda request, line: proxy(line), answer)
)");
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

// Issue 25, item 3: an adapter inside every bound (16 KiB messages and stderr,
// all control bytes, each written six times larger in JSON) for every check.
// What the run keeps, and so its JSON report, stops growing with it once
// kKeptTextPerRun is spent: excerpts after that.
TEST_F(RunnerTest, WhatARunKeepsOfAnAdaptersTextIsBoundedInAll) {
  // 300 more cases, each failed with a long message.
  const std::string seed = testing::seed_case_texts().at("kiln-v2-high-nibble");
  for (int i = 0; i < 300; ++i) {
    const std::string id = "kiln-v2-high-nibble-copy-" + std::to_string(i);
    write_text(cases_ / "copies" / (id + ".yaml"), "id: " + id + seed.substr(seed.find('\n')));
  }
  std::ostringstream regen_out, regen_err;
  ASSERT_EQ(cases_regen(cases_, regen_out, regen_err), kExitOk) << regen_err.str();
  options_.json_report = scratch_ / "report.json";
  const auto summary = run(fake_adapter("--long-text"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  ASSERT_GT(summary.results.size(), 600u) << out_ << err_;
  const auto written = [](const std::string& text) {
    return text.size() + 5 * static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
             return static_cast<unsigned char>(c) < 0x20;
           }));
  };
  std::size_t kept = 0;
  for (const CaseResult& result : summary.results)
    kept += written(result.got) + written(result.detail) + written(result.adapter_stderr);
  // The last result before the budget ran out may keep three whole messages;
  // each after it three excerpts and their notes.
  const std::size_t per_excerpt = 6 * (kKeptTextOnceSpent + 64) + 64;
  const std::size_t bound =
      kKeptTextPerRun + 3 * 6 * (protocol::kMaxMessageBytes + 64) + summary.results.size() * 3 * per_excerpt;
  EXPECT_LE(kept, bound);
  // And so the report: what it keeps, and a few hundred bytes a result besides.
  EXPECT_LE(std::filesystem::file_size(*options_.json_report), bound + summary.results.size() * 1024);
  // Excerpts still say what the adapter wrote, and how much was cut.
  const CaseResult& last = summary.results.back();
  EXPECT_EQ(to_string(last.status), "FAIL") << last.case_id;
  EXPECT_NE(last.adapter_stderr.find("earlier bytes cut"), std::string::npos) << last.adapter_stderr;
  EXPECT_NE(last.detail.find("more bytes cut]"), std::string::npos) << last.detail;
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

TEST_F(RunnerTest, MaxFailuresStopsTheRunAndDeniesTheCertificate) {
  options_.max_failures = 2;
  const auto summary = run(fake_adapter("--reject-everything"));
  EXPECT_EQ(summary.exit_code, kExitFailures);
  EXPECT_EQ(summary.totals.failed, 2u);
  EXPECT_LT(summary.results.size(), kResultCount);
  EXPECT_NE(out_.find("stopped after 2 failing result(s) (--max-failures)"), std::string::npos)
      << out_;
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT", 0), 0u) << summary.certificate;
}

// ---- levels: required and recommended cases ----

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
  EXPECT_EQ(summary.totals.failed, 1u);
  for (const auto& result : summary.results)
    EXPECT_EQ(result.stale_listing(), result.case_id == "kiln-v2-f32" && result.op == Operation::kEncode)
        << result.case_id;
  EXPECT_NE(out_.find("PASS, but listed as an expected failure  kiln-v2-f32 encode"), std::string::npos)
      << out_;
}

// ---- reliability: what the certificate may claim, and what is stored ----

// Finding 4: judge() never dereferences what a case lacks; such a case is an
// ERROR result that no expected-failures list can hide.
TEST(Judge, ACaseThatLacksWhatItsOpNeedsIsAnErrorResult) {
  Case no_block;
  no_block.id = "kiln-v2-no-block";
  kiln_v2::body(no_block).expect.accept = true;
  CaseResult encoded;
  judge(no_block, Operation::kEncode, protocol::EncodedBlock{{0x4b, 0x49}}, encoded);
  EXPECT_EQ(to_string(encoded.status), "ERROR");
  EXPECT_NE(encoded.detail.find("cannot be judged: it has no block"), std::string::npos) << encoded.detail;
  CaseResult decoded;
  judge(no_block, Operation::kDecode, protocol::Accept{}, decoded);
  EXPECT_EQ(to_string(decoded.status), "ERROR");

  Case classless;
  kiln_v2::body(classless).block = std::vector<std::uint8_t>{0x4b};
  kiln_v2::body(classless).expect.accept = false;  // neither class nor rule
  CaseResult rejected;
  judge(classless, Operation::kDecode, protocol::Reject{ErrorClass::kType, "no", std::nullopt, std::nullopt},
        rejected);
  EXPECT_EQ(to_string(rejected.status), "ERROR");
  EXPECT_NE(rejected.detail.find("names no class"), std::string::npos) << rejected.detail;
  EXPECT_EQ(rejected.got, "reject TYPE");

  // Even when a list names it, in any way.
  rejected.case_id = "kiln-v2-classless";
  for (const char* line : {"kiln-v2-classless\n", "kiln-v2-*:decode FAIL:\n"}) {
    auto list = kiln::conformance::ExpectedFailures::parse(line, "list.txt");
    ASSERT_TRUE(list) << list.error();
    list.value().record(rejected);
    EXPECT_TRUE(rejected.listed) << line;
    EXPECT_TRUE(rejected.unexpected()) << line;
    EXPECT_FALSE(rejected.expected_failure()) << line;
  }
}

// The one first_difference, which judge() and `cases check` report.
TEST(FirstDifference, IsTheFirstDifferingOffsetOrTheShorterLength) {
  const std::vector<std::uint8_t> abc{1, 2, 3}, abd{1, 2, 4}, ab{1, 2}, none;
  EXPECT_EQ(kiln::first_difference(abc, abd), 2u);
  EXPECT_EQ(kiln::first_difference(abc, abc), 3u);
  EXPECT_EQ(kiln::first_difference(abc, ab), 2u);
  EXPECT_EQ(kiln::first_difference(ab, abc), 2u);
  EXPECT_EQ(kiln::first_difference(none, abc), 0u);
  EXPECT_EQ(kiln::first_difference(std::vector<std::uint8_t>{9}, abc), 0u);

  Case c;
  kiln_v2::body(c).block = abc;
  CaseResult encoded;
  judge(c, Operation::kEncode, protocol::EncodedBlock{abd}, encoded);
  EXPECT_EQ(to_string(encoded.status), "FAIL");
  ASSERT_TRUE(encoded.first_difference);
  EXPECT_EQ(*encoded.first_difference, 2u);
  EXPECT_EQ(encoded.detail, "encoded block differs: byte 2: header magic: expected 01 02 03 (end), got 01 02 04 (end) (expected 3 bytes, got 3)");
}

TEST(Judge, TheRuleIsInformativeAndARejectedEncodeNeedsNoBlock) {
  Case typed;
  kiln_v2::body(typed).block = std::vector<std::uint8_t>{0x4b};
  kiln_v2::body(typed).expect.accept = false;
  kiln_v2::body(typed).expect.error_class = ErrorClass::kType;  // no rule
  CaseResult accepted;
  judge(typed, Operation::kDecode, protocol::Accept{}, accepted);
  EXPECT_EQ(to_string(accepted.status), "FAIL");
  EXPECT_EQ(accepted.detail, "expected a TYPE rejection");
  CaseResult wrong_class;
  judge(typed, Operation::kDecode, protocol::Reject{ErrorClass::kFrame, "bad", std::nullopt, std::nullopt},
        wrong_class);
  EXPECT_EQ(to_string(wrong_class.status), "FAIL");
  EXPECT_EQ(wrong_class.detail, "wrong class; adapter said: bad");

  kiln_v2::body(typed).block.reset();  // a description no block can exist for: encode only
  CaseResult encode;
  judge(typed, Operation::kEncode, protocol::Reject{ErrorClass::kType, "bool 2", std::nullopt, std::nullopt},
        encode);
  EXPECT_EQ(to_string(encode.status), "PASS") << encode.detail;
}

// Finding 5: the ops are a set; decode twice is a decode-only run.
TEST_F(RunnerTest, RepeatedOpsAreOneOpAndCertifyNothing) {
  options_.ops = {Operation::kDecode, Operation::kDecode};
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.results.size(), kResultCount - kEncodeResults);
  for (const auto& result : summary.results) EXPECT_EQ(result.op, Operation::kDecode) << result.case_id;
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: a filtered run certifies nothing", 0), 0u)
      << summary.certificate;
  EXPECT_EQ(out_.find("\nCONFORMANT"), std::string::npos) << out_;
}

// Finding 6: a hello that offers nothing we run has nothing checked: no certificate, exit 1.
TEST_F(RunnerTest, AHelloThatOffersNoOpsGetsNoCertificate) {
  const auto summary = run(python_adapter(scratch_ / "no-ops.py", R"(
serve(lambda request, line: {"name": "kiln-idle", "version": "1", "protocol": 1, "ops": []},
      lambda request, line: {"result": "error", "message": "never asked"})
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  ASSERT_EQ(summary.results.size(), kResultCount);
  for (const auto& result : summary.results) EXPECT_EQ(to_string(result.status), "SKIP") << result.case_id;
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: nothing was checked: kiln-idle 1 offers none", 0),
            0u)
      << summary.certificate;
}

TEST_F(RunnerTest, AHelloThatOffersOnlyAnotherProfileGetsNoCertificate) {
  const auto summary = run(python_adapter(scratch_ / "other-profile.py", R"(
serve(lambda request, line: {"name": "kiln-v9-only", "version": "1", "ops": ["decode", "encode"],
                               "profiles": ["kiln-v9"]},
      lambda request, line: {"result": "error", "message": "never asked"})
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.skipped, kResultCount);
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: nothing was checked", 0), 0u)
      << summary.certificate;
}

// Finding 6 (and 26): a hello that fails is a failed certification even when
// every case passes after the restart.
TEST_F(RunnerTest, AnAdapterWhoseFirstHelloFailsIsNotConformantEvenIfTheCasesPass) {
  const auto flag = scratch_ / "said-hello-once";
  const auto summary = run(python_adapter(scratch_ / "flaky-hello.py", R"(
FLAG = )" + nlohmann::json(flag.string()).dump() + R"(
def hello(request, line):
    if not os.path.exists(FLAG):
        open(FLAG, "w").close()
        return {"name": 5}
    return proxy(line)
serve(hello, lambda request, line: proxy(line))
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount) << out_;
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("failed its hello (hello reply: "), std::string::npos)
      << summary.certificate;
}

// Finding 26: an error reply to hello fails the run with exit 1, and says why.
TEST_F(RunnerTest, AHelloErrorReplyFailsTheRunWithExitOne) {
  const auto summary = run(python_adapter(scratch_ / "hello-error.py", R"(
serve(lambda request, line: {"result": "error", "message": "protocol: I speak 7"},
      lambda request, line: proxy(line))
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("failed its hello"), std::string::npos) << summary.certificate;
}

// Finding 11: replies of a protocol version we do not speak are not judged.
TEST_F(RunnerTest, AHelloOfAnotherProtocolVersionIsRefused) {
  const auto proxy_with = [&](int version) {
    return python_adapter(scratch_ / ("protocol-" + std::to_string(version) + ".py"), R"(
def hello(request, line):
    reply = proxy(line)
    reply["protocol"] = )" + std::to_string(version) + R"(
    return reply
serve(hello, lambda request, line: proxy(line))
)");
  };
  // The control: the same proxy saying protocol 1 is certified.
  const auto control = run(proxy_with(1));
  EXPECT_EQ(control.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(control.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << control.certificate;

  const auto summary = run(proxy_with(2));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_TRUE(summary.results.empty());
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: kiln-reference ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("speaks adapter protocol 2, this runner protocol 1"),
            std::string::npos)
      << summary.certificate;
  EXPECT_NE(err_.find("the adapter speaks protocol 2; this runner speaks protocol 1 only"),
            std::string::npos)
      << err_;
}

// Finding 13: a huge message is stored bounded, and once.
TEST_F(RunnerTest, AdapterMessagesAreStoredBoundedAndOnce) {
  const auto summary = run(python_adapter(scratch_ / "huge-messages.py", R"(
def answer(request, line):
    if request["op"] == "decode":
        return {"result": "reject", "class": "FRAME", "message": "Q" * (1 << 20) + "\nQ",
                "rule": "Z" * (1 << 20)}
    return {"result": "error", "message": "J" * (1 << 20)}
serve(lambda request, line: proxy(line), answer)
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  ASSERT_EQ(summary.results.size(), kResultCount);
  const auto count = [](const CaseResult& result, char c) {
    return std::count(result.got.begin(), result.got.end(), c) +
           std::count(result.detail.begin(), result.detail.end(), c);
  };
  constexpr auto kLimit = static_cast<std::ptrdiff_t>(protocol::kMaxMessageBytes);
  for (const auto& result : summary.results) {
    SCOPED_TRACE(result.case_id + " " + std::string(to_string(result.op)));
    EXPECT_LE(result.got.size(), protocol::kMaxMessageBytes + 100);
    EXPECT_LE(result.detail.size(), protocol::kMaxMessageBytes + 200);
    EXPECT_LE(count(result, 'Q'), kLimit);
    EXPECT_LE(count(result, 'Z'), kLimit);
    EXPECT_LE(count(result, 'J'), kLimit);
    if (result.op == Operation::kEncode) {
      EXPECT_EQ(to_string(result.status), "PROTOCOL");
      EXPECT_GT(count(result, 'J'), kLimit / 2) << "the message is kept, bounded";
      EXPECT_NE(result.got.find("more bytes cut]"), std::string::npos);
    } else if (result.case_id != "kiln-v2-le-clear") {
      EXPECT_EQ(to_string(result.status), "FAIL");
      EXPECT_GT(count(result, 'Q'), kLimit / 2);
      EXPECT_NE(result.detail.find("more bytes cut]"), std::string::npos);
    }
  }
  // Printed on one line each: the message's newline starts no console line.
  EXPECT_EQ(out_.find("\nQ"), std::string::npos);
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

// ---- the CLI: console, reports, exit codes ----

class RunnerCli : public RunnerTest {
 protected:
  // A run here is about the cases: the generated phase, which would add its
  // results to every count and its time to every test, is left out unless a
  // test asks for it (runner/tests/generated_test.cpp tests it, and the CLI's default).
  testing::CommandResult cli(std::vector<std::string> args) {
    if (!args.empty() && args.front() == "run" && std::find(args.begin(), args.end(), "--generated") == args.end()) {
      args.push_back("--generated");
      args.push_back("0");
    }
    return testing::run_program(KILN_CONFORMANCE_CLI, args, scratch_);
  }
};

struct ClosingLine {
  std::size_t passed, failed, skipped, expected_failures, recommended_failures;
};

// The console's last line. (No <regex>: GCC 12 warns inside it under ASan.)
ClosingLine closing_line(const std::string& console) {
  const auto start = console.rfind('\n', console.size() >= 2 ? console.size() - 2 : 0);
  const std::string last = console.substr(start == std::string::npos ? 0 : start + 1);
  ClosingLine line{};
  char end = 0;
  const int read = std::sscanf(
      last.c_str(), "%zu passed, %zu failed, %zu skipped, %zu expected failures%c %zu recommended failures%c",
      &line.passed, &line.failed, &line.skipped, &line.expected_failures, &end,
      &line.recommended_failures, &end);
  // The recommended count is there only when it is not 0.
  const bool plain = read == 5 && end == '\n';
  const bool with_recommended = read == 7 && end == '\n' && line.recommended_failures > 0;
  if (!plain && !with_recommended) ADD_FAILURE() << "no closing line in\n" << console;
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
                           "--cases", cases_.string(), "--generated", "0", "--timeout-ms", "5000", "--expected-failures",
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
  // One profile in this case set, with its own verdict and counts.
  ASSERT_EQ(report["profiles"].size(), 1u) << report["profiles"].dump();
  EXPECT_EQ(report["profiles"][0]["profile"], "kiln-v2");
  EXPECT_EQ(report["profiles"][0]["verdict"], "not conformant");
  EXPECT_EQ(report["profiles"][0]["failed"], console.failed);
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
                           cases_.string(), "--generated", "0", "--markdown", markdown_file.string()});
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
  // Without its generated checks: what they write goes beside the reports, or into the working directory.
  EXPECT_EQ(cli({"run", "--adapter", fake_adapter("--reject-everything"), "--cases", cases_.string(),
                 "--generated", "0"})
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

// Finding 5, from the command line.
TEST_F(RunnerCli, OpsDecodeTwiceIsADecodeOnlyRunWithoutACertificate) {
  const auto result = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(), "--ops",
                           "decode,decode"});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  EXPECT_EQ(closing_line(result.out).passed, kResultCount - kEncodeResults);
  EXPECT_NE(result.out.find("\nNO CERTIFICATE: a filtered run certifies nothing"), std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("\nCONFORMANT"), std::string::npos) << result.out;
}

// Finding 27: nothing selected is a usage error, said so, not a silent success.
TEST_F(RunnerCli, ASelectionThatMatchesNothingIsAUsageError) {
  const auto no_match =
      cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(), "--filter", "nomatch"});
  EXPECT_EQ(no_match.exit_code, kExitUsage) << no_match.out << no_match.err;
  EXPECT_NE(no_match.err.find("run: nothing selected: no case of "), std::string::npos) << no_match.err;
  EXPECT_NE(no_match.out.find("NO CERTIFICATE: nothing selected"), std::string::npos) << no_match.out;
  // A case that matches but has no case of the op asked for: le-clear has faults, so no encode.
  const auto no_op = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                          "--filter", "kiln-v2-le-clear", "--ops", "encode"});
  EXPECT_EQ(no_op.exit_code, kExitUsage) << no_op.out << no_op.err;
  EXPECT_NE(no_op.err.find("nothing selected"), std::string::npos) << no_op.err;
}

// Finding 27: the certificate names the case set it is for.
TEST_F(RunnerCli, TheCertificateNamesTheCaseSetHash) {
  const std::string hash = case_set_hash(load_case_set(cases_));
  ASSERT_EQ(hash.size(), 64u);
  const auto result = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string()});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  EXPECT_NE(result.out.find("\nCONFORMANT: kiln-reference "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("; case set " + hash.substr(0, 12) + "\n"), std::string::npos) << result.out;
}

// The "replay:" line of the console for case `id` and op.
std::string replay_line(const std::string& console, const std::string& id, const std::string& op) {
  const auto at = console.find("  " + id + " " + op + "\n");
  if (at == std::string::npos) return {};
  const auto replay = console.find("    replay:   ", at);
  if (replay == std::string::npos) return {};
  const auto start = replay + std::strlen("    replay:   ");
  return console.substr(start, console.find('\n', start) - start);
}

// Finding 28: the replay command runs as printed, from a program path that
// needs quoting, with the run's timeout.
TEST_F(RunnerCli, TheReplayCommandReproducesTheFailureAsPrinted) {
  const auto bin = scratch_ / "bin dir's";
  std::filesystem::create_directories(bin);
  const auto program = bin / "kiln-conformance";
  std::filesystem::create_symlink(KILN_CONFORMANCE_CLI, program);
  const auto result = testing::run_program(
      program.string(),
      {"run", "--adapter", fake_adapter("--hang-on kiln-v2-f32"), "--cases", cases_.string(),
       "--timeout-ms", "700"},
      scratch_);
  EXPECT_EQ(result.exit_code, kExitFailures) << result.out << result.err;
  const std::string replay = replay_line(result.out, "kiln-v2-f32", "decode");
  ASSERT_FALSE(replay.empty()) << result.out;
  EXPECT_EQ(replay.rfind(shell_quote(program.string()) + " run ", 0), 0u) << replay;
  EXPECT_NE(replay.find(" --timeout-ms 700 "), std::string::npos) << replay;

  const auto out_file = scratch_ / "replay.out";
  const int status = std::system((replay + " >" + shell_quote(out_file.string()) + " 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << replay;
  EXPECT_EQ(WEXITSTATUS(status), kExitFailures) << read_text(out_file);
  const std::string replayed = read_text(out_file);
  EXPECT_NE(replayed.find("TIMEOUT  kiln-v2-f32 decode"), std::string::npos) << replayed;
  EXPECT_NE(replayed.find("no reply within 700 ms"), std::string::npos) << replayed;
  const ClosingLine totals = closing_line(replayed);
  EXPECT_EQ(totals.failed, 1u);
  EXPECT_EQ(totals.passed + totals.skipped + totals.expected_failures, 0u);

  // The default timeout is not spelled out.
  const auto crash = cli({"run", "--adapter", fake_adapter("--crash-on kiln-v2-f32"), "--cases",
                          cases_.string()});
  const std::string default_replay = replay_line(crash.out, "kiln-v2-f32", "decode");
  ASSERT_FALSE(default_replay.empty()) << crash.out;
  EXPECT_EQ(default_replay.find("--timeout-ms"), std::string::npos) << default_replay;
  EXPECT_NE(default_replay.find(" --filter kiln-v2-f32 --ops decode --verbose"), std::string::npos)
      << default_replay;
}

// Finding 11 and 26, from the command line: hello problems exit 1.
TEST_F(RunnerCli, HelloProblemsExitOne) {
  const auto other_protocol = cli(
      {"run", "--cases", cases_.string(), "--adapter",
       python_adapter(scratch_ / "protocol-2.py", R"(
def hello(request, line):
    reply = proxy(line)
    reply["protocol"] = 2
    return reply
serve(hello, lambda request, line: proxy(line))
)")});
  EXPECT_EQ(other_protocol.exit_code, kExitFailures) << other_protocol.out << other_protocol.err;
  EXPECT_NE(other_protocol.out.find("\nNO CERTIFICATE: kiln-reference "), std::string::npos)
      << other_protocol.out;
  const auto crash_at_hello =
      cli({"run", "--cases", cases_.string(), "--adapter", fake_adapter("--exit-at-hello")});
  EXPECT_EQ(crash_at_hello.exit_code, kExitFailures) << crash_at_hello.out << crash_at_hello.err;
  EXPECT_NE(crash_at_hello.out.find("failed its hello"), std::string::npos) << crash_at_hello.out;
}

}  // namespace
}  // namespace kiln::conformance
