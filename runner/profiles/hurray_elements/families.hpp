// Profile hurray-elements's sweep generators (families.cpp), for its Profile.
#pragma once

namespace kiln::conformance {

struct FamilyGenerators;
const FamilyGenerators& hurray_elements_family_generators();

}  // namespace kiln::conformance
