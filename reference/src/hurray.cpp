#include "kiln/hurray.hpp"

#include <algorithm>

#include "kiln/endian.hpp"

namespace kiln::hurray {
namespace {

constexpr ErrorClass kT = ErrorClass::kTag;
constexpr ErrorClass kD = ErrorClass::kData;

// Same order as enum Rule; checked at compile time below.
constexpr std::array<RuleInfo, 12> kRules{{
    {Rule::kTagZeroFF, "HURRAY-TAG-ZERO-FF", kT, "tags 0x00 and 0xFF are rejected in every mode"},
    {Rule::kTagUnrecognized, "HURRAY-TAG-UNRECOGNIZED", kT,
     "a tag the reader does not recognize (unassigned, 0x47, 0x80..0xEF, 0xF0..0xFE, an "
     "unsupported Tier 2 type) is rejected in strict mode; permissive mode may accept it as opaque"},
    {Rule::kCountOverflow, "HURRAY-COUNT-OVERFLOW", kD,
     "the element count N, the product of the shape, is at most 2^64 - 1"},
    {Rule::kSizeOverflow, "HURRAY-SIZE-OVERFLOW", kD, "the data size S is at most 2^64 - 1"},
    {Rule::kDataShort, "HURRAY-DATA-SHORT", kD, "the data holds at least S bytes"},
    {Rule::kPadBool, "HURRAY-PAD-BOOL", kD,
     "bool: the bits of the last byte above element N - 1 are 0"},
    {Rule::kPad2Bit, "HURRAY-PAD-2BIT", kD,
     "2-bit types: the bits of the last byte above element N - 1 are 0"},
    {Rule::kPad4Bit, "HURRAY-PAD-4BIT", kD,
     "4-bit types: with N odd, the high nibble of the last byte is 0"},
    {Rule::kPad6Bit, "HURRAY-PAD-6BIT", kD,
     "6-bit types: every unused bit of the final 3-byte group is 0"},
    {Rule::kE8m0Reserved, "HURRAY-E8M0-RESERVED", kD,
     "no float8_e8m0 element is 0x00 or 0xFF"},
    {Rule::kEncodeCount, "HURRAY-ENC-COUNT", kD,
     "an encoder is given exactly N elements"},
    {Rule::kEncodeRange, "HURRAY-ENC-RANGE", kD,
     "an encoder is given no element whose value needs more than B bits"},
}};

constexpr bool rules_in_enum_order() {
  for (std::size_t i = 0; i < kRules.size(); ++i)
    if (static_cast<std::size_t>(kRules[i].rule) != i) return false;
  return true;
}
static_assert(rules_in_enum_order(), "kRules must follow enum Rule");
static_assert(static_cast<std::size_t>(Rule::kEncodeRange) + 1 == kRules.size());

constexpr bool tags_unique_and_in_their_tier() {
  for (std::size_t i = 0; i < kTypes.size(); ++i) {
    const TypeInfo& type = kTypes[i];
    const bool tier1_range = type.tag >= 0x01 && type.tag <= 0x3F;
    const bool tier2_range = type.tag >= 0x40 && type.tag <= 0x7F && type.tag != 0x47;
    if (type.tier == Tier::k1 ? !tier1_range : !tier2_range) return false;
    for (std::size_t j = i + 1; j < kTypes.size(); ++j)
      if (kTypes[j].tag == type.tag || kTypes[j].name == type.name) return false;
  }
  return true;
}
static_assert(tags_unique_and_in_their_tier(),
              "every tag is unique and lies in its tier's range (0x47 excluded)");

std::string num(std::uint64_t value) { return std::to_string(value); }

std::string hex_byte(std::uint8_t byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 0x0F];
}

Error byte_error(Rule rule, std::uint64_t offset, std::string message) {
  return Error{rule, offset, std::nullopt, std::move(message)};
}

Error element_error(Rule rule, std::uint64_t index, std::string message) {
  return Error{rule, std::nullopt, index, std::move(message)};
}

Error plain_error(Rule rule, std::string message) {
  return Error{rule, std::nullopt, std::nullopt, std::move(message)};
}

// Steps 1 and 2 of the check order, shared by decode and encode: the type, or
// nullopt for a tag the reader does not recognize, or the 00/FF error.
struct TagOutcome {
  const TypeInfo* type = nullptr;
  std::optional<Error> zero_or_ff;
};

TagOutcome look_up(std::uint8_t tag, const TagSet& supported_tier2) {
  if (tag == 0x00 || tag == 0xFF)
    return {nullptr, plain_error(Rule::kTagZeroFF, "type tag " + hex_byte(tag) +
                                                     " is rejected in every mode")};
  const TypeInfo* type = type_by_tag(tag);
  if (type != nullptr && type->tier == Tier::k2 && !supported_tier2.contains(tag)) type = nullptr;
  return {type, std::nullopt};
}

Error unrecognized(std::uint8_t tag, const TagSet& supported_tier2) {
  const TypeInfo* type = type_by_tag(tag);
  std::string why = type != nullptr && !supported_tier2.contains(tag)
                        ? "Tier 2 type " + std::string(type->name) + " is not supported"
                        : std::string(to_string(classify_tag(tag)));
  return plain_error(Rule::kTagUnrecognized,
                   "type tag " + hex_byte(tag) + " is not recognized (" + why + ")");
}

// Steps 3 and 4a: N and S, or the overflow error.
Result<std::uint64_t> checked_count(std::span<const std::uint64_t> shape) {
  const auto count = element_count(shape);
  if (!count)
    return plain_error(Rule::kCountOverflow, "the product of the " + num(shape.size()) +
                                               " dimensions exceeds 2^64 - 1");
  return *count;
}

Result<std::uint64_t> checked_size(const TypeInfo& type, std::uint64_t count) {
  const auto size = data_size(type, count);
  if (!size)
    return plain_error(Rule::kSizeOverflow, num(count) + " elements of " + std::string(type.name) +
                                              " need more than 2^64 - 1 bytes");
  return *size;
}

// Bits of byte k (0..2) of a 24-bit group that lie at or above bit `from`.
constexpr std::uint8_t group_mask(unsigned from, unsigned k) {
  const unsigned low = 8 * k;
  if (from <= low) return 0xFF;
  if (from >= low + 8) return 0x00;
  return static_cast<std::uint8_t>(0xFF << (from - low));
}

Rule padding_rule(unsigned bits) {
  switch (bits) {
    case 1: return Rule::kPadBool;
    case 2: return Rule::kPad2Bit;
    case 4: return Rule::kPad4Bit;
    default: return Rule::kPad6Bit;
  }
}

// Step 5: the unused bits after element N - 1, all within the last byte (1, 2,
// 4 bits) or the last 3-byte group (6 bits). data holds exactly S bytes.
std::optional<Error> check_padding(const TypeInfo& type, std::uint64_t count,
                                   std::span<const std::uint8_t> data) {
  const unsigned bits = type.bits;
  if (bits >= 8) return std::nullopt;
  const unsigned per_unit = bits == 6 ? 4 : 8 / bits;  // elements per byte, or per group
  const unsigned used = static_cast<unsigned>(count % per_unit);
  if (used == 0) return std::nullopt;
  const unsigned unit_bytes = bits == 6 ? 3 : 1;
  const std::uint64_t start = data.size() - unit_bytes;
  for (unsigned k = 0; k < unit_bytes; ++k) {
    const std::uint8_t mask = group_mask(used * bits, k);
    const std::uint8_t byte = data[start + k];
    if ((byte & mask) != 0)
      return byte_error(padding_rule(bits), start + k,
                        std::string(type.name) + " with " + num(count) + " elements: byte " +
                            hex_byte(byte) + " has padding bits set (mask " + hex_byte(mask) +
                            "); padding bits must be 0");
  }
  return std::nullopt;
}

bool is_e8m0_reserved(std::uint64_t value) { return value == 0x00 || value == 0xFF; }

}  // namespace

