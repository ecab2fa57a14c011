// The run's certificate and each profile's verdict, counted from the results.
#include <algorithm>
#include <set>

#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/protocol.hpp"
#include "run/steps.hpp"

namespace kiln::conformance {

using run_steps::Certificate;
using run_steps::Session;
using run_steps::add_to;

namespace {

// Each profile of the run and what the adapter did with it, for the
// certificate: "P and Q (its scope note)"; for a partial run, "conformant for
// P; Q not offered".
std::string profile_verdicts(const std::vector<CaseResult>& results, const Session& session, bool partial) {
  std::vector<std::string> conformant, other;
  for (const ProfileVerdict& verdict : verdicts_by_profile(results, session.hello, false)) {
    std::string text = verdict.profile;
    std::string scope = verdict.scope;
    if (verdict.out_of_scope > 0)
      scope += (scope.empty() ? "" : "; ") + std::to_string(verdict.out_of_scope) + " checks outside it not sent";
    if (!scope.empty()) text += " (" + scope + ")";
    if (verdict.verdict == "conformant") conformant.push_back(text);
    else other.push_back(verdict.profile + " " + verdict.verdict);
  }
  const auto join = [](const std::vector<std::string>& items) {
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i)
      text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return text;
  };
  if (!partial) return join(conformant);
  std::string text;
  if (!conformant.empty()) text = "conformant for " + join(conformant);
  if (!other.empty()) text += (text.empty() ? "" : "; ") + join(other);
  return text;
}

}  // namespace

namespace run_steps {

void add_to(Totals& totals, const CaseResult& result) {
  switch (result.verdict) {
    case Verdict::kPass: ++totals.passed; return;
    case Verdict::kSkip: ++totals.skipped; return;
    case Verdict::kExpectedFailure: ++totals.expected_failures; return;
    case Verdict::kStaleListing: ++totals.stale_expected_failures; return;
    case Verdict::kUnexpectedFailure:
    case Verdict::kChangedFailure:
    case Verdict::kUnjudged: ++totals.failed; return;
  }
}

// The certificate and the exit status, the first reason that applies winning.
// CONFORMANT needs every check of the whole case set run and passed: counted,
// not inferred from the absence of failures.
Certificate certify(const Plan& plan, const Session& session, const std::vector<CaseResult>& results,
                    const Totals& totals, const std::vector<GeneratedPhase>& phases) {
  std::size_t unjudged = 0, cases_passed = 0, out_of_scope = 0;
  std::size_t generated_planned = 0, generated_passed = 0;
  for (const GeneratedPhase& phase : phases) generated_planned += phase.planned;
  for (const CaseResult& result : results) {
    unjudged += result.verdict == Verdict::kUnjudged;
    if (result.generated) {
      generated_passed += result.verdict == Verdict::kPass;
      continue;
    }
    out_of_scope += result.out_of_scope && result.verdict == Verdict::kSkip;
    cases_passed += result.verdict == Verdict::kPass;
  }
  const std::string& who = session.who;
  const bool nothing_checked = totals.passed == 0 && totals.failed == 0 && totals.expected_failures == 0 &&
                               totals.stale_expected_failures == 0;
  const bool stale = totals.stale_expected_failures > 0;
  const std::string failures =
      std::to_string(totals.failed) + " unexpected and " + std::to_string(totals.expected_failures) +
      " expected failure(s)" +
      (stale ? " and " + std::to_string(totals.stale_expected_failures) + " stale expected failure(s)" : "");
  const std::size_t every_check = plan.every_case_check + generated_planned;
  const bool all_ran = results.size() == every_check;
  // What the certificate covers beyond the cases, named either way.
  const std::string generated =
      phases.empty() ? std::string(", cases only,")
                     : " and " + std::to_string(generated_passed) + " generated checks (seed " +
                           std::to_string(phases.front().seed) + ")";
  // A stale expected failure fails the run as a wrong answer does: the list only shrinks.
  Certificate certificate{{}, totals.failed == 0 && !stale ? kExitOk : kExitFailures};
  if (unjudged > 0) {
    certificate = {"NO CERTIFICATE: " + std::to_string(unjudged) +
                       " result(s) could not be judged: the case set is broken",
                   kExitUsage};
  } else if (session.other_protocol) {
    certificate = {"NO CERTIFICATE: " + who + " speaks adapter protocol " +
                       std::to_string(session.hello->protocol) + ", this runner protocol " +
                       std::to_string(protocol::kProtocolVersion),
                   kExitFailures};
  } else if (!session.hello) {
    // Even if every case passed after a restart: hello is part of the protocol.
    certificate = {"NOT CONFORMANT: " + who + " failed its hello (" + protocol::printable(session.hello_problem) +
                       "); " + failures,
                   kExitFailures};
  } else if (nothing_checked) {
    certificate = {"NO CERTIFICATE: nothing was checked: " + who + " offers none of the " +
                       std::to_string(totals.skipped) + " selected checks",
                   kExitFailures};
  } else if (plan.filtered) {
    certificate.text = "NO CERTIFICATE: a filtered run certifies nothing";
  } else if (!session.abandoned.empty()) {
    certificate = {"NOT CONFORMANT: " + who + " was abandoned: " +
                       protocol::printable(session.abandoned) + "; " +
                       std::to_string(every_check - std::min(every_check, results.size())) + " of " +
                       std::to_string(every_check) + " checks not run; " + failures,
                   kExitFailures};
  } else if (totals.failed > 0 || totals.expected_failures > 0 || stale) {
    certificate.text = "NOT CONFORMANT: " + who + " has " + failures;
  } else if (all_ran && cases_passed + out_of_scope == plan.every_case_check &&
             generated_passed == generated_planned) {
    certificate.text = "CONFORMANT: " + who + " passes all " + std::to_string(cases_passed) +
                       " checks (decode and encode)" + generated + " of kiln-conformance " + KILN_SUITE_VERSION +
                       " for " + profile_verdicts(results, session, false);
  } else if (all_ran && totals.passed > 0 && generated_passed == generated_planned &&
             totals.passed + totals.skipped == every_check) {
    certificate.text = "CONFORMANT (partial): " + who + " passes every check it offers" +
                       (phases.empty() ? std::string(", cases only") : generated) + "; " +
                       std::to_string(totals.skipped - out_of_scope) + " skipped; " +
                       profile_verdicts(results, session, true);
  } else {
    // Unreachable while the counts above add up; never a certificate if not.
    certificate = {"NO CERTIFICATE: " + std::to_string(results.size()) + " of " +
                       std::to_string(every_check) + " checks ran",
                   kExitFailures};
  }
  return certificate;
}

}  // namespace run_steps

