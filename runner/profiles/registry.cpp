#include "profiles/registry.hpp"

#include <vector>

#include "profiles/hurray_elements/module.hpp"
#include "profiles/kiln_v2/module.hpp"

namespace kiln::conformance {

std::span<const ProfileModule> profile_modules() {
  static const ProfileModule modules[] = {
      {kiln_v2::profile(), kiln_v2::make_fuzzer, true, kiln_v2::kFuzzInputs},
      {hurray_elements::profile(), hurray_elements::make_fuzzer, false, hurray_elements::kFuzzInputs},
  };
  return modules;
}

const ProfileModule* find_profile_module(std::string_view name) {
  for (const ProfileModule& module : profile_modules())
    if (module.profile.name() == name) return &module;
  return nullptr;
}

std::string profile_names(std::string_view last_separator) {
  std::string names;
  const auto modules = profile_modules();
  for (std::size_t i = 0; i < modules.size(); ++i) {
    if (i > 0) names += i + 1 == modules.size() ? last_separator : std::string_view(", ");
    names += modules[i].profile.name();
  }
  return names;
}

std::span<const Profile* const> all_profiles() {
  static const std::vector<const Profile*> profiles = [] {
    std::vector<const Profile*> list;
    for (const ProfileModule& module : profile_modules()) list.push_back(&module.profile);
    return list;
  }();
  return profiles;
}

const Profile* find_profile(std::string_view name) {
  const ProfileModule* module = find_profile_module(name);
  return module ? &module->profile : nullptr;
}

std::string_view default_profile_name() { return profile_modules().front().profile.name(); }

const Profile& profile_of(const Case& c) {
  // The loader admits only the profiles above; a hand-built Case of another is the default's.
  const Profile* profile = find_profile(c.profile);
  return profile ? *profile : *all_profiles()[0];
}

}  // namespace kiln::conformance
