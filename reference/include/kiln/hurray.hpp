// The Hurray element codec (profile `hurray-elements`, reference/HURRAY.md): one
// tensor's element layer, a type tag, a shape, a mode and the dense data bytes.
// Like the Kiln decoder it never throws on bad bytes, computes every count and
// size with overflow checks, allocates nothing sized by a declared shape, and
// assembles multi-byte elements little-endian by hand (same result on any host).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/error.hpp"

namespace kiln::hurray {

// ---------------------------------------------------------------- type table

enum class Tier : std::uint8_t { k1 = 1, k2 = 2 };

// What the bit pattern of one element is; the wire itself is just bits.
enum class Kind : std::uint8_t {
  kFloat,        // IEEE binary16/32/64/128, bfloat16, OFP8, OCP MX (e8m0 included)
  kSignedInt,    // two's complement
  kUnsignedInt,  // unsigned
  kBool,         // one bit, 1 is true
  kComplex,      // two floats of half the width: real part in the low half
};

// Where a tag comes from: the seed page names it, or the design brief fixes it
// because the seed's summary table is missing (an assumption, HURRAY.md 3).
enum class TagSource : std::uint8_t { kSeed, kAssumed };

struct TypeInfo {
  std::uint8_t tag;
  std::string_view name;
  Tier tier;
  std::uint16_t bits;  // B, the element's width: 1, 2, 4, 6, 8, 16, 32, 64 or 128
  Kind kind;
  TagSource source;
};

// The one type table. Everything that needs a tag, a name, a tier or a width
// reads it from here; a different tag assignment is an edit of this table.
inline constexpr std::array<TypeInfo, 26> kTypes{{
    // tag   name           tier      bits kind                 tag from
    {0x01, "float16", Tier::k1, 16, Kind::kFloat, TagSource::kSeed},
    {0x02, "bfloat16", Tier::k1, 16, Kind::kFloat, TagSource::kSeed},
    {0x03, "float32", Tier::k1, 32, Kind::kFloat, TagSource::kSeed},
    {0x04, "float64", Tier::k1, 64, Kind::kFloat, TagSource::kSeed},
    {0x10, "int8", Tier::k1, 8, Kind::kSignedInt, TagSource::kAssumed},
    {0x11, "uint8", Tier::k1, 8, Kind::kUnsignedInt, TagSource::kAssumed},
    {0x12, "int16", Tier::k1, 16, Kind::kSignedInt, TagSource::kAssumed},
    {0x13, "uint16", Tier::k1, 16, Kind::kUnsignedInt, TagSource::kAssumed},
    {0x14, "int32", Tier::k1, 32, Kind::kSignedInt, TagSource::kAssumed},
    {0x15, "uint32", Tier::k1, 32, Kind::kUnsignedInt, TagSource::kAssumed},
    {0x16, "int64", Tier::k1, 64, Kind::kSignedInt, TagSource::kAssumed},
    {0x17, "uint64", Tier::k1, 64, Kind::kUnsignedInt, TagSource::kAssumed},
    {0x20, "bool", Tier::k1, 1, Kind::kBool, TagSource::kAssumed},
    {0x30, "complex64", Tier::k1, 64, Kind::kComplex, TagSource::kAssumed},
    {0x31, "complex128", Tier::k1, 128, Kind::kComplex, TagSource::kAssumed},
    {0x40, "float8_e4m3", Tier::k2, 8, Kind::kFloat, TagSource::kSeed},
    {0x41, "float8_e5m2", Tier::k2, 8, Kind::kFloat, TagSource::kSeed},
    {0x42, "float8_e8m0", Tier::k2, 8, Kind::kFloat, TagSource::kSeed},
    {0x43, "float4_e2m1", Tier::k2, 4, Kind::kFloat, TagSource::kSeed},
    {0x44, "float6_e2m3", Tier::k2, 6, Kind::kFloat, TagSource::kSeed},
    {0x45, "float6_e3m2", Tier::k2, 6, Kind::kFloat, TagSource::kSeed},
    {0x46, "float128", Tier::k2, 128, Kind::kFloat, TagSource::kSeed},
    {0x48, "int4", Tier::k2, 4, Kind::kSignedInt, TagSource::kAssumed},
    {0x49, "uint4", Tier::k2, 4, Kind::kUnsignedInt, TagSource::kAssumed},
    {0x4A, "int2", Tier::k2, 2, Kind::kSignedInt, TagSource::kAssumed},
    {0x4B, "uint2", Tier::k2, 2, Kind::kUnsignedInt, TagSource::kAssumed},
}};

inline constexpr std::uint8_t kE8m0Tag = 0x42;

const TypeInfo* type_by_tag(std::uint8_t tag) noexcept;
const TypeInfo* type_by_name(std::string_view name) noexcept;

// The seed's partition of the tag space (HURRAY.md 3.1).
enum class TagClass : std::uint8_t {
  kZeroOrFF,          // 0x00, 0xFF: rejected in every mode
  kTier1,             // an assigned Tier 1 type
  kTier2,             // an assigned Tier 2 type
  kTier1Unassigned,   // 0x01..0x3F, no type
  kTier2Unassigned,   // 0x40..0x7F except 0x47, no type
  kReserved47,        // 0x47, held by the seed for a future Tier 2 type
  kReservedFuture,    // 0x80..0xEF, reserved for later versions
  kPrivate,           // 0xF0..0xFE, private extensions
};

TagClass classify_tag(std::uint8_t tag) noexcept;
std::string_view to_string(TagClass tag_class) noexcept;

// A set of type tags: the Tier 2 types an implementation supports.
class TagSet {
 public:
  constexpr TagSet() = default;
  static TagSet all_tier2() noexcept;  // the reference supports every Tier 2 type
  constexpr TagSet& add(std::uint8_t tag) noexcept {
    words_[tag >> 6] |= std::uint64_t{1} << (tag & 63);
    return *this;
  }
  constexpr bool contains(std::uint8_t tag) const noexcept {
    return (words_[tag >> 6] >> (tag & 63)) & 1u;
  }

