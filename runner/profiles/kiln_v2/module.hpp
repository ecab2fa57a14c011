// What profile kiln-v2 gives the registry (profiles/registry.cpp).
#pragma once

#include "kiln/conformance/kiln_v2/case.hpp"
#include "profiles/registry.hpp"

namespace kiln::conformance::kiln_v2 {

const Profile& profile();
// Grows its inputs from the kiln-v2 cases of seeds (none: an empty block).
std::unique_ptr<fuzzing::FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver,
                                                 fuzzing::DriverFactory fresh, const protocol::Hello& hello,
                                                 const CaseSet* seeds, std::ostream& out, std::ostream& err);
// The fuzzer's inputs in a few words, as fuzz --help lists them.
// The features of an input for the fuzzers' novelty (fuzzer.cpp): its
// dtypes with their ranks, name lengths, positions and neighbours, with the verdict.
std::vector<std::uint64_t> input_features(Operation op, const BlockDescription& description,
                                          const std::string& verdict);
// Its raw fuzz input (raw_input.cpp): what the adapter fuzzer feeds.
extern const RawInputFormat kRawInput;
// The fuzzer's inputs in a few words, as fuzz --help lists them.
inline constexpr std::string_view kFuzzInputs = "blocks mutated from the cases";

}  // namespace kiln::conformance::kiln_v2
