// Profile kiln-v2's sweep generators (families.cpp), for its Profile.
#pragma once

namespace kiln::conformance {

struct FamilyGenerators;
const FamilyGenerators& kiln_v2_family_generators();

}  // namespace kiln::conformance
