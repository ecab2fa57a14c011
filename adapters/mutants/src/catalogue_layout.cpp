// Where things are: offsets, lengths, padding, truncation and trailing bytes.
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/layout.hpp"

namespace kiln::mutants::parts {
namespace {

std::uint64_t heap_start(const BlockView& view) { return entry_start(view.tensors.size()); }

}  // namespace

// Not here: "heap_length need not be a multiple of 8" (FRAME-HEAP-ALIGN waived) is
// equivalent to the reference, since segments end 8-aligned and the total check
// FRAME-HEAP-LENGTH then rejects every unaligned heap_length, with the same class.
std::vector<Mutant> offsets_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("payload-offset-unchecked", kFamilyOffsets,
                           "payload_offset is never compared with align64(heap end)",
                           Rule::kFramePayloadOffset));
  family.push_back(missing("shape-offset-unchecked", kFamilyOffsets,
                           "shape_offset is not checked", Rule::kFrameShapeOffset));
  family.push_back(missing("name-offset-unchecked", kFamilyOffsets, "name_offset is not checked",
                           Rule::kFrameNameOffset));
  family.push_back(missing("layout-offset-unchecked", kFamilyOffsets,
                           "layout_offset is not checked", Rule::kFrameLayoutOffset));
  {
    Mutant m = missing("layout-offset-checked-only-with-layout", kFamilyOffsets,
                       "layout_offset is checked only when layout_length > 0 (need not be 0 without)",
                       Rule::kFrameLayoutOffset);
    m.extra_frame_check = [](const BlockView& view, ByteSpan input) -> Check {
      for (std::size_t i = 0; i < view.tensors.size(); ++i) {
        const auto& tensor = view.tensors[i];
        if (tensor.layout.empty()) continue;
        const auto name_at = static_cast<std::uint64_t>(
            reinterpret_cast<const std::uint8_t*>(tensor.name.data()) - input.data());
        const std::uint64_t canonical = name_at - heap_start(view) + tensor.name.size();
        if (read_field(input, entry_start(i), entry::kLayoutOffset) != canonical)
          return reject(Rule::kFrameLayoutOffset, "layout_offset is not canonical");
      }
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  family.push_back(missing("data-offset-unchecked", kFamilyOffsets, "data_offset is not checked",
                           Rule::kFrameDataOffset));
  {
    Mutant m = missing("data-offset-aligned-only", kFamilyOffsets,
                       "data_offset need only be a multiple of 64, not the canonical one",
                       Rule::kFrameDataOffset);
    m.extra_frame_check = [](const BlockView& view, ByteSpan input) -> Check {
      for (std::size_t i = 0; i < view.tensors.size(); ++i)
        if (read_field(input, entry_start(i), entry::kDataOffset).value_or(0) % kPayloadAlign)
          return reject(Rule::kFrameDataOffset, "data_offset is not a multiple of 64");
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> lengths_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("heap-length-spare-allowed", kFamilyLengths,
                           "heap_length may exceed the end of the last segment",
                           Rule::kFrameHeapLength));
  family.push_back(missing("payload-length-spare-allowed", kFamilyLengths,
                           "payload_length may exceed the end of the last payload",
                           Rule::kFramePayloadLength));
  return family;
}

std::vector<Mutant> padding_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("heap-padding-unchecked", kFamilyPadding,
                           "heap segment padding need not be zero", Rule::kFramePadHeap));
  family.push_back(missing("payload-padding-unchecked", kFamilyPadding,
                           "padding between payloads need not be zero", Rule::kFramePadPayload));
  family.push_back(missing("gap-padding-unchecked", kFamilyPadding,
                           "padding between the heap and payload_offset need not be zero",
                           Rule::kFramePadGap));
  return family;
}

std::vector<Mutant> truncation_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("trailing-bytes-ignored", kFamilyTruncation,
                           "bytes after the block's end are ignored", Rule::kFrameTrailing));
  {
    Mutant m = make("short-read-zero-filled", kFamilyTruncation,
                    "reads into a zeroed buffer of the declared size: a short input is zero-filled");
    m.reshape_input = [](ByteSpan input) {
      constexpr std::uint64_t kLargestBuffer = std::uint64_t{1} << 24;
      Bytes copy(input.begin(), input.end());
      std::uint64_t declared = kHeaderSize;
      if (copy.size() >= kHeaderSize) {
        const std::uint64_t offset = *read_field(copy, 0, header::kPayloadOffset);
        const std::uint64_t length = *read_field(copy, 0, header::kPayloadLength);
        if (offset <= kLargestBuffer && length <= kLargestBuffer) declared = offset + length;
      }
      if (copy.size() < declared) copy.resize(declared, 0);
      return copy;
    };
    family.push_back(std::move(m));
  }
  return family;
}

}  // namespace kiln::mutants::parts
