// `run`: certify an implementation, every case through an adapter.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/run.hpp"
#include "profiles/registry.hpp"

namespace kiln::conformance::cli {

Command add_run_command(CLI::App& app, const Invocation& invocation) {
  struct Options {
    RunOptions run;
    std::optional<std::size_t> generated;  // nullopt: as the run is narrowed or not
  };
  auto options = std::make_shared<Options>();
  RunOptions& run_options = options->run;
  run_options.cases_dir = invocation.default_cases_dir;
  run_options.program = invocation.program;

  auto* run = app.add_subcommand("run", "Certify an implementation: run every case through an adapter");
  add_adapter_option(*run, run_options.adapter,
                     "Adapter command (JSON Lines over stdin/stdout, protocol/PROTOCOL.md), or "
                     "builtin:reference");
  run->add_flag("--one-shot", run_options.one_shot,
                "Start the adapter once per request: one request line on stdin, then EOF");
  add_cases_option(*run, run_options.cases_dir, "Directory of case files");
  add_timeout_option(*run, run_options.timeout_ms, "Per-request timeout");
  run->add_option("--filter", run_options.filters, "Only cases whose id matches a glob (repeatable)");
  run->add_option("--rules", run_options.rules, "Only cases exercising one of these rule IDs")
      ->delimiter(',');
  run->add_option("--profile", run_options.profiles,
                  "Only these profiles (" + profile_names(", ") +
                      "; default every profile of the case set): the certificate covers exactly them")
      ->delimiter(',');
  add_ops_option(*run, run_options.ops, "run");
  run->add_option("--expected-failures", run_options.expected_failures,
                  "Failures the implementation knows of: `<id-glob>[:op] [STATUS:] [reason]` per "
                  "line, STATUS one of FAIL, CRASH, TIMEOUT, PROTOCOL (none: any of them)")
      ->check(CLI::ExistingFile);
  run->add_option("--write-expected-failures", run_options.write_expected_failures,
                  "Write the list of this run's failures, with their statuses, to FILE");
  run->add_option("--json", run_options.json_report, "Write the JSON report to FILE");
  run->add_option("--junit", run_options.junit_report, "Write a JUnit XML report to FILE");
  run->add_option("--markdown", run_options.markdown_report, "Write a Markdown summary to FILE");
  run->add_option("--html", run_options.html_report,
                  "Write a self-contained HTML report (totals, filters, failures with byte diffs) to FILE");
  run->add_option("--max-failures", run_options.max_failures,
                  "Stop after N results that fail the run (0: never); the rest are not run")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  run->add_option("--generated", options->generated,
                  "Generated checks per profile after the cases (0: none; default " +
                      std::to_string(kDefaultGeneratedChecks) +
                      " for a whole run, none for one narrowed by --filter, --rules or --ops)")
      ->check(CLI::Range(std::size_t{0}, kMaxGeneratedChecks));
  // 32 bits, as the seed taken from the hash: every report reader holds it exactly.
  run->add_option("--generated-seed", run_options.generated_seed,
                  "Seed of the generated checks, 0 to 4294967295 (default: from the case-set hash, the "
                  "same for every implementation certified against one case set)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{0xFFFFFFFFu}));
  run->add_option("--generated-out", run_options.generated_out,
                  "Directory confirmed generated failures are written to as cases (default: "
                  "generated-failures beside the first report, else in the working directory)");
  run->add_flag("--verbose", run_options.verbose, "Print every result, not only unexpected ones");
  add_no_progress_flag(*run, run_options.quiet_progress);

  return {run, [options] {
            // A narrowed run (a replay of one case among them) sends no generated
            // checks unless asked: it certifies nothing either way.
            options->run.generated =
                options->generated.value_or(is_filtered(options->run) ? 0 : kDefaultGeneratedChecks);
            return run_suite(options->run, std::cout, std::cerr).exit_code;
          }};
}

}  // namespace kiln::conformance::cli
