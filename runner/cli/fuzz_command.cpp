// `fuzz`: differential fuzzing of an adapter against the reference.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "profiles/registry.hpp"

namespace kiln::conformance::cli {
namespace {

// A hang is confirmed at 5 times the timeout (fuzz_engine.hpp), and that wait
// too stays within the longest any request may take.
constexpr int kMaxFuzzTimeoutMs = kMaxTimeoutMs / 5;

// What --cases is to fuzz: the seeds of the profiles whose fuzzer reads them
// (fuzzer_reads_cases), and which profiles read none. A profile without a
// fuzzer (make_fuzzer null) is no choice of fuzz.
std::string cases_help() {
  std::vector<std::string> readers, others;
  for (const ProfileModule& module : profile_modules())
    if (module.make_fuzzer) (module.fuzzer_reads_cases ? readers : others).emplace_back(module.profile.name());
  if (readers.empty()) return "Directory of case files (no profile's fuzzer reads any)";
  std::string help = "Directory of case files: ";
  help += readers.size() == 1 ? readers[0] + "'s seeds" : "the seeds of " + comma_list(readers, " and ");
  if (!others.empty())
    help += " (" + comma_list(others, " and ") + (others.size() == 1 ? " reads none)" : " read none)");
  return help;
}

// --profile's choices, and its help: each profile with its fuzzer's inputs.
std::vector<std::string> profile_choices() {
  std::vector<std::string> names;
  for (const ProfileModule& module : profile_modules())
    if (module.make_fuzzer) names.emplace_back(module.profile.name());
  return names;
}

std::string profile_help() {
  std::vector<std::string> profiles;
  for (const ProfileModule& module : profile_modules())
    if (module.make_fuzzer) profiles.push_back(std::string(module.profile.name()) + " (" + std::string(module.fuzz_inputs) + ")");
  return "Format profile of the inputs: " + comma_list(profiles, " or ");
}

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
  add_cases_option(*fuzz, options->cases_dir, cases_help());
  fuzz->add_option("--profile", options->profile, profile_help())
      ->capture_default_str()
      ->check(CLI::IsMember(profile_choices()));
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
