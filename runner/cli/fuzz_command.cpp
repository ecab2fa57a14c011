// `fuzz`: differential fuzzing of an adapter against the reference.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/fuzz.hpp"

namespace kiln::conformance::cli {
namespace {

// A hang is confirmed at 5 times the timeout (fuzz_engine.hpp), and that wait
// too stays within the longest any request may take.
constexpr int kMaxFuzzTimeoutMs = kMaxTimeoutMs / 5;

}  // namespace

Command add_fuzz_command(CLI::App& app, const Invocation& invocation) {
  auto options = std::make_shared<FuzzOptions>();
  options->cases_dir = invocation.default_cases_dir;
  options->program = invocation.program;

  auto* fuzz = app.add_subcommand(
      "fuzz", "Differential fuzzing: generated and mutated inputs through an adapter and the "
              "reference; each disagreement confirmed in a fresh adapter, written as a case and "
              "minimized. Exit 0: no confirmed finding; 1: confirmed findings; 2: usage or an "
              "unusable case set; 3: the adapter is unusable (no hello, another protocol, nothing "
              "offered, or it could not be restarted)");
  add_adapter_option(*fuzz, options->adapter, "Adapter command, or builtin:reference");
  add_cases_option(*fuzz, options->cases_dir,
                   "Directory of case files: kiln-v2's seeds (hurray-elements reads none)");
  fuzz->add_option("--profile", options->profile,
                   "Format profile of the inputs: kiln-v2 (blocks mutated from the cases) or "
                   "hurray-elements (tag, shape, mode, data and elements, generated without seeds)")
      ->capture_default_str()
      ->check(CLI::IsMember(profile_names()));
  auto* seconds = fuzz->add_option("--seconds", options->seconds,
                                   "Stop after N seconds, minimization included (default 60 without --runs); "
                                   "a finding found in time is still confirmed")
                      ->check(CLI::PositiveNumber);
  fuzz->add_option("--runs", options->runs, "Stop after N inputs (reproducible with --seed)")
      ->check(CLI::PositiveNumber)
      ->excludes(seconds);
  fuzz->add_option("--seed", options->seed, "Random seed")->capture_default_str();
  add_ops_option(*fuzz, options->ops, "fuzz");
  fuzz->add_option("--out", options->out_dir, "Directory the findings are written to (never through a symlink, never over "
                   "a file this run did not create)")
      ->capture_default_str();
  add_timeout_option(*fuzz, options->timeout_ms,
                     "Per-request timeout: longer is a hang (confirmed at 5 times as long)",
                     kMaxFuzzTimeoutMs);
  add_hello_timeout_option(*fuzz, options->hello_timeout_ms,
                           "Timeout of each start's hello (at least --timeout-ms)");
  add_no_progress_flag(*fuzz, options->quiet_progress);

  return {fuzz, [options] { return run_fuzz(*options, std::cout, std::cerr).exit_code; }};
}

}  // namespace kiln::conformance::cli