 private:
  std::array<std::uint64_t, 4> words_{};
};

// ---------------------------------------------------------------- rules

enum class ErrorClass : std::uint8_t { kTag, kData };

std::string_view to_string(ErrorClass error_class) noexcept;
std::optional<ErrorClass> error_class_from_string(std::string_view text) noexcept;

// In check order (HURRAY.md 5), decoder rules first, then the encoder's own.
enum class Rule : std::uint8_t {
  kTagZeroFF,
  kTagUnrecognized,
  kCountOverflow,
  kSizeOverflow,
  kDataShort,
  kPadBool,
  kPad2Bit,
  kPad4Bit,
  kPad6Bit,
  kE8m0Reserved,
  kEncodeCount,
  kEncodeRange,
};

struct RuleInfo {
  Rule rule;
  std::string_view id;
  ErrorClass error_class;
  std::string_view summary;
};

std::span<const RuleInfo> all_rules() noexcept;
const RuleInfo& rule_info(Rule rule) noexcept;
std::optional<Rule> rule_from_id(std::string_view id) noexcept;

struct Error {
  Rule rule;
  std::optional<std::uint64_t> offset;   // byte offset in the data, for byte defects
  std::optional<std::uint64_t> element;  // element index, for encoder element defects
  std::string message;                   // one line, free text

  ErrorClass error_class() const noexcept { return rule_info(rule).error_class; }
  std::string_view rule_id() const noexcept { return rule_info(rule).id; }
  // "DATA HURRAY-PAD-4BIT at byte 1: ..." or "... at element 3: ...".
  std::string describe() const;
};

template <class T>
using Result = kiln::Result<T, Error>;

// ---------------------------------------------------------------- elements

// One element's bit pattern, an unsigned integer of up to 128 bits.
struct Element {
  std::uint64_t low = 0;   // bits 0..63
  std::uint64_t high = 0;  // bits 64..127
  // Set by element_from_hex for a value above 128 bits: no type holds it.
  bool wider_than_128 = false;

