// `report`: several implementations' JSON reports merged into one HTML matrix.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "kiln/conformance/html_report.hpp"

namespace kiln::conformance::cli {

Command add_report_command(CLI::App& app) {
  auto options = std::make_shared<MatrixOptions>();
  auto* report = app.add_subcommand(
      "report", "Merge the JSON reports (run --json) of several implementations into an HTML matrix");
  report->add_option("--html", options->html, "Write the matrix page to FILE")->required();
  report->add_option("REPORT", options->reports, "JSON reports of one case set, one per implementation")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_flag("--allow-different-case-sets", options->allow_different_case_sets,
                   "Merge reports of different case sets (a case one set lacks shows as missing)");

  return {report, [options] { return report_matrix(*options, std::cout, std::cerr); }};
}

}  // namespace kiln::conformance::cli
