#include "profiles/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "profiles/hurray_elements/module.hpp"
#include "profiles/kiln_v2/module.hpp"

namespace kiln::conformance {
namespace {

// The modules and, beside them in the same order, their profiles (what
// all_profiles() returns): both change together, at a registration or its end.
struct Registry {
  std::vector<ProfileModule> modules;
  std::vector<const Profile*> profiles;

  void rebuild_profiles() {
    profiles.clear();
    for (const ProfileModule& module : modules) profiles.push_back(&module.profile);
  }
};

Registry& registry() {
  static Registry list = [] {
    // The built-in profiles; the first is the default.
    Registry built{{
                       {kiln_v2::profile(), kiln_v2::make_fuzzer, true, kiln_v2::kFuzzInputs, &kiln_v2::kRawInput},
                       {hurray_elements::profile(), hurray_elements::make_fuzzer, false,
                        hurray_elements::kFuzzInputs, &hurray_elements::kRawInput},
                   },
                   {}};
    built.rebuild_profiles();
    return built;
  }();
  return list;
}

std::string joined_names(std::string_view last_separator, bool fuzzable_only) {
  std::vector<std::string> names;
  for (const ProfileModule& module : profile_modules())
    if (!fuzzable_only || module.make_fuzzer) names.emplace_back(module.profile.name());
  return comma_list(names, last_separator);
}

}  // namespace

std::span<const ProfileModule> profile_modules() { return registry().modules; }

const ProfileModule* find_profile_module(std::string_view name) {
  for (const ProfileModule& module : profile_modules())
    if (module.profile.name() == name) return &module;
  return nullptr;
}

std::string comma_list(const std::vector<std::string>& names, std::string_view last_separator) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? last_separator : std::string_view(", ");
    text += names[i];
  }
  return text;
}

std::string profile_names(std::string_view last_separator) { return joined_names(last_separator, false); }

std::string fuzzable_profile_names(std::string_view last_separator) {
  return joined_names(last_separator, true);
}

ProfileRegistration::ProfileRegistration(ProfileModule module) : profile_(&module.profile) {
  const std::string_view name = module.profile.name();
  if (name.empty()) throw std::invalid_argument("a profile needs a name");
  if (find_profile_module(name))
    throw std::invalid_argument("profile " + std::string(name) + " is already registered");
  Registry& list = registry();
  list.modules.push_back(module);
  list.rebuild_profiles();
}

ProfileRegistration::~ProfileRegistration() {
  // ProfileModule holds a reference, so it cannot be assigned: the list is made
  // again without this one.
  Registry& list = registry();
  std::vector<ProfileModule> kept;
  kept.reserve(list.modules.size());
  for (const ProfileModule& module : list.modules)
    if (&module.profile != profile_) kept.push_back(module);
  list.modules.swap(kept);
  list.rebuild_profiles();
}

std::span<const Profile* const> all_profiles() { return registry().profiles; }

const Profile* find_profile(std::string_view name) {
  const ProfileModule* module = find_profile_module(name);
  return module ? &module->profile : nullptr;
}

std::string_view default_profile_name() { return profile_modules().front().profile.name(); }

const Profile& profile_of(const Case& c) {
  // The loader admits only the registry's profiles; a hand-built Case of another is the default's.
  const Profile* profile = find_profile(c.profile);
  return profile ? *profile : *all_profiles()[0];
}

}  // namespace kiln::conformance
