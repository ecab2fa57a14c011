// Encoder bugs: kiln::build's canonical bytes rewritten (padding, alignment,
// offsets, heap segments), tensors reordered, or no refusal at all.
#include <algorithm>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "kiln/utf8.hpp"

namespace kiln::mutants::parts {
namespace {

Mutant encoder_bug(std::string_view name, std::string_view description,
                   std::function<void(Bytes&, const Placement&, const BlockDescription&)> rewrite) {
  Mutant mutant = make(name, kFamilyEncoder, description);
  mutant.rewrite_encoded = std::move(rewrite);
  return mutant;
}

void fill(Bytes& bytes, std::uint64_t begin, std::uint64_t end) {
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(begin),
            bytes.begin() + static_cast<std::ptrdiff_t>(end), std::uint8_t{0xCD});
}

// The payload region laid out again with payloads aligned to `alignment`.
void relay_payloads(Bytes& bytes, const Placement& placement, const BlockDescription& block,
                    std::uint64_t alignment) {
  Bytes region;
  for (std::size_t i = 0; i < block.tensors.size(); ++i) {
    const auto& payload = block.tensors[i].payload;
    const std::uint64_t start = align_up(region.size(), alignment);
    region.resize(start);
    region.insert(region.end(), payload.begin(), payload.end());
    write_field(bytes, placement.tensors[i].entry, entry::kDataOffset, start);
  }
  write_field(bytes, 0, header::kPayloadLength, region.size());
  bytes.resize(placement.payload_offset);
  bytes.insert(bytes.end(), region.begin(), region.end());
}

// The heap laid out again with the segments back to back, padded only at its end.
void relay_heap_unpadded(Bytes& bytes, const Placement& placement, const BlockDescription& block) {
  Bytes heap;
  for (std::size_t i = 0; i < block.tensors.size(); ++i) {
    const auto& tensor = block.tensors[i];
    const std::uint64_t entry = placement.tensors[i].entry;
    write_field(bytes, entry, entry::kShapeOffset, heap.size());
    for (std::uint64_t dimension : tensor.shape) {
      heap.resize(heap.size() + kDimensionSize);
      store_le(heap.data() + heap.size() - kDimensionSize, kDimensionSize, dimension);
    }
    write_field(bytes, entry, entry::kNameOffset, heap.size());
    heap.insert(heap.end(), tensor.name.begin(), tensor.name.end());
    write_field(bytes, entry, entry::kLayoutOffset, tensor.layout.empty() ? 0 : heap.size());
    heap.insert(heap.end(), tensor.layout.begin(), tensor.layout.end());
  }
  heap.resize(align_up(heap.size(), kHeapAlign));
  const std::uint64_t payload_offset = align_up(placement.heap_start + heap.size(), kPayloadAlign);
  write_field(bytes, 0, header::kHeapLength, heap.size());
  write_field(bytes, 0, header::kPayloadOffset, payload_offset);
  Bytes out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(placement.heap_start));
  out.insert(out.end(), heap.begin(), heap.end());
  out.resize(payload_offset);
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(placement.payload_offset),
             bytes.end());
  bytes = std::move(out);
}

}  // namespace

std::vector<Mutant> encoder_mutants() {
  std::vector<Mutant> family;
  family.push_back(encoder_bug(
      "enc-heap-padding-not-zeroed", "heap segment padding is left uninitialised",
      [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
        for (std::size_t i = 0; i < block.tensors.size(); ++i) {
          const auto& at = placement.tensors[i];
          fill(bytes, at.layout + block.tensors[i].layout.size(), at.segment_end);
        }
      }));
  family.push_back(encoder_bug(
      "enc-payload-padding-filled", "padding between payloads is left uninitialised",
      [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
        std::uint64_t previous_end = placement.payload_offset;
        for (const auto& at : placement.tensors) {
          fill(bytes, previous_end, at.data);
          previous_end = at.data_end;
        }
      }));
  family.push_back(encoder_bug(
      "enc-gap-padding-filled", "padding between the heap and payload_offset is left uninitialised",
      [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
        fill(bytes, placement.heap_start + placement.heap_length, placement.payload_offset);
      }));
  family.push_back(encoder_bug(
      "enc-payload-length-rounded-up",
      "payload_length is rounded up to 64 and the block padded to it",
      [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
        const std::uint64_t length = align_up(placement.payload_length, kPayloadAlign);
        write_field(bytes, 0, header::kPayloadLength, length);
        bytes.resize(placement.payload_offset + length, 0);
      }));
  family.push_back(encoder_bug(
      "enc-data-offset-from-block-start", "data_offset is written relative to the block start",
      [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
        for (const auto& at : placement.tensors)
          write_field(bytes, at.entry, entry::kDataOffset, at.data);
      }));
  family.push_back(encoder_bug(
      "enc-payload-align-8", "payloads are aligned to 8 bytes instead of 64",
      [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
        relay_payloads(bytes, placement, block, 8);
      }));
  family.push_back(encoder_bug(
      "enc-heap-segments-unpadded",
      "heap segments are written back to back, the heap padded only at its end",
      relay_heap_unpadded));
  family.push_back(encoder_bug(
      "enc-layout-offset-for-empty-layout",
      "layout_offset points past the name even when there is no layout",
      [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
        for (std::size_t i = 0; i < block.tensors.size(); ++i)
          if (block.tensors[i].layout.empty())
            write_field(bytes, placement.tensors[i].entry, entry::kLayoutOffset,
                        placement.tensors[i].layout - placement.heap_start);
      }));
  family.push_back(encoder_bug(
      "enc-empty-block-header-only",
      "a block with no tensors is the 32-byte header alone (payload_offset 32)",
      [](Bytes& bytes, const Placement&, const BlockDescription& block) {
        if (!block.tensors.empty()) return;
        bytes.resize(kHeaderSize);
        write_field(bytes, 0, header::kPayloadOffset, kHeaderSize);
      }));
  {
    Mutant m = make("enc-sorted-by-name", kFamilyEncoder,
                    "tensors are written in sorted name order (a std::map), not the given order");
    m.reorder = [](BlockDescription& block) {
      std::stable_sort(block.tensors.begin(), block.tensors.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; });
    };
    family.push_back(std::move(m));
  }
  {
    // What an adapter does whose library holds layout names only as text, and
    // refuses the request as soon as one is not UTF-8: FRAME rules of the names
    // (empty, not UTF-8, repeated), even of earlier tensors, come first.
    Mutant m = make("enc-layout-utf8-first", kFamilyEncoder,
                    "the encoder answers TYPE for a layout name that is not UTF-8 before the "
                    "FRAME checks of the names");
    m.refuse_description = [](const BlockDescription& block) -> std::optional<protocol::Reject> {
      for (const auto& tensor : block.tensors)
        if (!is_valid_utf8(tensor.layout))
          return protocol::Reject{ErrorClass::kType, "a layout name is not UTF-8",
                                  std::string(rule_info(Rule::kTypeOpaqueLayoutUtf8).id), std::nullopt};
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("enc-no-refusal", kFamilyEncoder,
                    "the encoder writes whatever it is given, valid or not");
    m.encoder_refuses = false;
    family.push_back(std::move(m));
  }
  return family;
}

}  // namespace kiln::mutants::parts
