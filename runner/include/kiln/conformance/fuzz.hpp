// `kiln-conformance fuzz`: differential fuzzing of an implementation through its
// adapter, with the strict reference in process as the oracle. Each profile makes
// its own inputs (runner/profiles/<profile>/fuzzer.cpp): some grow them from the
// golden cases, others generate them and grow from what they find, no case
// needed; each judged as `run` judges its cases, with what the hello claims.
//
// A disagreement (accept vs reject, the class, the tensors or elements, the
// encoded bytes, or a crash, hang or malformed reply) counts only once it
// reproduces in a fresh adapter, judged against the reference again: alone
// (then it is written as a ready-to-commit golden case at once, minimized, and
// the case improved in place when the smaller input reproduces too), or after
// the requests that preceded it (state-dependent: the shortest such sequence is
// written as a request file for `kiln-conformance replay`). What does not
// reproduce is listed as not reproduced, with its evidence, and fails nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

// The largest block or description (payloads, names, layouts, dimensions) sent:
// small inputs find combination bugs as well as large ones, and make small cases.
inline constexpr std::size_t kMaxFuzzInputBytes = 16 * 1024;
// Default length of a run given neither --seconds nor --runs.
inline constexpr double kDefaultFuzzSeconds = 60;
// The generated checks per profile of `run`'s generated phase (generated.hpp)
// when --generated does not say.
inline constexpr std::size_t kDefaultGeneratedChecks = 10000;
// The most --generated asks for: each check is a result the run keeps.
inline constexpr std::size_t kMaxGeneratedChecks = 1000000;

struct FuzzOptions {
  std::string adapter;  // a command, or builtin:reference
  std::filesystem::path cases_dir;
  std::string profile{default_profile_name()};
  std::optional<double> seconds;       // stop after this long
  std::optional<std::uint64_t> runs;   // stop after this many inputs (reproducible)
  std::uint64_t seed = 1;
  std::vector<Operation> ops{Operation::kDecode, Operation::kEncode};
  std::filesystem::path out_dir = "fuzz-findings";
  int timeout_ms = 2000;
  // The hello's own limit, for every start (at least timeout_ms): a start on a
  // loaded machine is slow, and a missed hello is not a finding.
  int hello_timeout_ms = 10000;
  bool quiet_progress = false;
  std::string program = "kiln-conformance";  // for replay commands
  // The generated phase of `run` (generated.hpp) sets these. Blind: the inputs
  // do not depend on the adapter's answers (a failing input joins no pool and
  // every request is as likely to be repeated), so every adapter is sent the
  // same sequence, and a finding is minimized before it is written, once.
  bool adapter_blind = false;
  std::string id_word = "fuzz";  // a written case's id: <profile>-<id_word>-<op>-<hash>
  std::string found_by;          // what a written case says found it; empty: this fuzz command
  // The most disagreements replayed to be confirmed (each costs fresh adapters
  // and a minimization); nullopt: no limit but the budget's.
  std::optional<std::size_t> max_confirmations;
};

// One confirmed disagreement, as the file written for it.
struct FuzzFinding {
  Operation op = Operation::kDecode;
  // The dedup key: the op, the reference's verdict (its rule, or accept) and the
  // adapter's answer (accept, its class, a different block, a crash...).
  std::string signature;
  Case test_case;  // state-dependent: the case of the last request
  std::filesystem::path file;  // the case, or the request file of a state-dependent finding
  // Reproduced only after the requests before it, in one fresh adapter: file is
  // a request file (JSON Lines) of `requests` requests for `kiln-conformance replay`.
  bool state_dependent = false;
  std::size_t requests = 1;
  std::string replay;  // the command that replays it
  // What `cases check` would say of the written case (empty: it passes).
  std::vector<std::string> check_problems;
};

// A disagreement seen once that a fresh adapter did not repeat: no finding.
struct NotReproduced {
  std::string signature;
  std::string seen;      // what the adapter did the first time
  std::string replayed;  // what the fresh adapter(s) did instead
};

struct FuzzSummary {
  // ExitCode: 0 no confirmed finding, 1 confirmed findings (or one could not be
  // written), 2 usage or an unusable case set, 3 the adapter is unusable.
  int exit_code = 0;
  std::uint64_t inputs = 0;
  double seconds = 0;
  std::vector<FuzzFinding> findings;
  std::vector<NotReproduced> not_reproduced;
};

// Loads options.cases_dir for the seeds of a profile whose fuzzer grows from the
// cases (an unusable case set exits 2; the other profiles read no case folder)
// and fuzzes. Progress lines and findings go to out, problems to err.
FuzzSummary run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);
// The same from a case set already loaded (the seeds; unused by a profile that reads none).
FuzzSummary run_fuzz(const FuzzOptions& options, const CaseSet& set, std::ostream& out,
                     std::ostream& err);

// `kiln-conformance replay FILE`: the requests of a request file (written by
// fuzz for a state-dependent finding) sent in order to one fresh adapter; the
// last reply is judged against the reference. Exit 1 when it disagrees (the
// finding reproduces), 0 when it agrees, 2 for an unreadable file, 3 for an
// unusable adapter.
struct ReplayOptions {
  std::string adapter;
  std::filesystem::path file;
  int timeout_ms = 10000;
  int hello_timeout_ms = 10000;
};
int run_replay(const ReplayOptions& options, std::ostream& out, std::ostream& err);

// The request file's bounds: what replay reads, and what fuzz may write.
inline constexpr std::size_t kMaxReplayRequests = 4096;
inline constexpr std::size_t kMaxReplayFileBytes = std::size_t{64} << 20;

}  // namespace kiln::conformance
