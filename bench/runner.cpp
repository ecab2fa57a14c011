// The conformance runner: the whole case suite against the reference adapter
// in-process (builtin:reference), over the persistent JSON Lines protocol (one
// kiln-reference-adapter process for the run) and in one-shot mode (a process
// per request). Each iteration runs all three; cases per second each, and the
// persistent over one-shot ratio. Then the generated phase's cost, and loading
// the case set against reading its bytes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <streambuf>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/run.hpp"
#include "support/harness.hpp"

namespace {

using kiln::bench::Aim;

enum Mode : std::size_t { kInProcess, kPersistent, kOneShot };

kiln::conformance::RunOptions options_for(Mode mode) {
  kiln::conformance::RunOptions options;
  options.cases_dir = KILN_BENCH_CASES_DIR;
  options.adapter = mode == kInProcess ? std::string("builtin:reference")
                                       : "'" + std::string(KILN_BENCH_REFERENCE_ADAPTER) + "'";
  options.one_shot = mode == kOneShot;
  options.quiet_progress = true;
  return options;
}

void BM_Suite(benchmark::State& state) {
  std::ostream null(nullptr);  // no buffer: everything written is dropped
  kiln::bench::Contest contest(3);
  std::size_t results[3] = {};
  for (auto _ : state) {
    for (const Mode mode : {kInProcess, kPersistent, kOneShot}) {
      kiln::conformance::RunSummary summary;
      contest.time(mode, [&] { summary = kiln::conformance::run_suite(options_for(mode), null, null); });
      if (summary.exit_code != 0 || summary.results.empty())
        return state.SkipWithError("the suite did not pass against the reference adapter");
      results[mode] = summary.results.size();
    }
  }
  const auto per_second = [&](Mode mode) { return results[mode] / contest.median_seconds(mode); };
  state.counters["results"] = static_cast<double>(results[kInProcess]);
  state.counters["in_process_cases/s"] = per_second(kInProcess);
  state.counters["persistent_cases/s"] = per_second(kPersistent);
  state.counters["one_shot_cases/s"] = per_second(kOneShot);
  state.counters["persistent_vs_one_shot"] = per_second(kPersistent) / per_second(kOneShot);
  state.counters["in_process_vs_persistent"] = per_second(kInProcess) / per_second(kPersistent);
}
BENCHMARK(BM_Suite)->Iterations(2)->Unit(benchmark::kSecond)->UseRealTime();

// The generated phase's cost (`run --generated N`, the default N against
// --generated 0): the whole run of the C++ reference adapter and of the Python
// implementation, each over the persistent protocol, with and without it.
void BM_GeneratedPhase(benchmark::State& state) {
  std::ostream null(nullptr);
  const std::string adapters[2] = {"'" + std::string(KILN_BENCH_REFERENCE_ADAPTER) + "'",
                                   "python3 '" + std::string(KILN_BENCH_PYTHON_ADAPTER) + "'"};
  kiln::bench::Contest contest(4);
  std::size_t generated_checks[2] = {};
  for (auto _ : state) {
    for (std::size_t adapter = 0; adapter < 2; ++adapter) {
      for (const std::size_t generated : {std::size_t{0}, kiln::conformance::kDefaultGeneratedChecks}) {
        kiln::conformance::RunOptions options = options_for(kPersistent);
        options.adapter = adapters[adapter];
        options.generated = generated;
        kiln::conformance::RunSummary summary;
        contest.time(2 * adapter + (generated > 0),
                     [&] { summary = kiln::conformance::run_suite(options, null, null); });
        if (summary.exit_code != 0) return state.SkipWithError(("a run did not pass: " + summary.certificate).c_str());
        if (generated > 0)
          generated_checks[adapter] = static_cast<std::size_t>(
              std::count_if(summary.results.begin(), summary.results.end(),
                            [](const kiln::conformance::CaseResult& r) { return r.generated.has_value(); }));
      }
    }
  }
  const char* names[2] = {"cpp", "python"};
  for (std::size_t adapter = 0; adapter < 2; ++adapter) {
    const double without = contest.median_seconds(2 * adapter), with = contest.median_seconds(2 * adapter + 1);
    const std::string name = names[adapter];
    state.counters[name + "_run_s"] = with;
    state.counters[name + "_cases_only_s"] = without;
    state.counters[name + "_phase_s"] = with - without;
    state.counters[name + "_generated_checks"] = static_cast<double>(generated_checks[adapter]);
    state.counters[name + "_generated/s"] = generated_checks[adapter] / std::max(with - without, 1e-9);
  }
}
BENCHMARK(BM_GeneratedPhase)->Iterations(2)->Unit(benchmark::kSecond)->UseRealTime();

// Loading the case set as every `run`, `cases check` and `fuzz` starts
// (load_case_set: the walk, YAML, the schema and each profile's checks) against
// reading the same files' bytes, the walk included, in the same iteration.
void BM_CaseSetLoad(benchmark::State& state) {
  namespace fs = std::filesystem;
  kiln::bench::Contest contest(2);
  std::size_t bytes = 0;
  std::size_t cases = 0;
  for (auto _ : state) {
    contest.time(0, [&] {
      bytes = 0;
      for (const auto& entry : fs::recursive_directory_iterator(KILN_BENCH_CASES_DIR)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
        std::ifstream file(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        bytes += text.size();
      }
    });
    contest.time(1, [&] {
      const kiln::conformance::CaseSet set = kiln::conformance::load_case_set(KILN_BENCH_CASES_DIR);
      cases = set.errors.empty() ? set.cases.size() : 0;
    });
    if (cases == 0) return state.SkipWithError("the case set did not load");
  }
  state.counters["cases"] = static_cast<double>(cases);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["read_bytes_s"] = contest.median_seconds(0);
  state.counters["load_s"] = contest.median_seconds(1);
  state.counters["load_vs_read_bytes"] = contest.median_seconds(1) / contest.median_seconds(0);
}
BENCHMARK(BM_CaseSetLoad)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();

constexpr Aim kAims[] = {
    {"persistent_vs_one_shot", Aim::Kind::kAtLeast, 10,
     "times the cases/s of one-shot mode (a process per case)"},
    {"load_vs_read_bytes", Aim::Kind::kAtMost, 4,
     "times as long to load the case set as to read its files' bytes"},
    {"cpp_run_s", Aim::Kind::kAtMost, 2,
     "seconds for the whole run of the C++ reference adapter, generated phase included"},
};

}  // namespace

int main(int argc, char** argv) { return kiln::bench::run_benchmarks(argc, argv, kAims); }
