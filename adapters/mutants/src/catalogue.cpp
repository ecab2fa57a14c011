// The catalogue: each family's mutants (catalogue_parts.hpp names the file of
// each), in the order of kFamilies. Each mutant is one implementer's bug, written
// as the smallest strategy over the reference library (see kiln/mutants.hpp for
// where each hook runs).
#include <array>
#include <string>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/mutants.hpp"

namespace kiln::mutants {

namespace parts {

Reject reject(Rule rule, std::string message) {
  return Reject{rule_info(rule).error_class, std::move(message), std::string(rule_info(rule).id),
                std::nullopt};
}

Mutant make(std::string_view name, std::string_view family, std::string_view description) {
  Mutant mutant;
  mutant.name = name;
  mutant.family = family;
  mutant.description = description;
  return mutant;
}

Mutant missing(std::string_view name, std::string_view family, std::string_view description,
               Rule rule) {
  Mutant mutant = make(name, family, description);
  mutant.waived.add(rule);
  return mutant;
}

}  // namespace parts

namespace {

struct FamilyBuilder {
  std::string_view family;
  std::vector<Mutant> (*build)();
};

constexpr std::array kFamilyBuilders{
    FamilyBuilder{kFamilyHeader, parts::header_mutants},
    FamilyBuilder{kFamilyVersion, parts::version_mutants},
    FamilyBuilder{kFamilyFlags, parts::flags_mutants},
    FamilyBuilder{kFamilyReserved, parts::reserved_mutants},
    FamilyBuilder{kFamilyOffsets, parts::offsets_mutants},
    FamilyBuilder{kFamilyLengths, parts::lengths_mutants},
    FamilyBuilder{kFamilyPadding, parts::padding_mutants},
    FamilyBuilder{kFamilyTruncation, parts::truncation_mutants},
    FamilyBuilder{kFamilyNames, parts::names_mutants},
    FamilyBuilder{kFamilyDtypeRange, parts::dtype_range_mutants},
    FamilyBuilder{kFamilyBigEndian, parts::big_endian_mutants},
    FamilyBuilder{kFamilyPacked, parts::packed_mutants},
    FamilyBuilder{kFamilyBool, parts::bool_mutants},
    FamilyBuilder{kFamilyE8m0, parts::e8m0_mutants},
    FamilyBuilder{kFamilyFloatValues, parts::float_values_mutants},
    FamilyBuilder{kFamilyClosedDtype, parts::closed_dtype_mutants},
    FamilyBuilder{kFamilyShape, parts::shape_mutants},
    FamilyBuilder{kFamilyOpaque, parts::opaque_mutants},
    FamilyBuilder{kFamilyReporting, parts::reporting_mutants},
    FamilyBuilder{kFamilyEncoder, parts::encoder_mutants},
    FamilyBuilder{kFamilyRelaxed, parts::relaxed_mutants},
    FamilyBuilder{kFamilyHurrayPacking, parts::hurray_packing_mutants},
    FamilyBuilder{kFamilyHurrayPadding, parts::hurray_padding_mutants},
    FamilyBuilder{kFamilyHurraySizes, parts::hurray_sizes_mutants},
    FamilyBuilder{kFamilyHurrayTags, parts::hurray_tags_mutants},
    FamilyBuilder{kFamilyHurrayValues, parts::hurray_values_mutants},
    FamilyBuilder{kFamilyHurrayEncoder, parts::hurray_encoder_mutants},
    FamilyBuilder{kFamilyHurrayReporting, parts::hurray_reporting_mutants},
    FamilyBuilder{kFamilyHurrayRelaxed, parts::hurray_relaxed_mutants},
};

constexpr bool builders_follow_families() {
  if (kFamilyBuilders.size() != kFamilies.size()) return false;
  for (std::size_t i = 0; i < kFamilies.size(); ++i)
    if (kFamilyBuilders[i].family != kFamilies[i]) return false;
  return true;
}
static_assert(builders_follow_families(), "one builder per family, in the order of kFamilies");

std::vector<Mutant> build_catalogue() {
  std::vector<Mutant> all;
  for (const FamilyBuilder& builder : kFamilyBuilders)
    for (Mutant& mutant : builder.build()) all.push_back(std::move(mutant));
  return all;
}

}  // namespace

const std::vector<Mutant>& catalogue() {
  static const std::vector<Mutant> all = build_catalogue();
  return all;
}

const Mutant* find_mutant(std::string_view name) {
  for (const auto* list : {&catalogue(), &fuzz_only_mutants()})
    for (const Mutant& mutant : *list)
      if (mutant.name == name) return &mutant;
  return nullptr;
}

const Mutant& control() {
  static const Mutant reference = parts::make(
      "control", kFamilyControl, "the reference through the mutant pipeline, with no bug");
  return reference;
}

}  // namespace kiln::mutants
