// The relaxed frame reader (the reference's FRAME checks in the reference's
// order, FORMAT.md section 5.2, with the offset checks a Leniency loosens, and
// every part read where its offset points) and UTF-8 with parametrised classes.
#include "relaxed.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "catalogue_parts.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"

namespace kiln::mutants::relaxed {
namespace {

using parts::reject;
using Outcome = std::variant<protocol::Reject, BlockDescription>;

bool accepts(OffsetCheck loosened, const OffsetSeen& seen) {
  return seen.stated == seen.canonical || (loosened != nullptr && loosened(seen));
}

bool all_zero(ByteSpan input, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t at = begin; at < end; ++at)
    if (input[at] != 0) return false;
  return true;
}

std::string text_at(ByteSpan input, std::uint64_t at, std::uint64_t length) {
  return std::string(reinterpret_cast<const char*>(input.data() + at), length);
}

class Reader {
 public:
  Reader(ByteSpan input, const Leniency& leniency) : in_(input), lenient_(leniency) {}

  Outcome run(BlockDescription* read_before_defect) {
    auto failed = [&](protocol::Reject problem) -> Outcome {
      if (read_before_defect) *read_before_defect = std::move(block_);
      return problem;
    };
    if (auto problem = read_header()) return failed(*problem);
    for (std::uint64_t i = 0; i < count_; ++i)
      if (auto problem = read_entry(i)) return failed(*problem);
    if (heap_cursor_ != heap_length_)
      return failed(reject(Rule::kFrameHeapLength, "the heap segments do not end at heap_length"));
    if (!all_zero(in_, heap_start_ + heap_length_, payload_offset_))
      return failed(
          reject(Rule::kFramePadGap, "padding between the heap and payload_offset is not 0"));
    if (payload_cursor_ != payload_length_)
      return failed(
          reject(Rule::kFramePayloadLength, "the last payload does not end at payload_length"));
    return std::move(block_);
  }

 private:
  using Problem = std::optional<protocol::Reject>;

  Problem truncated() const {
    return reject(Rule::kFrameTruncated, "input ends at byte " + std::to_string(in_.size()));
  }

  Problem read_header() {
    const std::uint64_t size = in_.size();
    if (size < 4) return truncated();
    if (std::memcmp(in_.data(), kMagic.data(), kMagic.size()) != 0)
      return reject(Rule::kFrameMagic, "magic is not KILN");
    if (size < 5) return truncated();
    if (in_[header::kVersionField.offset] != kVersion)
      return reject(Rule::kFrameVersion, "version is not 2");
    if (size < 6) return truncated();
    const std::uint8_t flags = in_[header::kFlags.offset];
    if (!(flags & kFlagLittleEndian)) return reject(Rule::kFrameLeFlag, "flag bit 1 is clear");
    if (flags & ~kFlagLittleEndian)
      return reject(Rule::kFrameFlagsReserved, "flags set bits other than bit 1");
    if (size < kHeaderSize) return truncated();
    if (read_field(in_, 0, header::kReserved) != 0)
      return reject(Rule::kFrameHeaderReserved, "reserved header bytes are not 0");

    count_ = *read_field(in_, 0, header::kTensorCount);
    heap_length_ = *read_field(in_, 0, header::kHeapLength);
    payload_offset_ = *read_field(in_, 0, header::kPayloadOffset);
    payload_length_ = *read_field(in_, 0, header::kPayloadLength);
    if (heap_length_ % kHeapAlign != 0)
      return reject(Rule::kFrameHeapAlign, "heap_length is not a multiple of 8");
    heap_start_ = entry_start(count_);
    const std::uint64_t heap_end = heap_start_ + heap_length_;
    // A payload region inside the heap is refused whatever the leniency.
    if (!accepts(lenient_.payload_offset,
                 {payload_offset_, align_up(heap_end, kPayloadAlign), heap_end, 0}) ||
        payload_offset_ < heap_end)
      return reject(Rule::kFramePayloadOffset, "payload_offset is not accepted");
    if (size < payload_offset_ || payload_length_ > size - payload_offset_) return truncated();
    if (payload_length_ < size - payload_offset_)
      return reject(Rule::kFrameTrailing, "bytes follow the block's end");
    block_.tensors.reserve(count_);
    return std::nullopt;
  }

