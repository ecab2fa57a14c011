#include "kiln/conformance/run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <ostream>
#include <set>
#include <sstream>
#include <unordered_set>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/html_report.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/first_difference.hpp"
#include "run/steps.hpp"

namespace kiln::conformance {

using run_steps::Certificate;
using run_steps::KeptText;
using run_steps::Plan;
using run_steps::Session;
using run_steps::add_to;
using run_steps::certify;
using run_steps::print_closing;
using run_steps::print_result;

namespace {

bool glob_matches(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

using protocol::bounded_message;

// stderr's end is what explains a crash, so its bound keeps the tail; the
// driver's tail is bounded already, with room here for its own note.
std::string bounded_tail(std::string text, std::size_t limit = protocol::kMaxMessageBytes) {
  if (text.size() <= limit + 64) return text;  // not cut for less than its note
  std::size_t start = text.size() - limit;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return "[" + std::to_string(start) + " earlier bytes cut]\n" + text.substr(start);
}

// What a report spends on a text: a control byte is written as \u00XX.
std::size_t written_size(std::string_view text) {
  return text.size() + 5 * static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
           return static_cast<unsigned char>(c) < 0x20;
         }));
}

// Characters a shell word may hold unquoted.
bool shell_safe(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_@%+=:,./-", c) != nullptr;
  });
}

}  // namespace

Status status_of(Exchange::Kind kind) noexcept {
  switch (kind) {
    case Exchange::Kind::kCrash: return Status::kCrash;
    case Exchange::Kind::kTimeout: return Status::kTimeout;
    case Exchange::Kind::kProtocol: return Status::kProtocol;
    case Exchange::Kind::kReply: break;
  }
  return Status::kPass;
}

std::string shell_quote(const std::string& text) {
  if (shell_safe(text)) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string replay_command(const RunOptions& options, const CaseResult& result) {
  std::string command = shell_quote(options.program) + " run --adapter " + shell_quote(options.adapter);
  if (options.one_shot) command += " --one-shot";
  // Without it a hang replays with the default limit, or not at all.
  if (options.timeout_ms != RunOptions{}.timeout_ms)
    command += " --timeout-ms " + std::to_string(options.timeout_ms);
  command += " --cases " + shell_quote(options.cases_dir.string());
  command += " --filter " + shell_quote(id_glob(result.case_id)) + " --ops " +
             std::string(to_string(result.op)) + " --verbose";
  return command;
}

std::string id_glob(std::string_view id) {
  std::string glob;
  for (char c : id) {
    if (std::strchr("*?[]\\", c) != nullptr) glob += '\\';
    glob += c;
  }
  return glob;
}

void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result) {
  judge(c, op, outcome, result, nullptr);
}

void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result,
           const protocol::Hello* hello) {
  result.got = protocol::outcome_summary(outcome);
  const Profile& profile = profile_of(c);
  if (const auto why = profile.unjudgeable(c, op)) {
    result.status = Status::kError;
    result.detail = "the case cannot be judged: " + *why + " (a broken case set, not the adapter)";
    return;
  }
  if (std::holds_alternative<protocol::ProtocolError>(outcome)) {
    result.status = Status::kProtocol;
    // The message is in got already: a second copy would double what is stored.
    result.detail = "the adapter answered with an error (shown under got), and an error is never a "
                    "rejection";
    return;
  }
  if (!protocol::answers(outcome, wire_op(op),
                         profile.name())) {
    result.status = Status::kProtocol;
    result.detail = "the outcome does not answer a " + std::string(profile.name()) + " " +
                    std::string(to_string(op));
    return;
  }
  profile.judge(c, op, outcome, result, hello);
}

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

