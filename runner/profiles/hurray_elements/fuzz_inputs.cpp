// The hurray-elements fuzzer's inputs (fuzzer.hpp): generated over the element
// layer's own structure, from the schedule, or mutated from the pool.
//
// Blind by design: the generator reaches every rule of HURRAY.md 5 without the
// golden cases. Tags come from every class of the tag space, assigned types by
// far most often; counts sit around each width's per-byte or per-group multiple;
// shapes include scalars, zero dimensions and products that overflow or wrap to
// a small N (what an implementation without the overflow check reads); data is
// exactly S bytes of special bit patterns, sometimes one byte short or with a
// padding bit set; elements sometimes one too wide or one too many or few.
#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <utility>

#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/minimize.hpp"
#include "kiln/mutate/generate.hpp"
#include "kiln/mutate/mutate.hpp"
#include "profiles/hurray_elements/fuzzer.hpp"

namespace kiln::conformance::hurray_elements {
namespace {

using Bytes = std::vector<std::uint8_t>;
using hurray::Element;
using hurray::Mode;
using hurray::TypeInfo;

// The largest N a generated tensor has, and the most bytes given to a shape
// whose N or S wraps: small tensors find every bug here and shrink fast.
constexpr std::uint64_t kMaxElements = 256;
constexpr std::uint64_t kMaxWrappedBytes = 256;
constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};

// ---- bit patterns of up to 128 bits ----

Element bit(unsigned k) {
  return k < 64 ? Element{std::uint64_t{1} << k, 0, false} : Element{0, std::uint64_t{1} << (k - 64), false};
}
Element ones(unsigned count) {  // bits 0..count-1
  if (count >= 128) return {kAllOnes, kAllOnes, false};
  if (count >= 64) return {kAllOnes, count == 64 ? 0 : kAllOnes >> (128 - count), false};
  return {count == 0 ? 0 : kAllOnes >> (64 - count), 0, false};
}
Element either(Element a, const Element& b) {
  a.low |= b.low;
  a.high |= b.high;
  return a;
}
Element both(Element a, const Element& b) {
  a.low &= b.low;
  a.high &= b.high;
  return a;
}
Element shifted(const Element& e, unsigned by) {
  if (by == 0) return e;
  if (by >= 128) return {};
  if (by >= 64) return {0, e.low << (by - 64), false};
  return {e.low << by, e.high << by | e.low >> (64 - by), false};
}

// A float type's layout, by its name (HURRAY.md 3.2).
std::optional<FloatLayout> float_layout(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, FloatLayout>, 10> kLayouts{{
      {"float16", {5, 10}},     {"bfloat16", {8, 7}},     {"float32", {8, 23}},
      {"float64", {11, 52}},    {"float128", {15, 112}},  {"float8_e4m3", {4, 3}},
      {"float8_e5m2", {5, 2}},  {"float4_e2m1", {2, 1}},  {"float6_e2m3", {2, 3}},
      {"float6_e3m2", {3, 2}},
  }};
  for (const auto& [type, layout] : kLayouts)
    if (type == name) return layout;
  return std::nullopt;
}

// The padding bits of S bytes holding N elements: (byte, mask) of the last
// byte, or of the final 3-byte group (HURRAY.md 4).
std::vector<std::pair<std::size_t, std::uint8_t>> padding_masks(const TypeInfo& type, std::uint64_t count,
                                                                std::size_t size) {
  std::vector<std::pair<std::size_t, std::uint8_t>> masks;
  if (type.bits >= 8) return masks;
  const unsigned used = static_cast<unsigned>(count % per_unit(type.bits)) * type.bits;
  const std::size_t unit = type.bits == 6 ? 3 : 1;
  if (used == 0 || size < unit) return masks;
  const std::uint32_t unused = (0xFFFFFFu << used) & (unit == 3 ? 0xFFFFFFu : 0xFFu);
  for (std::size_t k = 0; k < unit; ++k)
    if (const auto mask = static_cast<std::uint8_t>(unused >> (8 * k)); mask != 0)
      masks.emplace_back(size - unit + k, mask);
  return masks;
}

// Element j of a byte-asymmetric run: its bytes are j * w + 1, + 2, ...
// (whole bytes), or j + 1 (sub-byte): no element reads the same in another
// byte or bit order, and neighbours differ.
Element asymmetric_element(unsigned bits, std::uint64_t j) {
  if (bits < 8) return Element{(j + 1) % (std::uint64_t{1} << bits), 0, false};
  const unsigned width = bits / 8u;
  Element element{};
  for (unsigned k = 0; k < width; ++k) {
    const std::uint64_t byte = (j * width + k + 1) & 0xFF;
    if (k < 8) element.low |= byte << (8 * k);
    else element.high |= byte << (8 * (k - 8));
  }
  return element;
}

// Element j into data as HURRAY.md 4 lays it out (data zeroed beforehand).
void put_element(const TypeInfo& type, Bytes& data, std::uint64_t j, const Element& element) {
  const auto put = [&](std::uint64_t at, std::uint64_t byte) {
    if (at < data.size()) data[at] |= static_cast<std::uint8_t>(byte);
  };
  const Element value = both(element, ones(type.bits));
  switch (type.bits) {
    case 1:
    case 2:
    case 4: put(j * type.bits / 8, value.low << (j * type.bits % 8)); return;
    case 6:
      for (unsigned k = 0; k < 3; ++k) put(3 * (j / 4) + k, value.low << (6 * (j % 4)) >> (8 * k));
      return;
    default:
      for (unsigned k = 0; k < type.bits / 8u; ++k)
        put(j * (type.bits / 8u) + k, k < 8 ? value.low >> (8 * k) : value.high >> (8 * (k - 8)));
  }
}

}  // namespace

