// `kiln-conformance run`: every selected case through a driver, compared with
// its expectation, given a verdict by the expected-failures list
// (expected_failures.hpp), certified, with console output and reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/block_diff.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz.hpp"

namespace kiln::conformance {

// kError: the runner could not judge the case (it lacks what its op needs): the
// case set's fault, never the adapter's, so it is neither listable nor certifiable.
enum class Status : std::uint8_t { kPass, kFail, kCrash, kTimeout, kProtocol, kSkip, kError };
std::string_view to_string(Status status) noexcept;

// What a result means for the run, once the expected-failures list is applied
// (ExpectedFailures::record decides it).
enum class Verdict : std::uint8_t {
  kPass,
  kSkip,               // not run: the hello does not offer its op or profile
  kExpectedFailure,    // fails as its list entry records
  kUnexpectedFailure,  // fails, and no entry lists it
  kChangedFailure,     // listed, but fails another way than its entry records
  kStaleListing,       // listed, but passes: the list only shrinks
  kUnjudged,           // ERROR: the case set's fault, which no list hides
};
// "pass", "expected-failure", ...: the JSON report's spelling.
std::string_view to_string(Verdict verdict) noexcept;

// A run keeps each result's adapter text (got, detail, stderr) up to the
// protocol's bound until it has kept kKeptTextPerRun bytes of it in all (as a
// report writes them, a control byte six), then kKeptTextOnceSpent bytes of each:
// its memory and its reports do not grow with what an adapter writes.
inline constexpr std::size_t kKeptTextPerRun = 8u << 20;
inline constexpr std::size_t kKeptTextOnceSpent = 256;

struct CaseResult {
  std::string case_id;
  std::string topic;             // the case's folder under the cases directory
  std::string profile;           // the case's format profile; reports write the default's when empty
  Operation op = Operation::kDecode;
  std::vector<std::string> rules;
  Status status = Status::kPass;
  Verdict verdict = Verdict::kPass;
  // The list entry that matched, if one did.
  bool listed = false;
  // Skipped because the hello declares it out of its scope within an offered
  // profile (an encode of a Tier 2 type the hello does not list): not a shortfall.
  bool out_of_scope = false;
  std::optional<Status> listed_status;  // nullopt: the entry accepts any failure
  std::string listed_reason;
  std::string expected;          // what the case expects
  // The adapter's text below is bounded (protocol::kMaxMessageBytes each, saying
  // how much was cut) and an adapter's message is kept in one of got and detail.
  std::string got;               // what came back
  std::string detail;            // why it failed, or why it was skipped
  std::optional<std::uint64_t> first_difference;  // bytes: first differing offset
  // The same difference named by field, with a hex window of both sides: an
  // encoded block, or a decoded tensor's payload.
  std::optional<ByteDifference> difference;
  std::string adapter_stderr;    // its tail
  double seconds = 0;
  // A check of the generated phase (generated.hpp): its seed and number in the
  // sequence; for a failure, the file written for it (when one was) and the
  // command that replays it.
  struct Generated {
    std::uint64_t seed = 0;
    std::uint64_t number = 0;
    std::string file;
    std::string replay;
  };
  std::optional<Generated> generated;

