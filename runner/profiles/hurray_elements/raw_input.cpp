// Profile hurray-elements's raw fuzz input (raw_input.hpp):
//   byte 0      the type tag
//   byte 1      bit 0: permissive mode; bit 1: an encode input; bits 2..4: rank (0..7)
//   rank x u64  little-endian dimensions (as many whole ones as the input holds)
//   the rest    a decode's data, or an encode's elements: little-endian values
//               of the type's width in whole bytes (one byte for widths under
//               8 and for tags outside the table)
// Its case: the decode of the data (with the encode of the decoded elements
// when the reference accepts), or the encode of the elements.
#include <algorithm>
#include <array>
#include <random>

#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"
#include "kiln/conformance/raw_input.hpp"
#include "kiln/endian.hpp"
#include "kiln/hurray.hpp"
#include "profiles/hurray_elements/module.hpp"

namespace kiln::conformance::hurray_elements {
namespace {

constexpr std::string_view kIdPrefix = "hurray-input";
constexpr std::uint8_t kPermissiveBit = 1u, kEncodeBit = 2u;
constexpr unsigned kRankShift = 2, kMaxRank = 7;
constexpr std::size_t kHeadBytes = 2;

unsigned element_bytes(std::uint8_t tag) {
  const hurray::TypeInfo* type = hurray::type_by_tag(tag);
  return type && type->bits > 8 ? type->bits / 8u : 1u;
}

// An element as the input holds it: width little-endian bytes.
hurray::Element load_element(const std::uint8_t* bytes, unsigned width) {
  hurray::Element value;
  value.low = load_le(bytes, std::min(width, 8u));
  if (width > 8) value.high = load_le(bytes + 8, width - 8);
  return value;
}

void append_element(std::vector<std::uint8_t>& bytes, const hurray::Element& value, unsigned width) {
  const std::size_t at = bytes.size();
  bytes.resize(at + width);
  store_le(bytes.data() + at, std::min(width, 8u), value.low);
  if (width > 8) store_le(bytes.data() + at + 8, width - 8, value.high);
}

struct Parsed {
  Operation op = Operation::kDecode;
  ElementsInput input;
};

Parsed parse(std::span<const std::uint8_t> bytes) {
  Parsed parsed;
  ElementsInput& input = parsed.input;
  if (bytes.empty()) return parsed;
  input.tag = bytes[0];
  std::size_t at = 1;
  if (bytes.size() >= kHeadBytes) {
    const std::uint8_t flags = bytes[1];
    input.mode = (flags & kPermissiveBit) ? hurray::Mode::kPermissive : hurray::Mode::kStrict;
    if (flags & kEncodeBit) parsed.op = Operation::kEncode;
    const unsigned rank = (flags >> kRankShift) & kMaxRank;
    at = kHeadBytes;
    for (unsigned d = 0; d < rank && at + 8 <= bytes.size(); ++d, at += 8)
      input.shape.push_back(load_u64(bytes.data() + at));
  }
  auto rest = bytes.subspan(at);
  if (parsed.op == Operation::kDecode) {
    // Bytes after S are the container's (HURRAY.md 6.2): no case holds them.
    if (const hurray::TypeInfo* type = hurray::type_by_tag(input.tag))
      if (const auto count = hurray::element_count(input.shape))
        if (const auto size = hurray::data_size(*type, *count); size && *size < rest.size())
          rest = rest.first(static_cast<std::size_t>(*size));
    input.data.assign(rest.begin(), rest.end());
    return parsed;
  }
  // Encode has no mode: the case and the request carry none.
  input.mode = hurray::Mode::kStrict;
  const unsigned width = element_bytes(input.tag);
  const hurray::TypeInfo* type = hurray::type_by_tag(input.tag);
  const unsigned bits = type ? type->bits : 8u;
  for (std::size_t i = 0; i + width <= rest.size(); i += width)
    input.elements.push_back(hurray::element_to_hex(load_element(rest.data() + i, width), std::max(bits, 8u)));
  return parsed;
}

std::vector<std::uint8_t> serialize(Operation op, const ElementsInput& input,
                                    std::span<const std::uint8_t> rest) {
  std::vector<std::uint8_t> bytes{input.tag};
  std::uint8_t flags = static_cast<std::uint8_t>(input.shape.size() << kRankShift);
  if (input.mode == hurray::Mode::kPermissive) flags |= kPermissiveBit;
  if (op == Operation::kEncode) flags |= kEncodeBit;
  bytes.push_back(flags);
  for (std::uint64_t dim : input.shape) {
    bytes.resize(bytes.size() + 8);
    store_le(bytes.data() + bytes.size() - 8, 8, dim);
  }
  bytes.insert(bytes.end(), rest.begin(), rest.end());
  return bytes;
}

std::vector<Case> cases_of(std::span<const std::uint8_t> input, const std::string& summary) {
  const Parsed parsed = parse(input);
  std::vector<Case> cases;
  cases.push_back(elements_finding_case(parsed.op, parsed.input,
                                        raw_input_case_id(kIdPrefix, parsed.op, input), summary,
                                        std::nullopt));
  return cases;
}

std::optional<std::vector<std::uint8_t>> input_of(const Case& c) {
  const ElementsCase& body = hurray_elements::body(c);
  if (body.shape.size() > kMaxRank) return std::nullopt;
  ElementsInput input;
  input.tag = body.tag;
  input.shape = body.shape;
  if (body.data) {
    input.mode = body.decode_mode();
    return serialize(Operation::kDecode, input, *body.data);
  }
  if (!body.elements) return std::nullopt;
  const unsigned width = element_bytes(body.tag);
  std::vector<std::uint8_t> rest;
  for (const hurray::Element& value : elements::element_values(body)) {
    append_element(rest, value, width);
    // A value wider than the input's element bytes has no input.
    if (load_element(rest.data() + rest.size() - width, width) != value) return std::nullopt;
  }
  return serialize(Operation::kEncode, input, rest);
}

// Dimensions a reader gets wrong: none, one, a count that fits the data, and
// sizes whose byte count overflows.
std::uint64_t edge_dimension(std::minstd_rand& rng, std::size_t rest_bytes, std::uint8_t tag) {
  const hurray::TypeInfo* type = hurray::type_by_tag(tag);
  const std::uint64_t fitting = type ? rest_bytes * 8 / std::max<unsigned>(type->bits, 1) : rest_bytes;
  const std::array<std::uint64_t, 9> edges{0, 1, 2, 3, fitting, fitting + 1, std::uint64_t{1} << 32,
                                           std::uint64_t{1} << 61, ~std::uint64_t{0}};
  return edges[rng() % edges.size()];
}

std::size_t mutate(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed,
                   RawByteMutator bytes) {
  std::minstd_rand rng(seed);
  if (size < kHeadBytes || rng() % 4 == 0) return bytes(data, size, max_size);
  Parsed parsed = parse({data, size});
  ElementsInput& input = parsed.input;
  std::size_t head = kHeadBytes + 8 * input.shape.size();
  std::vector<std::uint8_t> rest(data + std::min(head, size), data + size);
  switch (rng() % 6) {
    case 0: input.tag = hurray::kTypes[rng() % hurray::kTypes.size()].tag; break;
    case 1:
      input.mode = input.mode == hurray::Mode::kStrict ? hurray::Mode::kPermissive : hurray::Mode::kStrict;
      break;
    case 2: parsed.op = parsed.op == Operation::kDecode ? Operation::kEncode : Operation::kDecode; break;
    case 3: {
      input.shape.resize(rng() % 4);
      for (std::uint64_t& dim : input.shape) dim = edge_dimension(rng, rest.size(), input.tag);
      break;
    }
    default: {
      // The data or the elements, through libFuzzer's mutator, within max_size.
      const std::size_t room = max_size > head ? max_size - head : 0;
      const std::size_t kept = rest.size();
      rest.resize(std::max(room, kept));
      rest.resize(bytes(rest.data(), std::min(kept, room), std::min(rest.size(), room)));
      break;
    }
  }
  const std::vector<std::uint8_t> out = serialize(parsed.op, input, rest);
  if (out.size() > max_size) return bytes(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

std::vector<std::uint64_t> features(std::span<const std::uint8_t> input, const std::string& verdict) {
  const Parsed parsed = parse(input);
  return input_features(parsed.op, parsed.input, verdict);
}

}  // namespace

const RawInputFormat kRawInput{"a Hurray element tensor: tag, flags, dimensions, then data or elements", 4096,
                               cases_of, input_of, mutate, features};

}  // namespace kiln::conformance::hurray_elements
