#include "kiln/conformance/block_diff.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/endian.hpp"
#include "kiln/first_difference.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance {
namespace {

constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kRowBytes = 16;
// The most bytes a summary shows of one side.
constexpr std::uint64_t kSummaryBytes = 8;
// Directory entries scanned for heap and payload spans: the expected block is a
// case's, but nothing here trusts that it is small.
constexpr std::uint64_t kMaxScannedEntries = 1u << 20;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > kNoEnd - b ? kNoEnd : a + b;
}

std::uint64_t end_of(const ByteSpan& span) { return saturating_add(span.start, span.length); }

// A little-endian field at offset, or nullopt when it does not fit in the block.
std::optional<std::uint64_t> read_field(std::span<const std::uint8_t> block, std::uint64_t offset,
                                        const Field& field) {
  if (offset > block.size() || block.size() - offset < field.offset + field.width) return std::nullopt;
  return load_le(block.data() + offset + field.offset, field.width);
}

ByteSpan span_between(std::uint64_t start, std::uint64_t end, std::string name) {
  return ByteSpan{start, end > start ? end - start : 1, std::move(name)};
}

struct EntryView {
  std::uint64_t index;
  std::uint64_t start;  // of the entry in the block
};

// Calls visit(EntryView) for each directory entry that lies wholly in the block.
template <class Visit>
void for_each_entry(std::span<const std::uint8_t> block, std::uint64_t count, Visit visit) {
  const std::uint64_t whole =
      block.size() < kHeaderSize ? 0 : (block.size() - kHeaderSize) / kEntrySize;
  const std::uint64_t limit = std::min({count, whole, kMaxScannedEntries});
  for (std::uint64_t i = 0; i < limit; ++i) visit(EntryView{i, entry_start(i)});
}

std::string tensor_name(std::uint64_t index) { return "tensor " + std::to_string(index); }

// heap_offset is relative to the heap's first byte.
ByteSpan locate_in_heap(std::span<const std::uint8_t> block, std::uint64_t count, std::uint64_t heap_start,
                        std::uint64_t heap_length, std::uint64_t heap_offset) {
  std::optional<ByteSpan> found;
  // The segment whose start is the last one at or before heap_offset, and the
  // first segment start after it: the padding's owner and its end.
  std::optional<std::uint64_t> owner;
  std::uint64_t owner_start = 0, owner_content_end = 0, next_start = heap_length;
  for_each_entry(block, count, [&](EntryView entry) {
    if (found) return;
    const auto rank = read_field(block, entry.start, entry::kRank).value_or(0);
    const auto shape = read_field(block, entry.start, entry::kShapeOffset).value_or(0);
    const auto name = read_field(block, entry.start, entry::kNameOffset).value_or(0);
    const auto name_length = read_field(block, entry.start, entry::kNameLength).value_or(0);
    const auto layout = read_field(block, entry.start, entry::kLayoutOffset).value_or(0);
    const auto layout_length = read_field(block, entry.start, entry::kLayoutLength).value_or(0);
    const std::string tensor = tensor_name(entry.index);
    const ByteSpan parts[] = {{shape, rank * kDimensionSize, tensor + " shape"},
                              {name, name_length, tensor + " name"},
                              {layout, layout_length, tensor + " layout"}};
    std::uint64_t content_end = shape;
    for (const ByteSpan& part : parts) {
      if (part.length == 0) continue;
      content_end = std::max(content_end, end_of(part));
      if (heap_offset >= part.start && heap_offset < end_of(part)) found = part;
    }
    if (shape <= heap_offset && (!owner || shape >= owner_start)) {
      owner = entry.index, owner_start = shape, owner_content_end = content_end;
    }
    if (shape > heap_offset) next_start = std::min(next_start, shape);
  });
  ByteSpan span = found ? *found
                  : owner && heap_offset >= owner_content_end
                      ? span_between(owner_content_end, next_start, tensor_name(*owner) + " heap padding")
                      : span_between(0, heap_length, "heap");
  span.start = saturating_add(heap_start, span.start);
  return span;
}

