// kiln-conformance: the golden cases' tools and the conformance runner.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/html_report.hpp"
#include "kiln/conformance/install_layout.hpp"
#include "kiln/conformance/run.hpp"

namespace kc = kiln::conformance;

int main(int argc, char** argv) {
  kc::install_termination_cleanup();  // a terminated run leaves no adapter running
  CLI::App app{"Kiln v2 conformance suite: golden cases and the runner that certifies an "
               "implementation through an adapter"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kiln-conformance ") + KILN_SUITE_VERSION);

  // Beside the executable, installed or in the build tree (install_layout.hpp).
  const std::filesystem::path default_cases_dir = kc::default_cases_dir(argv[0]);
  std::filesystem::path cases_dir = default_cases_dir;
  auto* cases = app.add_subcommand("cases", "Check, regenerate, cover and export the golden cases");
  cases->require_subcommand(1);
  cases->add_option("--cases", cases_dir, "Directory of case files (searched recursively)")
      ->capture_default_str();

  auto* check = cases->add_subcommand(
      "check", "Fail when a case breaks the schema, its bytes differ from the regenerated ones, "
               "or the reference disagrees with its expectation");
  auto* regen = cases->add_subcommand(
      "regen", "Rewrite each case's ops and block from its description and faults");
  auto* coverage = cases->add_subcommand(
      "coverage", "Print the rule-to-cases table; fail when a rule has no breaking case");
  std::filesystem::path export_dir;
  auto* exporter = cases->add_subcommand(
      "export", "Write every case as <id>.kiln (kiln-v2) or <id>.data (hurray-elements) plus index.json, for implementers without YAML");
  exporter->add_option("DIR", export_dir, "Destination directory")->required();

  kc::RunOptions run_options;
  run_options.cases_dir = default_cases_dir;
  run_options.program = argv[0];
  std::vector<std::string> ops;
  auto* run = app.add_subcommand("run", "Certify an implementation: run every case through an adapter");
  run->add_option("--adapter", run_options.adapter,
                  "Adapter command (JSON Lines over stdin/stdout, protocol/PROTOCOL.md), or "
                  "builtin:reference")
      ->required();
  run->add_flag("--one-shot", run_options.one_shot,
                "Start the adapter once per request: one request line on stdin, then EOF");
  run->add_option("--cases", run_options.cases_dir, "Directory of case files")->capture_default_str();
  run->add_option("--timeout-ms", run_options.timeout_ms, "Per-request timeout")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  run->add_option("--filter", run_options.filters, "Only cases whose id matches a glob (repeatable)");
  run->add_option("--rules", run_options.rules, "Only cases exercising one of these rule IDs")
      ->delimiter(',');
  run->add_option("--profile", run_options.profiles,
                  "Only these profiles (kiln-v2, hurray-elements; default every profile of the "
                  "case set): the certificate covers exactly them")
      ->delimiter(',');
  run->add_option("--ops", ops, "Operations to run: decode, encode (default both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"decode", "encode"}));
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
  std::optional<std::size_t> generated;
  run->add_option("--generated", generated,
                  "Generated checks per profile after the cases (0: none; default " +
                      std::to_string(kc::kDefaultGeneratedChecks) +
                      " for a whole run, none for one narrowed by --filter, --rules or --ops)")
      ->check(CLI::Range(std::size_t{0}, kc::kMaxGeneratedChecks));
  // 32 bits, as the seed taken from the hash: every report reader holds it exactly.
  run->add_option("--generated-seed", run_options.generated_seed,
                  "Seed of the generated checks, 0 to 4294967295 (default: from the case-set hash, the "
                  "same for every implementation certified against one case set)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{0xFFFFFFFFu}));
  run->add_option("--generated-out", run_options.generated_out,
                  "Directory confirmed generated failures are written to as cases (default: "
                  "generated-failures beside the first report, else in the working directory)");
  run->add_flag("--verbose", run_options.verbose, "Print every result, not only unexpected ones");
  run->add_flag("--no-progress", run_options.quiet_progress, "Do not print progress lines");

  kc::MatrixOptions matrix_options;
  auto* report = app.add_subcommand(
      "report", "Merge the JSON reports (run --json) of several implementations into an HTML matrix");
  report->add_option("--html", matrix_options.html, "Write the matrix page to FILE")->required();
  report->add_option("REPORT", matrix_options.reports, "JSON reports of one case set, one per implementation")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_flag("--allow-different-case-sets", matrix_options.allow_different_case_sets,
                   "Merge reports of different case sets (a case one set lacks shows as missing)");

  kc::FuzzOptions fuzz_options;
  fuzz_options.cases_dir = default_cases_dir;
  fuzz_options.program = argv[0];
  std::vector<std::string> fuzz_ops;
  auto* fuzz = app.add_subcommand(
      "fuzz", "Differential fuzzing: generated and mutated inputs through an adapter and the "
              "reference; each disagreement confirmed in a fresh adapter, written as a case and "
              "minimized. Exit 0: no confirmed finding; 1: confirmed findings; 2: usage or an "
              "unusable case set; 3: the adapter is unusable (no hello, another protocol, nothing "
              "offered, or it could not be restarted)");
  fuzz->add_option("--adapter", fuzz_options.adapter, "Adapter command, or builtin:reference")
      ->required();
  fuzz->add_option("--cases", fuzz_options.cases_dir, "Directory of case files: kiln-v2's seeds (hurray-elements reads none)")
      ->capture_default_str();
  fuzz->add_option("--profile", fuzz_options.profile,
                   "Format profile of the inputs: kiln-v2 (blocks mutated from the cases) or "
                   "hurray-elements (tag, shape, mode, data and elements, generated without seeds)")
      ->capture_default_str()
      ->check(CLI::IsMember({"kiln-v2", "hurray-elements"}));
  auto* fuzz_seconds = fuzz->add_option("--seconds", fuzz_options.seconds,
                                        "Stop after N seconds, minimization included (default 60 without --runs); "
                                        "a finding found in time is still confirmed")
                           ->check(CLI::PositiveNumber);
  fuzz->add_option("--runs", fuzz_options.runs, "Stop after N inputs (reproducible with --seed)")
      ->check(CLI::PositiveNumber)
      ->excludes(fuzz_seconds);
  fuzz->add_option("--seed", fuzz_options.seed, "Random seed")->capture_default_str();
  fuzz->add_option("--ops", fuzz_ops, "Operations to fuzz: decode, encode (default both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"decode", "encode"}));
  fuzz->add_option("--out", fuzz_options.out_dir, "Directory the findings are written to (never through a symlink, never over "
                   "a file this run did not create)")
      ->capture_default_str();
  fuzz->add_option("--timeout-ms", fuzz_options.timeout_ms,
                   "Per-request timeout: longer is a hang (confirmed at 5 times as long)")
      ->capture_default_str()
      ->check(CLI::Range(1, 720000));
  fuzz->add_option("--hello-timeout-ms", fuzz_options.hello_timeout_ms,
                   "Timeout of each start's hello (at least --timeout-ms)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  fuzz->add_flag("--no-progress", fuzz_options.quiet_progress, "Do not print progress lines");

  kc::ReplayOptions replay_options;
  auto* replay = app.add_subcommand(
      "replay", "Send a request file (a state-dependent fuzz finding) in order to one fresh adapter "
                "and judge the last reply against the reference. Exit 1: it disagrees (reproduced); "
                "0: it agrees; 2: an unreadable file; 3: an unusable adapter");
  replay->add_option("FILE", replay_options.file, "Request file (<id>.requests.jsonl, written by fuzz)")
      ->required();
  replay->add_option("--adapter", replay_options.adapter, "Adapter command, or builtin:reference")
      ->required();
  replay->add_option("--timeout-ms", replay_options.timeout_ms, "Per-request timeout")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  replay->add_option("--hello-timeout-ms", replay_options.hello_timeout_ms, "Timeout of the hello")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));

  // `--cases DIR` may follow the action too: `cases check --cases DIR`.
  for (auto* action : {check, regen, coverage, exporter}) action->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kc::kExitOk : kc::kExitUsage;
  }

  if (*run) {
    if (!ops.empty()) {
      run_options.ops.clear();
      for (const auto& op : ops)
        run_options.ops.push_back(op == "decode" ? kc::Operation::kDecode : kc::Operation::kEncode);
    }
    // A narrowed run (a replay of one case among them) sends no generated
    // checks unless asked: it certifies nothing either way.
    run_options.generated = generated.value_or(kc::is_filtered(run_options) ? 0 : kc::kDefaultGeneratedChecks);
    return kc::run_suite(run_options, std::cout, std::cerr).exit_code;
  }
  if (*report) return kc::report_matrix(matrix_options, std::cout, std::cerr);
  if (*fuzz) {
    if (!fuzz_ops.empty()) {
      fuzz_options.ops.clear();
      for (const auto& op : fuzz_ops)
        fuzz_options.ops.push_back(op == "decode" ? kc::Operation::kDecode : kc::Operation::kEncode);
    }
    return kc::run_fuzz(fuzz_options, std::cout, std::cerr).exit_code;
  }
  if (*replay) return kc::run_replay(replay_options, std::cout, std::cerr);
  if (*check) return kc::cases_check(cases_dir, std::cout, std::cerr);
  if (*regen) return kc::cases_regen(cases_dir, std::cout, std::cerr);
  if (*coverage) return kc::cases_coverage(cases_dir, std::cout, std::cerr);
  if (*exporter) return kc::cases_export(cases_dir, export_dir, std::cout, std::cerr);
  return kc::kExitUsage;
}
