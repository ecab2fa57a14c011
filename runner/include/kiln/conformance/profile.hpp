// A format profile as the runner and the case tools see it: its rules, how a
// case of it becomes a request, how a reply is judged, and how a case is checked
// against the reference. Each profile is one codec behind this interface, in its
// own folder (runner/profiles/<profile>/profile.cpp), listed by the registry
// (runner/profiles/registry.cpp); run, the reports, coverage and the certificate
// go through it and know no profile's format.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance::yaml {
class Node;
}

namespace kiln::conformance {

struct CaseResult;
struct CaseSet;
struct FamilyGenerators;  // the sweep families' engine's own (family_engine.hpp)

struct ProfileRule {
  std::string_view id;
  std::string_view error_class;
  std::string_view summary;
};

// A profile's members of a case file (case_yaml, fuzz_case.hpp): its rules
// lines, and its body after `level:` with the `ops:` line in its place.
struct CaseYamlMembers {
  std::string rules;
  std::string body;
};

class Profile {
 public:
  virtual ~Profile() = default;

  virtual std::string_view name() const = 0;
  // The normative text the rules are in, for messages ("reference/FORMAT.md").
  virtual std::string_view document() const = 0;
  // Every rule of the profile, in the reference's check order.
  virtual std::span<const ProfileRule> rules() const = 0;

  // Why op cannot be judged on c (the case set's fault), or nothing.
  virtual std::optional<std::string> unjudgeable(const Case& c, Operation op) const = 0;
  // Why op is not sent to an adapter whose hello (nullptr: none) offers the
  // profile and the op, because the hello declares the case out of its scope
  // (an unsupported Tier 2 type's encode), or nothing.
  virtual std::optional<std::string> out_of_scope(const Case& c, Operation op,
                                                  const protocol::Hello* hello) const = 0;
  // What a passing answer is, short, as reports show it.
  virtual std::string expectation_text(const Case& c, Operation op,
                                       const protocol::Hello* hello) const = 0;
  virtual protocol::Request request(const Case& c, Operation op) const = 0;
  // Sets result's status, got, detail and differences. The case is judgeable.
  virtual void judge(const Case& c, Operation op, const protocol::Outcome& outcome,
                     CaseResult& result, const protocol::Hello* hello) const = 0;
  // The most bytes of payload one request or reply for c carries (hex doubles it).
  virtual std::size_t payload_bytes(const Case& c) const = 0;
  // What the hello claims within the profile, for the certificate ("Tier 2: ..."); empty: nothing.
  virtual std::string scope_note(const protocol::Hello& hello) const = 0;

  // What fixes the case's meaning (its expectation and its bytes or values), for
  // the case set's hash.
  virtual std::string identity(const Case& c) const = 0;
  // `cases export`: the case's members of index.json beyond id, summary, source,
  // level and ops (profile, rules, expect, what the case is about), and the
  // bytes to write beside it, if any, with their file name's extension.
  struct Exported {
    protocol::Json entry;
    std::optional<std::vector<std::uint8_t>> bytes;
    std::string_view extension;
  };
  virtual Exported export_case(const Case& c) const = 0;
  // A reject case that breaks its expected rule and no other, checked whole
  // (cases/README.md, "Isolation"): coverage's "alone" column.
  virtual bool breaks_alone(const Case& c) const = 0;
  // `cases check`: every problem of a loaded case against the reference.
  virtual std::vector<std::string> check(const Case& c) const = 0;
  // `cases check`: what the profile reports of the whole set after every case's
  // problems (how much of it a profile's own checks cover, say); may be nothing.
  virtual void check_summary(const CaseSet& set, std::ostream& out) const = 0;
  // `cases regen`: the block the case's file stores (nullopt: none), or why it
  // cannot be made (a fault that cannot apply).
  virtual Checked<std::optional<std::vector<std::uint8_t>>> regen_block(const Case& c) const = 0;
  // The generators a sweep family of the profile may name (families.hpp).
  virtual const FamilyGenerators& family_generators() const = 0;
  // Its members of the case file's text; ops: the case's ops as `ops:` lists them.
  virtual CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) const = 0;

  // The loader's seam (cases/case_loader.cpp): reads the case file's root
  // mapping into c, whose origin and profile are set; throws the loader's
  // error (yaml_reading.hpp) at the first problem.
  virtual void read_case_body(const yaml::Node& root, Case& c) const = 0;
  // The profile's checks of the case that come after the schema's.
  virtual void check_case_body(const yaml::Node& root, const Case& c) const = 0;
  // The JSON Schema its case files satisfy when their folder has no
  // case.schema.json of its own (CaseSchema::builtin()); the built-in profiles
  // share builtin_case_schema_text(). Must outlive the profile's registration.
  virtual std::string_view case_schema_text() const = 0;

  // `cases export`: the extension of every file export_case writes (".kiln").
  virtual std::string_view export_extension() const = 0;
};

// Every profile, the default first; a case's profile is one of these (the loader
// refuses any other).
std::span<const Profile* const> all_profiles();
const Profile* find_profile(std::string_view name);
// The first profile's name: that of a case file, a result or a version 1
// report that names none.
std::string_view default_profile_name();
// The profile of a loaded case.
const Profile& profile_of(const Case& c);

}  // namespace kiln::conformance
