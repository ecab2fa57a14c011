// `kiln-conformance fuzz` against the reference adapter (kiln-reference-adapter,
// one process, the persistent protocol): inputs per second, each a mutation,
// the reference's own verdict in process and a pipe round trip. The run finds
// nothing (the reference agrees with itself), so no minimization is timed.
// Then the same runs in process beside it, for each profile: the protocol
// path's share of the rate.
#include <ostream>
#include <string>

#include "kiln/conformance/fuzz.hpp"
#include "support/harness.hpp"

namespace {

using kiln::bench::Aim;

constexpr std::uint64_t kRuns = 30000;

void BM_FuzzReferenceAdapter(benchmark::State& state) {
  static const kiln::conformance::CaseSet set = kiln::conformance::load_case_set(KILN_BENCH_CASES_DIR);
  if (!set.errors.empty()) return state.SkipWithError("the case set does not load");
  std::ostream null(nullptr);  // no buffer: everything written is dropped
  kiln::conformance::FuzzOptions options;
  options.adapter = "'" + std::string(KILN_BENCH_REFERENCE_ADAPTER) + "'";
  options.runs = kRuns;
  options.quiet_progress = true;
  kiln::bench::Contest contest(1);
  for (auto _ : state) {
    kiln::conformance::FuzzSummary summary;
    contest.time(0, [&] { summary = kiln::conformance::run_fuzz(options, set, null, null); });
    if (summary.exit_code != 0 || summary.inputs != kRuns)
      return state.SkipWithError("fuzzing the reference adapter found something or stopped early");
  }
  state.counters["inputs"] = static_cast<double>(kRuns);
  state.counters["fuzz_inputs/s"] = kRuns / contest.median_seconds(0);
}
BENCHMARK(BM_FuzzReferenceAdapter)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

// The same fuzz run through the process protocol and in process
// (builtin:reference), for each profile, timed in turn within each iteration:
// what the protocol path costs, as the ratio of their rates (issue 28).
void BM_FuzzProcessVsInProcess(benchmark::State& state) {
  static const kiln::conformance::CaseSet set = kiln::conformance::load_case_set(KILN_BENCH_CASES_DIR);
  if (!set.errors.empty()) return state.SkipWithError("the case set does not load");
  std::ostream null(nullptr);
  constexpr std::uint64_t kProfileRuns = 20000;
  const std::string profiles[] = {"kiln-v2", "hurray-elements"};
  const std::string adapters[] = {"builtin:reference", "'" + std::string(KILN_BENCH_REFERENCE_ADAPTER) + "'"};
  kiln::bench::Contest contest(4);  // profile * 2 + (0 in process, 1 process)
  for (auto _ : state) {
    for (std::size_t p = 0; p < 2; ++p) {
      for (std::size_t a = 0; a < 2; ++a) {
        kiln::conformance::FuzzOptions options;
        options.adapter = adapters[a];
        options.profile = profiles[p];
        options.runs = kProfileRuns;
        options.seed = 1;
        options.quiet_progress = true;
        kiln::conformance::FuzzSummary summary;
        contest.time(2 * p + a, [&] { summary = kiln::conformance::run_fuzz(options, set, null, null); });
        if (summary.exit_code != 0 || summary.inputs != kProfileRuns)
          return state.SkipWithError("fuzzing the reference found something or stopped early");
      }
    }
  }
  const auto rate = [&](std::size_t contender) { return kProfileRuns / contest.median_seconds(contender); };
  state.counters["kiln_v2_in_process_inputs/s"] = rate(0);
  state.counters["kiln_v2_process_inputs/s"] = rate(1);
  state.counters["hurray_in_process_inputs/s"] = rate(2);
  state.counters["hurray_process_inputs/s"] = rate(3);
  state.counters["kiln_v2_process_vs_in_process"] = rate(1) / rate(0);
  state.counters["hurray_process_vs_in_process"] = rate(3) / rate(2);
}
BENCHMARK(BM_FuzzProcessVsInProcess)->Iterations(5)->Unit(benchmark::kSecond)->UseRealTime();

constexpr Aim kAims[] = {
    {"fuzz_inputs/s", Aim::Kind::kAtLeast, 3000,
     "inputs per second through kiln-reference-adapter (a pipe round trip each)"},
    {"kiln_v2_process_vs_in_process", Aim::Kind::kAtLeast, 0.6,
     "kiln-v2 fuzz rate through kiln-reference-adapter / in process (builtin:reference)"},
    {"hurray_process_vs_in_process", Aim::Kind::kAtLeast, 0.6,
     "hurray-elements fuzz rate through kiln-reference-adapter / in process"},
};

}  // namespace

int main(int argc, char** argv) { return kiln::bench::run_benchmarks(argc, argv, kAims); }
