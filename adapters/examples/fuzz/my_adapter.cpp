// The implementation under test, as the adapter fuzzer makes it: one fresh
// adapter per input. Here the reference stands in for an implementation; an
// implementer returns their own kiln::protocol::Adapter, which calls their
// reader and writer (adapters/examples/gtest/example_adapter.hpp shows one).
#include "kiln/conformance/adapter_fuzzer.hpp"

std::unique_ptr<kiln::protocol::Adapter> kiln_make_adapter() {
  return std::make_unique<kiln::protocol::ReferenceAdapter>();
}
