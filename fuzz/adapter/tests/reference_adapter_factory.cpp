// The reference as the implementation under test: an adapter fuzzer over it
// must find nothing.
#include "kiln/conformance/adapter_fuzzer.hpp"

std::unique_ptr<kiln::protocol::Adapter> kiln_make_adapter() {
  return std::make_unique<kiln::protocol::ReferenceAdapter>();
}
