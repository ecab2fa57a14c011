// An implementation under test, behind kiln::protocol::Adapter. Here it hands
// every request to the reference (KilnConformance::protocol's ReferenceAdapter);
// an implementer calls their own reader and writer instead and converts their
// results to protocol::Accept, EncodedBlock or Reject.
#pragma once

#include "kiln/adapter.hpp"

class ExampleAdapter final : public kiln::protocol::Adapter {
 public:
  kiln::protocol::Hello hello() override;
  kiln::protocol::Outcome decode(std::span<const std::uint8_t> block) override;
  kiln::protocol::Outcome encode(const kiln::BlockDescription& description) override;

 private:
  kiln::protocol::ReferenceAdapter implementation_;
};
