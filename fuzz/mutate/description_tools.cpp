#include "kiln/mutate/description_tools.hpp"

#include <array>
#include <limits>

#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"

namespace kiln::mutate {
namespace {

constexpr std::size_t kEdgeCodes = 8;

constexpr std::array<std::uint16_t, kDtypes.size() + kEdgeCodes> make_codes() {
  std::array<std::uint16_t, kDtypes.size() + kEdgeCodes> codes{};
  std::size_t i = 0;
  for (const DtypeInfo& info : kDtypes) codes[i++] = info.code;
  for (std::uint16_t edge : {std::uint16_t{0}, kFirstReservedCode,
                             static_cast<std::uint16_t>(kFirstOpaqueCode - 1), kFirstOpaqueCode,
                             static_cast<std::uint16_t>(kFirstOpaqueCode + 1), kLastOpaqueCode,
                             static_cast<std::uint16_t>(kLastOpaqueCode + 1),
                             std::numeric_limits<std::uint16_t>::max()})
    codes[i++] = edge;
  return codes;
}

constexpr auto kCodes = make_codes();

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::array<std::uint64_t, 14> kU64Edges{
    0, 1, 2, 3, 7, 8, 63, 64, 0xFFFFFFFFull, 0x100000000ull, 0x7FFFFFFFFFFFFFFFull,
    0x8000000000000000ull, kU64Max - 1, kU64Max};

constexpr std::array<std::string_view, 9> kLayoutNames{
    "Q4_K", "Q4_0", "Q8_0", "Q6_K", "IQ4_NL", "MXFP4",
    std::string_view("\xc0\x80", 2),          // overlong NUL
    std::string_view("\xed\xa0\x80", 3),      // surrogate
    std::string_view("\xf4\x90\x80\x80", 4),  // above U+10FFFF
};

}  // namespace

std::span<const std::uint16_t> interesting_dtype_codes() { return kCodes; }
std::span<const std::uint64_t> interesting_u64_values() { return kU64Edges; }
std::span<const std::string_view> interesting_layout_names() { return kLayoutNames; }

std::optional<std::uint64_t> fitting_payload_length(const TensorDescription& tensor) {
  if (classify_code(tensor.dtype) == CodeClass::kOpaque) return tensor.block_size;
  const DtypeInfo* info = find_dtype(tensor.dtype);
  if (info == nullptr) return std::nullopt;
  const auto count = element_count(tensor.shape);
  if (!count) return std::nullopt;
  if (info->packing == Packing::kNibble) return *count / 2 + *count % 2;
  std::uint64_t length = 0;
  if (__builtin_mul_overflow(*count, std::uint64_t{info->width}, &length)) return std::nullopt;
  return length;
}

}  // namespace kiln::mutate
