// Sweep families (cases/README.md, "Sweeps"): compact descriptions in
// cases/families/<name>.family, each naming a generator and its parameters,
// that `cases regen` expands into many ordinary case files under
// cases/sweep/<name>/, and that `cases check` holds those files to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case_loader.hpp"

namespace kiln::conformance {

inline constexpr const char* kFamiliesFolder = "families";  // below the cases root
inline constexpr const char* kSweepFolder = "sweep";        // below the cases root; regen's own
inline constexpr const char* kFamilyExtension = ".family";
// Bounds on what a family file may ask for, so a typo cannot fill a disk.
inline constexpr std::uintmax_t kMaxFamilyFileBytes = 64 * 1024;
inline constexpr std::size_t kMaxFamilyMembers = 2048;
inline constexpr std::size_t kMaxFamilies = 256;
// What one family's members may hold in all: each is also held to the loader's
// kMaxCaseFileBytes, since regen never writes a case the loader refuses.
inline constexpr std::size_t kMaxFamilyBytes = std::size_t{32} << 20;

// One generated case: its id and the whole file regen writes for it (ops and
// block included), and where, relative to the cases root.
struct FamilyMember {
  std::string id;
  std::string relative_path;  // "sweep/<family>/<id>.yaml"
  std::string text;
};

struct Family {
  std::string name;       // the file's stem; ids are <profile prefix>-sweep-<name>-...
  std::string generator;  // one of family_generators()
  std::string profile;    // the generator's (FamilyGenerator::profile)
  std::string summary;
  std::string file;       // as named in messages
  std::vector<FamilyMember> members;
};

struct FamilySet {
  std::vector<Family> families;  // sorted by name
  std::vector<CaseError> errors; // any error makes the whole set unusable
};

// The generators a family may name, each with what its parameters walk: every
// profile's (Profile::family_generators()), in all_profiles() order.
struct FamilyGenerator {
  std::string_view name;
  std::string_view walks;
  // The profile of the cases it generates; their ids are
  // <the profile's prefix>-sweep-<family>-... .
  std::string_view profile;
};
std::span<const FamilyGenerator> family_generators() noexcept;

// Reads every root/families/*.family and expands it, each member checked
// against the reference: a member whose expectation (the family's data) the
// reference does not meet is an error, as is a family that generates nothing.
// How a member is checked is its profile's (profiles/<profile>/families.cpp).
// A root without a families folder has no families.
FamilySet expand_families(const std::filesystem::path& root, const CaseSchema& schema);

}  // namespace kiln::conformance