  friend bool operator==(const Element&, const Element&) = default;
};

// The least number of bits that holds the value (0 for zero).
unsigned significant_bits(const Element& element) noexcept;
bool fits(const Element& element, unsigned bits) noexcept;

// Lower-case hex of exactly ceil(bits / 4) digits, the form of cases and protocol.
std::string element_to_hex(const Element& element, unsigned bits);
// Upper or lower case, any number of leading zeros. nullopt: empty, or a
// character that is not a hex digit (an error reply, not a reject).
std::optional<Element> element_from_hex(std::string_view text) noexcept;

// ---------------------------------------------------------------- sizes

// N, the exact product of the shape (1 for a scalar, 0 when any dimension is 0);
// nullopt when it exceeds 2^64 - 1.
std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept;
// S, the dense size in bytes of N elements of the type; nullopt beyond 2^64 - 1.
// 6-bit types use ceil(N / 4) * 3, never N * 6 / 8.
std::optional<std::uint64_t> data_size(const TypeInfo& type, std::uint64_t count) noexcept;

// ---------------------------------------------------------------- decode

enum class Mode : std::uint8_t { kStrict, kPermissive };

std::string_view to_string(Mode mode) noexcept;
std::optional<Mode> mode_from_string(std::string_view text) noexcept;

// An accepted tensor: a view into the caller's bytes, nothing copied. Elements
// are read on demand, so accepting a large tensor allocates nothing.
struct Decoded {
  bool opaque = false;               // permissive mode, tag not recognized: nothing read
  const TypeInfo* type = nullptr;    // null when opaque
  std::uint64_t count = 0;           // N (0 when opaque)
  std::span<const std::uint8_t> data;  // exactly the S element bytes; all bytes when opaque
  // Bytes given after the S element bytes. The seed's S is a minimum size and the
  // bytes past it belong to the container (HURRAY.md 6.2): not examined, not rejected.
  std::uint64_t extra_bytes = 0;

  // Element i's bit pattern; i < count. LSB-first packing, little-endian bytes.
  Element element(std::uint64_t index) const noexcept;
};

// The check order of HURRAY.md 5: tag, count, size, data length, padding bits, e8m0.
// supported_tier2 names the Tier 2 types the reader supports; a Tier 2 type not
// in it is handled as a tag the reader does not recognize.
Result<Decoded> decode(std::uint8_t tag, std::span<const std::uint64_t> shape, Mode mode,
                       std::span<const std::uint8_t> data,
                       const TagSet& supported_tier2 = TagSet::all_tier2());

// Every rule the input breaks, not only the first: each judged on its own where
// it is defined (nothing after the tag for a tag that names no type, nothing
// after an overflow; padding bits and e8m0 patterns on the bytes of the first S
// that are present). Empty when decode accepts, opaque included. What
// `cases check` holds a reject case to: it breaks exactly its listed rules.
std::vector<Rule> broken_rules(std::uint8_t tag, std::span<const std::uint64_t> shape, Mode mode,
                               std::span<const std::uint8_t> data,
                               const TagSet& supported_tier2 = TagSet::all_tier2());

// ---------------------------------------------------------------- encode

// The packed bytes (exactly S of them, padding bits zero), or a reject: TAG for a
// tag the encoder does not recognize; DATA for an overflowing shape, a count other
// than N, an element wider than B bits or an e8m0 element 00 or ff. No element bit
// is ever changed (no NaN canonicalization, no flushing).
Result<std::vector<std::uint8_t>> encode(std::uint8_t tag, std::span<const std::uint64_t> shape,
                                         std::span<const Element> elements,
                                         const TagSet& supported_tier2 = TagSet::all_tier2());

// The same for encode's rules (HURRAY.md 5.1): tag, overflows, the count, and
// every element's range and e8m0 pattern.
std::vector<Rule> encode_broken_rules(std::uint8_t tag, std::span<const std::uint64_t> shape,
                                      std::span<const Element> elements,
                                      const TagSet& supported_tier2 = TagSet::all_tier2());

}  // namespace kiln::hurray