// ---- random choices ----

bool ElementsFuzzer::chance(unsigned percent) { return below(100) < percent; }
std::uint64_t ElementsFuzzer::random64() {
  return std::uniform_int_distribution<std::uint64_t>(0, kAllOnes)(rng_);
}
Element ElementsFuzzer::random_bits(unsigned bits) {
  return both(Element{random64(), random64(), false}, ones(bits));
}

// An encode of a Tier 2 type the hello does not list is not sent (PROTOCOL.md).
bool ElementsFuzzer::in_scope(std::uint8_t tag, Operation op) const {
  const TypeInfo* type = hurray::type_by_tag(tag);
  return op == Operation::kDecode || !type || type->tier == hurray::Tier::k1 || tier2_.contains(tag);
}

std::uint8_t ElementsFuzzer::pick_tag(Operation op) {
  if (chance(80)) {
    for (;;) {
      const TypeInfo& type = hurray::kTypes[below(hurray::kTypes.size())];
      if (in_scope(type.tag, op)) return type.tag;
    }
  }
  // Each other class of HURRAY.md 3.1, its bounds half the time.
  const auto in = [&](std::uint8_t first, std::uint8_t last) {
    for (;;) {
      const auto tag = static_cast<std::uint8_t>(
          chance(50) ? (chance(50) ? first : last) : first + below(std::size_t{last} - first + 1));
      if (!hurray::type_by_tag(tag)) return tag;
    }
  };
  switch (below(6)) {
    case 0: return chance(50) ? 0x00 : 0xFF;
    case 1: return chance(40) ? one_of(std::array<std::uint8_t, 6>{0x05, 0x0F, 0x18, 0x1F, 0x21, 0x32})
                              : in(0x01, 0x3F);
    case 2: return in(0x4C, 0x7F);
    case 3: return 0x47;
    case 4: return in(0x80, 0xEF);
    default: return in(0xF0, 0xFE);
  }
}

// ---- shapes ----

