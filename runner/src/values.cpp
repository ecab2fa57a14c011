#include "kiln/conformance/values.hpp"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

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

// The IEEE binary16 value of bits h, exactly (every half is a double).
double half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                   : std::ldexp(1024 + mantissa, exponent - 25);
  if (exponent == 0x1F) magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                                             : std::numeric_limits<double>::infinity();
  return (h & 0x8000) ? -magnitude : magnitude;
}

// Exact float conversions; nullopt when the value would round.
std::optional<std::uint64_t> float_bits(unsigned width, double value) {
  if (std::isnan(value)) {  // .nan: the positive quiet NaN with payload 0
    switch (width) {
      case 8: return 0x7FF8000000000000ull;
      case 4: return 0x7FC00000u;
      default: return std::nullopt;  // 2-byte NaNs are spelled as raw bits
    }
  }
  if (width == 8) return std::bit_cast<std::uint64_t>(value);
  // Converting a double outside float's range is undefined: such a value is not exact anyway.
  if (std::fabs(value) > std::numeric_limits<float>::max() && !std::isinf(value)) return std::nullopt;
  const float single = static_cast<float>(value);
  if (static_cast<double>(single) != value) return std::nullopt;
  return std::bit_cast<std::uint32_t>(single);
}

std::optional<std::uint64_t> half_bits(double value) {
  if (std::isnan(value)) return 0x7E00;
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  for (std::uint32_t h = 0; h <= 0x7C00; ++h)  // every finite magnitude and +inf
    if (half_value(static_cast<std::uint16_t>(h)) == magnitude) return sign | h;
  return std::nullopt;
}

std::optional<std::uint64_t> bfloat_bits(double value) {
  if (std::isnan(value)) return 0x7FC0;
  auto single = float_bits(4, value);
  if (!single || (*single & 0xFFFF) != 0) return std::nullopt;
  return *single >> 16;
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

std::optional<std::uint64_t> element_bits(const DtypeInfo& dtype, std::string_view text,
                                          std::string& error) {
  const unsigned bits = element_bit_width(dtype);
  const std::string name(dtype.name);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    auto raw = parse_u64(text);
    if (!raw || (*raw & ~width_mask(bits)) != 0) {
      error = "raw bits " + std::string(text) + " do not fit a " + std::to_string(bits) +
              "-bit " + name + " element";
      return std::nullopt;
    }
    return raw;
  }
  switch (dtype.numeric) {
    case Numeric::kBool:
      if (text == "true" || text == "1") return 1;
      if (text == "false" || text == "0") return 0;
      error = "bool value must be true, false, 0 or 1 (a bad bool byte goes in payload)";
      return std::nullopt;
    case Numeric::kUnsigned:
    case Numeric::kBitsOnly: {
      auto value = parse_u64(text);
      if (!value || (*value & ~width_mask(bits)) != 0) {
        error = std::string(text) + " is not an unsigned " + std::to_string(bits) + "-bit " +
                (dtype.numeric == Numeric::kBitsOnly ? "bit pattern" : "integer") + " for " + name;
        return std::nullopt;
      }
      return value;
    }
    case Numeric::kSigned: {
      auto value = parse_i64(text);
      const std::int64_t low = bits == 64 ? std::numeric_limits<std::int64_t>::min()
                                          : -(std::int64_t{1} << (bits - 1));
      const std::int64_t high = bits == 64 ? std::numeric_limits<std::int64_t>::max()
                                           : (std::int64_t{1} << (bits - 1)) - 1;
      if (!value || *value < low || *value > high) {
        error = std::string(text) + " is not a signed " + std::to_string(bits) + "-bit integer for " + name;
        return std::nullopt;
      }
      return static_cast<std::uint64_t>(*value) & width_mask(bits);
    }
    case Numeric::kFloat: {
      auto value = parse_double(text);
      std::optional<std::uint64_t> result;
      if (value) {
        if (dtype.name == "f16") result = half_bits(*value);
        else if (dtype.name == "bf16") result = bfloat_bits(*value);
        else result = float_bits(dtype.width, *value);
      }
      if (!result) {
        error = std::string(text) + " is not exactly representable as " + name +
                " (write the raw bits as \"0x...\")";
        return std::nullopt;
      }
      return result;
    }
  }
  error = "unsupported dtype";
  return std::nullopt;
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
