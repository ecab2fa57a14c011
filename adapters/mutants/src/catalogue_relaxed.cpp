// The relaxed family: checks that are present but too loose. Where the other
// families mostly remove a check, each of these keeps it and gets it slightly
// wrong, as an implementer would: >= for ==, aligned for canonical, a field read
// as 32 bits, an end that wraps, a fixed table size, the first tensor only, a
// character class too wide or too narrow, a check run after the TYPE checks.
// A mutant whose bug changes where it reads from uses the relaxed frame reader
// (relaxed.hpp), which reads each part where an accepted offset points.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "relaxed.hpp"

namespace kiln::mutants::parts {
namespace {

// ---- Building blocks ----

// The reference with rule waived and the mutant's looser check of it in its place.
// A FRAME check runs on the frame (before any TYPE rule), a TYPE check after the
// reference's TYPE checks.
Mutant loosened(std::string_view name, std::string_view description, Rule rule,
                std::function<Check(const BlockView&, ByteSpan)> check) {
  Mutant mutant = missing(name, kFamilyRelaxed, description, rule);
  if (rule_info(rule).error_class == ErrorClass::kFrame)
    mutant.extra_frame_check = std::move(check);
  else
    mutant.extra_type_check = std::move(check);
  return mutant;
}

// A frame reader that accepts some off-canonical offsets and reads from them.
Mutant relaxed_reader(std::string_view name, std::string_view description,
                      relaxed::Leniency leniency) {
  Mutant mutant = make(name, kFamilyRelaxed, description);
  mutant.read_frame = [leniency](ByteSpan input) { return relaxed::read_frame(input, leniency); };
  return mutant;
}

// The input with bytes [from, from + count) of a field cleared, as a reader that
// reads only the field's low bytes sees it.
void clear(Bytes& bytes, std::uint64_t from, std::uint64_t count) {
  if (from >= bytes.size()) return;
  std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(from),
              std::min<std::uint64_t>(count, bytes.size() - from), std::uint8_t{0});
}

std::uint64_t stored_tensor_count(ByteSpan bytes) {
  return read_field(bytes, 0, header::kTensorCount).value_or(0);
}

// Each complete directory entry of the input (the count as stored, bounded by the input).
template <class Visit>
void for_each_entry(ByteSpan bytes, Visit visit) {
  const std::uint64_t count = stored_tensor_count(bytes);
  for (std::uint64_t i = 0; i < count && entry_start(i) + kEntrySize <= bytes.size(); ++i)
    visit(entry_start(i));
}

enum class FieldOf { kHeader, kEveryEntry };

// A u64 field read as a u32: its high four bytes are never looked at.
Mutant field_read_as_u32(std::string_view name, std::string_view description, const Field& field,
                         FieldOf where) {
  Mutant mutant = make(name, kFamilyRelaxed, description);
  mutant.reshape_input = [field, where](ByteSpan input) {
    Bytes copy(input.begin(), input.end());
    const std::uint64_t high_half = field.offset + std::uint64_t{4};
    if (where == FieldOf::kHeader) {
      if (copy.size() >= kHeaderSize) clear(copy, high_half, 4);
    } else {
      for_each_entry(input, [&](std::uint64_t entry) { clear(copy, entry + high_half, 4); });
    }
    return copy;
  };
  return mutant;
}

// Rules checked only after every TYPE rule: a TYPE defect anywhere wins over them.
Mutant checked_after_types(std::string_view name, std::string_view description,
                           std::initializer_list<Rule> late_rules) {
  Mutant mutant = make(name, kFamilyRelaxed, description);
  for (Rule rule : late_rules) mutant.waived.add(rule);
  mutant.extra_type_check = [](const BlockView&, ByteSpan input) -> Check {
    auto strict = kiln::decode(input);
    if (!strict) return protocol::reject_from(strict.error());
    return std::nullopt;
  };
  return mutant;
}

// ---- Where things are in the input, for the frame checks below ----

std::uint64_t offset_in(ByteSpan input, const void* at) {
  return static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(at) - input.data());
}

std::uint64_t heap_start_of(const BlockView& view) { return entry_start(view.tensors.size()); }