std::vector<std::uint64_t> ElementsFuzzer::shape_of(std::uint64_t count) {
  if (count == 0) return {0};
  switch (below(10)) {
    case 0:
    case 1: {
      std::uint64_t factor = 1 + below(std::min<std::uint64_t>(count, 8));
      while (count % factor != 0) --factor;
      return {factor, count / factor};
    }
    case 2: return chance(50) ? std::vector<std::uint64_t>{1, count} : std::vector<std::uint64_t>{count, 1};
    default: return {count};
  }
}

std::uint64_t ElementsFuzzer::pick_count(unsigned per) {
  const auto r = below(10);
  // Around the multiples of the elements per byte or group: each remainder.
  if (r < 6) return below(4) * per + below(per);
  if (r < 9) return 1 + below(64);
  return 1 + below(kMaxElements);
}

std::vector<std::uint64_t> ElementsFuzzer::zero_shape() {
  switch (below(6)) {
    case 0: return {0};
    case 1: return {0, 1 + below(9)};
    case 2: return {1 + below(9), 0};
    case 3: return {0, kAllOnes};
    case 4: return {kAllOnes, 0};
    default: return {std::uint64_t{1} << 32, 0, std::uint64_t{1} << 32};
  }
}

// Products past 2^64 - 1, many wrapping to a small N, and counts whose S is
// at or near 2^64 for the type's width.
std::vector<std::uint64_t> ElementsFuzzer::huge_shape(const TypeInfo* type) {
  const std::uint64_t width = type && type->bits >= 8 ? type->bits / 8u : 1;
  switch (below(8)) {
    case 0: return {std::uint64_t{1} << 32, std::uint64_t{1} << 32};
    case 1: return {std::uint64_t{1} << 63, 2};
    case 2: return {kAllOnes, kAllOnes};  // wraps to 1
    case 3: {
      const unsigned k = 33 + static_cast<unsigned>(below(31));
      return {(std::uint64_t{1} << k) + 1 + below(3), std::uint64_t{1} << (64 - k)};  // wraps small
    }
    case 4: return std::vector<std::uint64_t>(chance(50) ? 64 : 32, chance(50) ? 2 : 4);
    case 5:
    case 6: {
      if (width == 1) return {kAllOnes - below(2)};
      const std::uint64_t edge = (kAllOnes / width + 1) + one_of(std::array<std::uint64_t, 4>{0, 1, 2, kAllOnes});
      if (chance(30) && edge % 2 == 0) return {2, edge / 2};  // the same N as two dimensions
      return {edge};
    }
    default: return {random64(), random64() >> below(64)};
  }
}

std::vector<std::uint64_t> ElementsFuzzer::pick_shape(std::uint8_t tag) {
  const TypeInfo* type = hurray::type_by_tag(tag);
  const auto r = below(100);
  if (r < 10) return {};
  if (r < 18) return zero_shape();
  if (r < 28) return huge_shape(type);
  return shape_of(pick_count(type ? per_unit(type->bits) : 1));
}

// ---- values and bytes ----

Element ElementsFuzzer::special_float(FloatLayout layout) {
  const unsigned e = layout.exponent, m = layout.mantissa;
  const Element exponent = [&] {
    switch (below(5)) {
      case 0: return Element{};
      case 1: return ones(e);  // infinities and NaNs
      case 2: return bit(0);
      case 3: return Element{(std::uint64_t{1} << e) - 2, 0, false};
      default: return random_bits(e);
    }
  }();
  const Element mantissa = [&] {
    switch (below(6)) {
      case 0: return Element{};
      case 1: return bit(0);          // a signalling NaN's least payload, the least subnormal
      case 2: return bit(m - 1);      // the quiet bit
      case 3: return either(bit(m - 1), bit(0));
      case 4: return ones(m);
      default: return random_bits(m);
    }
  }();
  Element value = either(shifted(exponent, m), mantissa);
  if (chance(50)) value = either(value, bit(e + m));  // -0 among them
  return value;
}

