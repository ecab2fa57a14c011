// The generated phase of `kiln-conformance run`: after the golden cases, a
// fixed number of inputs per profile, made by the fuzz engine in its
// adapter-blind mode (fuzz.hpp) from a seed derived from the case-set hash, so
// that every implementation certified against one case set is sent the same
// inputs in the same order and the same run twice gives the same result. The
// reference in process gives each input its exact expected answer; each input
// is one result, counted as a case's is. A disagreement is replayed in a fresh
// adapter, minimized there and written as a ready-to-commit case (or, when it
// needs the requests before it, a request file for `kiln-conformance replay`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/run.hpp"

namespace kiln::conformance {

// The seed of a case set's phase: its hash's first 32 bits, so that the seed
// changes with every case and is the same everywhere for one set.
std::uint64_t generated_seed(std::string_view case_set_sha256);

// A generated check's id, the name an expected-failures entry gives it:
// "generated-<profile>-<seed>-<number>", its number 1-based and six digits at least.
std::string generated_check_id(std::string_view profile, std::uint64_t seed, std::uint64_t number);
// The parts of such an id; nullopt when id is not one.
struct GeneratedCheckId {
  std::string profile;
  std::uint64_t seed = 0;
  std::uint64_t number = 0;
};
std::optional<GeneratedCheckId> parse_generated_check_id(std::string_view id);

// Whether an expected-failures entry names generated checks the run did not
// select (a number past --generated, a phase that did not run or did not run
// in full): those are neither used nor stale. An entry of another seed is
// stale: the case set changed, and so did every generated input.
bool outside_generated_selection(const ExpectedFailures::Entry& entry, const std::vector<GeneratedPhase>& phases);

// The most disagreements one profile's phase replays, minimizes and writes.
inline constexpr std::size_t kMaxGeneratedConfirmations = 32;

// The ops a phase sends: those of wanted the hello offers, decode first.
std::vector<Operation> generated_ops(const protocol::Hello& hello, const std::vector<Operation>& wanted);

// The topic (case folder) generated results are counted under.
inline constexpr std::string_view kGeneratedTopic = "(generated)";

struct GeneratedPhaseOptions {
  std::string profile;
  std::uint64_t seed = 0;
  std::size_t checks = 0;
  std::vector<Operation> ops;  // those the hello offers, in run's order
  std::filesystem::path out_dir;  // where confirmed failures are written
  std::string adapter;            // for replay commands
  int timeout_ms = 10000;
  std::string program = "kiln-conformance";
  std::string cases_dir;          // for the command that runs the phase again
};

// Runs one profile's phase through driver (the run's adapter, its hello
// already read); fresh makes the adapters a disagreement is replayed and
// minimized in. Each check's result goes to on_result as it is judged (its
// listing and verdict not yet given); on_result returns false to stop the
// phase. FINDING and NOT REPRODUCED lines go to out.
GeneratedPhase run_generated_phase(const GeneratedPhaseOptions& options, Driver& driver,
                                   std::function<std::unique_ptr<Driver>(std::chrono::milliseconds)> fresh,
                                   const protocol::Hello& hello, const CaseSet& set,
                                   const std::function<bool(CaseResult&&)>& on_result, std::ostream& out,
                                   std::ostream& err);

}  // namespace kiln::conformance
