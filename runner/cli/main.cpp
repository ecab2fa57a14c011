// kiln-conformance: the golden cases' tools and the conformance runner. Each
// command is declared in its own file (commands.hpp); main builds the app
// from them, parses and runs the one given.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "commands.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/install_layout.hpp"
#include "kiln/conformance/subprocess.hpp"

namespace kc = kiln::conformance;

int main(int argc, char** argv) {
  kc::install_termination_cleanup();  // a terminated run leaves no adapter running
  CLI::App app{"Kiln v2 conformance suite: golden cases and the runner that certifies an "
               "implementation through an adapter"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kiln-conformance ") + KILN_SUITE_VERSION);

  // Beside the executable, installed or in the build tree (install_layout.hpp).
  const kc::cli::Invocation invocation{kc::default_cases_dir(argv[0]), argv[0]};
  // In the order the help lists them.
  const std::vector<kc::cli::Command> commands{
      kc::cli::add_cases_command(app, invocation), kc::cli::add_run_command(app, invocation),
      kc::cli::add_report_command(app), kc::cli::add_fuzz_command(app, invocation),
      kc::cli::add_replay_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kc::kExitOk : kc::kExitUsage;
  }
  for (const auto& command : commands)
    if (*command.subcommand) return command.run();
  return kc::kExitUsage;
}
