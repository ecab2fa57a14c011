#include "profiles/kiln_v2/values.hpp"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/endian.hpp"

namespace kiln::conformance {
namespace {

std::uint64_t width_mask(unsigned bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

unsigned element_bit_width(const DtypeInfo& dtype) {
  return dtype.packing == Packing::kNibble ? 4u : dtype.width * 8u;
}

std::optional<std::int64_t> parse_i64(std::string_view text) {
  bool negative = !text.empty() && text.front() == '-';
  if (negative || (!text.empty() && text.front() == '+')) text.remove_prefix(1);
  auto magnitude = parse_u64(text);
  if (!magnitude) return std::nullopt;
  if (negative) {
    if (*magnitude > std::uint64_t{1} << 63) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);
  }
  if (*magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return std::nullopt;
  return static_cast<std::int64_t>(*magnitude);
}

std::optional<double> parse_double(std::string_view text) {
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  if (text == ".inf" || text == "+.inf" || text == ".Inf") return std::numeric_limits<double>::infinity();
  if (text == "-.inf" || text == "-.Inf") return -std::numeric_limits<double>::infinity();
  const std::string copy(text);
  if (copy.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || std::isnan(value) ||
      std::isinf(value))
    return std::nullopt;
  return value;
}

// The bits of value in a binary float layout, exactly; nullopt when it would
// round or overflow. .nan is the positive quiet NaN with payload 0.
std::optional<std::uint64_t> exact_float_bits(const FloatLayout& layout, double value) {
  const std::uint64_t sign = std::signbit(value) ? layout.sign_mask : 0;
  if (std::isnan(value)) return layout.exponent_mask | layout.quiet_bit;
  if (std::isinf(value)) return sign | layout.exponent_mask;
  if (layout.bits == 64) return std::bit_cast<std::uint64_t>(value);
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  const int bias = (1 << (layout.exponent_bits - 1)) - 1;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  const int unbiased = exponent - 1;  // magnitude = 1.f * 2^unbiased
  if (unbiased > bias) return std::nullopt;
  const bool normal = unbiased >= 1 - bias;
  // Scale so that one unit in the last place is 1; scaling by a power of two is exact.
  const int unit_exponent = (normal ? unbiased : 1 - bias) - static_cast<int>(layout.fraction_bits);
  const double significand = std::ldexp(magnitude, -unit_exponent);
  if (significand != std::floor(significand)) return std::nullopt;
  const auto units = static_cast<std::uint64_t>(significand);
  if (!normal) return sign | units;
  const auto biased = static_cast<std::uint64_t>(unbiased + bias);
  return sign | (biased << layout.fraction_bits) | (units & layout.fraction_mask);
}

}  // namespace

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    if (__builtin_mul_overflow(value, static_cast<std::uint64_t>(base), &value) ||
        __builtin_add_overflow(value, static_cast<std::uint64_t>(digit), &value))
      return std::nullopt;
  }
  return value;
}

Checked<std::uint64_t> element_bits(const DtypeInfo& dtype, std::string_view text) {
  const unsigned bits = element_bit_width(dtype);
  const std::string name(dtype.name);
  // Raw bits are "0x..." with a lower-case x, as the schema's pattern has it.
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
    auto raw = parse_u64(text);
    if (!raw || (*raw & ~width_mask(bits)) != 0)
      return Failure("raw bits " + std::string(text) + " do not fit a " + std::to_string(bits) +
                     "-bit " + name + " element");
    return *raw;
  }
  switch (dtype.numeric) {
    case Numeric::kBool:
      if (text == "true" || text == "1") return 1;
      if (text == "false" || text == "0") return 0;
      return Failure("bool value must be true, false, 0 or 1 (a bad bool byte goes in payload)");
    case Numeric::kUnsigned:
    case Numeric::kBitsOnly: {
      auto value = parse_u64(text);
      if (!value || (*value & ~width_mask(bits)) != 0)
        return Failure(std::string(text) + " is not an unsigned " + std::to_string(bits) + "-bit " +
                       (dtype.numeric == Numeric::kBitsOnly ? "bit pattern" : "integer") + " for " + name);
      return *value;
    }
    case Numeric::kSigned: {
      auto value = parse_i64(text);
      const std::int64_t low = bits == 64 ? std::numeric_limits<std::int64_t>::min()
                                          : -(std::int64_t{1} << (bits - 1));
      const std::int64_t high = bits == 64 ? std::numeric_limits<std::int64_t>::max()
                                           : (std::int64_t{1} << (bits - 1)) - 1;
      if (!value || *value < low || *value > high)
        return Failure(std::string(text) + " is not a signed " + std::to_string(bits) +
                       "-bit integer for " + name);
      return static_cast<std::uint64_t>(*value) & width_mask(bits);
    }
    case Numeric::kFloat: {
      auto value = parse_double(text);
      std::optional<std::uint64_t> result;
      if (value) result = exact_float_bits(*float_layout(dtype), *value);
      if (!result)
        return Failure(std::string(text) + " is not exactly representable as " + name +
                       " (write the raw bits as \"0x...\")");
      return *result;
    }
  }
  return Failure("unsupported dtype");
}

std::vector<std::uint8_t> pack_elements(const DtypeInfo& dtype,
                                        const std::vector<std::uint64_t>& elements) {
  std::vector<std::uint8_t> payload;
  if (dtype.packing == Packing::kNibble) {
    payload.assign((elements.size() + 1) / 2, 0);
    for (std::size_t i = 0; i < elements.size(); ++i)
      payload[i / 2] |= static_cast<std::uint8_t>((elements[i] & 0x0F) << (i % 2 ? 4 : 0));
    return payload;
  }
  payload.resize(elements.size() * dtype.width);
  for (std::size_t i = 0; i < elements.size(); ++i)
    store_le(payload.data() + i * dtype.width, dtype.width, elements[i]);
  return payload;
}

}  // namespace kiln::conformance
