#include "kiln/conformance/raw_input.hpp"

#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/sha256.hpp"

namespace kiln::conformance {

std::vector<std::string> raw_input_profiles() {
  std::vector<std::string> names;
  for (const ProfileModule& module : profile_modules())
    if (module.raw_input) names.emplace_back(module.profile.name());
  return names;
}

std::string raw_input_profile_names(std::string_view last_separator) {
  return comma_list(raw_input_profiles(), last_separator);
}

std::string raw_input_case_id(std::string_view prefix, Operation op, std::span<const std::uint8_t> input) {
  Sha256 hash;
  hash.update(input);
  return std::string(prefix) + "-" + std::string(to_string(op)) + "-" + hash.hex_digest().substr(0, 12);
}

}  // namespace kiln::conformance