// The run's adapter, with the run's limit or (for a replay of a generated
// failure) the one given.
Checked<std::unique_ptr<Driver>> make_driver(const RunOptions& options, std::size_t largest_block,
                                             std::chrono::milliseconds timeout) {
  if (options.in_process_adapter) return make_in_process_driver(options.in_process_adapter());
  ProcessOptions process;
  process.one_shot = options.one_shot;
  process.timeout = timeout;
  process.max_reply_bytes = protocol::max_reply_line_bytes(largest_block);
  return conformance::make_driver(options.adapter, process);
}

std::string topic_of(const Case& c) {
  // The loader knows the folder below the cases root, however the root was spelled.
  return c.topic.empty() ? std::string("(top)") : c.topic;
}

bool selected(const RunOptions& options, const Case& c) {
  if (!options.filters.empty() &&
      std::none_of(options.filters.begin(), options.filters.end(),
                   [&](const std::string& glob) { return glob_matches(glob, c.id); }))
    return false;
  if (!options.rules.empty()) {
    bool hit = false;
    for (std::string_view id : c.rule_ids())
      hit |= std::find(options.rules.begin(), options.rules.end(), id) != options.rules.end();
    if (!hit) return false;
  }
  return true;
}

// ---- the steps of run_suite ----

// Checks the options against the case set, loads the list and selects the
// cases; nullopt (after saying why on err) for a usage error.
std::optional<Plan> plan_run(const RunOptions& options, const CaseSet& set, std::ostream& err) {
  for (const auto& rule : options.rules) {
    const auto profiles = all_profiles();
    const bool known = std::any_of(profiles.begin(), profiles.end(), [&](const Profile* profile) {
      const auto rules = profile->rules();
      return std::any_of(rules.begin(), rules.end(), [&](const ProfileRule& r) { return r.id == rule; });
    });
    if (!known) {
      err << "run: --rules: '" << rule << "' is not a rule ID of any profile\n";
      return std::nullopt;
    }
  }
  for (const auto& name : options.profiles)
    if (!find_profile(name)) {
      std::string names;
      for (const Profile* profile : all_profiles()) names += (names.empty() ? "" : ", ") + std::string(profile->name());
      err << "run: --profile: '" << name << "' is not a profile (" << names << ")\n";
      return std::nullopt;
    }
  Plan plan;
  if (options.expected_failures) {
    auto loaded = ExpectedFailures::load(*options.expected_failures);
    if (!loaded) {
      err << loaded.error() << "\n";
      return std::nullopt;
    }
    plan.expected = std::move(loaded).value();
  }
  plan.ops = std::set<Operation>(options.ops.begin(), options.ops.end());
  for (const Case& c : set.cases) {
    // A run of some profiles (--profile) is a whole run of each of them: the
    // others' cases are not part of it, so they count nowhere.
    if (!options.profiles.empty() &&
        std::find(options.profiles.begin(), options.profiles.end(), c.profile) == options.profiles.end())
      continue;
    const auto case_ops = c.derived_ops();
    plan.every_case_check += case_ops.size();
    if (!selected(options, c)) continue;
    const auto here = static_cast<std::size_t>(
        std::count_if(case_ops.begin(), case_ops.end(), [&](Operation op) { return plan.wanted(op); }));
    if (here == 0) continue;
    plan.chosen.push_back(&c);
    plan.planned += here;
    plan.largest_block = std::max(plan.largest_block, profile_of(c).payload_bytes(c));
  }
  plan.filtered = is_filtered(options);
  // The generated phase sends inputs of up to kMaxFuzzInputBytes.
  if (options.generated > 0) plan.largest_block = std::max(plan.largest_block, kMaxFuzzInputBytes);
  return plan;
}

}  // namespace

void run_steps::KeptText::bound(CaseResult& result) {
  if (spent_ >= kKeptTextPerRun) {
    result.got = bounded_message(result.got, kKeptTextOnceSpent);
    result.detail = bounded_message(result.detail, kKeptTextOnceSpent);
    result.adapter_stderr = bounded_tail(std::move(result.adapter_stderr), kKeptTextOnceSpent);
  }
  spent_ += written_size(result.got) + written_size(result.detail) + written_size(result.adapter_stderr);
}

