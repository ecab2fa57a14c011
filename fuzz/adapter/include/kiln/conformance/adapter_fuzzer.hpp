// The adapter fuzzer: a coverage-guided fuzzer of an implementation's own code,
// in its own process. Its library defines kiln_make_adapter(); a CMake call
// after find_package(KilnConformance) makes the fuzzer:
//
//   kiln_add_adapter_fuzzer(my_fuzzer ADAPTER my_adapter_library PROFILE kiln-v2)
//
// Each input (a raw input of the profile, kiln/conformance/raw_input.hpp) goes
// to a fresh adapter from kiln_make_adapter() and to the reference: the cases
// it stands for are judged as `kiln-conformance run` judges them, and the first
// disagreement aborts with the text run prints, so that libFuzzer keeps the
// input. `kiln-conformance cases from-input <that file> --profile <profile>`
// turns it into a golden case. Since every input gets its own adapter, a
// finding reproduces from its file alone.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kiln/adapter.hpp"

// The implementation under test, as an in-process adapter: defined by the
// library the fuzzer is made for (ADAPTER). Called once per input.
std::unique_ptr<kiln::protocol::Adapter> kiln_make_adapter();

namespace kiln::conformance::adapter_fuzzer {

// The profile a fuzzer target fuzzes: defined in the source
// kiln_add_adapter_fuzzer generates for it.
std::string_view profile_name();

using AdapterFactory = std::function<std::unique_ptr<protocol::Adapter>()>;

// What the fuzzer does with each input, for tests and for harnesses of one's
// own (a unit test that replays saved inputs, say).
class Harness {
 public:
  // nullptr, after saying why on err, when the profile has no raw input or
  // the factory's adapter has no usable hello offering the profile.
  static std::unique_ptr<Harness> start(std::string_view profile, AdapterFactory factory, std::ostream& err);

  // The first disagreement on the input's cases, as run prints it; nothing
  // when the implementation answers every one as the reference does.
  // observe, when set, is told the features of an input that agrees: what it
  // holds (the profile's novelty features) with the verdicts (each op, what
  // its case expects, what came back). The fuzzer counts them as
  // coverage, which guides it even through an uninstrumented implementation.
  std::optional<std::string> check(std::span<const std::uint8_t> input,
                                   const std::function<void(std::uint64_t feature)>& observe = {});

  ~Harness();

 private:
  struct State;
  explicit Harness(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace kiln::conformance::adapter_fuzzer