// ---------------------------------------------------------------- type table

const TypeInfo* type_by_tag(std::uint8_t tag) noexcept {
  for (const TypeInfo& type : kTypes)
    if (type.tag == tag) return &type;
  return nullptr;
}

const TypeInfo* type_by_name(std::string_view name) noexcept {
  for (const TypeInfo& type : kTypes)
    if (type.name == name) return &type;
  return nullptr;
}

TagClass classify_tag(std::uint8_t tag) noexcept {
  if (tag == 0x00 || tag == 0xFF) return TagClass::kZeroOrFF;
  if (const TypeInfo* type = type_by_tag(tag))
    return type->tier == Tier::k1 ? TagClass::kTier1 : TagClass::kTier2;
  if (tag <= 0x3F) return TagClass::kTier1Unassigned;
  if (tag == 0x47) return TagClass::kReserved47;
  if (tag <= 0x7F) return TagClass::kTier2Unassigned;
  if (tag <= 0xEF) return TagClass::kReservedFuture;
  return TagClass::kPrivate;
}

std::string_view to_string(TagClass tag_class) noexcept {
  switch (tag_class) {
    case TagClass::kZeroOrFF: return "0x00 or 0xFF";
    case TagClass::kTier1: return "Tier 1 type";
    case TagClass::kTier2: return "Tier 2 type";
    case TagClass::kTier1Unassigned: return "unassigned in the Tier 1 range 0x01..0x3F";
    case TagClass::kTier2Unassigned: return "unassigned in the Tier 2 range 0x40..0x7F";
    case TagClass::kReserved47: return "0x47, reserved for a future Tier 2 type";
    case TagClass::kReservedFuture: return "reserved for future versions (0x80..0xEF)";
    case TagClass::kPrivate: return "private extension (0xF0..0xFE)";
  }
  return "?";
}

