// The one list of the runner's format profiles (runner/profiles/registry.cpp):
// each profile's public face (kiln::conformance::Profile) and the parts only the
// engine uses. The CLI's choices, the loader's dispatch, run and the fuzzer are
// loops over it. The built-in profiles are listed in registry.cpp; a profile
// defined outside the runner (a test's, say) joins the list for the lifetime of
// a ProfileRegistration.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/profile.hpp"

namespace kiln::conformance {

struct CaseSet;
struct FuzzOptions;
struct RawInputFormat;  // raw_input.hpp

namespace fuzzing {
class FuzzerBase;  // the fuzz engine's (runner/fuzz/fuzz_engine.hpp, private to the runner)
// Makes a fresh driver (a new adapter process, or instance) with this timeout.
using DriverFactory = std::function<std::unique_ptr<Driver>(std::chrono::milliseconds timeout)>;
}  // namespace fuzzing

// The fuzzer of `kiln-conformance fuzz --profile <name>`; seeds is the case
// set when the profile's fuzzer grows from the golden cases, else nullptr.
using FuzzerFactory = std::unique_ptr<fuzzing::FuzzerBase> (*)(
    const FuzzOptions& options, Driver& driver, fuzzing::DriverFactory fresh, const protocol::Hello& hello,
    const CaseSet* seeds, std::ostream& out, std::ostream& err);

struct ProfileModule {
  const Profile& profile;
  // Null for a profile without a fuzzer: `fuzz` and `replay` refuse it, and
  // `run --generated` has no generated phase for it.
  FuzzerFactory make_fuzzer;
  bool fuzzer_reads_cases;  // fuzz loads --cases for its seeds
  // What its fuzzer's inputs are, for fuzz --help: "blocks mutated from the cases".
  std::string_view fuzz_inputs;
  // Null for a profile without a raw fuzz input: the adapter fuzzer, `cases
  // from-input` and `cases seeds` refuse it.
  const RawInputFormat* raw_input;
};

// Every profile: the built-in ones, the first the default (a case file without
// `profile`), then those registered, in the order they were. A registration
// or its end invalidates the spans and pointers returned before (the
// profiles themselves stay where they are). Not thread-safe: register before
// running anything that reads the list.
std::span<const ProfileModule> profile_modules();
const ProfileModule* find_profile_module(std::string_view name);
// The profiles' names for messages: "kiln-v2 or hurray-elements".
std::string profile_names(std::string_view last_separator);
// Only those with a fuzzer (make_fuzzer set), likewise.
std::string fuzzable_profile_names(std::string_view last_separator);
// "a, b, c", as messages and help texts list choices; "a, b or c" with
// last_separator " or ".
std::string comma_list(const std::vector<std::string>& names, std::string_view last_separator = ", ");

// Adds module to the registry on construction and removes it on destruction
// (so a test's profile is seen by the loader, run, the reports and the CLI
// while the registration lives). Refuses, with std::invalid_argument, a name
// that is empty or already a profile's. The profile must outlive it.
class ProfileRegistration {
 public:
  explicit ProfileRegistration(ProfileModule module);
  ~ProfileRegistration();
  ProfileRegistration(const ProfileRegistration&) = delete;
  ProfileRegistration& operator=(const ProfileRegistration&) = delete;

 private:
  const Profile* profile_;
};

}  // namespace kiln::conformance
