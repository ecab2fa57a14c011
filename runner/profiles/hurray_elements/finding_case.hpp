// Profile hurray-elements's part of the case-file writer (cases/case_writer.cpp).
#pragma once

#include <string_view>

#include "kiln/conformance/profile.hpp"

namespace kiln::conformance::hurray_elements {

CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops);

}  // namespace kiln::conformance::hurray_elements
