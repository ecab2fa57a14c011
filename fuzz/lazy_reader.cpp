#include "lazy_reader.hpp"

#include <algorithm>
#include <limits>

#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "kiln/utf8.hpp"

namespace kiln::fuzz {
namespace {

constexpr LazyFailure frame(std::string_view what) { return {ErrorClass::kFrame, what}; }
constexpr LazyFailure type(std::string_view what) { return {ErrorClass::kType, what}; }

std::uint64_t read(std::span<const std::uint8_t> bytes, std::uint64_t base, const Field& field) {
  return load_le(bytes.data() + base + field.offset, field.width);
}

// Whether [begin, end) lies inside the input; end >= begin is the caller's.
bool present(std::span<const std::uint8_t> bytes, std::uint64_t end) { return end <= bytes.size(); }

bool all_zero(std::span<const std::uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

std::string_view chars(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

constexpr std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

std::uint64_t LazyTensor::dimension(std::size_t axis) const {
  return load_u64(shape_bytes.data() + 8 * axis);
}

std::optional<LazyFailure> LazyBlock::open(std::span<const std::uint8_t> bytes, LazyBlock& out) {
  if (bytes.size() < kHeaderSize) return frame("shorter than the header");
  if (!std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) return frame("magic");
  if (read(bytes, 0, header::kVersionField) != kVersion) return frame("version");
  if (read(bytes, 0, header::kFlags) != kFlagLittleEndian) return frame("flags");
  if (read(bytes, 0, header::kReserved) != 0) return frame("header reserved");
  LazyBlock block;
  block.bytes_ = bytes;
  block.count_ = read(bytes, 0, header::kTensorCount);
  block.heap_length_ = read(bytes, 0, header::kHeapLength);
  block.payload_offset_ = read(bytes, 0, header::kPayloadOffset);
  block.payload_length_ = read(bytes, 0, header::kPayloadLength);
  if (block.heap_length_ % kHeapAlign != 0) return frame("heap_length alignment");
  block.heap_start_ = kHeaderSize + kEntrySize * block.count_;
  if (block.payload_offset_ != round_up(block.heap_start_ + block.heap_length_, kPayloadAlign))
    return frame("payload_offset");
  out = std::move(block);
  return std::nullopt;
}

std::optional<LazyFailure> LazyBlock::validate_next() {
  const std::uint64_t index = tensors_.size();
  const std::uint64_t at = kHeaderSize + kEntrySize * index;
  if (!present(bytes_, at + kEntrySize)) return frame("directory entry truncated");
  const auto field = [&](const Field& f) { return read(bytes_, at, f); };

  if (field(entry::kReserved28) != 0 || field(entry::kReserved48) != 0 ||
      field(entry::kReserved56) != 0)
    return frame("entry reserved");
  const std::uint64_t name_length = field(entry::kNameLength);
  const std::uint64_t rank = field(entry::kRank);
  const std::uint64_t layout_length = field(entry::kLayoutLength);
  if (name_length == 0) return frame("empty name");

  // The canonical heap segment, computed forward from the previous one.
  const std::uint64_t shape_at = heap_end_seen_;
  const std::uint64_t name_at = shape_at + 8 * rank;
  const std::uint64_t layout_at = name_at + name_length;
  const std::uint64_t content_end = layout_at + layout_length;
  const std::uint64_t segment_end = round_up(content_end, kHeapAlign);
  if (field(entry::kShapeOffset) != shape_at) return frame("shape_offset");
  if (field(entry::kNameOffset) != name_at) return frame("name_offset");
  if (field(entry::kLayoutOffset) != (layout_length == 0 ? 0 : layout_at))
    return frame("layout_offset");
  if (segment_end > heap_length_) return frame("segment past heap_length");
  if (!present(bytes_, heap_start_ + segment_end)) return frame("heap truncated");
  const auto heap = bytes_.subspan(heap_start_);
  if (!all_zero(heap.subspan(content_end, segment_end - content_end)))
    return frame("heap padding");

  LazyTensor tensor;
  tensor.shape_bytes = heap.subspan(shape_at, 8 * rank);
  tensor.name = chars(heap.subspan(name_at, name_length));
  tensor.layout = chars(heap.subspan(layout_at, layout_length));
  if (!is_valid_utf8(tensor.name)) return frame("name UTF-8");
  if (names_.count(tensor.name) != 0) return frame("duplicate name");

  const std::uint64_t data_offset = field(entry::kDataOffset);
  const std::uint64_t byte_length = field(entry::kByteLength);
  if (data_offset != round_up(payload_end_seen_, kPayloadAlign)) return frame("data_offset");
  // data_offset is canonical, so far below 2^64; byte_length is not.
  if (byte_length > payload_length_ || data_offset > payload_length_ - byte_length)
    return frame("payload past payload_length");
  if (bytes_.size() < payload_offset_ ||
      bytes_.size() - payload_offset_ < data_offset + byte_length)
    return frame("payload truncated");
  const auto region = bytes_.subspan(payload_offset_);
  if (!all_zero(region.subspan(payload_end_seen_, data_offset - payload_end_seen_)))
    return frame("payload padding");
  tensor.dtype = static_cast<std::uint16_t>(field(entry::kDtype));
  tensor.block_size = static_cast<std::uint32_t>(field(entry::kBlockSize));
  tensor.payload = region.subspan(data_offset, byte_length);

  names_.insert(tensor.name);
  tensors_.push_back(tensor);
  heap_end_seen_ = segment_end;
  payload_end_seen_ = data_offset + byte_length;
  return std::nullopt;
}

std::optional<LazyFailure> LazyBlock::tensor(std::uint64_t index, const LazyTensor*& out) {
  if (index >= count_) return frame("no such tensor");
  while (tensors_.size() <= index)
    if (auto failure = validate_next()) return failure;
  out = &tensors_[index];
  return std::nullopt;
}

std::optional<LazyFailure> LazyBlock::finish_frame() {
  while (tensors_.size() < count_)
    if (auto failure = validate_next()) return failure;
  if (heap_end_seen_ != heap_length_) return frame("heap_length is not the segments' end");
  if (bytes_.size() < payload_offset_) return frame("truncated before payload_offset");
  if (!all_zero(bytes_.subspan(heap_start_ + heap_length_,
                               payload_offset_ - heap_start_ - heap_length_)))
    return frame("gap padding");
  if (payload_end_seen_ != payload_length_) return frame("payload_length is not the last end");
  if (bytes_.size() - payload_offset_ != payload_length_) return frame("block length");
  return std::nullopt;
}

std::optional<LazyFailure> LazyBlock::check_type(const LazyTensor& tensor) {
  const std::uint16_t code = tensor.dtype;
  const CodeClass range = classify_code(code);
  if (range == CodeClass::kOpaque) {
    if (tensor.layout.empty()) return type("opaque without layout");
    if (!is_valid_utf8(tensor.layout)) return type("opaque layout UTF-8");
    if (tensor.block_size == 0) return type("opaque block_size 0");
    if (tensor.payload.size() % tensor.block_size != 0) return type("opaque multiple");
    return std::nullopt;
  }
  const DtypeInfo* info = find_dtype(code);
  if (info == nullptr) return type("code outside the closed and opaque ranges");
  if (!tensor.layout.empty() || tensor.block_size != 0) return type("closed code with layout");

  // The exact product: any zero dimension gives 0; otherwise a running product
  // that must stay at or below 2^64 - 1.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  bool has_zero = false;
  bool overflow = false;
  std::uint64_t count = 1;
  for (std::size_t axis = 0; axis < tensor.rank(); ++axis) {
    const std::uint64_t dim = tensor.dimension(axis);
    if (dim == 0) has_zero = true;
    else if (!overflow && count > kMax / dim) overflow = true;
    else if (!overflow) count *= dim;
  }
  if (has_zero) count = 0;
  else if (overflow) return type("shape product overflow");

  const std::uint64_t size = tensor.payload.size();
  if (info->packing == Packing::kNibble) {
    if (size != count / 2 + count % 2) return type("packed byte_length");
    if (count % 2 == 1 && (tensor.payload[size - 1] & 0xF0) != 0) return type("high nibble");
    return std::nullopt;
  }
  if (count > kMax / info->width || size != count * info->width) return type("byte_length");
  if (info->values == ValueRule::kBoolByte)
    for (std::uint8_t byte : tensor.payload)
      if (byte != 0 && byte != 1) return type("bool byte");
  return std::nullopt;
}

std::optional<LazyFailure> lazy_read_all(std::span<const std::uint8_t> bytes, LazyBlock& block) {
  if (auto failure = LazyBlock::open(bytes, block)) return failure;
  if (auto failure = block.finish_frame()) return failure;
  for (const LazyTensor& tensor : block.validated())
    if (auto failure = LazyBlock::check_type(tensor)) return failure;
  return std::nullopt;
}

}  // namespace kiln::fuzz
