#include "kiln/adapter.hpp"
#include "kiln/decode.hpp"
#include "kiln/encode.hpp"

namespace kiln::protocol {

Hello ReferenceAdapter::hello() {
  Hello hello;
  hello.name = std::string(kName);
  hello.version = KILN_PROJECT_VERSION;
  hello.profiles = {std::string(kProfileKilnV2), std::string(kProfileHurrayElements)};
  hello.hurray_tier2 = all_tier2_names();
  hello.int64 = int64_;
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

Outcome ReferenceAdapter::decode_elements(const ElementsDecodeRequest& request) {
  auto decoded = hurray::decode(request.tag, request.shape, request.mode, request.data);
  if (!decoded) return reject_from(decoded.error());
  const hurray::Decoded& tensor = decoded.value();
  if (tensor.opaque) return OpaqueAccept{};
  // Accepted: the count is backed by the data, so the list is bounded by it.
  ElementsAccept accept;
  accept.bits = tensor.type->bits;
  accept.elements.reserve(tensor.count);
  for (std::uint64_t i = 0; i < tensor.count; ++i) accept.elements.push_back(tensor.element(i));
  return accept;
}

Outcome ReferenceAdapter::encode_elements(const ElementsEncodeRequest& request) {
  auto elements = parse_elements(request.elements);
  if (!elements) return ProtocolError{"an element is not hex"};
  auto encoded = hurray::encode(request.tag, request.shape, *elements);
  if (!encoded) return reject_from(encoded.error());
  return ElementData{std::move(encoded).value()};
}

}  // namespace kiln::protocol
