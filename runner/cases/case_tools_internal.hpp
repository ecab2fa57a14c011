// What the case tools (case_tools.cpp) share with the profiles' own case checks
// (profiles/kiln_v2/case_checks.cpp), so that both write ops alike.
#pragma once

#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

// Ops as a case file lists them: "[decode, encode]".
std::string ops_text(const std::vector<Operation>& ops);

}  // namespace kiln::conformance
