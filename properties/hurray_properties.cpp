// The Hurray element codec (reference/HURRAY.md) against a model written
// independently of it: every width, whole-byte or packed, is one LSB-first bit
// stream in which element i occupies bits i*B .. i*B + B - 1 (for 6-bit types
// this is exactly the seed's 24-bit groups), and S is the fewest bytes holding
// N*B bits, rounded up to whole 3-byte groups for 6-bit types.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "kiln/hex.hpp"
#include "kiln/hurray.hpp"

namespace kiln::hurray {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::uint64_t>;
// __extension__: -Wpedantic accepts the GCC and Clang 128-bit type this way.
__extension__ typedef unsigned __int128 u128;

bool bit_of(const Element& element, unsigned bit) {
  return ((bit < 64 ? element.low >> bit : element.high >> (bit - 64)) & 1u) != 0;
}

// The model's S by brute force: add bytes until N*B bits fit (whole groups for 6-bit).
std::uint64_t model_size_by_counting(std::uint64_t count, unsigned bits) {
  const u128 needed_bits = u128{count} * bits;
  std::uint64_t size = 0;
  while (u128{size} * 8 < needed_bits || (bits == 6 && size % 3 != 0)) ++size;
  return size;
}

// The model's S in 128-bit arithmetic, for counts too large to count up to.
std::optional<std::uint64_t> model_size_wide(std::uint64_t count, unsigned bits) {
  u128 size = (u128{count} * bits + 7) / 8;
  if (bits == 6) size = (size + 2) / 3 * 3;
  if (size > ~std::uint64_t{0}) return std::nullopt;
  return static_cast<std::uint64_t>(size);
}

Bytes model_pack(const std::vector<Element>& elements, unsigned bits) {
  Bytes out(model_size_by_counting(elements.size(), bits), 0);
  for (std::size_t i = 0; i < elements.size(); ++i)
    for (unsigned b = 0; b < bits; ++b)
      if (bit_of(elements[i], b)) {
        const std::uint64_t at = i * bits + b;
        out[at / 8] |= static_cast<std::uint8_t>(1u << (at % 8));
      }
  return out;
}

std::vector<const TypeInfo*> types_where(bool (*keep)(const TypeInfo&)) {
  std::vector<const TypeInfo*> out;
  for (const TypeInfo& type : kTypes)
    if (keep(type)) out.push_back(&type);
  return out;
}

rc::Gen<const TypeInfo*> any_type() {
  static const auto all = types_where([](const TypeInfo&) { return true; });
  // Full size: at small sizes elementOf favours the first elements of the list.
  return rc::gen::resize(100, rc::gen::elementOf(all));
}

rc::Gen<const TypeInfo*> sub_byte_type() {
  static const auto packed = types_where([](const TypeInfo& type) { return type.bits < 8; });
  return rc::gen::resize(100, rc::gen::elementOf(packed));
}

// A valid element of the type: any B-bit pattern, e8m0's 00 and ff excluded.
rc::Gen<Element> element_of(const TypeInfo& type) {
  const unsigned bits = type.bits;
  const bool e8m0 = type.tag == kE8m0Tag;
  return rc::gen::suchThat(
      rc::gen::map(rc::gen::pair(rc::gen::arbitrary<std::uint64_t>(),
                                 rc::gen::arbitrary<std::uint64_t>()),
                   [bits](const std::pair<std::uint64_t, std::uint64_t>& words) {
                     Element element{words.first, bits > 64 ? words.second : 0};
                     if (bits < 64) element.low &= (std::uint64_t{1} << bits) - 1;
                     return element;
                   }),
      [e8m0](const Element& element) {
        return !e8m0 || (element.low != 0x00 && element.low != 0xFF);
      });
}

std::vector<Element> elements_of(const TypeInfo& type, std::size_t count) {
  return *rc::gen::container<std::vector<Element>>(count, element_of(type));
}

std::string rule_id_of(unsigned bits) {
  return bits == 1 ? "HURRAY-PAD-BOOL" : bits == 2 ? "HURRAY-PAD-2BIT"
                                     : bits == 4 ? "HURRAY-PAD-4BIT"
                                                 : "HURRAY-PAD-6BIT";
}

// Encode gives the model's bytes; decode gives the elements back, bit for bit.
RC_GTEST_PROP(HurrayRoundTrip, EncodeIsTheModelsPackingAndDecodeInvertsIt, ()) {
  const TypeInfo& type = **any_type();
  const auto count = *rc::gen::inRange<std::size_t>(0, 70);
  const auto values = elements_of(type, count);
  RC_TAG(std::string(type.name));
  RC_LOG() << type.name << " N=" << count << "\n";

  const auto encoded = encode(type.tag, Shape{count}, values);
  RC_ASSERT(encoded.ok());
  RC_ASSERT(to_hex(encoded.value()) == to_hex(model_pack(values, type.bits)));
  const auto decoded = decode(type.tag, Shape{count}, Mode::kStrict, encoded.value());
  RC_ASSERT(decoded.ok());
  RC_ASSERT(decoded.value().count == count);
  for (std::size_t i = 0; i < count; ++i) RC_ASSERT(decoded.value().element(i) == values[i]);
}

// Every type appears in the round trip (the generator above is uniform over the
// table; this pins each one, so no width can be skipped by chance).
TEST(HurrayRoundTrip, EveryTypeRoundTripsItsAllOnesAndAlternatingPatterns) {
  for (const TypeInfo& type : kTypes) {
    Element ones{~std::uint64_t{0}, type.bits > 64 ? ~std::uint64_t{0} : 0};
    Element alternating{0x5555555555555555u, type.bits > 64 ? 0x5555555555555555u : 0};
    if (type.bits < 64) {
      ones.low &= (std::uint64_t{1} << type.bits) - 1;
      alternating.low &= (std::uint64_t{1} << type.bits) - 1;
    }
    if (type.tag == kE8m0Tag) ones.low = 0xFE;
    const std::vector<Element> values{ones, alternating, ones, alternating, alternating};
    const auto encoded = encode(type.tag, Shape{values.size()}, values);
    ASSERT_TRUE(encoded) << type.name;
    EXPECT_EQ(encoded.value(), model_pack(values, type.bits)) << type.name;
    const auto decoded = decode(type.tag, Shape{values.size()}, Mode::kStrict, encoded.value());
    ASSERT_TRUE(decoded) << type.name;
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(decoded.value().element(i), values[i]) << type.name << " element " << i;
  }
}

RC_GTEST_PROP(HurraySize, FormulaMatchesABruteForceCount, ()) {
  const TypeInfo& type = **any_type();
  const auto count = *rc::gen::inRange<std::uint64_t>(0, 5000);
  RC_ASSERT(data_size(type, count) == std::optional<std::uint64_t>(
                                          model_size_by_counting(count, type.bits)));
}

// Near 2^64, against 128-bit arithmetic: the same value, or overflow exactly when
// the true size exceeds 2^64 - 1.
RC_GTEST_PROP(HurraySize, FormulaMatchesWideArithmeticForAnyCount, ()) {
  const TypeInfo& type = **any_type();
  const auto count = *rc::gen::oneOf(
      rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 64),
                   [](std::uint64_t down) { return ~std::uint64_t{0} - down; }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange<unsigned>(56, 64),
                                 rc::gen::inRange<std::uint64_t>(0, 32)),
                   [](const std::pair<unsigned, std::uint64_t>& p) {
                     return (std::uint64_t{1} << p.first) - 16 + p.second;
                   }));
  RC_ASSERT(data_size(type, count) == model_size_wide(count, type.bits));
}

