// Any bytes into the strict decoder: no crash, no UB, no leak; an accepted block
// re-encodes to exactly its input; a rejection points inside the input and
// cites a rule of the table.
#include <cstddef>
#include <cstdint>

#include "oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kiln::fuzz::check_decode({data, size});
  return 0;
}
