// The strict reference decoder. Bytes in; a block of views into those bytes, or
// the first defect (FRAME before TYPE, then directory order). It never throws on
// bad input, never reads outside the input, and allocates only O(tensor count)
// after the directory is known to be present.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/endian.hpp"
#include "kiln/error.hpp"
#include "kiln/layout.hpp"

namespace kiln {

struct TensorView {
  std::string_view name;
  std::uint16_t dtype = 0;
  std::uint16_t rank = 0;
  const std::uint8_t* shape_bytes = nullptr;  // rank little-endian u64 dimensions
  std::string_view layout;
  std::uint32_t block_size = 0;
  std::span<const std::uint8_t> payload;

  std::uint64_t dimension(std::size_t axis) const noexcept {
    return load_u64(shape_bytes + kDimensionSize * axis);
  }
  std::vector<std::uint64_t> shape() const;
  TensorDescription to_description() const;
};

struct BlockView {
  std::vector<TensorView> tensors;

  BlockDescription to_description() const;
};

Result<BlockView> decode(std::span<const std::uint8_t> bytes);

// Lenient reading, for tools that inspect broken blocks and for adapters that
// model an implementer's missing check. A waived check is skipped and the
// decoder goes on as a reader that never made it would: it reads from the
// canonical position where a waived offset disagrees, and wraps a waived shape
// overflow. Checks that keep every read inside the input are never waived:
// FRAME-TRUNCATED, and the bounds parts of FRAME-HEAP-LENGTH and
// FRAME-PAYLOAD-LENGTH (only their "ends exactly here" totals are waived).
struct DecodeOptions {
  RuleSet waived;
};

Result<BlockView> decode(std::span<const std::uint8_t> bytes, const DecodeOptions& options);

// Whether decode(bytes, options) honours waiving this rule.
bool is_waivable(Rule rule) noexcept;

// The shape product with the format's exact reading: 1 for rank 0, 0 when any
// dimension is 0 (whatever the others are), nullopt only for a nonzero product
// above 2^64 - 1.
std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept;

}  // namespace kiln
