// What the catalogue's files share: the helpers every family uses, and one
// builder per family (kiln/mutants.hpp names the families; catalogue.cpp puts
// them together in the order of kFamilies).
//
//   catalogue_frame.cpp      header, version, flags, reserved
//   catalogue_layout.cpp     offsets, lengths, padding, truncation
//   catalogue_names.cpp      names
//   catalogue_codes.cpp      dtype-range, big-endian
//   catalogue_types.cpp      packed, bool, e8m0, float-values, closed-dtype, shape, opaque
//   catalogue_reporting.cpp  reporting
//   catalogue_encoder.cpp    encoder
//   catalogue_relaxed.cpp    relaxed (with relaxed.hpp, the loosened checks it shares)
//   catalogue_hurray.cpp     hurray-packing, hurray-padding, hurray-sizes, hurray-tags,
//                            hurray-values, hurray-encoder, hurray-reporting, hurray-relaxed
//                            (over the steps of hurray_pipeline.hpp)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/mutants.hpp"

namespace kiln::mutants::parts {

using protocol::Reject;
using Check = std::optional<Reject>;

// A reject citing rule, with the rule's class and ID.
Reject reject(Rule rule, std::string message);

// A mutant with no hook set: the reference.
Mutant make(std::string_view name, std::string_view family, std::string_view description);

// A missing check: the reference with rule waived.
Mutant missing(std::string_view name, std::string_view family, std::string_view description,
               Rule rule);

// One builder per family: that family's mutants, in catalogue order.
std::vector<Mutant> header_mutants();
std::vector<Mutant> version_mutants();
std::vector<Mutant> flags_mutants();
std::vector<Mutant> reserved_mutants();
std::vector<Mutant> offsets_mutants();
std::vector<Mutant> lengths_mutants();
std::vector<Mutant> padding_mutants();
std::vector<Mutant> truncation_mutants();
std::vector<Mutant> names_mutants();
std::vector<Mutant> dtype_range_mutants();
std::vector<Mutant> big_endian_mutants();
std::vector<Mutant> packed_mutants();
std::vector<Mutant> bool_mutants();
std::vector<Mutant> e8m0_mutants();
std::vector<Mutant> float_values_mutants();
std::vector<Mutant> closed_dtype_mutants();
std::vector<Mutant> shape_mutants();
std::vector<Mutant> opaque_mutants();
std::vector<Mutant> reporting_mutants();
std::vector<Mutant> encoder_mutants();
std::vector<Mutant> relaxed_mutants();
std::vector<Mutant> hurray_packing_mutants();
std::vector<Mutant> hurray_padding_mutants();
std::vector<Mutant> hurray_sizes_mutants();
std::vector<Mutant> hurray_tags_mutants();
std::vector<Mutant> hurray_values_mutants();
std::vector<Mutant> hurray_encoder_mutants();
std::vector<Mutant> hurray_reporting_mutants();
std::vector<Mutant> hurray_relaxed_mutants();

}  // namespace kiln::mutants::parts