Element ElementsFuzzer::special_int(unsigned bits) {
  switch (below(5)) {
    case 0: return Element{};
    case 1: return bit(0);
    case 2: return ones(bits);  // -1
    case 3: return bit(bits - 1);  // the least signed value
    default: return ones(bits - 1);  // the greatest
  }
}

Element ElementsFuzzer::element_value(const TypeInfo& type) {
  if (type.tag == hurray::kE8m0Tag) {
    const auto r = below(10);
    if (r == 0) return Element{chance(50) ? 0x00u : 0xFFu, 0, false};
    if (r == 1) return Element{one_of(std::array<std::uint64_t, 3>{0x01, 0xFE, 0x7F}), 0, false};
    return Element{1 + below(254), 0, false};
  }
  if (chance(50) || type.kind == hurray::Kind::kBool) return random_bits(type.bits);
  if (type.kind == hurray::Kind::kSignedInt || type.kind == hurray::Kind::kUnsignedInt)
    return special_int(type.bits);
  if (type.kind == hurray::Kind::kComplex) {
    const unsigned half = type.bits / 2u;
    const FloatLayout layout = half == 32 ? FloatLayout{8, 23} : FloatLayout{11, 52};
    const Element real = special_float(layout);
    return either(real, shifted(special_float(layout), half));
  }
  if (const auto layout = float_layout(type.name)) return special_float(*layout);
  return random_bits(type.bits);
}

Bytes ElementsFuzzer::random_bytes(std::size_t size) {
  Bytes bytes(size);
  for (auto& byte : bytes) byte = static_cast<std::uint8_t>(below(256));
  return bytes;
}

// N elements packed as HURRAY.md 4 does, padding bits zero (e8m0's 00 and
// ff too, which the encoder refuses: its bytes are its elements).
Bytes ElementsFuzzer::packed(const TypeInfo& type, std::uint64_t count) {
  std::vector<Element> values;
  values.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) values.push_back(element_value(type));
  if (type.tag == hurray::kE8m0Tag) {
    Bytes bytes;
    for (const Element& value : values) bytes.push_back(static_cast<std::uint8_t>(value.low));
    return bytes;
  }
  const std::uint64_t shape[] = {count};
  return hurray::encode(type.tag, shape, values).value();
}

void ElementsFuzzer::set_padding_bit(const TypeInfo& type, std::uint64_t count, Bytes& data) {
  const auto masks = padding_masks(type, count, data.size());
  if (masks.empty()) return;
  const auto& [at, mask] = masks[below(masks.size())];
  std::vector<unsigned> bits;
  for (unsigned k = 0; k < 8; ++k)
    if (mask >> k & 1u) bits.push_back(k);
  data[at] ^= static_cast<std::uint8_t>(1u << bits[below(bits.size())]);
}

// What an implementation that wraps N or S computes, when it is small: data
// of that size, so that such an implementation accepts.
std::optional<std::uint64_t> ElementsFuzzer::wrapped_size(const TypeInfo& type,
                                                          std::span<const std::uint64_t> shape) {
  std::uint64_t count = 1;
  for (std::uint64_t dim : shape) count *= dim;
  const auto exact = hurray::element_count(shape);
  std::optional<std::uint64_t> size =
      exact ? std::optional<std::uint64_t>(count * (type.bits >= 8 ? type.bits / 8u : 1)) : hurray::data_size(type, count);
  if (size && *size <= kMaxWrappedBytes) return size;
  return std::nullopt;
}

