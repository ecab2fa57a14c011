// The one list of the runner's format profiles (registry.cpp): each profile's
// public face (kiln::conformance::Profile) and its parts that only the engine
// uses. The CLI's choices, the loader's dispatch and the fuzzer are loops over it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "fuzz/fuzz_engine.hpp"
#include "kiln/conformance/profile.hpp"

namespace kiln::conformance {

// The fuzzer of `kiln-conformance fuzz --profile <name>`; seeds is the case
// set when the profile's fuzzer grows from the golden cases, else nullptr.
using FuzzerFactory = std::unique_ptr<fuzzing::FuzzerBase> (*)(
    const FuzzOptions& options, Driver& driver, fuzzing::DriverFactory fresh, const protocol::Hello& hello,
    const CaseSet* seeds, std::ostream& out, std::ostream& err);

struct ProfileModule {
  const Profile& profile;
  FuzzerFactory make_fuzzer;
  bool fuzzer_reads_cases;  // fuzz loads --cases for its seeds
  // What its fuzzer's inputs are, for fuzz --help: "blocks mutated from the cases".
  std::string_view fuzz_inputs;
};

// Every profile, the first the default (a case file without `profile`).
std::span<const ProfileModule> profile_modules();
const ProfileModule* find_profile_module(std::string_view name);
// The profiles' names for messages: "kiln-v2 or hurray-elements".
std::string profile_names(std::string_view last_separator);

}  // namespace kiln::conformance
