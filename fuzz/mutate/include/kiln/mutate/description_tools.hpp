// Values and helpers that every description builder shares (fuzz_roundtrip,
// the structure mutator of mutate.hpp), so all aim at the same edges.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kiln/description.hpp"

namespace kiln::mutate {

// Every closed code of the table plus the edges of each code range.
std::span<const std::uint16_t> interesting_dtype_codes();

// 64-bit edges: 0, 1, 63, 64, 2^32 - 1, 2^32, 2^63, 2^64 - 1 and a few more.
std::span<const std::uint64_t> interesting_u64_values();

// Opaque layout names seen in real files, plus a few invalid UTF-8 strings.
std::span<const std::string_view> interesting_layout_names();

// The payload length the format requires for this tensor's dtype and shape:
// n * width or ceil(n / 2) for closed codes, the block size for opaque codes
// (one block), nullopt when no length fits (an overflowing shape, a bad code).
std::optional<std::uint64_t> fitting_payload_length(const TensorDescription& tensor);

}  // namespace kiln::mutate