TagSet TagSet::all_tier2() noexcept {
  TagSet set;
  for (const TypeInfo& type : kTypes)
    if (type.tier == Tier::k2) set.add(type.tag);
  return set;
}

// ---------------------------------------------------------------- rules

std::string_view to_string(ErrorClass error_class) noexcept {
  return error_class == ErrorClass::kTag ? "TAG" : "DATA";
}

std::optional<ErrorClass> error_class_from_string(std::string_view text) noexcept {
  if (text == "TAG") return ErrorClass::kTag;
  if (text == "DATA") return ErrorClass::kData;
  return std::nullopt;
}

std::span<const RuleInfo> all_rules() noexcept { return kRules; }

const RuleInfo& rule_info(Rule rule) noexcept { return kRules[static_cast<std::size_t>(rule)]; }

std::optional<Rule> rule_from_id(std::string_view id) noexcept {
  for (const RuleInfo& info : kRules)
    if (info.id == id) return info.rule;
  return std::nullopt;
}

std::string Error::describe() const {
  std::string text = std::string(to_string(error_class())) + " " + std::string(rule_id());
  if (offset) text += " at byte " + num(*offset);
  if (element) text += " at element " + num(*element);
  return text + ": " + message;
}

// ---------------------------------------------------------------- elements

unsigned significant_bits(const Element& element) noexcept {
  if (element.wider_than_128) return 129;
  if (element.high != 0) return 128 - static_cast<unsigned>(__builtin_clzll(element.high));
  if (element.low != 0) return 64 - static_cast<unsigned>(__builtin_clzll(element.low));
  return 0;
}

bool fits(const Element& element, unsigned bits) noexcept {
  return significant_bits(element) <= bits;
}

std::string element_to_hex(const Element& element, unsigned bits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const unsigned digits = (std::min(bits, 128u) + 3) / 4;
  std::string text(digits, '0');
  for (unsigned d = 0; d < digits; ++d) {
    const unsigned shift = 4 * d;
    const std::uint64_t word = shift < 64 ? element.low : element.high;
    text[digits - 1 - d] = kDigits[(word >> (shift % 64)) & 0x0F];
  }
  return text;
}