  bool expected_failure() const noexcept { return verdict == Verdict::kExpectedFailure; }
  bool stale_listing() const noexcept { return verdict == Verdict::kStaleListing; }
  bool changed_failure() const noexcept { return verdict == Verdict::kChangedFailure; }
  // The result fails the run.
  bool unexpected() const noexcept {
    return verdict == Verdict::kUnexpectedFailure || verdict == Verdict::kChangedFailure ||
           verdict == Verdict::kStaleListing || verdict == Verdict::kUnjudged;
  }
};

// The protocol's name of an op, and the status `run` records for an exchange
// that brought no reply (kPass for a reply, which is judged instead).
inline protocol::Op wire_op(Operation op) noexcept {
  return op == Operation::kDecode ? protocol::Op::kDecode : protocol::Op::kEncode;
}
Status status_of(Exchange::Kind kind) noexcept;

// A glob (fnmatch, backslash escapes) that matches exactly this id.
std::string id_glob(std::string_view id);

struct RunOptions {
  std::filesystem::path cases_dir;
  std::string adapter;  // a command, or builtin:reference
  // When set, in place of adapter's command: each driver of the run (the
  // generated phase's fresh ones too) is in process, over an adapter this
  // makes (a test's, or a C++ embedder's); adapter still names it in messages
  // and reports.
  std::function<std::unique_ptr<protocol::Adapter>()> in_process_adapter;
  bool one_shot = false;
  int timeout_ms = 10000;
  std::vector<std::string> filters;  // id globs; empty: all
  std::vector<std::string> rules;    // rule IDs; empty: all
  std::vector<Operation> ops{Operation::kDecode, Operation::kEncode};  // a set: repeats count once
  // The profiles to run (--profile); empty: every profile of the case set. A run
  // of some profiles certifies each of them, and names them.
  std::vector<std::string> profiles;
  std::optional<std::filesystem::path> expected_failures;        // read: ExpectedFailures::load
  std::optional<std::filesystem::path> write_expected_failures;  // ExpectedFailures::write
  std::optional<std::filesystem::path> json_report;
  std::optional<std::filesystem::path> junit_report;
  std::optional<std::filesystem::path> markdown_report;
  std::optional<std::filesystem::path> html_report;  // one self-contained page
  // Stop once this many results fail the run (the rest are not run, so the
  // certificate is denied); 0: run everything.
  std::size_t max_failures = 0;
  // The generated phase (generated.hpp): its checks per profile the adapter
  // offers (0: none; the command line's default is kDefaultGeneratedChecks for a
  // whole run, none for a filtered one), its seed (nullopt: from the case-set
  // hash) and where confirmed failures are written (nullopt: a folder
  // generated-failures beside the first report asked for, else in the working
  // directory; made only when there is one).
  std::size_t generated = 0;
  std::optional<std::uint64_t> generated_seed;
  std::optional<std::filesystem::path> generated_out;
  bool verbose = false;  // print every result, not just unexpected ones
  bool quiet_progress = false;
  std::string program = "kiln-conformance";  // for replay commands
};

// The command that runs this one result again, verbosely.
std::string replay_command(const RunOptions& options, const CaseResult& result);
// text as one POSIX shell word: unchanged when it needs no quotes, else in single quotes.
std::string shell_quote(const std::string& text);

// Results counted by verdict. failed counts the wrong answers and the cases
// that cannot be judged (unexpected and changed failures, unjudged cases);
// stale_expected_failures what is out of date in the expected-failures list:
// listed (case, op)s that pass and, in a run's totals, entries that match no
// (case, op) of the case set. Both fail the run: the list only shrinks.
struct Totals {
  std::size_t passed = 0, failed = 0, skipped = 0, expected_failures = 0, stale_expected_failures = 0;
};

// An entry of the expected-failures list that names no (case, op) of the case
// set (a case since removed, a generated check of another seed): a stale
// expected failure without a result.
struct UnmatchedEntry {
  std::string list;     // the list's file, as the run was given it
  int line = 0;         // 1-based
  std::string pattern;  // `id_glob[:op]`, as written
};

// One profile's part of a run: its results counted, and what they say of it.
struct ProfileVerdict {
  std::string profile;
  Totals totals;
  std::size_t out_of_scope = 0;  // skipped by the hello's own declaration (of totals.skipped)
  // "conformant", "not conformant", "not offered", "partly offered", or "not
  // certified" (a filtered run); conformant here is this profile's alone: the
  // certificate line still needs the whole run to be clean.
  std::string verdict;
  std::string scope;  // what the hello claims within the profile ("Tier 2: ..."), or empty
};
// The profiles of the results, in all_profiles() order. filtered: the run left
// cases out (--filter, --rules, --ops), so no profile is certified.
std::vector<ProfileVerdict> verdicts_by_profile(const std::vector<CaseResult>& results,
                                                const std::optional<protocol::Hello>& hello, bool filtered);
// Whether the options leave cases of the set out (a --profile run does not:
// it certifies each profile it runs).
bool is_filtered(const RunOptions& options);

// One profile's generated phase (generated.hpp), once run.
struct GeneratedPhase {
  std::string profile;
  std::uint64_t seed = 0;
  std::size_t planned = 0;  // the checks it was to run
  std::size_t ran = 0;
  std::size_t failed = 0;   // results that failed (before any expected-failures list)
  std::vector<FuzzFinding> findings;  // confirmed, minimized and written
  std::vector<NotReproduced> not_reproduced;
  std::string stopped;      // why it ended before planned (empty: it did not)
  bool write_failed = false;
};


struct RunSummary {
  std::vector<CaseResult> results;  // the cases', then the generated phase's
  Totals totals;
  std::string certificate;
  std::vector<ProfileVerdict> profiles;
  std::vector<GeneratedPhase> generated;  // one per profile whose phase ran
  std::vector<UnmatchedEntry> unmatched_entries;  // counted in totals.stale_expected_failures
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
// The same given the adapter's hello (nullptr: none), which decides what a case
// of an optional part of a profile expects (a profile's Tier 2 types).
void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result,
           const protocol::Hello* hello);

// One (case, op) through driver, as `run` does it: skipped when hello (nullopt:
// the adapter had none, so every op is tried) does not offer its op or profile,
// else sent and judged. Sets everything but the listing and the verdict, which
// ExpectedFailures::record gives.
CaseResult run_case(const Case& c, Operation op, Driver& driver,
                    const std::optional<protocol::Hello>& hello);

// A result as `run` prints it: its status (and how its verdict differs), id and
// op; for anything but a pass, the rules, what was expected, what came back,
// why, its listing and the adapter's stderr; then the replay command when not empty.
void print_result(std::ostream& out, const CaseResult& result, std::string_view replay);

// Runs the suite; writes progress and unexpected results to out, problems with
// the inputs to err. exit_code: 0 all passed (or only listed failures); 1
// unexpected results (a listed case that fails another way than listed
// included), stale expected failures, or an adapter that fails or lacks a
// usable hello (another protocol version included), or that had nothing
// checked (every result skipped); 2 usage error (nothing selected included),
// an unusable case set (a case that cannot be judged included) or a report
// that cannot be written.
// The certificate says CONFORMANT only when every (case, op) of the whole case
// set ran and passed; CONFORMANT (partial) only when at least one passed and
// the rest were skipped because the hello does not offer their op or profile.
RunSummary run_suite(const RunOptions& options, std::ostream& out, std::ostream& err);

// The same over a case set already loaded (from options.cases_dir, which still
// names it in messages and replay commands): for callers that run one set
// against many adapters, as the mutant kill test does, loading it once.
RunSummary run_suite(const RunOptions& options, const CaseSet& set, std::ostream& out,
                     std::ostream& err);

}  // namespace kiln::conformance
