// An implementation under test, behind kiln::protocol::Adapter. Here it hands
// every request to the reference (KilnConformance::protocol's ReferenceAdapter);
// an implementer calls their own reader and writer instead and converts their
// results to protocol::Accept, EncodedBlock or Reject (kiln-v2) and to
// ElementsAccept, OpaqueAccept, ElementData or ElementsReject (hurray-elements).
// An implementation of one profile lists only it in hello's profiles and keeps
// the Adapter defaults for the other's methods.
#pragma once

#include "kiln/adapter.hpp"

class ExampleAdapter final : public kiln::protocol::Adapter {
 public:
  kiln::protocol::Hello hello() override;
  kiln::protocol::Outcome decode(std::span<const std::uint8_t> block) override;
  kiln::protocol::Outcome encode(const kiln::BlockDescription& description) override;
  kiln::protocol::Outcome decode_elements(const kiln::protocol::ElementsDecodeRequest& request) override;
  kiln::protocol::Outcome encode_elements(const kiln::protocol::ElementsEncodeRequest& request) override;

 private:
  kiln::protocol::ReferenceAdapter implementation_;
};