// Heap-relative end of tensor i's content (shape, name, layout), canonical positions.
std::uint64_t content_end(const BlockView& view, ByteSpan input, std::size_t i) {
  const TensorView& tensor = view.tensors[i];
  return offset_in(input, tensor.name.data()) - heap_start_of(view) + tensor.name.size() +
         tensor.layout.size();
}

// Payload-relative end of the last payload (0 with no tensors).
std::uint64_t last_payload_end(const BlockView& view, ByteSpan input) {
  if (view.tensors.empty()) return 0;
  const auto& payload = view.tensors.back().payload;
  return offset_in(input, payload.data()) + payload.size() -
         *read_field(input, 0, header::kPayloadOffset);
}

bool zero_bytes(ByteSpan input, std::uint64_t begin, std::uint64_t end) {
  return std::all_of(input.begin() + static_cast<std::ptrdiff_t>(begin),
                     input.begin() + static_cast<std::ptrdiff_t>(end),
                     [](std::uint8_t b) { return b == 0; });
}

// ---- Dtype helpers for the TYPE checks below ----

bool closed(const TensorView& tensor) {
  return classify_code(tensor.dtype) == CodeClass::kClosed;
}

// The byte length of `count` elements, nullopt when above 2^64 - 1.
std::optional<std::uint64_t> bytes_for(const DtypeInfo& info, std::uint64_t count) {
  if (info.packing == Packing::kNibble) return count / 2 + count % 2;
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{info.width}, &bytes)) return std::nullopt;
  return bytes;
}

// TYPE-BYTE-LENGTH with the implementer's own element count (nullopt: "too large").
Mutant length_by_count(std::string_view name, std::string_view description,
                       std::optional<std::uint64_t> (*count_of)(const TensorView&)) {
  return loosened(name, description, Rule::kTypeByteLength,
                  [count_of](const BlockView& view, ByteSpan) -> Check {
                    for (const auto& tensor : view.tensors) {
                      if (!closed(tensor)) continue;
                      const auto count = count_of(tensor);
                      const auto want = count ? bytes_for(*find_dtype(tensor.dtype), *count)
                                              : std::nullopt;
                      if (!want || tensor.payload.size() != *want)
                        return reject(Rule::kTypeByteLength, "byte_length does not fit the shape");
                    }
                    return std::nullopt;
                  });
}

// ---- Names ----

Mutant name_utf8_classes(std::string_view name, std::string_view description,
                         relaxed::Utf8Classes classes) {
  return loosened(name, description, Rule::kFrameNameUtf8,
                  [classes](const BlockView& view, ByteSpan) -> Check {
                    for (const auto& tensor : view.tensors)
                      if (!relaxed::valid_utf8(tensor.name, classes))
                        return reject(Rule::kFrameNameUtf8, "name is not valid UTF-8");
                    return std::nullopt;
                  });
}

// ---- The families' parts ----

std::vector<Mutant> header_fields() {
  std::vector<Mutant> mutants;
  {
    Mutant m = make("magic-case-insensitive", kFamilyRelaxed,
                    "the magic is compared ASCII case-insensitively (\"kiln\" passes)");
    m.reshape_input = [](ByteSpan input) {
      Bytes copy(input.begin(), input.end());
      for (std::size_t i = 0; i < kMagic.size() && i < copy.size(); ++i)
        if (copy[i] >= 'a' && copy[i] <= 'z') copy[i] = static_cast<std::uint8_t>(copy[i] - 'a' + 'A');
      return copy;
    };
    mutants.push_back(std::move(m));
  }
  {
    Mutant m = make("magic-first-three-bytes", kFamilyRelaxed,
                    "the magic is compared over 3 bytes, not 4 (\"KIL?\" passes)");
    m.reshape_input = [](ByteSpan input) {
      Bytes copy(input.begin(), input.end());
      if (copy.size() >= kMagic.size() && std::equal(kMagic.begin(), kMagic.begin() + 3, copy.begin()))
        copy[3] = kMagic[3];
      return copy;
    };
    mutants.push_back(std::move(m));
  }
  mutants.push_back(loosened("version-at-most-2", "the version must be <= 2, not == 2 (0 and 1 pass)",
                             Rule::kFrameVersion, [](const BlockView&, ByteSpan input) -> Check {
                               if (input[header::kVersionField.offset] > kVersion)
                                 return reject(Rule::kFrameVersion, "version above 2");
                               return std::nullopt;
                             }));
  mutants.push_back(loosened("flags-bit7-unchecked",
                             "the reserved flag bits are masked with 0x7D: bit 7 is never checked",
                             Rule::kFrameFlagsReserved, [](const BlockView&, ByteSpan input) -> Check {
                               if (input[header::kFlags.offset] & 0x7D)
                                 return reject(Rule::kFrameFlagsReserved, "flags set a reserved bit");
                               return std::nullopt;
                             }));
  mutants.push_back(loosened("header-reserved-low-byte-only",
                             "the reserved header field is read as a u8: byte 7 is never checked",
                             Rule::kFrameHeaderReserved, [](const BlockView&, ByteSpan input) -> Check {
                               if (input[header::kReserved.offset] != 0)
                                 return reject(Rule::kFrameHeaderReserved, "reserved byte 6 is not 0");
                               return std::nullopt;
                             }));
  return mutants;
}