Bytes ElementsFuzzer::pick_data(std::uint8_t tag, std::span<const std::uint64_t> shape) {
  const TypeInfo* type = hurray::type_by_tag(tag);
  if (!type) return random_bytes(below(13));
  const auto count = hurray::element_count(shape);
  const auto size = count ? hurray::data_size(*type, *count) : std::nullopt;
  if (!size || *size > kMaxElements * 16) {
    const auto wrapped = wrapped_size(*type, shape);
    return random_bytes(wrapped && chance(70) ? static_cast<std::size_t>(*wrapped) : below(17));
  }
  Bytes data = packed(*type, *count);
  const auto r = below(100);
  if (r < 50) return data;
  if (r < 65) set_padding_bit(*type, *count, data);
  else if (r < 75)
    for (const auto& [at, mask] : padding_masks(*type, *count, data.size()))
      data[at] |= static_cast<std::uint8_t>(below(256) & mask);
  else if (r < 87 && !data.empty()) data.resize(data.size() - 1 - below(std::min<std::size_t>(data.size(), 3)));
  else data = random_bytes(data.size());
  return data;
}

std::string ElementsFuzzer::too_wide(unsigned bits) {
  if (bits >= 128) {
    std::string text = "1" + hurray::element_to_hex(random_bits(128), 128);  // 129 bits
    return text;
  }
  Element value = bit(bits);
  if (chance(50)) value = either(value, random_bits(std::min(bits + static_cast<unsigned>(below(8)), 128u)));
  return hurray::element_to_hex(value, hurray::significant_bits(value));
}

std::vector<std::string> ElementsFuzzer::pick_elements(std::uint8_t tag,
                                                      std::span<const std::uint64_t> shape) {
  const TypeInfo* type = hurray::type_by_tag(tag);
  const unsigned bits = type ? type->bits : 8;
  std::uint64_t count = 1;
  for (std::uint64_t dim : shape) count *= dim;  // the wrapped N of an overflowing shape
  if (count > kMaxElements) count = below(4);
  if (chance(10) && count > 0) --count;
  else if (chance(10)) ++count;
  std::vector<std::string> elements;
  for (std::uint64_t i = 0; i < count; ++i)
    elements.push_back(hurray::element_to_hex(type ? element_value(*type) : random_bits(8), bits));
  if (!elements.empty() && chance(10)) elements[below(elements.size())] = too_wide(bits);
  return elements;
}

ElementsInput ElementsFuzzer::generate(Operation op) {
  ElementsInput input;
  input.tag = pick_tag(op);
  input.shape = pick_shape(input.tag);
  if (op == Operation::kDecode) {
    input.mode = chance(30) ? Mode::kPermissive : Mode::kStrict;
    input.data = pick_data(input.tag, input.shape);
  } else {
    input.elements = pick_elements(input.tag, input.shape);
  }
  return input;
}

// ---- the schedule ----

// An element's interesting bit patterns, B bits wide: the edges of the
// width's catalogue (0, 1, 2^k - 1, 2^k, 2^k + 1, the signed edges,
// byte-asymmetric 01 02 .. and its reversal) for whole-byte widths, a
// 128-bit one from two halves; every pattern for a sub-byte width.
Element ElementsFuzzer::catalogue_element(unsigned bits, std::uint64_t k) {
  if (bits < 8) return Element{k % (std::uint64_t{1} << bits), 0, false};
  const auto values = mutate::interesting_values(std::min(bits, 64u) / 8);
  const std::uint64_t low = values[k % values.size()];
  if (bits <= 64) return Element{low, 0, false};
  return Element{low, values[(k / values.size() + k) % values.size()], false};
}

std::vector<std::uint64_t> ElementsFuzzer::scheduled_shape(std::uint64_t count, std::uint64_t form) {
  const auto dims = mutate::interesting_values(8);
  switch (form % 8) {
    case 0: return {count};
    case 1: return {1, count};
    case 2: return {count, 1};
    case 3: return count == 1 ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{count};
    case 4: return {dims[below(dims.size())], 0};  // N = 0 beside any dimension
    case 5: return {0, dims[below(dims.size())]};
    case 6: {  // every dimension an edge value: most overflow, some wrap small
      std::vector<std::uint64_t> shape(1 + below(3));
      for (auto& dim : shape) dim = dims[below(dims.size())];
      return shape;
    }
    default: {
      std::uint64_t factor = 2;
      while (factor < count && count % factor != 0) ++factor;
      return factor < count ? std::vector<std::uint64_t>{factor, count / factor} : std::vector<std::uint64_t>{count};
    }
  }
}

