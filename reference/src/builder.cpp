#include "kiln/builder.hpp"

#include <cstring>
#include <limits>
#include <string>

#include "kiln/endian.hpp"

namespace kiln {
namespace {

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kU16Max = std::numeric_limits<std::uint16_t>::max();

Error range_error(std::optional<std::uint32_t> tensor, std::string message) {
  return Error{Rule::kFrameFieldRange, 0, tensor, std::move(message)};
}

}  // namespace

Result<Placement> place(const BlockDescription& description) {
  const auto& tensors = description.tensors;
  if (tensors.size() > kU32Max)
    return range_error(std::nullopt, "more than 2^32 - 1 tensors");
  Placement placement;
  placement.tensors.reserve(tensors.size());
  placement.heap_start = entry_start(tensors.size());

  std::uint64_t heap_cursor = 0;
  std::uint64_t payload_cursor = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& tensor = tensors[i];
    const auto who = static_cast<std::uint32_t>(i);
    if (tensor.shape.size() > kU16Max) return range_error(who, "rank above 65535");
    if (tensor.name.size() > kU32Max) return range_error(who, "name longer than 2^32 - 1 bytes");
    if (tensor.layout.size() > kU32Max)
      return range_error(who, "layout name longer than 2^32 - 1 bytes");
    TensorPlacement at;
    at.entry = entry_start(i);
    at.shape = placement.heap_start + heap_cursor;
    at.name = at.shape + kDimensionSize * tensor.shape.size();
    at.layout = at.name + tensor.name.size();
    const std::uint64_t content_end = heap_cursor + kDimensionSize * tensor.shape.size() +
                                      tensor.name.size() + tensor.layout.size();
    heap_cursor = align_up(content_end, kHeapAlign);
    // Offsets inside the heap are u32 fields, and heap_length is u32.
    if (heap_cursor > kU32Max) return range_error(who, "heap larger than 2^32 - 1 bytes");
    at.segment_end = placement.heap_start + heap_cursor;
    const std::uint64_t data = align_up(payload_cursor, kPayloadAlign);
    at.data = data;  // made absolute once payload_offset is known
    at.data_end = data + tensor.payload.size();
    payload_cursor = at.data_end;
    placement.tensors.push_back(at);
  }
  placement.heap_length = heap_cursor;
  placement.payload_offset = align_up(placement.heap_start + heap_cursor, kPayloadAlign);
  placement.payload_length = payload_cursor;
  placement.size = placement.payload_offset + placement.payload_length;
  for (auto& at : placement.tensors) {
    at.data += placement.payload_offset;
    at.data_end += placement.payload_offset;
  }
  return placement;
}

Result<BuiltBlock> build(const BlockDescription& description) {
  auto placed = place(description);
  if (!placed) return placed.error();
  BuiltBlock built{std::vector<std::uint8_t>(placed.value().size, 0), std::move(placed).value()};
  auto& bytes = built.bytes;
  const Placement& placement = built.placement;
  std::uint8_t* out = bytes.data();

  std::memcpy(out, kMagic.data(), kMagic.size());
  write_field(bytes, 0, header::kVersionField, kVersion);
  write_field(bytes, 0, header::kFlags, kFlagLittleEndian);
  write_field(bytes, 0, header::kTensorCount, description.tensors.size());
  write_field(bytes, 0, header::kHeapLength, placement.heap_length);
  write_field(bytes, 0, header::kPayloadOffset, placement.payload_offset);
  write_field(bytes, 0, header::kPayloadLength, placement.payload_length);

  for (std::size_t i = 0; i < description.tensors.size(); ++i) {
    const auto& tensor = description.tensors[i];
    const auto& at = placement.tensors[i];
    const std::uint64_t heap = placement.heap_start;
    write_field(bytes, at.entry, entry::kNameOffset, at.name - heap);
    write_field(bytes, at.entry, entry::kNameLength, tensor.name.size());
    write_field(bytes, at.entry, entry::kDtype, tensor.dtype);
    write_field(bytes, at.entry, entry::kRank, tensor.shape.size());
    write_field(bytes, at.entry, entry::kShapeOffset, at.shape - heap);
    write_field(bytes, at.entry, entry::kLayoutOffset, tensor.layout.empty() ? 0 : at.layout - heap);
    write_field(bytes, at.entry, entry::kLayoutLength, tensor.layout.size());
    write_field(bytes, at.entry, entry::kBlockSize, tensor.block_size);
    write_field(bytes, at.entry, entry::kDataOffset, at.data - placement.payload_offset);
    write_field(bytes, at.entry, entry::kByteLength, tensor.payload.size());

    for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis)
      store_le(out + at.shape + kDimensionSize * axis, kDimensionSize, tensor.shape[axis]);
    std::memcpy(out + at.name, tensor.name.data(), tensor.name.size());
    std::memcpy(out + at.layout, tensor.layout.data(), tensor.layout.size());
    if (!tensor.payload.empty())
      std::memcpy(out + at.data, tensor.payload.data(), tensor.payload.size());
  }
  return built;
}

bool write_field(std::vector<std::uint8_t>& bytes, std::uint64_t base, const Field& field,
                 std::uint64_t value) {
  if (base > bytes.size() || bytes.size() - base < std::uint64_t{field.offset} + field.width)
    return false;
  store_le(bytes.data() + base + field.offset, field.width, value);
  return true;
}

std::optional<std::uint64_t> read_field(std::span<const std::uint8_t> bytes, std::uint64_t base,
                                        const Field& field) {
  if (base > bytes.size() || bytes.size() - base < std::uint64_t{field.offset} + field.width)
    return std::nullopt;
  return load_le(bytes.data() + base + field.offset, field.width);
}

}  // namespace kiln
