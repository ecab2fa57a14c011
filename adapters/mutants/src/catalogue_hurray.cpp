// Profile hurray-elements (reference/HURRAY.md): one implementer's bug each in
// the element layer, as hooks of HurrayHooks over the reference's steps
// (src/hurray_pipeline.hpp). Their Kiln path is the reference's, so only the
// cases under cases/hurray can kill them.
#include <utility>

#include "catalogue_parts.hpp"
#include "hurray_pipeline.hpp"

namespace kiln::mutants::parts {
namespace {

using hurray::Element;
using hurray::Mode;
using hurray::TypeInfo;
using Verdict = TagLookup::Verdict;
namespace path = hurray_path;

// ---- Layouts: element i's bit offset within its byte, for one sub-byte width ----

using Shift = unsigned (*)(std::uint64_t index);

// One packing, in the reader and the writer alike (a shared helper in a real
// codec), so the padding the mutant checks and writes follows it too.
Mutant sub_byte_layout(std::string_view name, std::string_view description, unsigned bits,
                       Shift shift) {
  Mutant m = make(name, kFamilyHurrayPacking, description);
  const unsigned mask = (1u << bits) - 1;
  m.hurray.read = [bits, mask, shift](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    if (type.bits != bits) return path::reference_read(type, data, i);
    const std::uint64_t at = i / (8 / bits);
    const unsigned byte = at < data.size() ? data[at] : 0u;
    return Element{(byte >> shift(i)) & mask, 0, false};
  };
  m.hurray.write = [bits, mask, shift](const TypeInfo& type, std::span<std::uint8_t> out,
                                       std::uint64_t i, const Element& element) {
    if (type.bits != bits) return path::reference_write(type, out, i, element);
    const std::uint64_t at = i / (8 / bits);
    if (at < out.size()) out[at] |= static_cast<std::uint8_t>((element.low & mask) << shift(i));
  };
  return m;
}

// The 6-bit group read as a big-endian 24-bit number: element j still at bits 6j.
Mutant six_bit_big_endian() {
  Mutant m = make("hurray-6bit-group-big-endian", kFamilyHurrayPacking,
                  "6-bit types: the 3-byte group is read and written as a big-endian 24-bit value");
  m.hurray.read = [](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    if (type.bits != 6) return path::reference_read(type, data, i);
    const std::uint64_t group = 3 * (i / 4);
    const auto at = [&](std::uint64_t k) -> std::uint32_t { return k < data.size() ? data[k] : 0u; };
    const std::uint32_t bits24 = at(group) << 16 | at(group + 1) << 8 | at(group + 2);
    return Element{(bits24 >> (6 * (i % 4))) & 0x3Fu, 0, false};
  };
  m.hurray.write = [](const TypeInfo& type, std::span<std::uint8_t> out, std::uint64_t i,
                      const Element& element) {
    if (type.bits != 6) return path::reference_write(type, out, i, element);
    const std::uint64_t group = 3 * (i / 4);
    const std::uint32_t shifted = static_cast<std::uint32_t>(element.low & 0x3F) << (6 * (i % 4));
    for (unsigned k = 0; k < 3; ++k)
      if (group + k < out.size()) out[group + k] |= static_cast<std::uint8_t>(shifted >> (16 - 8 * k));
  };
  return m;
}

Element swap_halves(const TypeInfo& type, Element element) {
  if (type.kind != hurray::Kind::kComplex) return element;
  if (type.bits == 128) std::swap(element.low, element.high);
  else element.low = element.low << 32 | element.low >> 32;
  return element;
}

Mutant complex_halves_swapped() {
  Mutant m = make("hurray-complex-halves-swapped", kFamilyHurrayPacking,
                  "complex types: the real part is taken from the high half (imaginary first)");
  m.hurray.read = [](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    return swap_halves(type, path::reference_read(type, data, i));
  };
  m.hurray.write = [](const TypeInfo& type, std::span<std::uint8_t> out, std::uint64_t i,
                      const Element& element) {
    path::reference_write(type, out, i, swap_halves(type, element));
  };
  return m;
}

Mutant int4_sign_extended() {
  Mutant m = make("hurray-int4-sign-extended", kFamilyHurrayPacking,
                  "int4 elements are sign-extended to 64 bits on decode (8 comes back as fff...8)");
  m.hurray.read = [](const TypeInfo& type, ByteSpan data, std::uint64_t i) {
    Element element = path::reference_read(type, data, i);
    if (type.name == "int4" && (element.low & 0x8) != 0) element.low |= ~std::uint64_t{0xF};
    return element;
  };
  return m;
}

// ---- Padding ----

Mutant padding_unchecked(std::string_view name, std::string_view description, unsigned bits) {
  Mutant m = make(name, kFamilyHurrayPadding, description);
  m.hurray.padding = [bits](const TypeInfo& type, std::uint64_t count,
                            ByteSpan elements) -> std::optional<hurray::Error> {
    if (type.bits == bits) return std::nullopt;
    return path::reference_padding(type, count, elements);
  };
  return m;
}

// ---- Sizes ----

Mutant size_rule(std::string_view name, std::string_view family, std::string_view description,
                 std::optional<std::uint64_t> (*size)(const TypeInfo&, std::uint64_t)) {
  Mutant m = make(name, family, description);
  m.hurray.size = size;
  return m;
}

template <unsigned Bits>
std::optional<std::uint64_t> floor_size(const TypeInfo& type, std::uint64_t count) {
  if (type.bits == Bits) return count / (8 / Bits);
  return hurray::data_size(type, count);
}

std::optional<std::uint64_t> six_bit_as_bits(const TypeInfo& type, std::uint64_t count) {
  if (type.bits != 6) return hurray::data_size(type, count);
  const std::uint64_t bits = count * 6;  // as written, N * 6 / 8: it wraps too
  return bits / 8 + (bits % 8 != 0);
}

std::optional<std::uint64_t> wrapping_size(const TypeInfo& type, std::uint64_t count) {
  switch (type.bits) {
    case 1:
    case 2:
    case 4: return hurray::data_size(type, count);  // cannot overflow
    case 6: return (count / 4 + (count % 4 != 0)) * 3;
    default: return count * (type.bits / 8u);
  }
}

Mutant count_rule(std::string_view name, std::string_view family, std::string_view description,
                  std::optional<std::uint64_t> (*count)(std::span<const std::uint64_t>)) {
  Mutant m = make(name, family, description);
  m.hurray.count = count;
  return m;
}

// ---- Tags ----

// The reference's tag lookup, except that `tags` in `modes` get `verdict`.
Mutant tag_rule(std::string_view name, std::string_view description, bool (*tags)(std::uint8_t),
                bool (*applies)(Mode), TagLookup verdict) {
  Mutant m = make(name, kFamilyHurrayTags, description);
  m.hurray.look_up = [tags, applies, verdict](std::uint8_t tag, Mode mode) {
    if (tags(tag) && applies(mode)) return verdict;
    return path::reference_look_up(tag, mode);
  };
  return m;
}

bool any_mode(Mode) { return true; }
bool strict_mode(Mode mode) { return mode == Mode::kStrict; }
bool permissive_mode(Mode mode) { return mode == Mode::kPermissive; }

// ---- Values ----

struct Ieee {
  std::uint64_t sign, exponent, mantissa, quiet;
};

// float16, float32, float64: the types a native float conversion goes through.
std::optional<Ieee> ieee(const TypeInfo& type) {
  if (type.name == "float16") return Ieee{0x8000, 0x7C00, 0x03FF, 0x0200};
  if (type.name == "float32") return Ieee{0x80000000, 0x7F800000, 0x007FFFFF, 0x00400000};
  if (type.name == "float64")
    return Ieee{0x8000000000000000, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF, 0x0008000000000000};
  return std::nullopt;
}

// A value bug in both directions, as a round trip through native floats has it.
Mutant on_floats(std::string_view name, std::string_view description,
                 std::uint64_t (*change)(const Ieee&, std::uint64_t)) {
  Mutant m = make(name, kFamilyHurrayValues, description);
  const auto convert = [change](const TypeInfo& type, Element element) {
    if (const auto layout = ieee(type)) element.low = change(*layout, element.low);
    return element;
  };
  m.hurray.on_decode = convert;
  m.hurray.on_encode = convert;
  return m;
}

// Refused patterns of the mutant's own in addition to (or instead of) e8m0's.
Mutant refusing(std::string_view name, std::string_view family, std::string_view description,
                bool (*refused)(const TypeInfo&, const Element&, bool encoding)) {
  Mutant m = make(name, family, description);
  m.hurray.refused = refused;
  return m;
}

bool e8m0_byte(const TypeInfo& type, const Element& element, std::uint64_t value) {
  return type.tag == hurray::kE8m0Tag && element.high == 0 && element.low == value;
}

bool byte_of(const TypeInfo& type, std::string_view name, const Element& element,
             std::uint64_t a, std::uint64_t b) {
  return type.name == name && element.high == 0 && (element.low == a || element.low == b);
}

// ---- Reporting ----

Mutant reclassed(std::string_view name, std::string_view description, hurray::Rule rule,
                 hurray::ErrorClass error_class) {
  Mutant m = make(name, kFamilyHurrayReporting, description);
  m.hurray.on_reject = [rule, error_class](protocol::ElementsReject reject, Mode) -> protocol::Outcome {
    if (reject.rule == hurray::rule_info(rule).id) reject.error_class = error_class;
    return reject;
  };
  return m;
}

}  // namespace

std::vector<Mutant> hurray_packing_mutants() {
  std::vector<Mutant> family;
  family.push_back(sub_byte_layout("hurray-bool-msb-first",
                                   "bool: element 0 is the most significant bit of byte 0", 1,
                                   [](std::uint64_t i) { return unsigned(7 - i % 8); }));
  family.push_back(sub_byte_layout("hurray-nibble-high-first",
                                   "4-bit types: the even element is the high nibble", 4,
                                   [](std::uint64_t i) { return unsigned(4 * (1 - i % 2)); }));
  family.push_back(sub_byte_layout("hurray-2bit-pairs-reversed",
                                   "2-bit types: element 0 is bits 7..6 of its byte", 2,
                                   [](std::uint64_t i) { return unsigned(2 * (3 - i % 4)); }));
  family.push_back(six_bit_big_endian());
  family.push_back(complex_halves_swapped());
  family.push_back(int4_sign_extended());
  return family;
}

std::vector<Mutant> hurray_padding_mutants() {
  std::vector<Mutant> family;
  family.push_back(padding_unchecked("hurray-pad-bool-unchecked",
                                     "bool: the padding bits of the last byte are not checked", 1));
  family.push_back(padding_unchecked("hurray-pad-2bit-unchecked",
                                     "2-bit types: the padding bits of the last byte are not checked", 2));
  family.push_back(padding_unchecked("hurray-pad-4bit-unchecked",
                                     "4-bit types: the high nibble of an odd count is not checked", 4));
  family.push_back(padding_unchecked("hurray-pad-6bit-unchecked",
                                     "6-bit types: the unused bits of the final group are not checked", 6));
  return family;
}

std::vector<Mutant> hurray_sizes_mutants() {
  std::vector<Mutant> family;
  family.push_back(size_rule("hurray-size-floor-bool", kFamilyHurraySizes,
                             "bool: S is floor(N / 8), not ceil", floor_size<1>));
  family.push_back(size_rule("hurray-size-floor-2bit", kFamilyHurraySizes,
                             "2-bit types: S is floor(N / 4), not ceil", floor_size<2>));
  family.push_back(size_rule("hurray-size-floor-4bit", kFamilyHurraySizes,
                             "4-bit types: S is floor(N / 2), not ceil", floor_size<4>));
  family.push_back(size_rule("hurray-6bit-size-ceil-6n-8", kFamilyHurraySizes,
                             "6-bit types: S is ceil(N * 6 / 8) (the seed's other formula), not "
                             "ceil(N / 4) * 3",
                             six_bit_as_bits));
  family.push_back(count_rule("hurray-scalar-count-zero", kFamilyHurraySizes,
                              "shape [] is taken as N = 0 (the empty product read as no elements)",
                              [](std::span<const std::uint64_t> shape) -> std::optional<std::uint64_t> {
                                if (shape.empty()) return 0;
                                return hurray::element_count(shape);
                              }));
  family.push_back(count_rule("hurray-zero-dim-ignored", kFamilyHurraySizes,
                              "N is the product of the non-zero dimensions",
                              [](std::span<const std::uint64_t> shape) -> std::optional<std::uint64_t> {
                                std::uint64_t count = 1;
                                for (const std::uint64_t dimension : shape)
                                  if (dimension != 0 && __builtin_mul_overflow(count, dimension, &count))
                                    return std::nullopt;
                                return count;
                              }));
  return family;
}

std::vector<Mutant> hurray_tags_mutants() {
  std::vector<Mutant> family;
  family.push_back(tag_rule("hurray-tag-3f-assigned",
                            "the Tier 1 table's bound is off by one: 0x3F is taken as an assigned "
                            "type (read as uint8)",
                            [](std::uint8_t tag) { return tag == 0x3F; }, any_mode,
                            TagLookup{Verdict::kType, hurray::type_by_name("uint8")}));
  family.push_back(tag_rule("hurray-tag-47-recognized",
                            "0x47, reserved for a future Tier 2 type, is passed through as opaque "
                            "in strict mode",
                            [](std::uint8_t tag) { return tag == 0x47; }, strict_mode,
                            TagLookup{Verdict::kOpaque, nullptr}));
  family.push_back(tag_rule("hurray-reserved-opaque-in-strict",
                            "tags 0x80..0xEF (reserved for later versions) are passed through as "
                            "opaque in strict mode",
                            [](std::uint8_t tag) { return tag >= 0x80 && tag <= 0xEF; }, strict_mode,
                            TagLookup{Verdict::kOpaque, nullptr}));
  family.push_back(tag_rule("hurray-private-opaque-in-strict",
                            "private extension tags 0xF0..0xFE are accepted as opaque in strict mode",
                            [](std::uint8_t tag) { return tag >= 0xF0 && tag <= 0xFE; }, strict_mode,
                            TagLookup{Verdict::kOpaque, nullptr}));
  family.push_back(tag_rule("hurray-zero-ff-opaque-in-permissive",
                            "tags 0x00 and 0xFF are accepted as opaque in permissive mode",
                            [](std::uint8_t tag) { return tag == 0x00 || tag == 0xFF; },
                            permissive_mode, TagLookup{Verdict::kOpaque, nullptr}));
  {
    Mutant m = make("hurray-permissive-skips-checks", kFamilyHurrayTags,
                    "permissive mode answers a recognized type's bad data as opaque instead of "
                    "rejecting it");
    m.hurray.on_reject = [](protocol::ElementsReject reject, Mode mode) -> protocol::Outcome {
      if (mode == Mode::kPermissive && reject.error_class == hurray::ErrorClass::kData)
        return protocol::OpaqueAccept{};
      return reject;
    };
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> hurray_values_mutants() {
  std::vector<Mutant> family;
  family.push_back(on_floats("hurray-nan-canonicalized",
                             "float16/32/64 NaNs become the canonical quiet NaN (payload dropped)",
                             [](const Ieee& f, std::uint64_t v) {
                               if ((v & f.exponent) != f.exponent || (v & f.mantissa) == 0) return v;
                               return (v & f.sign) | f.exponent | f.quiet;
                             }));
  family.push_back(on_floats("hurray-subnormals-flushed",
                             "float16/32/64 subnormals are flushed to zero of the same sign",
                             [](const Ieee& f, std::uint64_t v) {
                               if ((v & f.exponent) != 0 || (v & f.mantissa) == 0) return v;
                               return v & f.sign;
                             }));
  family.push_back(on_floats("hurray-negative-zero-cleared", "float16/32/64 -0 becomes +0",
                             [](const Ieee& f, std::uint64_t v) { return v == f.sign ? 0 : v; }));
  family.push_back(refusing("hurray-e5m2-inf-rejected", kFamilyHurrayValues,
                            "float8_e5m2 infinities (7c, fc) are refused as invalid",
                            [](const TypeInfo& type, const Element& element, bool) {
                              return byte_of(type, "float8_e5m2", element, 0x7C, 0xFC) ||
                                     path::reference_refused(type, element);
                            }));
  family.push_back(refusing("hurray-e4m3-nan-rejected", kFamilyHurrayValues,
                            "float8_e4m3 NaN patterns (7f, ff) are refused as invalid",
                            [](const TypeInfo& type, const Element& element, bool) {
                              return byte_of(type, "float8_e4m3", element, 0x7F, 0xFF) ||
                                     path::reference_refused(type, element);
                            }));
  return family;
}

std::vector<Mutant> hurray_encoder_mutants() {
  std::vector<Mutant> family;
  {
    Mutant m = make("hurray-enc-range-masked", kFamilyHurrayEncoder,
                    "the encoder masks an element to B bits instead of refusing a wider value");
    m.hurray.encoder_checks_range = false;
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("hurray-enc-count-unchecked", kFamilyHurrayEncoder,
                    "the encoder does not check the element count: missing ones are 0, extra "
                    "ones dropped");
    m.hurray.encoder_checks_count = false;
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("hurray-enc-padding-garbage", kFamilyHurrayEncoder,
                    "the encoder leaves the padding bits of the last byte or group set to 1");
    m.hurray.rewrite_encoded = [](const TypeInfo& type, std::uint64_t count, Bytes& out) {
      const auto unused = path::unused_bits(type, count, out.size(), path::reference_write);
      for (std::size_t k = 0; k < unused.masks.size(); ++k) out[unused.start + k] |= unused.masks[k];
    };
    family.push_back(std::move(m));
  }
  family.push_back(refusing("hurray-e8m0-decode-only", kFamilyHurrayEncoder,
                            "float8_e8m0's 00 and ff are refused on decode but encoded on encode",
                            [](const TypeInfo& type, const Element& element, bool encoding) {
                              return !encoding && path::reference_refused(type, element);
                            }));
  return family;
}

std::vector<Mutant> hurray_reporting_mutants() {
  std::vector<Mutant> family;
  family.push_back(reclassed("hurray-unrecognized-as-data",
                             "an unrecognized tag is reported as DATA, not TAG",
                             hurray::Rule::kTagUnrecognized, hurray::ErrorClass::kData));
  family.push_back(reclassed("hurray-short-as-tag", "short data is reported as TAG, not DATA",
                             hurray::Rule::kDataShort, hurray::ErrorClass::kTag));
  return family;
}

std::vector<Mutant> hurray_relaxed_mutants() {
  std::vector<Mutant> family;
  {
    Mutant m = make("hurray-pad-6bit-last-byte-only", kFamilyHurrayRelaxed,
                    "6-bit types: padding bits are checked in the group's last byte only");
    m.hurray.padding = [](const TypeInfo& type, std::uint64_t count,
                          ByteSpan elements) -> std::optional<hurray::Error> {
      if (type.bits != 6) return path::reference_padding(type, count, elements);
      const auto unused = path::unused_bits(type, count, elements.size(), path::reference_write);
      if (unused.masks.empty()) return std::nullopt;
      const std::uint64_t last = unused.start + 2;
      if ((elements[last] & unused.masks[2]) == 0) return std::nullopt;
      return hurray::Error{hurray::Rule::kPad6Bit, last, std::nullopt, "padding bits are set"};
    };
    family.push_back(std::move(m));
  }
  family.push_back(refusing("hurray-e8m0-only-ff", kFamilyHurrayRelaxed,
                            "float8_e8m0: only ff is refused, 00 is accepted",
                            [](const TypeInfo& type, const Element& element, bool) {
                              return e8m0_byte(type, element, 0xFF);
                            }));
  family.push_back(refusing("hurray-e8m0-only-00", kFamilyHurrayRelaxed,
                            "float8_e8m0: only 00 is refused, ff is accepted",
                            [](const TypeInfo& type, const Element& element, bool) {
                              return e8m0_byte(type, element, 0x00);
                            }));
  family.push_back(count_rule("hurray-count-wraps", kFamilyHurrayRelaxed,
                              "N is the shape's product modulo 2^64 (no overflow check)",
                              [](std::span<const std::uint64_t> shape) -> std::optional<std::uint64_t> {
                                std::uint64_t count = 1;
                                for (const std::uint64_t dimension : shape) count *= dimension;
                                return count;
                              }));
  family.push_back(size_rule("hurray-size-wraps", kFamilyHurrayRelaxed,
                             "S is computed modulo 2^64 (no overflow check)", wrapping_size));
  return family;
}

}  // namespace kiln::mutants::parts
