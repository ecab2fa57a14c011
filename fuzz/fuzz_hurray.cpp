// Any bytes into the Hurray element codec (reference/HURRAY.md). The input is
//   byte 0      the type tag
//   byte 1      bit 0: permissive mode; bits 1..3: rank (0..7)
//   bytes 2..3  u16 little-endian: bit k set = the k-th Tier 2 type of kTypes is supported
//   rank x u64  little-endian dimensions (as many whole ones as the input holds)
//   the rest    the data bytes
// Oracles: no crash, no UB, no leak; 0x00/0xFF are TAG rejects in both modes; an
// unrecognized tag is a TAG reject in strict mode and opaque in permissive mode;
// a rejection cites a rule of the table with its class and an offset inside the
// data; an accepted tensor has N and S as the size functions say, and encoding
// its elements gives back exactly its S bytes; the mode changes nothing else.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/endian.hpp"
#include "kiln/hurray.hpp"
#include "oracles.hpp"

namespace {

using namespace kiln::hurray;
using kiln::fuzz::require;

struct Input {
  std::uint8_t tag = 0;
  Mode mode = Mode::kStrict;
  TagSet supported;
  std::vector<std::uint64_t> shape;
  std::span<const std::uint8_t> data;
};

Input parse(std::span<const std::uint8_t> bytes) {
  Input input;
  if (bytes.size() < 4) {
    input.data = bytes;
    if (!bytes.empty()) input.tag = bytes[0];
    return input;
  }
  input.tag = bytes[0];
  input.mode = (bytes[1] & 1u) ? Mode::kPermissive : Mode::kStrict;
  const unsigned rank = (bytes[1] >> 1) & 7u;
  const unsigned mask = kiln::load_u16(bytes.data() + 2);
  unsigned k = 0;
  for (const TypeInfo& type : kTypes)
    if (type.tier == Tier::k2 && ((mask >> k++) & 1u)) input.supported.add(type.tag);
  std::size_t at = 4;
  for (unsigned d = 0; d < rank && at + 8 <= bytes.size(); ++d, at += 8)
    input.shape.push_back(kiln::load_u64(bytes.data() + at));
  input.data = bytes.subspan(at);
  return input;
}

bool recognized(std::uint8_t tag, const TagSet& supported) {
  const TypeInfo* type = type_by_tag(tag);
  return type != nullptr && (type->tier == Tier::k1 || supported.contains(tag));
}

void check_error(const Error& error, std::size_t data_size) {
  const auto id = rule_from_id(error.rule_id());
  require(id.has_value() && *id == error.rule, "error rule is not in hurray::all_rules()");
  require(!error.offset || *error.offset <= data_size, "error offset lies past the data");
  require(!error.element, "the decoder reported an element index");
  require(!error.message.empty(), "error without a message");
}

void check(const Input& input) {
  const auto decoded = decode(input.tag, input.shape, input.mode, input.data, input.supported);
  const bool known = recognized(input.tag, input.supported);
  if (input.tag == 0x00 || input.tag == 0xFF) {
    require(!decoded && decoded.error().rule == Rule::kTagZeroFF, "tag 00/ff not rejected");
    return;
  }
  if (!known) {
    if (input.mode == Mode::kStrict)
      require(!decoded && decoded.error().rule == Rule::kTagUnrecognized,
              "unrecognized tag not rejected in strict mode");
    else
      require(decoded && decoded.value().opaque && decoded.value().data.size() == input.data.size(),
              "unrecognized tag not opaque in permissive mode");
    return;
  }
  // A recognized tag: the mode must not matter.
  const Mode other = input.mode == Mode::kStrict ? Mode::kPermissive : Mode::kStrict;
  const auto again = decode(input.tag, input.shape, other, input.data, input.supported);
  require(decoded.ok() == again.ok(), "the mode changed the outcome for a recognized tag");
  if (!decoded) {
    check_error(decoded.error(), input.data.size());
    require(decoded.error().error_class() == ErrorClass::kData, "TAG reject of a recognized tag");
    require(again.error().rule == decoded.error().rule, "the mode changed the rule");
    return;
  }
  const Decoded& tensor = decoded.value();
  require(!tensor.opaque && tensor.type == type_by_tag(input.tag), "accepted with the wrong type");
  require(element_count(input.shape) == tensor.count, "count is not the shape's product");
  require(data_size(*tensor.type, tensor.count) == tensor.data.size(), "S is not the size formula");
  require(tensor.data.data() == input.data.data() &&
              tensor.data.size() + tensor.extra_bytes == input.data.size(),
          "the element bytes are not the first S bytes of the data");
  // count <= 8 * data size here, so the elements are bounded by the input.
  std::vector<Element> elements;
  elements.reserve(static_cast<std::size_t>(tensor.count));
  for (std::uint64_t i = 0; i < tensor.count; ++i) elements.push_back(tensor.element(i));
  const auto encoded = encode(input.tag, input.shape, elements, input.supported);
  require(encoded.ok(), "the encoder refused what the decoder accepted");
  require(encoded.value().size() == tensor.data.size() &&
              std::equal(encoded.value().begin(), encoded.value().end(), tensor.data.begin()),
          "encode(decode(data)) is not the data");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(parse({data, size}));
  return 0;
}
