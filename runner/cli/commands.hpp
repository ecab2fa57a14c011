// The commands of kiln-conformance, one file each (<command>_command.cpp):
// each adds its subcommand to the app and returns what runs it once parsed, so
// main() only builds, parses and dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>

namespace kiln::conformance::cli {

// What the commands take from the invocation rather than the command line.
struct Invocation {
  std::filesystem::path default_cases_dir;  // beside the executable (install_layout.hpp)
  std::string program;                      // argv[0], for the replay commands reports print
};

// A registered command: its subcommand, and what runs it when that was parsed,
// returning the exit code. The options it binds live as long as run does.
struct Command {
  CLI::App* subcommand;
  std::function<int()> run;
};

Command add_cases_command(CLI::App& app, const Invocation& invocation);
Command add_run_command(CLI::App& app, const Invocation& invocation);
Command add_report_command(CLI::App& app);
Command add_fuzz_command(CLI::App& app, const Invocation& invocation);
Command add_replay_command(CLI::App& app);

}  // namespace kiln::conformance::cli