namespace {

// Starts the adapter and prints what its hello says; nullopt (after saying why
// on err) when no driver can be made for options.adapter.
std::optional<Session> start_adapter(const RunOptions& options, const Plan& plan, std::ostream& out,
                                     std::ostream& err) {
  Session session;
  auto made = make_driver(options, plan.largest_block, std::chrono::milliseconds(options.timeout_ms));
  if (!made) {
    err << "run: " << made.error() << "\n";
    return std::nullopt;
  }
  session.driver = std::move(made).value();
  if (auto hello = session.driver->hello()) session.hello = std::move(hello).value();
  else session.hello_problem = std::move(hello).error();
  const auto& hello = session.hello;
  // Replies of another protocol version cannot be read as version 1's: judging
  // them could pass what should fail, so nothing is sent.
  session.other_protocol = hello && hello->protocol != protocol::kProtocolVersion;
  if (hello) {
    std::string line = hello->name + " " + hello->version + " (protocol " +
                       std::to_string(hello->protocol) + ", ops";
    for (const auto& op : hello->ops) line += " " + op;
    out << "adapter: " << protocol::printable(bounded_message(line + ")", 1024)) << "\n";
  } else {
    session.hello_problem = bounded_message(session.hello_problem);
    out << "adapter: no usable hello (" << protocol::printable(session.hello_problem) << "); every op is tried\n";
  }
  session.who = hello ? protocol::printable(bounded_message(hello->name + " " + hello->version, 256))
                      : protocol::printable(options.adapter);
  if (session.other_protocol)
    err << "run: the adapter speaks protocol " << hello->protocol << "; this runner speaks protocol "
        << protocol::kProtocolVersion << " only: no case is sent\n";
  return session;
}

}  // namespace

