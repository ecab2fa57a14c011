// A fuzzer's raw input read as one profile's requests. The adapter fuzzer
// (kiln/conformance/adapter_fuzzer.hpp) feeds each input to an implementation
// and judges it as `run` judges the cases it stands for; `cases from-input`
// writes those cases; `cases seeds` writes the inputs of the golden cases, the
// fuzzer's seed corpus. Each profile that has a format gives it through its
// module (profiles/<profile>/raw_input.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

// libFuzzer's LLVMFuzzerMutate: changes data[0, size) in place, may grow it
// up to max_size (data holds max_size bytes), returns the new size.
using RawByteMutator = std::size_t (*)(std::uint8_t* data, std::size_t size, std::size_t max_size);

struct RawInputFormat {
  // What an input is, for help texts and the fuzzer's messages.
  std::string_view what;
  // The longest input `cases seeds` writes (longer cases are left out of the
  // seed corpus); the fuzzer's inputs are not cut to it.
  std::size_t max_length;
  // The cases the input stands for, one or more, each expecting what the
  // reference says of it (as `cases check` reads it), its id made from the
  // input's SHA-256 and its summary as given. Any bytes are an input.
  std::vector<Case> (*cases_of)(std::span<const std::uint8_t> input, const std::string& summary);
  // The input that stands for a loaded case of the profile, or nothing (a
  // case the format cannot express).
  std::optional<std::vector<std::uint8_t>> (*input_of)(const Case& c);
  // LLVMFuzzerCustomMutator's contract: a structure-aware change of the input
  // in place, drawn from seed; bytes (libFuzzer's own mutator) for what it
  // cannot read as the profile's input.
  std::size_t (*mutate)(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed,
                        RawByteMutator bytes);
  // What the input holds, with a verdict on it, as the profile's `fuzz`
  // counts novelty (dtypes and ranks, tags and count classes): the adapter
  // fuzzer's coverage of what an uninstrumented implementation was shown.
  std::vector<std::uint64_t> (*features)(std::span<const std::uint8_t> input, const std::string& verdict);
};

// The profiles with a raw fuzz input (the registry's), and their names for
// messages: "kiln-v2 or hurray-elements" with last_separator " or ".
std::vector<std::string> raw_input_profiles();
std::string raw_input_profile_names(std::string_view last_separator);

// The id of a case made from an input: "<prefix>-<op>-<first 12 hex digits of its SHA-256>".
std::string raw_input_case_id(std::string_view prefix, Operation op, std::span<const std::uint8_t> input);

}  // namespace kiln::conformance
