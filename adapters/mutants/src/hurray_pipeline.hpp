// The hurray-elements path of the mutant adapter: the reference's check order
// (reference/HURRAY.md 5.1) with each step a hook of HurrayHooks, and the
// reference's steps that the catalogue's hurray mutants build on.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "kiln/mutants.hpp"

namespace kiln::mutants::hurray_path {

// The reference's steps, the defaults of the hooks.
TagLookup reference_look_up(std::uint8_t tag, hurray::Mode mode);
// hurray::Decoded::element, with bytes past the end of data read as 0.
hurray::Element reference_read(const hurray::TypeInfo& type, ByteSpan data, std::uint64_t index);
// The reference encoder's packing of one element (masked to B bits), bounded by out.
void reference_write(const hurray::TypeInfo& type, std::span<std::uint8_t> out,
                     std::uint64_t index, const hurray::Element& element);
bool reference_refused(const hurray::TypeInfo& type, const hurray::Element& element);

using WriteFn = std::function<void(const hurray::TypeInfo&, std::span<std::uint8_t>,
                                   std::uint64_t, const hurray::Element&)>;

// The bits of the final byte (or 3-byte group) of `size` bytes that no element
// of a `count`-element tensor fills under `write`: its first byte's offset and
// one mask per byte (empty: no padding bits, or fewer than a unit's bytes).
struct UnusedBits {
  std::uint64_t start = 0;
  std::vector<std::uint8_t> masks;
};
UnusedBits unused_bits(const hurray::TypeInfo& type, std::uint64_t count, std::uint64_t size,
                       const WriteFn& write);

// Step 5 as the reference does it, under a layout (the reference's by default):
// the first byte with an unused bit set, reported with the width's rule.
std::optional<hurray::Error> reference_padding(const hurray::TypeInfo& type, std::uint64_t count,
                                               ByteSpan elements,
                                               const WriteFn& write = reference_write);
hurray::Rule padding_rule(unsigned bits);

// The whole path, hooks applied.
protocol::Outcome decode(const HurrayHooks& hooks, const protocol::ElementsDecodeRequest& request);
protocol::Outcome encode(const HurrayHooks& hooks, const protocol::ElementsEncodeRequest& request);

}  // namespace kiln::mutants::hurray_path
