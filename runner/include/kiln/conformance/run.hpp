// `kiln-conformance run`: every selected case through a driver, compared with
// its expectation, with expected failures, console output and reports.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/driver.hpp"

namespace kiln::conformance {

// kError: the runner could not judge the case (it lacks what its op needs): the
// case set's fault, never the adapter's, so it is neither listable nor certifiable.
enum class Status : std::uint8_t { kPass, kFail, kCrash, kTimeout, kProtocol, kSkip, kError };
std::string_view to_string(Status status) noexcept;

struct CaseResult {
  std::string case_id;
  std::string topic;             // the case's folder under the cases directory
  Operation op = Operation::kDecode;
  std::vector<std::string> rules;
  Status status = Status::kPass;
  bool listed = false;           // on the expected-failure list
  std::string listed_reason;
  std::string expected;          // what the case expects
  // The adapter's text below is bounded (protocol::kMaxMessageBytes each, saying
  // how much was cut) and an adapter's message is kept in one of got and detail.
  std::string got;               // what came back
  std::string detail;            // why it failed, or why it was skipped
  std::optional<std::uint64_t> first_difference;  // bytes: first differing offset
  std::string adapter_stderr;    // its tail
  double seconds = 0;

  bool expected_failure() const {
    return listed && status != Status::kPass && status != Status::kSkip && status != Status::kError;
  }
  // A listed case that now passes fails the run, so the list only shrinks.
  bool stale_listing() const { return listed && status == Status::kPass; }
  bool unexpected() const {
    return status == Status::kError || stale_listing() ||
           (!listed && status != Status::kPass && status != Status::kSkip);
  }
};

struct ExpectedFailure {
  std::string pattern;  // an id glob, optionally ":decode" or ":encode"
  std::string reason;
  int line = 0;
  bool used = false;
};

// Lines: `<pattern> [reason...]`; `#` starts a comment. Errors name file:line.
// A leading UTF-8 BOM is skipped and CRLF line ends are accepted (editors on
// Windows write both).
std::optional<std::vector<ExpectedFailure>> load_expected_failures(const std::filesystem::path& file,
                                                                   std::string& error);

struct RunOptions {
  std::filesystem::path cases_dir;
  std::string adapter;  // a command, or builtin:reference
  bool one_shot = false;
  int timeout_ms = 10000;
  std::vector<std::string> filters;  // id globs; empty: all
  std::vector<std::string> rules;    // rule IDs; empty: all
  std::vector<Operation> ops{Operation::kDecode, Operation::kEncode};  // a set: repeats count once
  std::optional<std::filesystem::path> expected_failures;
  std::optional<std::filesystem::path> write_expected_failures;
  std::optional<std::filesystem::path> json_report;
  std::optional<std::filesystem::path> junit_report;
  std::optional<std::filesystem::path> markdown_report;
  bool verbose = false;  // print every result, not just unexpected ones
  bool quiet_progress = false;
  std::string program = "kiln-conformance";  // for replay commands
};

struct Totals {
  std::size_t passed = 0, failed = 0, skipped = 0, expected_failures = 0;
};

struct RunSummary {
  std::vector<CaseResult> results;
  Totals totals;
  std::string certificate;
  int exit_code = 0;
};

// Results counted by topic (the case folder), in topic order: the table the
// console and the Markdown report print.
struct TopicTotals {
  std::string topic;
  Totals totals;
};
std::vector<TopicTotals> totals_by_topic(const std::vector<CaseResult>& results);

// Compares the outcome of op on case c with the case's expectation: sets
// result's status, got, detail and first_difference. A case that lacks what op
// needs (its block, a reject's class) is a Status::kError result.
void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result);

// Runs the suite; writes progress and unexpected results to out, problems with
// the inputs to err. exit_code: 0 all passed (or only listed failures); 1
// unexpected results, or an adapter that fails or lacks a usable hello (another
// protocol version included), or that had nothing checked (every result skipped);
// 2 usage error (nothing selected included), an unusable case set (a case that
// cannot be judged included) or a report that cannot be written.
// The certificate says CONFORMANT only when every (case, op) of the whole case
// set ran and passed, and CONFORMANT (partial) only when at least one passed and
// the rest were skipped because the hello does not offer their op or profile.
RunSummary run_suite(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace kiln::conformance