CaseResult run_case(const Case& c, Operation op, Driver& driver,
                    const std::optional<protocol::Hello>& hello) {
  CaseResult result;
  result.case_id = c.id;
  result.topic = topic_of(c);
  result.profile = c.profile;
  result.op = op;
  for (std::string_view rule : c.rule_ids()) result.rules.emplace_back(rule);
  const Profile& profile = profile_of(c);
  const protocol::Hello* offered = hello ? &*hello : nullptr;
  result.expected = profile.expectation_text(c, op, offered);

  const auto started = Clock::now();
  if (const auto why = profile.unjudgeable(c, op)) {
    result.status = Status::kError;
    result.detail = "the case cannot be judged: " + *why + " (a broken case set, not the adapter)";
  } else if (hello && !hello->offers_op(wire_op(op))) {
    result.status = Status::kSkip;
    result.detail = "the adapter's hello does not offer " + std::string(to_string(op));
  } else if (hello && !hello->offers_profile(c.profile)) {
    result.status = Status::kSkip;
    result.detail = "the adapter's hello does not offer profile " + c.profile;
  } else if (auto scope = profile.out_of_scope(c, op, offered)) {
    result.status = Status::kSkip;
    result.out_of_scope = true;
    result.detail = std::move(*scope);
  } else {
    Exchange exchange = driver.exchange(profile.request(c, op));
    result.adapter_stderr = bounded_tail(std::move(exchange.adapter_stderr));
    if (exchange.kind == Exchange::Kind::kReply) {
      judge(c, op, exchange.outcome, result, offered);
    } else {
      result.status = status_of(exchange.kind);
      result.got = std::string(to_string(result.status));
      result.detail = bounded_message(exchange.detail);
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

namespace {

// Every planned (case, op), each given its verdict as it finishes; prints what
// fails the run (everything with --verbose), and progress.
std::vector<CaseResult> run_cases(const RunOptions& options, Plan& plan, Session& session,
                                  std::ostream& out) {
  std::vector<CaseResult> results;
  if (session.other_protocol) return results;
  results.reserve(plan.planned);
  std::size_t failing = 0;
  for (const Case* c : plan.chosen) {
    for (Operation op : c->derived_ops()) {
      if (!plan.wanted(op)) continue;
      if (options.max_failures && failing >= options.max_failures) {
        out << "stopped after " << failing << " failing result(s) (--max-failures): "
            << plan.planned - results.size() << " of " << plan.planned << " not run\n";
        return results;
      }
      CaseResult result = run_case(*c, op, *session.driver, session.hello);
      session.kept_text.bound(result);
      plan.expected.record(result);
      failing += result.unexpected();
      if (options.verbose || result.unexpected()) print_result(out, options, result);
      if (!options.quiet_progress && (results.size() + 1) % 100 == 0)
        out << "... " << results.size() + 1 << " of " << plan.planned << " results\n";
      results.push_back(std::move(result));
      // A restart storm: the adapter breaks the protocol over and over, and
      // each further check would cost a restart to learn the same.
      if (session.abandoned = session.driver->abandoned(); !session.abandoned.empty()) {
        out << "stopped: " << protocol::printable(session.abandoned) << "\n"
            << plan.planned - results.size() << " of " << plan.planned << " not run\n";
        out.flush();
        return results;
      }
      out.flush();
    }
  }
  return results;
}

// Whether an entry that no result used names a (case, op) of the case set that
// the run did not select (a case of a profile --profile left out): outside the
// run, neither used nor stale. One that names no (case, op) of the set is stale.
bool names_a_check_not_run(const ExpectedFailures::Entry& entry, const CaseSet& set,
                           const std::unordered_set<const Case*>& chosen, const Plan& plan) {
  for (const Case& c : set.cases) {
    const bool ran = chosen.contains(&c);
    for (Operation op : c.derived_ops())
      if ((!ran || !plan.wanted(op)) && entry.matches(c.id, op)) return true;
  }
  return false;
}

// Where the phase writes what it confirms: beside the reports the run writes.
std::filesystem::path generated_out_dir(const RunOptions& options) {
  if (options.generated_out) return *options.generated_out;
  for (const auto* report : {&options.json_report, &options.junit_report, &options.markdown_report, &options.html_report})
    if (*report) return report->value().parent_path() / "generated-failures";
  return "generated-failures";
}

// The profiles of the run (those of its cases) that the adapter offers and
// that have a fuzzer to generate their checks, with the ops it offers: each
// gets a phase.
std::vector<std::pair<std::string, std::vector<Operation>>> phase_profiles(const Plan& plan,
                                                                           const protocol::Hello& hello) {
  std::vector<std::pair<std::string, std::vector<Operation>>> chosen;
  for (const ProfileModule& module : profile_modules()) {
    const std::string name(module.profile.name());
    if (!module.make_fuzzer || !hello.offers_profile(name) ||
        std::none_of(plan.chosen.begin(), plan.chosen.end(), [&](const Case* c) { return c->profile == name; }))
      continue;
    std::vector<Operation> ops = generated_ops(hello, {plan.ops.begin(), plan.ops.end()});
    if (!ops.empty()) chosen.emplace_back(name, std::move(ops));
  }
  return chosen;
}

// The generated phase of each profile of the run the adapter offers, its
// results appended to results as they are judged and given their verdicts.
std::vector<GeneratedPhase> run_generated(const RunOptions& options, Plan& plan, Session& session,
                                          const CaseSet& set, const std::string& case_set_sha256,
                                          std::vector<CaseResult>& results, std::ostream& out, std::ostream& err) {
  std::vector<GeneratedPhase> phases;
  if (options.generated == 0 || session.other_protocol || !session.hello || !session.abandoned.empty())
    return phases;
  std::size_t failing = static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return r.unexpected(); }));
  if (options.max_failures && failing >= options.max_failures) return phases;
  const std::uint64_t seed = options.generated_seed.value_or(generated_seed(case_set_sha256));
  const auto fresh = [&options, largest = plan.largest_block](std::chrono::milliseconds timeout) {
    auto made = make_driver(options, largest, timeout);
    return made ? std::move(made).value() : nullptr;
  };
  bool stopped = false;
  for (auto& [profile, ops] : phase_profiles(plan, *session.hello)) {
    if (stopped) break;
    GeneratedPhaseOptions phase;
    phase.profile = profile;
    phase.seed = seed;
    phase.checks = options.generated;
    phase.ops = ops;
    phase.out_dir = generated_out_dir(options);
    phase.adapter = options.adapter;
    phase.timeout_ms = options.timeout_ms;
    phase.program = options.program;
    phase.cases_dir = options.cases_dir.string();
    out << "generated: " << options.generated << " checks of " << profile << " (seed " << seed << ")\n";
    out.flush();
    std::size_t done = 0;
    const auto on_result = [&](CaseResult&& result) {
      session.kept_text.bound(result);
      plan.expected.record(result);
      failing += result.unexpected();
      if (options.verbose || result.unexpected()) print_result(out, options, result);
      if (!options.quiet_progress && ++done % 2000 == 0)
        out << "... " << done << " of " << options.generated << " generated checks of " << profile << "\n";
      out.flush();
      results.push_back(std::move(result));
      if (options.max_failures && failing >= options.max_failures) {
        stopped = true;
        return false;
      }
      return true;
    };
    phases.push_back(run_generated_phase(phase, *session.driver, fresh, *session.hello, set, on_result, out, err));
    const GeneratedPhase& ran = phases.back();
    // The adapter abandoned in this phase ends the run's phases: the next
    // profile's would only be refused.
    session.abandoned = session.driver->abandoned();
    if (!session.abandoned.empty()) {
      out << "stopped: " << protocol::printable(session.abandoned) << "\n";
      stopped = true;
    } else if (stopped)
      out << "stopped after " << failing << " failing result(s) (--max-failures): " << ran.planned - ran.ran
          << " of " << ran.planned << " generated checks of " << profile << " not run\n";
    else if (!ran.stopped.empty())
      out << "generated: " << profile << " stopped after " << ran.ran << " of " << ran.planned
          << " checks: " << protocol::printable(ran.stopped) << "\n";
  }
  return phases;
}

// The reports the options ask for, and the expected-failures list to write;
// false (after saying why on err) when one cannot be written.
bool write_reports(const RunOptions& options, const ReportContext& context, const std::string& who,
                   std::ostream& err) {
  bool written = true;
  // Each writer says why its file could not be written.
  const auto write_with = [&](const std::optional<std::filesystem::path>& file, const auto& writer) {
    if (!file) return;
    if (const Checked<void> wrote = writer(*file); !wrote) {
      err << "run: " << wrote.error() << "\n";
      written = false;
    }
  };
  const auto text_of = [](std::string text) {
    return [text = std::move(text)](const std::filesystem::path& file) { return write_text_file(file, text); };
  };
  // The JSON report and the run's page are streamed a result at a time: no
  // report is whole in memory, whatever an adapter sent.
  const auto streamed = [&](auto writer) {
    return [&context, writer](const std::filesystem::path& file) { return writer(context, file); };
  };
  write_with(options.json_report, streamed(write_json_report));
  if (options.junit_report) write_with(options.junit_report, text_of(junit_report(context)));
  if (options.markdown_report) write_with(options.markdown_report, text_of(markdown_report(context)));
  write_with(options.html_report, streamed(write_run_page));
  if (options.write_expected_failures)
    write_with(options.write_expected_failures,
               text_of(ExpectedFailures::write(context.results, "Expected failures of " + who +
                                                                    " (kiln-conformance " KILN_SUITE_VERSION
                                                                    "). Remove a line once its case passes.")));
  return written;
}

}  // namespace

