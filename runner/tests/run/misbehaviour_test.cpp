// `kiln-conformance run` against a fake adapter that misbehaves on purpose
// (issue 4 item 4): each misbehaviour (a crash, a hang, garbage, a huge line, a
// closed stdout, the wrong case id) fails only the case it happens on, with the
// right status, and the run goes on; an adapter that dies at hello, has no
// encoder, floods stderr or writes long texts; --max-failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/protocol.hpp"
#include "run/runner_fixture.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using run_tests::fake_adapter;
using run_tests::kEncodeResults;
using run_tests::kResultCount;
using run_tests::line_count;
using testing::shell_quote;
using testing::write_text;

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

}  // namespace
}  // namespace kiln::conformance