// payload_offset_in_region is relative to the payload region's first byte.
ByteSpan locate_in_payloads(std::span<const std::uint8_t> block, std::uint64_t count,
                            std::uint64_t region_start, std::uint64_t region_length,
                            std::uint64_t offset_in_region) {
  std::optional<ByteSpan> found;
  std::optional<std::uint64_t> owner;
  std::uint64_t owner_end = 0, next_start = region_length;
  for_each_entry(block, count, [&](EntryView entry) {
    if (found) return;
    const auto data = read_field(block, entry.start, entry::kDataOffset).value_or(0);
    const auto length = read_field(block, entry.start, entry::kByteLength).value_or(0);
    const ByteSpan payload{data, length, tensor_name(entry.index) + " payload"};
    if (length > 0 && offset_in_region >= data && offset_in_region < end_of(payload)) found = payload;
    if (end_of(payload) <= offset_in_region && (!owner || end_of(payload) >= owner_end))
      owner = entry.index, owner_end = end_of(payload);
    if (data > offset_in_region) next_start = std::min(next_start, data);
  });
  ByteSpan span = found   ? *found
                  : owner ? span_between(owner_end, next_start, tensor_name(*owner) + " payload padding")
                          : span_between(0, region_length, "payload region");
  span.start = saturating_add(region_start, span.start);
  return span;
}

std::string hex_bytes(std::span<const std::uint8_t> bytes) {
  std::string out;
  char pair[4];
  for (std::uint8_t byte : bytes) {
    std::snprintf(pair, sizeof pair, "%02x", byte);
    if (!out.empty()) out += ' ';
    out += pair;
  }
  return out;
}

}  // namespace

ByteSpan locate_in_block(std::span<const std::uint8_t> block, std::uint64_t offset) {
  const std::uint64_t size = block.size();
  if (offset >= size) return ByteSpan{size, kNoEnd - size, "past the expected block's end"};
  if (offset < kHeaderSize) {
    for (const Field& field : header::kAll)
      if (offset >= field.offset && offset < std::uint64_t{field.offset} + field.width)
        return ByteSpan{field.offset, field.width, "header " + std::string(field.name)};
  }
  const std::uint64_t count = read_field(block, 0, header::kTensorCount).value_or(0);
  const std::uint64_t directory_end = entry_start(count);
  if (offset < directory_end) {
    const std::uint64_t index = (offset - kHeaderSize) / kEntrySize;
    const std::uint64_t within = (offset - kHeaderSize) % kEntrySize;
    for (const Field& field : entry::kAll)
      if (within >= field.offset && within < std::uint64_t{field.offset} + field.width)
        return ByteSpan{entry_start(index) + field.offset, field.width,
                        "entry " + std::to_string(index) + " " + std::string(field.name)};
  }
  const std::uint64_t heap_length = read_field(block, 0, header::kHeapLength).value_or(0);
  const std::uint64_t heap_end = directory_end + heap_length;
  if (offset < heap_end) return locate_in_heap(block, count, directory_end, heap_length, offset - directory_end);
  const std::uint64_t payload_offset = read_field(block, 0, header::kPayloadOffset).value_or(heap_end);
  if (offset < payload_offset) return span_between(heap_end, payload_offset, "gap");
  const std::uint64_t payload_length = read_field(block, 0, header::kPayloadLength).value_or(0);
  const std::uint64_t payload_end = saturating_add(payload_offset, payload_length);
  if (offset >= payload_end) return span_between(payload_end, size, "bytes after the payload region");
  return locate_in_payloads(block, count, payload_offset, payload_length, offset - payload_offset);
}

