// The libFuzzer entry points of every target kiln_add_adapter_fuzzer makes,
// over the harness (adapter_fuzzer.cpp). They are one object, so that linking
// the entry point an engine needs (LLVMFuzzerTestOneInput) brings in the
// custom mutator and the initializer it looks for by weak reference.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "kiln/conformance/adapter_fuzzer.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/raw_input.hpp"

namespace kiln::conformance::adapter_fuzzer {
namespace {

// Coverage of what the implementation was shown and how it answered:
// libFuzzer reads this section as extra counters (and clears it before each
// input), so an input with a new feature (RawInputFormat::features: a dtype at
// a new rank or position, a tag with a new count class, each with the verdict
// and the answer) is kept even when the implementation is not instrumented.
constexpr std::size_t kVerdictCounters = 1u << 14;
__attribute__((section("__libfuzzer_extra_counters"), used)) std::uint8_t verdict_counters[kVerdictCounters];

void count_verdict(std::uint64_t feature) {
  // The features are hashes already; the multiply spreads their low bits.
  // Presence only: a count per feature (libFuzzer buckets counts) would make
  // every tensor more a new feature, and the corpus grow with the block.
  verdict_counters[(feature * 0x9e3779b97f4a7c15ull >> 40) % kVerdictCounters] = 1;
}

Harness& harness() {
  static const std::unique_ptr<Harness> started = [] {
    auto made = Harness::start(profile_name(), [] { return kiln_make_adapter(); }, std::cerr);
    // Nothing can be judged: every input would fail the same way.
    if (!made) std::exit(2);
    return made;
  }();
  return *started;
}

}  // namespace
}  // namespace kiln::conformance::adapter_fuzzer

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kiln::conformance::adapter_fuzzer::harness();  // a bad adapter stops the run before the first input
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  static const kiln::conformance::RawInputFormat* const format = [] {
    const auto* module = kiln::conformance::find_profile_module(kiln::conformance::adapter_fuzzer::profile_name());
    return module ? module->raw_input : nullptr;
  }();
  if (!format) return LLVMFuzzerMutate(data, size, max_size);
  return format->mutate(data, size, max_size, seed, LLVMFuzzerMutate);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  using namespace kiln::conformance::adapter_fuzzer;
  if (auto disagreement = harness().check(input, count_verdict)) {
    std::fputs(disagreement->c_str(), stderr);
    std::fflush(stderr);
    std::abort();  // libFuzzer writes the input as a crash file
  }
  return 0;
}