std::optional<Element> element_from_hex(std::string_view text) noexcept {
  if (text.empty()) return std::nullopt;
  Element element;
  for (const char c : text) {
    unsigned value;
    if (c >= '0' && c <= '9') value = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') value = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') value = static_cast<unsigned>(c - 'A' + 10);
    else return std::nullopt;
    // Shifting out a nonzero digit means the value needs more than 128 bits.
    if ((element.high >> 60) != 0) element.wider_than_128 = true;
    element.high = (element.high << 4) | (element.low >> 60);
    element.low = (element.low << 4) | value;
  }
  return element;
}

// ---------------------------------------------------------------- sizes

std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept {
  // N is the exact product: a zero dimension makes it 0 whatever the others are.
  if (std::find(shape.begin(), shape.end(), std::uint64_t{0}) != shape.end()) return 0;
  std::uint64_t count = 1;
  for (const std::uint64_t dimension : shape)
    if (__builtin_mul_overflow(count, dimension, &count)) return std::nullopt;
  return count;
}

std::optional<std::uint64_t> data_size(const TypeInfo& type, std::uint64_t count) noexcept {
  const auto ceil_div = [](std::uint64_t n, std::uint64_t d) { return n / d + (n % d != 0); };
  switch (type.bits) {
    case 1: return ceil_div(count, 8);
    case 2: return ceil_div(count, 4);
    case 4: return ceil_div(count, 2);
    case 6: {
      // Whole 3-byte groups of 4 elements: ceil(N / 4) * 3, which can overflow.
      std::uint64_t size;
      if (__builtin_mul_overflow(ceil_div(count, 4), std::uint64_t{3}, &size)) return std::nullopt;
      return size;
    }
    default: {
      std::uint64_t size;
      if (__builtin_mul_overflow(count, std::uint64_t{type.bits / 8u}, &size)) return std::nullopt;
      return size;
    }
  }
}

// ---------------------------------------------------------------- decode

std::string_view to_string(Mode mode) noexcept {
  return mode == Mode::kStrict ? "strict" : "permissive";
}

std::optional<Mode> mode_from_string(std::string_view text) noexcept {
  if (text == "strict") return Mode::kStrict;
  if (text == "permissive") return Mode::kPermissive;
  return std::nullopt;
}

Element Decoded::element(std::uint64_t index) const noexcept {
  if (type == nullptr || index >= count) return {};
  const std::uint8_t* bytes = data.data();
  switch (type->bits) {
    case 1: return {static_cast<std::uint64_t>((bytes[index / 8] >> (index % 8)) & 0x1u)};
    case 2: return {static_cast<std::uint64_t>((bytes[index / 4] >> (2 * (index % 4))) & 0x3u)};
    case 4: return {static_cast<std::uint64_t>((bytes[index / 2] >> (4 * (index % 2))) & 0xFu)};
    case 6: {
      // The 24-bit little-endian group of bytes 3(i/4) .. 3(i/4)+2; element j of
      // the group is bits 6j..6j+5.
      const std::uint8_t* group = bytes + 3 * (index / 4);
      const std::uint32_t bits24 = static_cast<std::uint32_t>(group[0]) |
                                   static_cast<std::uint32_t>(group[1]) << 8 |
                                   static_cast<std::uint32_t>(group[2]) << 16;
      return {(bits24 >> (6 * (index % 4))) & 0x3Fu};
    }
    case 128: {
      const std::uint8_t* at = bytes + 16 * index;
      return {load_le(at, 8), load_le(at + 8, 8)};
    }
    default: {
      const std::size_t width = type->bits / 8u;
      return {load_le(bytes + width * index, width)};
    }
  }
}