ElementsInput ElementsFuzzer::scheduled(Operation op, std::uint64_t index) {
  // Counts around every per-byte and per-group multiple and the powers of two.
  static constexpr std::array<std::uint64_t, 26> kCounts{0,  1,  2,  3,  4,  5,  6,  7,  8,   9,   12,  15,  16,
                                                         17, 24, 31, 32, 33, 48, 63, 64, 65, 127, 128, 129, 256};
  static constexpr std::array<std::uint8_t, 12> kOtherTags{0x00, 0xFF, 0x05, 0x3F, 0x47, 0x4C,
                                                           0x7F, 0x80, 0xEF, 0xF0, 0xFE, 0x21};
  ElementsInput input;
  const std::size_t types = hurray::kTypes.size();
  const std::uint64_t round = index / (types + 1);
  const std::size_t slot = index % (types + 1);
  input.tag = slot == types ? kOtherTags[round % kOtherTags.size()] : hurray::kTypes[slot].tag;
  if (!in_scope(input.tag, op)) input.tag = pick_tag(op);
  const TypeInfo* type = hurray::type_by_tag(input.tag);
  const std::uint64_t count = kCounts[(round + slot) % kCounts.size()];
  input.shape = scheduled_shape(count, round / kCounts.size() + slot);
  const unsigned bits = type ? type->bits : 8;
  const auto n = hurray::element_count(input.shape);
  const std::uint64_t listed = n && *n <= kMaxElements ? *n : below(4);
  std::vector<Element> values;
  const std::uint64_t fill = (round + slot / 3) % 3;
  const std::uint64_t start = below(1024);
  for (std::uint64_t j = 0; j < listed; ++j)
    values.push_back(fill == 0   ? asymmetric_element(bits, j)
                     : fill == 1 ? catalogue_element(bits, start + j)
                     : type      ? element_value(*type)
                                 : random_bits(bits));
  if (op == Operation::kEncode) {
    for (const Element& value : values) input.elements.push_back(hurray::element_to_hex(value, bits));
    return input;
  }
  input.mode = index % 4 == 3 ? Mode::kPermissive : Mode::kStrict;
  if (!type || !n || *n > kMaxElements) {
    input.data = pick_data(input.tag, input.shape);
    return input;
  }
  // The data the reference would write, e8m0's refused patterns included;
  // one in five with a padding bit set or a byte short.
  input.data.assign(static_cast<std::size_t>(hurray::data_size(*type, *n).value_or(0)), 0);
  for (std::uint64_t j = 0; j < *n; ++j) put_element(*type, input.data, j, values[j]);
  if (index % 5 == 2) set_padding_bit(*type, *n, input.data);
  else if (index % 5 == 4 && !input.data.empty()) input.data.pop_back();
  return input;
}

// ---- mutation, over the structure ----

void ElementsFuzzer::mutate_shape(ElementsInput& input) {
  if (input.shape.empty() || chance(15)) {
    input.shape.insert(input.shape.begin() + static_cast<std::ptrdiff_t>(below(input.shape.size() + 1)),
                       chance(70) ? 1 : below(4));
    return;
  }
  std::uint64_t& dim = input.shape[below(input.shape.size())];
  switch (below(7)) {
    case 0: ++dim; break;
    case 1: --dim; break;
    case 2: dim = 0; break;
    case 3: dim = 1; break;
    case 4: dim *= 2; break;
    case 5: dim = huge_shape(hurray::type_by_tag(input.tag)).front(); break;
    default: input.shape.erase(input.shape.begin() + static_cast<std::ptrdiff_t>(below(input.shape.size())));
  }
}

