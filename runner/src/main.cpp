// kiln-conformance: the golden cases' tools and the conformance runner.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "kiln/conformance/case_tools.hpp"

#ifndef KILN_DEFAULT_CASES_DIR
#define KILN_DEFAULT_CASES_DIR "cases"
#endif

namespace kc = kiln::conformance;

int main(int argc, char** argv) {
  CLI::App app{"Kiln v2 conformance suite: golden cases and the runner that certifies an "
               "implementation through an adapter"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kiln-conformance ") + KILN_SUITE_VERSION);

  std::filesystem::path cases_dir = KILN_DEFAULT_CASES_DIR;
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
      "export", "Write every case as <id>.kiln plus index.json, for implementers without YAML");
  exporter->add_option("DIR", export_dir, "Destination directory")->required();

  // `--cases DIR` may follow the action too: `cases check --cases DIR`.
  for (auto* action : {check, regen, coverage, exporter}) action->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kc::kExitOk : kc::kExitUsage;
  }

  if (*check) return kc::cases_check(cases_dir, std::cout, std::cerr);
  if (*regen) return kc::cases_regen(cases_dir, std::cout, std::cerr);
  if (*coverage) return kc::cases_coverage(cases_dir, std::cout, std::cerr);
  if (*exporter) return kc::cases_export(cases_dir, export_dir, std::cout, std::cerr);
  return kc::kExitUsage;
}