std::vector<Mutant> offsets() {
  using relaxed::OffsetSeen;
  std::vector<Mutant> mutants;
  mutants.push_back(relaxed_reader(
      "payload-offset-at-least",
      "payload_offset need only be a multiple of 64 at or past align64(heap end): a longer gap passes",
      {.payload_offset = [](const OffsetSeen& seen) {
        return seen.stated >= seen.canonical && seen.stated % kPayloadAlign == 0;
      }}));
  mutants.push_back(relaxed_reader(
      "payload-offset-unaligned",
      "payload_offset need only be at or past the heap's end, aligned or not",
      {.payload_offset = [](const OffsetSeen& seen) { return seen.stated >= seen.previous_end; }}));
  mutants.push_back(relaxed_reader(
      "shape-offset-aligned-only",
      "shape_offset need only be a multiple of 8 inside the heap, not the segment's canonical start",
      {.shape_offset = [](const OffsetSeen& seen) { return seen.stated % kHeapAlign == 0; }}));
  mutants.push_back(relaxed_reader(
      "shape-offset-first-tensor-only",
      "shape_offset is checked for the first tensor only; later segments are read where it points",
      {.shape_offset = [](const OffsetSeen& seen) { return seen.tensor > 0; }}));
  mutants.push_back(relaxed_reader(
      "name-offset-at-least", "name_offset need only be at or past the end of the shape (>= for ==)",
      {.name_offset = [](const OffsetSeen& seen) { return seen.stated >= seen.canonical; }}));
  mutants.push_back(relaxed_reader(
      "layout-offset-at-least", "layout_offset need only be at or past the name's end (>= for ==)",
      {.layout_offset = [](const OffsetSeen& seen) { return seen.stated >= seen.canonical; }}));
  mutants.push_back(relaxed_reader(
      "data-offset-at-least",
      "data_offset need only be a multiple of 64 at or past the canonical one: longer zero padding passes",
      {.data_offset = [](const OffsetSeen& seen) {
        return seen.stated >= seen.canonical && seen.stated % kPayloadAlign == 0;
      }}));
  mutants.push_back(relaxed_reader(
      "data-offset-no-overlap",
      "data_offset need only be at or past the previous payload's end, aligned or not",
      {.data_offset = [](const OffsetSeen& seen) { return seen.stated >= seen.previous_end; }}));
  mutants.push_back(relaxed_reader(
      "data-offset-first-tensor-only",
      "data_offset is checked for the first tensor only; later payloads are read where it points",
      {.data_offset = [](const OffsetSeen& seen) { return seen.tensor > 0; }}));
  return mutants;
}

