// What the case tools (case_tools.cpp, sweep_families.cpp) share, and with the
// profiles' own case checks (under profiles/).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

// Ops as a case file lists them: "[decode, encode]".
std::string ops_text(const std::vector<Operation>& ops);

// The whole of a case folder's file (a case, a family's member), read as the
// loader reads one (safe_file.hpp, kMaxCaseFileBytes); else "path: " and why not.
Checked<std::string> read_case_folder_file(const std::filesystem::path& file);

// Says so on err and returns true when set holds no case file and no load
// error: a wrong --cases, with nothing done (command names the subcommand).
bool report_empty_set(const CaseSet& set, const std::filesystem::path& root, const char* command,
                      std::ostream& err);

// The sweep families of root (sweep_families.cpp): regen writes their members
// (an exit code, after saying what it did), check counts the problems it reports.
int regen_families(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
std::size_t check_families(const std::filesystem::path& root, const CaseSet& set, std::ostream& err);

}  // namespace kiln::conformance
