// What the case-file writer (case_writer.cpp) and each profile's part of it share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

// "[A, B]": rule IDs as a case file lists them (any profile's rule type).
template <class AnyRule>
std::string rule_list(const std::vector<AnyRule>& rules) {
  std::string text;
  for (AnyRule rule : rules) text += (text.empty() ? "" : ", ") + std::string(rule_info(rule).id);
  return "[" + text + "]";
}

// A finding's case before its profile fills it: id, summary, source suite, required.
Case finding_base_case(const std::string& id, const std::string& summary);

}  // namespace kiln::conformance
