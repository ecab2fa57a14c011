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
  const auto* module = kiln::conformance::find_profile_module(kiln::conformance::adapter_fuzzer::profile_name());
  if (!module || !module->raw_input) return LLVMFuzzerMutate(data, size, max_size);
  return module->raw_input->mutate(data, size, max_size, seed, LLVMFuzzerMutate);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  if (auto disagreement = kiln::conformance::adapter_fuzzer::harness().check(input)) {
    std::fputs(disagreement->c_str(), stderr);
    std::fflush(stderr);
    std::abort();  // libFuzzer writes the input as a crash file
  }
  return 0;
}
