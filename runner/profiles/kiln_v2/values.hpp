// Typed values of Kiln case files (a tensor's `values:`), packed exactly to
// the bit into a payload. Kiln's own: no other profile reads typed values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/dtype.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

// The bits of one element written as text: an integer, a number, true/false,
// .nan/.inf/-.inf, or "0x..." raw bits; the error when the text does not fit
// the dtype exactly.
Checked<std::uint64_t> element_bits(const DtypeInfo& dtype, std::string_view text);

// Packs element bits into payload bytes: little-endian elements, or two nibbles
// a byte with the earlier element low and a zero high nibble on odd counts.
std::vector<std::uint8_t> pack_elements(const DtypeInfo& dtype,
                                        const std::vector<std::uint64_t>& elements);

// Strict unsigned parse of decimal or 0x-hex text; nullopt on anything else.
std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace kiln::conformance
