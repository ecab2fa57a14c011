// The one table of Kiln dtypes (seed page 000). Everything that needs a code,
// a name, a width or a packing reads it from here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

// How the payload bytes of a closed dtype relate to the element count n.
enum class Packing : std::uint8_t {
  kWhole,   // byte_length = n * width
  kNibble,  // byte_length = ceil(n / 2); low nibble first; odd n leaves the high nibble 0
};

// Which byte values a closed dtype admits.
enum class ValueRule : std::uint8_t {
  kAnyBits,  // every bit pattern is stored as is (floats, integers, e8m0 0xFF)
  kBoolByte, // each byte is 0 or 1
};

// How a tool may write an element as a typed value (the wire itself is just bits).
enum class Numeric : std::uint8_t {
  kFloat,     // IEEE binary64/32/16 and bfloat16: numbers the type represents exactly
  kSigned,    // two's complement integer
  kUnsigned,  // unsigned integer
  kBool,      // 0 or 1
  kBitsOnly,  // OFP8, MX: Kiln stores the bits and assigns no decimal value
};

struct DtypeInfo {
  std::uint16_t code;
  std::string_view name;
  Packing packing;
  std::uint8_t width;  // bytes per element for kWhole; 0 for kNibble
  ValueRule values;
  Numeric numeric;
  std::uint8_t exponent_bits;  // binary floats with IEEE-style fields (f64 f32 f16 bf16); else 0
  std::string_view element;    // what one element is, as the seed page says
};

inline constexpr std::array<DtypeInfo, 19> kDtypes{{
    {1, "f64", Packing::kWhole, 8, ValueRule::kAnyBits, Numeric::kFloat, 11, "IEEE binary64"},
    {2, "f32", Packing::kWhole, 4, ValueRule::kAnyBits, Numeric::kFloat, 8, "IEEE binary32"},
    {3, "f16", Packing::kWhole, 2, ValueRule::kAnyBits, Numeric::kFloat, 5, "IEEE binary16"},
    {4, "bf16", Packing::kWhole, 2, ValueRule::kAnyBits, Numeric::kFloat, 8, "bfloat16 (1 sign, 8 exponent, 7 significand bits)"},
    {5, "f8e4m3", Packing::kWhole, 1, ValueRule::kAnyBits, Numeric::kBitsOnly, 0, "OFP8 E4M3"},
    {6, "f8e5m2", Packing::kWhole, 1, ValueRule::kAnyBits, Numeric::kBitsOnly, 0, "OFP8 E5M2"},
    {7, "bool", Packing::kWhole, 1, ValueRule::kBoolByte, Numeric::kBool, 0, "byte 0 or 1"},
    {8, "i8", Packing::kWhole, 1, ValueRule::kAnyBits, Numeric::kSigned, 0, "two's complement"},
    {9, "u8", Packing::kWhole, 1, ValueRule::kAnyBits, Numeric::kUnsigned, 0, "unsigned"},
    {10, "i16", Packing::kWhole, 2, ValueRule::kAnyBits, Numeric::kSigned, 0, "two's complement, little-endian"},
    {11, "u16", Packing::kWhole, 2, ValueRule::kAnyBits, Numeric::kUnsigned, 0, "unsigned, little-endian"},
    {12, "i32", Packing::kWhole, 4, ValueRule::kAnyBits, Numeric::kSigned, 0, "two's complement, little-endian"},
    {13, "u32", Packing::kWhole, 4, ValueRule::kAnyBits, Numeric::kUnsigned, 0, "unsigned, little-endian"},
    {14, "i64", Packing::kWhole, 8, ValueRule::kAnyBits, Numeric::kSigned, 0, "two's complement, little-endian"},
    {15, "u64", Packing::kWhole, 8, ValueRule::kAnyBits, Numeric::kUnsigned, 0, "unsigned, little-endian"},
    {16, "i4", Packing::kNibble, 0, ValueRule::kAnyBits, Numeric::kSigned, 0, "packed two's-complement nibbles"},
    {17, "u4", Packing::kNibble, 0, ValueRule::kAnyBits, Numeric::kUnsigned, 0, "packed unsigned nibbles"},
    {18, "e2m1", Packing::kNibble, 0, ValueRule::kAnyBits, Numeric::kBitsOnly, 0, "OCP MX FP4 E2M1, packed nibbles"},
    {19, "e8m0", Packing::kWhole, 1, ValueRule::kAnyBits, Numeric::kBitsOnly, 0, "OCP MX E8M0 scale byte"},
}};

inline constexpr std::uint16_t kFirstReservedCode = 20;
inline constexpr std::uint16_t kFirstOpaqueCode = 4096;
inline constexpr std::uint16_t kLastOpaqueCode = 32767;

// The range a 16-bit code falls in; decides which TYPE rules apply.
enum class CodeClass : std::uint8_t { kZero, kClosed, kReserved, kOpaque, kAboveOpaque };

constexpr CodeClass classify_code(std::uint16_t code) noexcept {
  if (code == 0) return CodeClass::kZero;
  if (code < kFirstReservedCode) return CodeClass::kClosed;
  if (code < kFirstOpaqueCode) return CodeClass::kReserved;
  if (code <= kLastOpaqueCode) return CodeClass::kOpaque;
  return CodeClass::kAboveOpaque;
}

// The closed dtype with this code, or nullptr for any other code.
constexpr const DtypeInfo* find_dtype(std::uint16_t code) noexcept {
  return classify_code(code) == CodeClass::kClosed ? &kDtypes[code - 1] : nullptr;
}

constexpr const DtypeInfo* find_dtype(std::string_view name) noexcept {
  for (const auto& info : kDtypes)
    if (info.name == name) return &info;
  return nullptr;
}

// The fields of a binary float dtype, derived from its width and exponent bits.
struct FloatLayout {
  unsigned bits;
  unsigned exponent_bits;
  unsigned fraction_bits;
  std::uint64_t sign_mask;
  std::uint64_t exponent_mask;
  std::uint64_t fraction_mask;
  std::uint64_t quiet_bit;  // the fraction's top bit: set in a quiet NaN
};

constexpr std::optional<FloatLayout> float_layout(const DtypeInfo& dtype) noexcept {
  if (dtype.exponent_bits == 0) return std::nullopt;
  const unsigned bits = dtype.width * 8u;
  const unsigned fraction_bits = bits - 1u - dtype.exponent_bits;
  const std::uint64_t fraction_mask = (std::uint64_t{1} << fraction_bits) - 1;
  const std::uint64_t exponent_mask =
      ((std::uint64_t{1} << dtype.exponent_bits) - 1) << fraction_bits;
  return FloatLayout{bits,          dtype.exponent_bits,
                     fraction_bits, std::uint64_t{1} << (bits - 1),
                     exponent_mask, fraction_mask,
                     std::uint64_t{1} << (fraction_bits - 1)};
}

std::string_view to_string(CodeClass code_class) noexcept;

}  // namespace kiln