std::string_view to_string(Status status) noexcept {
  switch (status) {
    case Status::kPass: return "PASS";
    case Status::kFail: return "FAIL";
    case Status::kCrash: return "CRASH";
    case Status::kTimeout: return "TIMEOUT";
    case Status::kProtocol: return "PROTOCOL";
    case Status::kSkip: return "SKIP";
    case Status::kError: return "ERROR";
  }
  return "?";
}

std::string_view to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kPass: return "pass";
    case Verdict::kSkip: return "skip";
    case Verdict::kExpectedFailure: return "expected-failure";
    case Verdict::kUnexpectedFailure: return "unexpected-failure";
    case Verdict::kChangedFailure: return "changed-failure";
    case Verdict::kStaleListing: return "stale-listing";
    case Verdict::kUnjudged: return "unjudged";
  }
  return "?";
}

RunSummary run_suite(const RunOptions& options, std::ostream& out, std::ostream& err) {
  return run_suite(options, load_case_set(options.cases_dir), out, err);
}

RunSummary run_suite(const RunOptions& options, const CaseSet& set, std::ostream& out,
                     std::ostream& err) {
  RunSummary summary;
  const auto started = Clock::now();
  const std::string started_at = utc_now();
  summary.exit_code = kExitUsage;

  if (!report_load_errors(set, err) || set.cases.empty()) {
    err << "run: the case set in " << options.cases_dir.string() << " is unusable"
        << (set.cases.empty() && set.errors.empty() ? " (no cases)" : "") << "\n";
    return summary;
  }
  std::optional<Plan> plan = plan_run(options, set, err);
  if (!plan) return summary;
  const std::string case_set_sha256 = case_set_hash(set);
  // Short, as a commit hash: enough to tell which case set a certificate is for.
  const std::string case_set_note = "; case set " + case_set_sha256.substr(0, 12);
  if (plan->planned == 0) {
    // Exit 0 would read as success with nothing checked.
    err << "run: nothing selected: no case of " << options.cases_dir.string()
        << " matches --filter, --rules and --ops\n";
    summary.certificate = "NO CERTIFICATE: nothing selected" + case_set_note;
    out << summary.certificate << "\n";
    return summary;
  }

  std::optional<Session> session = start_adapter(options, *plan, out, err);
  if (!session) return summary;
  out << "cases: " << (session->other_protocol ? 0 : plan->chosen.size()) << " of "
      << set.cases.size() << " from " << options.cases_dir.string() << "\n";
  summary.results = run_cases(options, *plan, *session, out);
  summary.generated = run_generated(options, *plan, *session, set, case_set_sha256, summary.results, out, err);

  for (const CaseResult& result : summary.results) add_to(summary.totals, result);
  // A filtered run or one that sent nothing cannot tell an unused entry. One
  // that names nothing is as out of date as one whose case now passes: each
  // counts as a stale expected failure, not as a wrong answer.
  if (!plan->filtered && !session->other_protocol) {
    const std::unordered_set<const Case*> chosen(plan->chosen.begin(), plan->chosen.end());
    summary.unmatched_entries = plan->expected.report_unused(err, [&](const ExpectedFailures::Entry& entry) {
      return outside_generated_selection(entry, summary.generated) ||
             names_a_check_not_run(entry, set, chosen, *plan);
    });
    summary.totals.stale_expected_failures += summary.unmatched_entries.size();
  }

  const Certificate certificate = certify(*plan, *session, summary.results, summary.totals, summary.generated);
  summary.profiles = verdicts_by_profile(summary.results, session->hello, plan->filtered);
  summary.certificate = certificate.text + case_set_note;

  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  const ReportContext context{options,         session->hello,      case_set_sha256,
                              set.cases.size(), summary.results,    summary.totals,
                              summary.certificate, seconds,         started_at,
                              summary.generated, summary.unmatched_entries};
  const bool reports_written = write_reports(options, context, session->who, err);
  print_closing(out, summary);
  summary.exit_code = reports_written ? certificate.exit_code : kExitUsage;
  return summary;
}

}  // namespace kiln::conformance
