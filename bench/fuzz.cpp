// `kiln-conformance fuzz` against the reference adapter (kiln-reference-adapter,
// one process, the persistent protocol): inputs per second, each a mutation,
// the reference's own verdict in process and a pipe round trip. The run finds
// nothing (the reference agrees with itself), so no minimization is timed.
#include <ostream>

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

constexpr Aim kAims[] = {
    {"fuzz_inputs/s", Aim::Kind::kAtLeast, 3000,
     "inputs per second through kiln-reference-adapter (a pipe round trip each)"},
};

}  // namespace

int main(int argc, char** argv) { return kiln::bench::run_benchmarks(argc, argv, kAims); }
