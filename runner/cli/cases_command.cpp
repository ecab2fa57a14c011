// `cases check|regen|coverage|export|from-input|seeds`: the golden cases' tools.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/raw_input.hpp"

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
    std::filesystem::path input_file;
    std::filesystem::path out_dir = ".";
    std::filesystem::path seeds_dir;
    std::string profile{default_profile_name()};
  };
  auto options = std::make_shared<Options>();
  options->cases_dir = invocation.default_cases_dir;

  auto* cases = app.add_subcommand(
      "cases", "Check, regenerate, cover and export the golden cases; turn fuzz inputs into cases and back");
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
  auto* from_input = cases->add_subcommand(
      "from-input", "Write a fuzzer's input (a crash or a disagreement, as the adapter fuzzer saved it) "
                    "as golden cases expecting the reference's verdict, and check them");
  from_input->add_option("FILE", options->input_file, "The raw input file")->required();
  from_input->add_option("--out", options->out_dir, "Where the case files go (created when missing)")
      ->capture_default_str();
  auto* seeds = cases->add_subcommand(
      "seeds", "Write the raw input of each case of a profile: the adapter fuzzer's seed corpus");
  seeds->add_option("DIR", options->seeds_dir, "Destination directory")->required();
  for (auto* command : {from_input, seeds})
    command
        ->add_option("--profile", options->profile,
                     "Format profile of the inputs: " + raw_input_profile_names(" or "))
        ->capture_default_str()
        ->check(CLI::IsMember(raw_input_profiles()));

  // `--cases DIR` may follow the action too: `cases check --cases DIR`.
  for (auto* action : {check, regen, coverage, exporter, from_input, seeds}) action->fallthrough();

  return {cases, [options, check, regen, coverage, exporter, from_input, seeds]() -> int {
            if (*check) return cases_check(options->cases_dir, std::cout, std::cerr);
            if (*regen) return cases_regen(options->cases_dir, std::cout, std::cerr);
            if (*coverage) return cases_coverage(options->cases_dir, std::cout, std::cerr);
            if (*exporter) return cases_export(options->cases_dir, options->export_dir, std::cout, std::cerr);
            if (*from_input)
              return cases_from_input(options->input_file, options->profile, options->out_dir, std::cout, std::cerr);
            if (*seeds)
              return cases_seeds(options->cases_dir, options->profile, options->seeds_dir, std::cout, std::cerr);
            return kExitUsage;
          }};
}

}  // namespace kiln::conformance::cli