  Problem read_entry(std::uint64_t index) {
    const std::uint64_t at = entry_start(index);
    const auto field = [&](const Field& f) { return *read_field(in_, at, f); };
    for (const Field* reserved : {&entry::kReserved28, &entry::kReserved48, &entry::kReserved56})
      if (field(*reserved) != 0)
        return reject(Rule::kFrameEntryReserved, "reserved entry bytes are not 0");

    const std::uint64_t name_offset = field(entry::kNameOffset);
    const std::uint64_t name_length = field(entry::kNameLength);
    const std::uint64_t rank = field(entry::kRank);
    const std::uint64_t shape_offset = field(entry::kShapeOffset);
    const std::uint64_t layout_offset = field(entry::kLayoutOffset);
    const std::uint64_t layout_length = field(entry::kLayoutLength);
    const std::uint64_t data_offset = field(entry::kDataOffset);
    const std::uint64_t byte_length = field(entry::kByteLength);

    if (name_length == 0) return reject(Rule::kFrameNameEmpty, "name_length is 0");
    if (!accepts(lenient_.shape_offset, {shape_offset, heap_cursor_, heap_cursor_, index}))
      return reject(Rule::kFrameShapeOffset, "shape_offset is not accepted");
    const std::uint64_t shape_end = shape_offset + kDimensionSize * rank;
    if (!accepts(lenient_.name_offset, {name_offset, shape_end, shape_end, index}))
      return reject(Rule::kFrameNameOffset, "name_offset is not accepted");
    const std::uint64_t name_end = name_offset + name_length;
    const bool has_layout = layout_length > 0;
    if (has_layout ? !accepts(lenient_.layout_offset, {layout_offset, name_end, name_end, index})
                   : layout_offset != 0)
      return reject(Rule::kFrameLayoutOffset, "layout_offset is not accepted");

    // Fields are u32 (rank u16): no sum below comes near 2^64.
    const std::uint64_t content_end = has_layout ? layout_offset + layout_length : name_end;
    const std::uint64_t segment_end = align_up(content_end, kHeapAlign);
    if (std::max({shape_end, name_end, layout_offset + layout_length, segment_end}) > heap_length_)
      return reject(Rule::kFrameHeapLength, "a heap segment runs past heap_length");
    if (!all_zero(in_, heap_start_ + content_end, heap_start_ + segment_end))
      return reject(Rule::kFramePadHeap, "heap padding byte is not 0");

    if (!accepts(lenient_.data_offset,
                 {data_offset, align_up(payload_cursor_, kPayloadAlign), payload_cursor_, index}))
      return reject(Rule::kFrameDataOffset, "data_offset is not accepted");
    std::uint64_t payload_end = data_offset + byte_length;  // modulo 2^64
    if (lenient_.payload_end_wraps) {
      if (payload_end > payload_length_)
        return reject(Rule::kFramePayloadLength, "a payload runs past payload_length");
    } else if (data_offset > payload_length_ || byte_length > payload_length_ - data_offset) {
      return reject(Rule::kFramePayloadLength, "a payload runs past payload_length");
    }
    const std::uint64_t region = payload_offset_;
    const std::uint64_t payload_start = std::min(data_offset, payload_length_);
    if (!all_zero(in_, region + std::min(payload_cursor_, payload_start), region + payload_start))
      return reject(Rule::kFramePadPayload, "padding before the payload is not 0");

    TensorDescription tensor;
    tensor.name = text_at(in_, heap_start_ + name_offset, name_length);
    tensor.dtype = static_cast<std::uint16_t>(field(entry::kDtype));
    for (std::uint64_t axis = 0; axis < rank; ++axis)
      tensor.shape.push_back(load_u64(in_.data() + heap_start_ + shape_offset + kDimensionSize * axis));
    if (has_layout) tensor.layout = text_at(in_, heap_start_ + layout_offset, layout_length);
    tensor.block_size = static_cast<std::uint32_t>(field(entry::kBlockSize));
    // Only a wrapped bound lets the payload end past payload_length: read up to it.
    const std::uint64_t readable =
        byte_length <= payload_length_ - payload_start ? byte_length : payload_length_ - payload_start;
    const auto first = in_.begin() + static_cast<std::ptrdiff_t>(region + payload_start);
    tensor.payload.assign(first, first + static_cast<std::ptrdiff_t>(readable));
    block_.tensors.push_back(std::move(tensor));

    heap_cursor_ = segment_end;
    payload_cursor_ = payload_end;
    return std::nullopt;
  }

  ByteSpan in_;
  const Leniency& lenient_;
  std::uint64_t count_ = 0;
  std::uint64_t heap_length_ = 0;
  std::uint64_t heap_start_ = 0;
  std::uint64_t payload_offset_ = 0;
  std::uint64_t payload_length_ = 0;
  std::uint64_t heap_cursor_ = 0;     // heap-relative end of the previous segment
  std::uint64_t payload_cursor_ = 0;  // payload-relative end of the previous payload
  BlockDescription block_;
};

}  // namespace

std::variant<protocol::Reject, BlockDescription> read_frame(
    ByteSpan input, const Leniency& leniency, BlockDescription* read_before_defect) {
  return Reader(input, leniency).run(read_before_defect);
}

bool valid_utf8(std::string_view text, const Utf8Classes& classes) {
  const auto byte = [&](std::size_t at) { return static_cast<std::uint8_t>(text[at]); };
  std::size_t at = 0;
  while (at < text.size()) {
    const std::uint8_t lead = byte(at);
    if (lead < 0x80) {
      if (lead == 0 && !classes.nul_allowed) return false;
      ++at;
      continue;
    }
    std::size_t length = 0;
    std::uint8_t second_min = 0x80, second_max = classes.continuation_max;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) second_min = classes.e0_second_min;
      if (lead == 0xED) second_max = classes.ed_second_max;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) second_min = 0x90;
      if (lead == 0xF4) second_max = 0x8F;
    } else {
      return false;
    }
    if (text.size() - at < length) return false;
    if (byte(at + 1) < second_min || byte(at + 1) > second_max) return false;
    for (std::size_t k = 2; k < length; ++k)
      if (byte(at + k) < 0x80 || byte(at + k) > classes.continuation_max) return false;
    at += length;
  }
  return true;
}

}  // namespace kiln::mutants::relaxed
