// How profile kiln-v2 reads its case body from a case file (case_body.cpp),
// for its Profile's seam to the loader (profile.cpp).
#pragma once

#include "kiln/conformance/kiln_v2/case.hpp"

namespace kiln::conformance::yaml {
class Node;
}

namespace kiln::conformance::kiln_v2 {

// The case's members from the file's root mapping, its shared ones (id, summary,
// source, level, ops) with the profile's own patterns; throws yaml_reading::Invalid.
void read_case_body(const yaml::Node& root, Case& c);
// Run once the file satisfies the schema: a case that must have a block and has
// none has a description that can be placed in one.
void check_block_can_exist(const Case& c, const yaml::Node& root);

}  // namespace kiln::conformance::kiln_v2
