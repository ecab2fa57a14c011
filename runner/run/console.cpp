// What a run prints: each result that needs showing and the closing tables.
#include <cstdio>
#include <sstream>

#include "kiln/conformance/block_diff.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/protocol.hpp"
#include "run/steps.hpp"

namespace kiln::conformance {
namespace {

// The console's word for a result: its status, and how its verdict differs from
// what the status alone says.
std::string status_label(const CaseResult& result) {
  const std::string status(to_string(result.status));
  switch (result.verdict) {
    case Verdict::kStaleListing: return "PASS, but listed as an expected failure";
    case Verdict::kChangedFailure:
      return status + ", but listed as " +
             std::string(result.listed_status ? to_string(*result.listed_status) : "failing");
    default: return status;
  }
}

}  // namespace

void print_result(std::ostream& out, const CaseResult& result, std::string_view replay) {
  out << status_label(result) << "  " << result.case_id << " " << to_string(result.op) << "\n";
  if (result.status == Status::kPass && !result.stale_listing()) return;
  if (result.status == Status::kSkip) {
    out << "    " << protocol::printable(result.detail) << "\n";
    return;
  }
  std::string rules;
  for (const auto& rule : result.rules) rules += (rules.empty() ? "" : ", ") + rule;
  out << "    rules:    " << rules << "\n";
  out << "    expected: " << result.expected << "\n";
  out << "    got:      " << protocol::printable(result.got) << "\n";
  if (!result.detail.empty()) out << "    detail:   " << protocol::printable(result.detail) << "\n";
  if (result.difference)
    for (const std::string& line : window_lines(*result.difference)) out << "      " << line << "\n";
  if (result.listed)
    out << "    listed:   "
        << (result.listed_status ? std::string(to_string(*result.listed_status)) + ": " : "")
        << protocol::printable(result.listed_reason) << "\n";
  if (!result.adapter_stderr.empty()) {
    std::istringstream lines(result.adapter_stderr);
    out << "    adapter stderr:\n";
    for (std::string line; std::getline(lines, line);) out << "      | " << protocol::printable(line) << "\n";
  }
  if (!replay.empty()) out << "    replay:   " << replay << "\n";
}

namespace run_steps {

void print_result(std::ostream& out, const RunOptions& options, const CaseResult& result) {
  conformance::print_result(out, result, result.generated ? result.generated->replay : replay_command(options, result));
}

// The topic table, the certificate and the closing counts.
void print_closing(std::ostream& out, const RunSummary& summary) {
  const Totals& totals = summary.totals;
  // The stale column only when it has something to say: a run with an
  // up-to-date list, or none, has no stale expected failure.
  const bool stale = totals.stale_expected_failures > 0;
  char row[192];
  const auto counts = [&](const char* name, const Totals& counted) {
    std::snprintf(row, sizeof row, "%-16s %8zu %8zu %8zu %9zu", name, counted.passed, counted.failed,
                  counted.skipped, counted.expected_failures);
    out << row;
    if (stale) {
      std::snprintf(row, sizeof row, " %6zu", counted.stale_expected_failures);
      out << row;
    }
  };
  std::snprintf(row, sizeof row, "\n%-16s %8s %8s %8s %9s%s\n", "topic", "passed", "failed", "skipped",
                "expected", stale ? "  stale" : "");
  out << row;
  for (const TopicTotals& topic : totals_by_topic(summary.results)) {
    counts(topic.topic.c_str(), topic.totals);
    out << "\n";
  }
  std::snprintf(row, sizeof row, "\n%-16s %8s %8s %8s %9s%s  %s\n", "profile", "passed", "failed", "skipped",
                "expected", stale ? "  stale" : "", "verdict");
  out << row;
  for (const ProfileVerdict& verdict : summary.profiles) {
    counts(verdict.profile.c_str(), verdict.totals);
    out << "  " << verdict.verdict << (verdict.scope.empty() ? "" : " (" + verdict.scope + ")") << "\n";
  }
  // The generated phase in a line per profile: its count, seed and what it kept.
  if (!summary.generated.empty()) out << "\n";
  for (const GeneratedPhase& phase : summary.generated) {
    out << "generated " << phase.profile << ": " << phase.ran << " of " << phase.planned << " checks (seed "
        << phase.seed << "), " << phase.failed << " failed";
    if (!phase.findings.empty())
      out << ", " << phase.findings.size() << " confirmed and written to "
          << phase.findings.front().file.parent_path().string();
    if (!phase.not_reproduced.empty()) out << ", " << phase.not_reproduced.size() << " not reproduced";
    out << "\n";
  }
  out << "\n" << summary.certificate << "\n";
  out << totals.passed << " passed, " << totals.failed << " failed, " << totals.skipped
      << " skipped, " << totals.expected_failures << " expected failures";
  if (stale) out << ", " << totals.stale_expected_failures << " stale expected failures";
  out << "\n";
}

}  // namespace run_steps
}  // namespace kiln::conformance
