// Profile kiln-v2's part of the case-file writer (cases/case_writer.cpp).
#pragma once

#include <string_view>

#include "kiln/conformance/profile.hpp"

namespace kiln::conformance::kiln_v2 {

CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops);

}  // namespace kiln::conformance::kiln_v2