bool is_filtered(const RunOptions& options) {
  const std::set<Operation> ops(options.ops.begin(), options.ops.end());
  return !options.filters.empty() || !options.rules.empty() || ops.count(Operation::kDecode) == 0 ||
         ops.count(Operation::kEncode) == 0;
}

std::vector<ProfileVerdict> verdicts_by_profile(const std::vector<CaseResult>& results,
                                                const std::optional<protocol::Hello>& hello, bool filtered) {
  std::vector<ProfileVerdict> verdicts;
  for (const Profile* profile : all_profiles()) {
    ProfileVerdict verdict;
    verdict.profile = std::string(profile->name());
    std::size_t results_here = 0, unoffered = 0;
    for (const CaseResult& result : results) {
      if ((result.profile.empty() ? std::string(default_profile_name()) : result.profile) != verdict.profile)
        continue;
      ++results_here;
      add_to(verdict.totals, result);
      if (result.out_of_scope) ++verdict.out_of_scope;
      else if (result.verdict == Verdict::kSkip) ++unoffered;
    }
    if (results_here == 0) continue;
    if (hello && hello->offers_profile(verdict.profile)) verdict.scope = profile->scope_note(*hello);
    if (verdict.totals.failed > 0 || verdict.totals.expected_failures > 0 ||
        verdict.totals.stale_expected_failures > 0)
      verdict.verdict = "not conformant";
    else if (unoffered == results_here) verdict.verdict = "not offered";
    else if (unoffered > 0) verdict.verdict = "partly offered";
    else if (filtered) verdict.verdict = "not certified";
    else verdict.verdict = "conformant";
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

std::vector<TopicTotals> totals_by_topic(const std::vector<CaseResult>& results) {
  std::vector<TopicTotals> topics;
  for (const CaseResult& result : results) {
    auto it = std::find_if(topics.begin(), topics.end(),
                           [&](const TopicTotals& t) { return t.topic == result.topic; });
    if (it == topics.end()) it = topics.insert(topics.end(), TopicTotals{result.topic, {}});
    add_to(it->totals, result);
  }
  std::sort(topics.begin(), topics.end(),
            [](const TopicTotals& a, const TopicTotals& b) { return a.topic < b.topic; });
  return topics;
}

}  // namespace kiln::conformance