std::vector<Mutant> lengths_and_padding() {
  std::vector<Mutant> mutants;
  mutants.push_back(relaxed_reader(
      "payload-end-wraps",
      "data_offset + byte_length is bound-checked modulo 2^64: a huge byte_length wraps past the check",
      {.payload_end_wraps = true}));
  mutants.push_back(loosened(
      "heap-spare-zero-allowed", "heap_length may exceed the last segment's end if the spare bytes are 0",
      Rule::kFrameHeapLength, [](const BlockView& view, ByteSpan input) -> Check {
        const std::uint64_t end =
            view.tensors.empty() ? 0
                                 : align_up(content_end(view, input, view.tensors.size() - 1), kHeapAlign);
        const std::uint64_t heap_length = *read_field(input, 0, header::kHeapLength);
        if (!zero_bytes(input, heap_start_of(view) + end, heap_start_of(view) + heap_length))
          return reject(Rule::kFrameHeapLength, "spare heap bytes are not 0");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "payload-length-rounded-to-64",
      "payload_length may also be the last payload's end rounded up to 64, the extra bytes 0",
      Rule::kFramePayloadLength, [](const BlockView& view, ByteSpan input) -> Check {
        const std::uint64_t end = last_payload_end(view, input);
        const std::uint64_t length = *read_field(input, 0, header::kPayloadLength);
        const std::uint64_t region = *read_field(input, 0, header::kPayloadOffset);
        if (length != end && length != align_up(end, kPayloadAlign))
          return reject(Rule::kFramePayloadLength, "payload_length is not the payloads' end");
        if (!zero_bytes(input, region + end, region + length))
          return reject(Rule::kFramePayloadLength, "bytes after the last payload are not 0");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "trailing-zero-bytes-ignored", "zero bytes after the block's end are taken as padding",
      Rule::kFrameTrailing, [](const BlockView&, ByteSpan input) -> Check {
        const std::uint64_t end = *read_field(input, 0, header::kPayloadOffset) +
                                  *read_field(input, 0, header::kPayloadLength);
        if (!zero_bytes(input, end, input.size()))
          return reject(Rule::kFrameTrailing, "nonzero bytes follow the block's end");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "heap-padding-first-segment-only", "heap segment padding is checked in the first segment only",
      Rule::kFramePadHeap, [](const BlockView& view, ByteSpan input) -> Check {
        if (view.tensors.empty()) return std::nullopt;
        const std::uint64_t end = content_end(view, input, 0);
        if (!zero_bytes(input, heap_start_of(view) + end,
                        heap_start_of(view) + align_up(end, kHeapAlign)))
          return reject(Rule::kFramePadHeap, "heap padding byte is not 0");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "payload-padding-first-gap-only",
      "the zero padding between payloads is checked before the second payload only",
      Rule::kFramePadPayload, [](const BlockView& view, ByteSpan input) -> Check {
        if (view.tensors.size() < 2) return std::nullopt;
        const auto& first = view.tensors[0].payload;
        if (!zero_bytes(input, offset_in(input, first.data()) + first.size(),
                        offset_in(input, view.tensors[1].payload.data())))
          return reject(Rule::kFramePadPayload, "padding before the payload is not 0");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "entry-reserved-first-tensor-only", "the reserved entry bytes are checked in entry 0 only",
      Rule::kFrameEntryReserved, [](const BlockView& view, ByteSpan input) -> Check {
        if (view.tensors.empty()) return std::nullopt;
        for (const Field* field : {&entry::kReserved28, &entry::kReserved48, &entry::kReserved56})
          if (read_field(input, entry_start(0), *field) != 0)
            return reject(Rule::kFrameEntryReserved, "reserved entry bytes are not 0");
        return std::nullopt;
      }));
  return mutants;
}

std::vector<Mutant> fields_read_as_u32() {
  std::vector<Mutant> mutants;
  mutants.push_back(field_read_as_u32("payload-offset-read-as-u32",
                                      "payload_offset is read as a u32: its high half is ignored",
                                      header::kPayloadOffset, FieldOf::kHeader));
  mutants.push_back(field_read_as_u32("payload-length-read-as-u32",
                                      "payload_length is read as a u32: its high half is ignored",
                                      header::kPayloadLength, FieldOf::kHeader));
  mutants.push_back(field_read_as_u32("data-offset-read-as-u32",
                                      "data_offset is read as a u32: its high half is ignored",
                                      entry::kDataOffset, FieldOf::kEveryEntry));
  mutants.push_back(field_read_as_u32("byte-length-read-as-u32",
                                      "byte_length is read as a u32: its high half is ignored",
                                      entry::kByteLength, FieldOf::kEveryEntry));
  {
    Mutant m = make("dimension-read-as-u32", kFamilyRelaxed,
                    "each dimension is read as a u32: its high half is ignored");
    m.reshape_input = [](ByteSpan input) {
      Bytes copy(input.begin(), input.end());
      const std::uint64_t heap_start = entry_start(stored_tensor_count(input));
      for_each_entry(input, [&](std::uint64_t entry) {
        const std::uint64_t shape = heap_start + *read_field(input, entry, entry::kShapeOffset);
        const std::uint64_t rank = *read_field(input, entry, entry::kRank);
        for (std::uint64_t axis = 0; axis < rank; ++axis)
          clear(copy, shape + kDimensionSize * axis + 4, 4);
      });
      return copy;
    };
    mutants.push_back(std::move(m));
  }
  return mutants;
}

std::vector<Mutant> names() {
  std::vector<Mutant> mutants;
  mutants.push_back(loosened("name-empty-first-tensor-only",
                             "name_length is checked for the first tensor only",
                             Rule::kFrameNameEmpty, [](const BlockView& view, ByteSpan) -> Check {
                               if (!view.tensors.empty() && view.tensors[0].name.empty())
                                 return reject(Rule::kFrameNameEmpty, "name_length is 0");
                               return std::nullopt;
                             }));
  mutants.push_back(loosened(
      "name-unique-adjacent-only",
      "each name is compared with the previous tensor's only (as if the names were sorted)",
      Rule::kFrameNameUnique, [](const BlockView& view, ByteSpan) -> Check {
        for (std::size_t i = 1; i < view.tensors.size(); ++i)
          if (view.tensors[i].name == view.tensors[i - 1].name)
            return reject(Rule::kFrameNameUnique, "name repeats the previous tensor's name");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "name-unique-first-8-tensors",
      "names go into a fixed table of 8: uniqueness is checked among the first 8 tensors only",
      Rule::kFrameNameUnique, [](const BlockView& view, ByteSpan) -> Check {
        constexpr std::size_t kTableSize = 8;
        std::set<std::string_view> table;
        for (std::size_t i = 0; i < view.tensors.size() && i < kTableSize; ++i)
          if (!table.insert(view.tensors[i].name).second)
            return reject(Rule::kFrameNameUnique, "name repeats an earlier tensor's name");
        return std::nullopt;
      }));
  mutants.push_back(name_utf8_classes(
      "name-utf8-continuation-too-wide",
      "the UTF-8 check takes any byte 80..FF as a continuation byte (not 80..BF)",
      {.continuation_max = 0xFF}));
  mutants.push_back(name_utf8_classes(
      "name-utf8-surrogate-range-too-wide",
      "the UTF-8 check excludes ED 90..BF, not ED A0..BF: U+D400..U+D7FF are rejected",
      {.ed_second_max = 0x8F}));
  mutants.push_back(name_utf8_classes("name-utf8-nul-rejected",
                                      "the UTF-8 check counts U+0000 among the invalid bytes",
                                      {.nul_allowed = false}));
  mutants.push_back(loosened(
      "opaque-layout-utf8-e0-overlong-accepted",
      "the layout name's UTF-8 check takes E0 80..9F as a valid second byte (overlong forms pass)",
      Rule::kTypeOpaqueLayoutUtf8, [](const BlockView& view, ByteSpan) -> Check {
        for (const auto& tensor : view.tensors)
          if (classify_code(tensor.dtype) == CodeClass::kOpaque &&
              !relaxed::valid_utf8(tensor.layout, {.e0_second_min = 0x80}))
            return reject(Rule::kTypeOpaqueLayoutUtf8, "layout name is not valid UTF-8");
        return std::nullopt;
      }));
  return mutants;
}

std::vector<Mutant> types() {
  std::vector<Mutant> mutants;
  mutants.push_back(loosened(
      "byte-length-at-least", "byte_length need only be at least n x width (>= for ==)",
      Rule::kTypeByteLength, [](const BlockView& view, ByteSpan) -> Check {
        for (const auto& tensor : view.tensors) {
          if (!closed(tensor)) continue;
          const auto count = element_count(tensor.shape());
          const auto want = count ? bytes_for(*find_dtype(tensor.dtype), *count) : std::nullopt;
          if (!want || tensor.payload.size() < *want)
            return reject(Rule::kTypeByteLength, "byte_length is too short for the shape");
        }
        return std::nullopt;
      }));
  mutants.push_back(length_by_count(
      "element-count-32-bit", "the element count n is kept in a uint32_t and wraps modulo 2^32",
      [](const TensorView& tensor) -> std::optional<std::uint64_t> {
        const auto count = element_count(tensor.shape());
        if (!count) return std::nullopt;
        return static_cast<std::uint32_t>(*count);
      }));
  mutants.push_back(length_by_count(
      "element-count-first-8-dimensions",
      "the dimensions go into a fixed table of 8: n is the product of the first 8 only",
      [](const TensorView& tensor) {
        auto shape = tensor.shape();
        constexpr std::size_t kTableSize = 8;
        if (shape.size() > kTableSize) shape.resize(kTableSize);
        return element_count(shape);
      }));
  mutants.push_back(loosened(
      "bool-byte-signed", "bool bytes are compared as signed chars: 80..FF are below 1 and pass",
      Rule::kTypeBoolByte, [](const BlockView& view, ByteSpan) -> Check {
        for (const auto& tensor : view.tensors)
          if (tensor.dtype == find_dtype("bool")->code)
            for (std::uint8_t b : tensor.payload)
              if (static_cast<std::int8_t>(b) > 1)
                return reject(Rule::kTypeBoolByte, "bool byte is not 0 or 1");
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "high-nibble-top-bit-only",
      "the unused high nibble is tested with 0x80 (its sign bit), not 0xF0",
      Rule::kTypeHighNibble, [](const BlockView& view, ByteSpan) -> Check {
        for (const auto& tensor : view.tensors) {
          const DtypeInfo* info = find_dtype(tensor.dtype);
          const auto count = element_count(tensor.shape());
          if (info && info->packing == Packing::kNibble && count && *count % 2 == 1 &&
              !tensor.payload.empty() && (tensor.payload.back() & 0x80) != 0)
            return reject(Rule::kTypeHighNibble, "high nibble is not 0");
        }
        return std::nullopt;
      }));
  mutants.push_back(loosened(
      "closed-block-size-low-byte",
      "a closed dtype's block_size is read as a u8: 256 and its multiples pass",
      Rule::kTypeClosedBlockSize, [](const BlockView& view, ByteSpan) -> Check {
        for (const auto& tensor : view.tensors)
          if (closed(tensor) && (tensor.block_size & 0xFF) != 0)
            return reject(Rule::kTypeClosedBlockSize, "closed dtype has a block size");
        return std::nullopt;
      }));
  return mutants;
}

std::vector<Mutant> order() {
  std::vector<Mutant> mutants;
  mutants.push_back(checked_after_types(
      "names-after-types",
      "the name checks (empty, UTF-8, unique) run in a pass after the TYPE checks",
      {Rule::kFrameNameEmpty, Rule::kFrameNameUtf8, Rule::kFrameNameUnique}));
  mutants.push_back(checked_after_types(
      "padding-after-types", "the zero-padding checks (heap, payloads, gap) run after the TYPE checks",
      {Rule::kFramePadHeap, Rule::kFramePadPayload, Rule::kFramePadGap}));
  {
    Mutant m = make("types-checked-per-tensor", kFamilyRelaxed,
                    "one pass: each tensor's TYPE rules right after its entry's FRAME checks, so a "
                    "TYPE defect wins over a FRAME defect in a later tensor");
    m.read_frame = [](ByteSpan input) -> std::variant<Reject, BlockDescription> {
      BlockDescription before;
      auto read = relaxed::read_frame(input, {}, &before);
      if (std::holds_alternative<BlockDescription>(read)) return read;
      // The tensors read before the frame defect, each judged in turn with its
      // names and dtype: a TYPE defect among them is what this reader reports.
      BlockDescription prefix;
      for (auto& tensor : before.tensors) {
        prefix.tensors.push_back(std::move(tensor));
        auto built = kiln::build(prefix);
        if (!built) break;
        auto judged = kiln::decode(built.value().bytes);
        if (judged) continue;
        if (judged.error().error_class() == ErrorClass::kType)
          return protocol::reject_from(judged.error());
        break;
      }
      return read;
    };
    mutants.push_back(std::move(m));
  }
  return mutants;
}

}  // namespace

std::vector<Mutant> relaxed_mutants() {
  std::vector<Mutant> family;
  for (auto part : {header_fields, offsets, lengths_and_padding, fields_read_as_u32, names, types,
                    order})
    for (Mutant& mutant : part()) family.push_back(std::move(mutant));
  return family;
}

}  // namespace kiln::mutants::parts
