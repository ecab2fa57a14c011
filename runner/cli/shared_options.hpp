// The options several commands share, each declared once: its name, type,
// checks and default shown. run, fuzz and replay talk to an adapter; run, fuzz
// and cases read a case set. The command binds its own field and gives the help
// text (and bounds) where they differ.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/profile_registry.hpp"  // comma_list

namespace kiln::conformance::cli {

// No request or hello waits longer than an hour.
inline constexpr int kMaxTimeoutMs = 3600000;

CLI::Option* add_adapter_option(CLI::App& command, std::string& adapter, const std::string& help);
CLI::Option* add_cases_option(CLI::App& command, std::filesystem::path& cases_dir, const std::string& help);
CLI::Option* add_timeout_option(CLI::App& command, int& timeout_ms, const std::string& help,
                                int max_ms = kMaxTimeoutMs);
CLI::Option* add_hello_timeout_option(CLI::App& command, int& hello_timeout_ms, const std::string& help);
// --ops replaces ops (default: both) by the operations it names; verb says
// what is done with them ("run", "fuzz").
CLI::Option* add_ops_option(CLI::App& command, std::vector<Operation>& ops, const std::string& verb);
CLI::Option* add_no_progress_flag(CLI::App& command, bool& quiet_progress);

}  // namespace kiln::conformance::cli
