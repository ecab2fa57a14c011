#include "kiln/adapter.hpp"
#include "kiln/decode.hpp"
#include "kiln/encode.hpp"

namespace kiln::protocol {

Hello ReferenceAdapter::hello() {
  Hello hello;
  hello.name = std::string(kName);
  hello.version = KILN_PROJECT_VERSION;
  return hello;
}

Outcome ReferenceAdapter::decode(std::span<const std::uint8_t> block) {
  auto decoded = kiln::decode(block);
  if (!decoded) return reject_from(decoded.error());
  return Accept{decoded.value().to_description()};
}

Outcome ReferenceAdapter::encode(const BlockDescription& description) {
  auto encoded = kiln::encode(description);
  if (!encoded) return reject_from(encoded.error());
  return EncodedBlock{std::move(encoded).value()};
}

}  // namespace kiln::protocol