void ElementsFuzzer::mutate_data(ElementsInput& input) {
  Bytes& data = input.data;
  const TypeInfo* type = hurray::type_by_tag(input.tag);
  const auto count = hurray::element_count(input.shape);
  switch (below(5)) {
    case 0:
      if (!data.empty()) data[below(data.size())] ^= static_cast<std::uint8_t>(1u << below(8));
      break;
    case 1:
      if (!data.empty())
        data[below(data.size())] = one_of(std::array<std::uint8_t, 6>{0x00, 0xFF, 0x80, 0x7F, 0x7C, 0x01});
      break;
    case 2:
      if (type && count) set_padding_bit(*type, *count, data);
      break;
    case 3:
      if (!data.empty()) data.pop_back();
      break;
    default: {
      const std::size_t size = data.size();
      data.resize(std::max<std::size_t>(size + 16, 1));
      data.resize(mutate::mutate_bytes(data.data(), size, data.size(), rng_));
    }
  }
}

void ElementsFuzzer::mutate_elements(ElementsInput& input) {
  auto& elements = input.elements;
  const TypeInfo* type = hurray::type_by_tag(input.tag);
  const unsigned bits = type ? type->bits : 8;
  const auto fresh = [&] { return hurray::element_to_hex(type ? element_value(*type) : random_bits(8), bits); };
  switch (below(4)) {
    case 0: elements.push_back(fresh()); break;
    case 1:
      if (!elements.empty()) elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(below(elements.size())));
      break;
    case 2:
      if (!elements.empty()) elements[below(elements.size())] = fresh();
      break;
    default:
      if (!elements.empty()) elements[below(elements.size())] = too_wide(bits);
  }
}

// Another type of the same width: the bytes or elements keep their meaning.
std::uint8_t ElementsFuzzer::same_width(std::uint8_t tag, Operation op) {
  const TypeInfo* type = hurray::type_by_tag(tag);
  if (!type) return pick_tag(op);
  std::vector<std::uint8_t> tags;
  for (const TypeInfo& other : hurray::kTypes)
    if (other.bits == type->bits && in_scope(other.tag, op)) tags.push_back(other.tag);
  return tags.empty() ? tag : tags[below(tags.size())];
}

ElementsInput ElementsFuzzer::mutate(ElementsInput input, Operation op) {
  const bool decoding = op == Operation::kDecode;
  for (std::size_t steps = 1 + below(3); steps-- > 0;) {
    switch (below(8)) {
      case 0: input.tag = pick_tag(op); break;
      case 1: input.tag = same_width(input.tag, op); break;
      case 2:
        input.shape = pick_shape(input.tag);
        if (chance(50)) {
          if (decoding) input.data = pick_data(input.tag, input.shape);
          else input.elements = pick_elements(input.tag, input.shape);
        }
        break;
      case 3:
        // The same dimensions in another order: the same N, another shape.
        if (input.shape.size() >= 2 && chance(30)) std::shuffle(input.shape.begin(), input.shape.end(), rng_);
        else mutate_shape(input);
        break;
      case 4:
        if (decoding) input.mode = input.mode == Mode::kStrict ? Mode::kPermissive : Mode::kStrict;
        else mutate_elements(input);
        break;
      case 5:
        if (decoding) input.data = pick_data(input.tag, input.shape);
        else input.elements = pick_elements(input.tag, input.shape);
        break;
      default:
        if (decoding) mutate_data(input);
        else mutate_elements(input);
    }
  }
  if (!in_scope(input.tag, op)) input.tag = pick_tag(op);
  if (decoding) {
    cut_past_size(input);
    if (input.data.size() > kMaxFuzzInputBytes) input.data.resize(kMaxFuzzInputBytes);
  } else if (input.elements.size() > 4 * kMaxElements) {
    input.elements.resize(4 * kMaxElements);
  }
  return input;
}

}  // namespace kiln::conformance::hurray_elements
