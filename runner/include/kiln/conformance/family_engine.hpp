// The sweep families' engine (cases/families.cpp) as each profile's generators
// (profiles/<profile>/families.cpp) see it: how a generator plugs in, how it
// reads its parameters, and the few pieces of text and arithmetic every
// profile's generators share. Public, for a profile registered from outside
// the runner (profile_registry.hpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/families.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

namespace families {
class Params;
}

// ---- the interface between the engine and a profile ----

// A member's file, or why the draft cannot become one (the reference does not
// meet the family's expectation, or the case does not load).
using FinishedMember = Checked<FamilyMember>;

// What finishing a draft needs besides the draft.
struct MemberContext {
  const std::string& family;
  const std::string& generator;
  const CaseSchema& schema;
};

// One drafted member: the engine finishes each in order, after the generator has
// drafted them all, so a family's errors come in the same order whatever its profile.
using PendingMember = std::function<FinishedMember(const MemberContext&)>;

struct FamilyGeneratorEntry {
  std::string_view name;
  std::string_view walks;  // what its parameters walk, as FamilyGenerator::walks
  // Reads every parameter (families::fail on a bad one) and drafts every member.
  std::vector<PendingMember> (*generate)(families::Params&, const CaseSchema&);
};

// A profile's generators (Profile::family_generators()): the profile of a
// family file is the one whose generators hold the file's generator.
struct FamilyGenerators {
  std::span<const FamilyGeneratorEntry> entries;
};

namespace families {

// Drafts as pending members, each finished by the profile's own `finish`.
template <class Draft>
std::vector<PendingMember> pending_members(std::vector<Draft> drafts,
                                           FinishedMember (*finish)(const MemberContext&, const Draft&)) {
  std::vector<PendingMember> members;
  members.reserve(drafts.size());
  for (Draft& draft : drafts)
    members.push_back([finish, draft = std::move(draft)](const MemberContext& context) {
      return finish(context, draft);
    });
  return members;
}

// ---- reading parameters ----

// Thrown while a family is read and drafted: the engine reports it at the mark.
struct FamilyProblem {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void fail(const YAML::Node& node, std::string message);

// A decimal or 0x-hex integer of at most max.
std::uint64_t uint_of(const YAML::Node& node, std::uint64_t max, const char* what);
std::string string_of(const YAML::Node& node, const char* what);
// A list of at most kMaxFamilyMembers items.
const YAML::Node& sequence_of(const YAML::Node& node, const char* what);
std::vector<std::uint64_t> uints_of(const YAML::Node& node, std::uint64_t max, const char* what);
std::vector<std::string> strings_of(const YAML::Node& node, const char* what);

// The parameters of one generator: every key it reads, so an unknown key (a
// typo) is an error rather than a silently smaller family.
class Params {
 public:
  explicit Params(YAML::Node node);
  YAML::Node required(const char* key);
  YAML::Node optional(const char* key);
  void finish() const;

 private:
  YAML::Node node_;
  std::set<std::string> used_;
};

// ---- shapes: both profiles sweep element counts around 2^64 ----

__extension__ typedef unsigned __int128 u128;  // exact products of two 64-bit values

struct Product {
  bool overflows = false;
  u128 value = 0;  // exact when !overflows (below 2^64)
};
Product exact_product(const std::vector<std::uint64_t>& dims);
// A shape parameter: a list of dimensions, or {rank, fill}.
std::vector<std::uint64_t> dims_of(const YAML::Node& node);

// ---- text ----

std::string shape_text(const std::vector<std::uint64_t>& dims);  // "[2, 3]"
std::string byte_hex(std::uint64_t byte);                         // two lowercase digits
std::string kebab(std::string_view text);                         // '_' as '-'
// The first line of every member's file.
std::string generated_note(const std::string& family, const std::string& generator);

// Where a member of a family goes: its id (<id_prefix>-sweep-<family>-<suffix>),
// its topic folder under sweep/, and its file there.
struct MemberPlace {
  std::string id, topic, path;
};
MemberPlace member_place(std::string_view id_prefix, const std::string& family, const std::string& suffix);

}  // namespace families
}  // namespace kiln::conformance
