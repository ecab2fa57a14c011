// How profile hurray-elements reads its case body from a case file (case_body.cpp),
// for its Profile's seam to the loader (profile.cpp).
#pragma once

#include "kiln/conformance/hurray_elements/case.hpp"

namespace kiln::conformance::yaml {
class Node;
}

namespace kiln::conformance::hurray_elements {

// The case's members from the file's root mapping, its shared ones (id, summary,
// source, level, ops) with the profile's own patterns; throws yaml_reading::Invalid.
void read_case_body(const yaml::Node& root, Case& c);

}  // namespace kiln::conformance::hurray_elements
