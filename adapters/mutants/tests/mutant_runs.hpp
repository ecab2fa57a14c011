// What the mutant test programs share: the suite's case set, loaded once per
// program, and the command that starts kiln-mutant-adapter with arguments.
#pragma once

#include <string>

#include "kiln/conformance/case_loader.hpp"

namespace kiln::mutants::test_support {

inline const conformance::CaseSet& suite_case_set() {
  static const conformance::CaseSet set = conformance::load_case_set(KILN_CASES_DIR);
  return set;
}

// "--mutant NAME" or "--control", quoted for the shell the runner starts it with.
inline std::string mutant_command(const std::string& arguments) {
  return std::string("'") + KILN_MUTANT_ADAPTER + "' " + arguments;
}

}  // namespace kiln::mutants::test_support
