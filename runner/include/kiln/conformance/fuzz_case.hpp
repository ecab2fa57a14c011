// A fuzz finding as a golden case file (cases/README.md), written so that
// `cases check` accepts it and `run` fails an adapter with the bug; each profile
// makes the case of its inputs (kiln/conformance/<profile>/finding_case.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

// The case file's text: each comment line (# ...), then the keys in the order
// of cases/README.md, with ops and the profile's members as regen writes them.
std::string case_yaml(const Case& c, const std::vector<std::string>& comments);

// What `cases check` says of one case file: its load error, or the problems of
// check_case.
std::vector<std::string> check_case_file(const std::filesystem::path& file);

}  // namespace kiln::conformance