std::string ByteDifference::summary() const {
  // A small field is shown whole; a large one from the differing byte on.
  const bool whole = field.length <= kSummaryBytes && field.start <= offset;
  const std::uint64_t start = whole ? field.start : offset;
  const std::uint64_t end = whole ? end_of(field) : std::min(end_of(field), offset + kSummaryBytes);
  // The window holds these bytes: it starts at or before the field and runs
  // kWindowRows rows from there.
  const auto side = [&](const std::vector<std::uint8_t>& window, std::uint64_t size) {
    if (start < window_start) return std::string("?");
    const std::uint64_t stop = std::min(end, window_start + window.size());
    std::string text = start - window_start >= window.size()
                           ? std::string()
                           : hex_bytes(std::span(window).subspan(start - window_start, stop - start));
    if (text.empty()) return "nothing (it ends at byte " + std::to_string(size) + ")";
    if (stop < end && stop >= size) text += " (end)";
    return text;
  };
  return "byte " + std::to_string(offset) + ": " + field.name + ": expected " +
         side(expected_window, expected_size) + ", got " + side(got_window, got_size);
}

std::optional<ByteDifference> compare_bytes(std::span<const std::uint8_t> expected,
                                            std::span<const std::uint8_t> got, Naming naming) {
  const std::uint64_t offset = kiln::first_difference(expected, got);
  if (offset == expected.size() && offset == got.size()) return std::nullopt;
  ByteDifference difference;
  difference.offset = offset;
  difference.expected_size = expected.size();
  difference.got_size = got.size();
  const auto name = [&](std::uint64_t at) {
    if (naming.kind == Naming::Kind::kBlock) return locate_in_block(expected, at);
    const std::string payload =
        naming.kind == Naming::Kind::kData ? std::string("data") : tensor_name(naming.tensor) + " payload";
    if (at >= expected.size())
      return ByteSpan{expected.size(), kNoEnd - expected.size(), "past the end of " + payload};
    return ByteSpan{0, expected.size(), payload};
  };
  difference.field = name(offset);
  // The window starts one row before the differing byte's row, and earlier when
  // that leaves a small field's first bytes out, so the summary's bytes are in it.
  std::uint64_t start = offset / kRowBytes * kRowBytes;
  start = start >= kRowBytes ? start - kRowBytes : 0;
  if (difference.field.length <= kSummaryBytes && difference.field.start < start)
    start = difference.field.start / kRowBytes * kRowBytes;
  difference.window_start = start;
  const std::uint64_t end = start + kWindowRows * kRowBytes;
  const auto cut = [&](std::span<const std::uint8_t> bytes) {
    if (start >= bytes.size()) return std::vector<std::uint8_t>{};
    const std::uint64_t stop = std::min<std::uint64_t>(end, bytes.size());
    return std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(start),
                                     bytes.begin() + static_cast<std::ptrdiff_t>(stop));
  };
  difference.expected_window = cut(expected);
  difference.got_window = cut(got);
  for (std::uint64_t at = start; at < end;) {
    ByteSpan span = name(at);
    // Clip to the window, so that a span's bytes are all shown.
    const std::uint64_t span_end = std::min(end_of(span), end);
    span.length = span_end - std::max(span.start, at);
    span.start = std::max(span.start, at);
    if (span.length == 0) break;  // never loops on a span that does not advance
    at = span_end;
    difference.window_fields.push_back(std::move(span));
  }
  return difference;
}

std::vector<std::string> window_lines(const ByteDifference& difference) {
  std::vector<std::string> lines;
  const std::uint64_t rows =
      (std::max(difference.expected_window.size(), difference.got_window.size()) + kRowBytes - 1) / kRowBytes;
  char address[24];
  for (std::uint64_t row = 0; row < rows; ++row) {
    const std::uint64_t row_start = difference.window_start + row * kRowBytes;
    const auto side = [&](const std::vector<std::uint8_t>& window) {
      std::string text;
      char pair[8];
      for (std::uint64_t k = 0; k < kRowBytes; ++k) {
        const std::uint64_t at = row * kRowBytes + k;
        if (at >= window.size()) break;
        const bool marked = row_start + k == difference.offset;
        std::snprintf(pair, sizeof pair, marked ? "[%02x]" : " %02x ", window[at]);
        text += pair;
      }
      return text;
    };
    std::snprintf(address, sizeof address, "%04llx", static_cast<unsigned long long>(row_start));
    lines.push_back(std::string(address) + "  expected " + side(difference.expected_window));
    lines.push_back(std::string(4, ' ') + "  got      " + side(difference.got_window));
  }
  return lines;
}

}  // namespace kiln::conformance