Result<Decoded> decode(std::uint8_t tag, std::span<const std::uint64_t> shape, Mode mode,
                       std::span<const std::uint8_t> data, const TagSet& supported_tier2) {
  // 1, 2: the tag.
  const TagOutcome looked_up = look_up(tag, supported_tier2);
  if (looked_up.zero_or_ff) return *looked_up.zero_or_ff;
  if (looked_up.type == nullptr) {
    if (mode == Mode::kStrict) return unrecognized(tag, supported_tier2);
    // Permissive: accepted, and the bytes are not interpreted at all.
    Decoded opaque;
    opaque.opaque = true;
    opaque.data = data;
    return opaque;
  }
  const TypeInfo& type = *looked_up.type;

  // 3, 4: N, S, and the bytes present.
  auto count = checked_count(shape);
  if (!count) return count.error();
  auto size = checked_size(type, count.value());
  if (!size) return size.error();
  if (data.size() < size.value())
    return byte_error(Rule::kDataShort, data.size(),
                      num(count.value()) + " elements of " + std::string(type.name) + " need " +
                          num(size.value()) + " bytes; the data holds " + num(data.size()));
  const auto elements = data.first(static_cast<std::size_t>(size.value()));

  // 5: padding bits.
  if (auto error = check_padding(type, count.value(), elements)) return *error;

  // 6: e8m0's reserved patterns.
  if (type.tag == kE8m0Tag) {
    const auto reserved = std::find_if(elements.begin(), elements.end(),
                                       [](std::uint8_t b) { return is_e8m0_reserved(b); });
    if (reserved != elements.end()) {
      const auto at = static_cast<std::uint64_t>(reserved - elements.begin());
      return byte_error(Rule::kE8m0Reserved, at,
                        "float8_e8m0 element " + num(at) + " is " + hex_byte(*reserved) +
                            ", a reserved pattern (NaN)");
    }
  }

  // 7: every other bit pattern is valid.
  Decoded decoded;
  decoded.type = &type;
  decoded.count = count.value();
  decoded.data = elements;
  decoded.extra_bytes = data.size() - elements.size();
  return decoded;
}

// ---------------------------------------------------------------- encode

std::vector<Rule> broken_rules(std::uint8_t tag, std::span<const std::uint64_t> shape, Mode mode,
                               std::span<const std::uint8_t> data, const TagSet& supported_tier2) {
  std::vector<Rule> broken;
  const TagOutcome looked_up = look_up(tag, supported_tier2);
  const auto count = checked_count(shape);
  if (looked_up.type == nullptr) {
    // Permissive mode reads nothing of an unrecognized tag: opaque, nothing broken.
    if (!looked_up.zero_or_ff && mode == Mode::kPermissive) return broken;
    broken.push_back(looked_up.zero_or_ff ? Rule::kTagZeroFF : Rule::kTagUnrecognized);
    // Without a type only N is defined: it depends on the shape alone.
    if (!count) broken.push_back(Rule::kCountOverflow);
    return broken;
  }
  const TypeInfo& type = *looked_up.type;
  if (!count) return {Rule::kCountOverflow};
  const auto size = checked_size(type, count.value());
  if (!size) return {Rule::kSizeOverflow};
  if (data.size() < size.value()) broken.push_back(Rule::kDataShort);
  const std::uint64_t present = std::min<std::uint64_t>(data.size(), size.value());
  const auto elements = data.first(static_cast<std::size_t>(present));
  // Padding bits are those of the final byte or group of S bytes, judged on
  // whichever of them are present.
  if (type.bits < 8) {
    const unsigned per_unit = type.bits == 6 ? 4 : 8 / type.bits;
    const unsigned used = static_cast<unsigned>(count.value() % per_unit);
    const unsigned unit_bytes = type.bits == 6 ? 3 : 1;
    if (used != 0) {
      const std::uint64_t start = size.value() - unit_bytes;
      for (unsigned k = 0; k < unit_bytes; ++k)
        if (start + k < present && (elements[start + k] & group_mask(used * type.bits, k)) != 0) {
          broken.push_back(padding_rule(type.bits));
          break;
        }
    }
  }
  if (type.tag == kE8m0Tag && std::any_of(elements.begin(), elements.end(), is_e8m0_reserved))
    broken.push_back(Rule::kE8m0Reserved);
  return broken;
}