// Each bit of the S bytes: a used bit changes exactly one element; an unused one
// is the width's padding rule, at its byte.
RC_GTEST_PROP(HurrayPadding, UnusedBitsAreRejectedAndUsedBitsAreElements, ()) {
  const TypeInfo& type = **sub_byte_type();
  const auto count = *rc::gen::inRange<std::size_t>(1, 40);
  const auto values = elements_of(type, count);
  Bytes bytes = model_pack(values, type.bits);
  // Half the time a padding bit, when there is one.
  const std::uint64_t used_bits = count * type.bits;
  const std::uint64_t all_bits = 8 * bytes.size();
  const auto bit = used_bits < all_bits && *rc::gen::arbitrary<bool>()
                       ? *rc::gen::inRange<std::uint64_t>(used_bits, all_bits)
                       : *rc::gen::inRange<std::uint64_t>(0, all_bits);
  bytes[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  const bool used = bit < used_bits;
  RC_CLASSIFY(used, "used bit");
  RC_TAG(std::string(type.name));

  const auto decoded = decode(type.tag, Shape{count}, Mode::kStrict, bytes);
  if (used) {
    RC_ASSERT(decoded.ok());
    std::size_t changed = 0;
    for (std::size_t i = 0; i < count; ++i) changed += decoded.value().element(i) != values[i];
    RC_ASSERT(changed == 1u);
    RC_ASSERT(decoded.value().element(bit / type.bits) != values[bit / type.bits]);
  } else {
    RC_ASSERT(!decoded.ok());
    RC_ASSERT(std::string(decoded.error().rule_id()) == rule_id_of(type.bits));
    RC_ASSERT(decoded.error().offset == std::optional<std::uint64_t>(bit / 8));
  }
}

// The outcome of any tag in any mode with any supported Tier 2 subset.
RC_GTEST_PROP(HurrayTags, OutcomeFollowsTheSeedsPartitionOfTheTagSpace, ()) {
  const auto tag = *rc::gen::arbitrary<std::uint8_t>();
  const auto mode = *rc::gen::element(Mode::kStrict, Mode::kPermissive);
  TagSet supported;
  for (const TypeInfo& type : kTypes)
    if (type.tier == Tier::k2 && *rc::gen::arbitrary<bool>()) supported.add(type.tag);

  const TypeInfo* type = type_by_tag(tag);
  const bool in_tier1 = tag >= 0x01 && tag <= 0x3F;
  const bool in_tier2 = tag >= 0x40 && tag <= 0x7F && tag != 0x47;
  // The table's types lie in their ranges; nothing else is recognized.
  if (type) RC_ASSERT((type->tier == Tier::k1 ? in_tier1 : in_tier2));
  const bool recognized = type && (type->tier == Tier::k1 || supported.contains(tag));
  RC_TAG(std::string(to_string(classify_tag(tag))));

  const Bytes data = type ? model_pack({Element{1}}, type->bits) : Bytes{1};
  const auto decoded = decode(tag, Shape{}, mode, data, supported);
  if (tag == 0x00 || tag == 0xFF) {
    RC_ASSERT(!decoded.ok());
    RC_ASSERT(decoded.error().rule == Rule::kTagZeroFF);
  } else if (recognized) {
    RC_ASSERT(decoded.ok());
    RC_ASSERT(!decoded.value().opaque);
  } else if (mode == Mode::kStrict) {
    RC_ASSERT(!decoded.ok());
    RC_ASSERT(decoded.error().rule == Rule::kTagUnrecognized);
    RC_ASSERT(decoded.error().error_class() == ErrorClass::kTag);
  } else {
    RC_ASSERT(decoded.ok());
    RC_ASSERT(decoded.value().opaque);
  }
}

// Any bytes for any tag and shape: an accepted tensor re-encodes to exactly its
// first S bytes; a rejection has a rule of the table and an offset inside the data.
RC_GTEST_PROP(HurrayDecode, AcceptedDataReencodesAndRejectionsAreSound, ()) {
  const auto tag = *rc::gen::arbitrary<std::uint8_t>();
  const auto shape = *rc::gen::container<Shape>(
      *rc::gen::inRange<std::size_t>(0, 4),
      rc::gen::oneOf(rc::gen::inRange<std::uint64_t>(0, 12), rc::gen::arbitrary<std::uint64_t>()));
  const auto data = *rc::gen::container<Bytes>(rc::gen::arbitrary<std::uint8_t>());
  const auto mode = *rc::gen::element(Mode::kStrict, Mode::kPermissive);
  const auto decoded = decode(tag, shape, mode, data);
  if (!decoded.ok()) {
    RC_TAG(std::string(decoded.error().rule_id()));
    RC_ASSERT(rule_from_id(decoded.error().rule_id()).has_value());
    if (decoded.error().offset) RC_ASSERT(*decoded.error().offset <= data.size());
    return;
  }
  if (decoded.value().opaque) return;
  RC_TAG("accept");
  std::vector<Element> values;
  for (std::uint64_t i = 0; i < decoded.value().count; ++i)
    values.push_back(decoded.value().element(i));
  const auto encoded = encode(tag, shape, values);
  RC_ASSERT(encoded.ok());
  RC_ASSERT(Bytes(decoded.value().data.begin(), decoded.value().data.end()) == encoded.value());
  RC_ASSERT(decoded.value().data.size() + decoded.value().extra_bytes == data.size());
}

// broken_rules, what isolation holds every reject case to, agrees with decode:
// empty exactly when decode accepts (opaque included), and otherwise its first
// rule in check order is the one decode reports. Inputs near every boundary:
// any tag, small shapes around each width's unit, sometimes an overflowing
// dimension, data of S bytes give or take one with random bits.
RC_GTEST_PROP(HurrayBrokenRules, AgreeWithDecodeOnEveryInput, ()) {
  const bool named = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
  const std::uint8_t tag = named ? (**any_type()).tag : *rc::gen::arbitrary<std::uint8_t>();
  const auto mode = *rc::gen::element(Mode::kStrict, Mode::kPermissive);
  Shape shape = *rc::gen::container<Shape>(*rc::gen::inRange<std::size_t>(0, 3), rc::gen::inRange<std::uint64_t>(0, 20));
  if (*rc::gen::weightedElement<bool>({{1, true}, {6, false}}))
    shape.push_back(*rc::gen::element(std::uint64_t{1} << 62, ~std::uint64_t{0}, std::uint64_t{1} << 32));
  const TypeInfo* type = type_by_tag(tag);
  std::uint64_t size = 4;
  if (type) {
    const auto count = element_count(shape);
    const auto bytes = count ? data_size(*type, *count) : std::nullopt;
    size = bytes && *bytes < 200 ? *bytes : 3;
  }
  const auto length = static_cast<std::size_t>(
      *rc::gen::element(size, size, size, size == 0 ? 0 : size - 1, size + 1));
  const Bytes data = *rc::gen::container<Bytes>(length, rc::gen::arbitrary<std::uint8_t>());
  RC_LOG() << "tag " << int(tag) << " rank " << shape.size() << " data " << to_hex(data) << "\n";

  const auto decoded = decode(tag, shape, mode, data);
  const auto broken = broken_rules(tag, shape, mode, data);
  if (decoded.ok()) {
    RC_ASSERT(broken.empty());
  } else {
    RC_ASSERT(!broken.empty());
    RC_ASSERT(broken.front() == decoded.error().rule);
  }
}

// The same for encode: encode_broken_rules is empty exactly when encode gives
// data, and its first rule is the one encode reports.
RC_GTEST_PROP(HurrayBrokenRules, AgreeWithEncodeOnEveryInput, ()) {
  const TypeInfo& type = **any_type();
  const bool raw_tag = *rc::gen::weightedElement<bool>({{1, true}, {5, false}});
  const std::uint8_t tag = raw_tag ? *rc::gen::arbitrary<std::uint8_t>() : type.tag;
  const auto count = *rc::gen::inRange<std::size_t>(0, 20);
  Shape shape{count};
  if (*rc::gen::weightedElement<bool>({{1, true}, {6, false}})) shape.push_back(~std::uint64_t{0});
  const auto given = static_cast<std::size_t>(*rc::gen::element<long>(long(count), long(count), long(count) + 1,
                                                                      count ? long(count) - 1 : 0));
  std::vector<Element> elements = elements_of(type, given);
  if (!elements.empty() && *rc::gen::weightedElement<bool>({{1, true}, {4, false}}))
    elements[*rc::gen::inRange<std::size_t>(0, elements.size())] =
        *rc::gen::element(Element{0, 0}, Element{0xFF, 0}, Element{~std::uint64_t{0}, 1});

  const auto encoded = encode(tag, shape, elements);
  const auto broken = encode_broken_rules(tag, shape, elements);
  if (encoded.ok()) {
    RC_ASSERT(broken.empty());
  } else {
    RC_ASSERT(!broken.empty());
    RC_ASSERT(broken.front() == encoded.error().rule);
  }
}

}  // namespace
}  // namespace kiln::hurray
