// Structure-aware fuzzing of the decoder. The custom mutator is kiln::mutate's
// (fuzz/mutate/, shared with `kiln-conformance fuzz`): it reads the input
// leniently as a Kiln block (any header, any offsets: everything is clamped to
// the bytes present), mutates the description (dtype codes, shapes and ranks,
// names and layout names in the heap, block sizes, payload bytes, the tensor
// list and its count), writes it back with kiln::build so that every offset stays
// canonical, and now and then breaks one header or entry field on purpose. Most
// outputs therefore have a sound frame, which lets the fuzzer reach the TYPE
// rules behind it. Input it cannot read as a block goes to libFuzzer's own byte
// mutator.
#include <cstddef>
#include <cstdint>

#include "kiln/mutate/mutate.hpp"
#include "oracles.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return kiln::mutate::mutate_block_in_place(data, size, max_size, seed, LLVMFuzzerMutate);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kiln::fuzz::check_decode({data, size});
  return 0;
}