std::vector<Rule> encode_broken_rules(std::uint8_t tag, std::span<const std::uint64_t> shape,
                                      std::span<const Element> elements, const TagSet& supported_tier2) {
  const TagOutcome looked_up = look_up(tag, supported_tier2);
  std::vector<Rule> broken;
  const auto count = checked_count(shape);
  if (looked_up.type == nullptr) {
    // Encode has no mode. Without a type only N and the count are defined.
    broken.push_back(looked_up.zero_or_ff ? Rule::kTagZeroFF : Rule::kTagUnrecognized);
    if (!count) broken.push_back(Rule::kCountOverflow);
    else if (elements.size() != count.value()) broken.push_back(Rule::kEncodeCount);
    return broken;
  }
  const TypeInfo& type = *looked_up.type;
  if (!count) return {Rule::kCountOverflow};
  if (!checked_size(type, count.value())) broken.push_back(Rule::kSizeOverflow);
  if (elements.size() != count.value()) broken.push_back(Rule::kEncodeCount);
  // Each element in order, its value then its pattern (HURRAY.md 5.1): the
  // rule of the first element with a defect comes first, as encode reports it.
  const auto out_of_range = std::find_if(elements.begin(), elements.end(),
                                         [&](const Element& e) { return !fits(e, type.bits); });
  const auto reserved =
      type.tag != kE8m0Tag ? elements.end()
                           : std::find_if(elements.begin(), elements.end(), [](const Element& e) {
                               return e.high == 0 && e.low < 256 && is_e8m0_reserved(static_cast<std::uint8_t>(e.low));
                             });
  if (reserved < out_of_range) broken.push_back(Rule::kE8m0Reserved);
  if (out_of_range != elements.end()) broken.push_back(Rule::kEncodeRange);
  if (reserved != elements.end() && out_of_range <= reserved) broken.push_back(Rule::kE8m0Reserved);
  return broken;
}

Result<std::vector<std::uint8_t>> encode(std::uint8_t tag, std::span<const std::uint64_t> shape,
                                         std::span<const Element> elements,
                                         const TagSet& supported_tier2) {
  const TagOutcome looked_up = look_up(tag, supported_tier2);
  if (looked_up.zero_or_ff) return *looked_up.zero_or_ff;
  if (looked_up.type == nullptr) return unrecognized(tag, supported_tier2);
  const TypeInfo& type = *looked_up.type;

  auto count = checked_count(shape);
  if (!count) return count.error();
  auto size = checked_size(type, count.value());
  if (!size) return size.error();
  if (elements.size() != count.value())
    return plain_error(Rule::kEncodeCount, "the shape holds " + num(count.value()) +
                                             " elements; " + num(elements.size()) + " were given");

  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!fits(elements[i], type.bits))
      return element_error(Rule::kEncodeRange, i,
                           "the value needs " + num(significant_bits(elements[i])) + " bits; " +
                               std::string(type.name) + " elements have " + num(type.bits));
    if (type.tag == kE8m0Tag && is_e8m0_reserved(elements[i].low))
      return Error{Rule::kE8m0Reserved, i, i,
                   "float8_e8m0 element " + num(i) + " is " +
                       hex_byte(static_cast<std::uint8_t>(elements[i].low)) +
                       ", a reserved pattern (NaN)"};
  }

  // S is now bounded by the elements in memory (at most 16 bytes each).
  std::vector<std::uint8_t> out(static_cast<std::size_t>(size.value()), 0);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const std::uint64_t low = elements[i].low;
    switch (type.bits) {
      case 1: out[i / 8] |= static_cast<std::uint8_t>(low << (i % 8)); break;
      case 2: out[i / 4] |= static_cast<std::uint8_t>(low << (2 * (i % 4))); break;
      case 4: out[i / 2] |= static_cast<std::uint8_t>(low << (4 * (i % 2))); break;
      case 6: {
        const std::uint32_t shifted = static_cast<std::uint32_t>(low) << (6 * (i % 4));
        std::uint8_t* group = out.data() + 3 * (i / 4);
        group[0] |= static_cast<std::uint8_t>(shifted);
        group[1] |= static_cast<std::uint8_t>(shifted >> 8);
        group[2] |= static_cast<std::uint8_t>(shifted >> 16);
        break;
      }
      case 128:
        store_le(out.data() + 16 * i, 8, low);
        store_le(out.data() + 16 * i + 8, 8, elements[i].high);
        break;
      default: {
        const std::size_t width = type.bits / 8u;
        store_le(out.data() + width * i, width, low);
      }
    }
  }
  return out;
}

}  // namespace kiln::hurray
