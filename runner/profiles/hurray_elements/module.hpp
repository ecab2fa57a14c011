// What profile hurray-elements gives the registry (profiles/registry.cpp).
#pragma once

#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"
#include "profiles/registry.hpp"

namespace kiln::conformance::hurray_elements {

const Profile& profile();
// Blind: it makes its inputs from the element table, and hello's Tier 2 types
// decide what the reference expects; it reads no cases (seeds is unused).
std::unique_ptr<fuzzing::FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver,
                                                 fuzzing::DriverFactory fresh, const protocol::Hello& hello,
                                                 const CaseSet* seeds, std::ostream& out, std::ostream& err);
// The fuzzer's inputs in a few words, as fuzz --help lists them.
// The features of an input for the fuzzers' novelty (fuzzer.cpp): its tag
// with the verdict, count class, rank, data length against S and mode.
std::vector<std::uint64_t> input_features(Operation op, const ElementsInput& input, const std::string& verdict);
// Its raw fuzz input (raw_input.cpp): what the adapter fuzzer feeds.
extern const RawInputFormat kRawInput;
// The fuzzer's inputs in a few words, as fuzz --help lists them.
inline constexpr std::string_view kFuzzInputs = "tag, shape, mode, data and elements, generated without seeds";

}  // namespace kiln::conformance::hurray_elements
