// `cases check|regen|coverage|export`: the golden cases' tools.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/profile.hpp"

namespace kiln::conformance::cli {
namespace {

// The files export writes: "<id><extension> (<profile>)" for each profile.
std::string export_files() {
  std::vector<std::string> files;
  for (const Profile* profile : all_profiles())
    files.push_back("<id>" + std::string(profile->export_extension()) + " (" + std::string(profile->name()) + ")");
  return comma_list(files, " or ");
}

}  // namespace

Command add_cases_command(CLI::App& app, const Invocation& invocation) {
  struct Options {
    std::filesystem::path cases_dir;
    std::filesystem::path export_dir;
  };
  auto options = std::make_shared<Options>();
  options->cases_dir = invocation.default_cases_dir;

  auto* cases = app.add_subcommand("cases", "Check, regenerate, cover and export the golden cases");
  cases->require_subcommand(1);
  add_cases_option(*cases, options->cases_dir, "Directory of case files (searched recursively)");

  auto* check = cases->add_subcommand(
      "check", "Fail when a case breaks the schema, its bytes differ from the regenerated ones, "
               "or the reference disagrees with its expectation");
  auto* regen = cases->add_subcommand(
      "regen", "Rewrite each case's ops and block from its description and faults");
  auto* coverage = cases->add_subcommand(
      "coverage", "Print the rule-to-cases table; fail when a rule has no breaking case");
  auto* exporter = cases->add_subcommand(
      "export", "Write every case as " + export_files() + " plus index.json, for implementers without YAML");
  exporter->add_option("DIR", options->export_dir, "Destination directory")->required();

  // `--cases DIR` may follow the action too: `cases check --cases DIR`.
  for (auto* action : {check, regen, coverage, exporter}) action->fallthrough();

  return {cases, [options, check, regen, coverage, exporter]() -> int {
            if (*check) return cases_check(options->cases_dir, std::cout, std::cerr);
            if (*regen) return cases_regen(options->cases_dir, std::cout, std::cerr);
            if (*coverage) return cases_coverage(options->cases_dir, std::cout, std::cerr);
            if (*exporter) return cases_export(options->cases_dir, options->export_dir, std::cout, std::cerr);
            return kExitUsage;
          }};
}

}  // namespace kiln::conformance::cli
