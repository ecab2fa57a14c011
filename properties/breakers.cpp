#include "breakers.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>

#include "generators.hpp"
#include "nibble.hpp"

namespace kiln::properties {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

std::uint64_t field_mask(const Field& field) {
  return field.width == 8 ? kU64Max : (std::uint64_t{1} << (8 * field.width)) - 1;
}

// Any value of the field's width other than original: near it or anywhere.
rc::Gen<std::uint64_t> other_value(const Field& field, std::uint64_t original) {
  return rc::gen::exec([field, original] {
    const std::uint64_t mask = field_mask(field);
    const auto delta = *rc::gen::inRange<std::uint64_t>(1, 65);
    std::uint64_t value = *rc::gen::weightedOneOf<std::uint64_t>({
        {2, rc::gen::just((original + delta) & mask)},
        {1, rc::gen::just((original - delta) & mask)},
        {2, rc::gen::map(rc::gen::arbitrary<std::uint64_t>(),
                         [mask](std::uint64_t v) { return v & mask; })},
    });
    if (value == original) value = original ^ 1;
    return value;
  });
}

rc::Gen<std::uint64_t> nonzero_value(const Field& field) {
  return rc::gen::exec([field] {
    const std::uint64_t value = *rc::gen::arbitrary<std::uint64_t>() & field_mask(field);
    return value == 0 ? std::uint64_t{1} : value;
  });
}

std::uint8_t nonzero_byte() { return static_cast<std::uint8_t>(*rc::gen::inRange(1, 256)); }

std::uint64_t get(const std::vector<std::uint8_t>& bytes, std::uint64_t base, const Field& field) {
  return *read_field(bytes, base, field);
}

void set(std::vector<std::uint8_t>& bytes, std::uint64_t base, const Field& field,
         std::uint64_t value) {
  RC_ASSERT(write_field(bytes, base, field, value));
}

std::string describe_set(const Field& field, std::uint64_t from, std::uint64_t to,
                         std::optional<std::size_t> tensor = std::nullopt) {
  std::string text = tensor ? "entry " + std::to_string(*tensor) + " " : std::string("header ");
  return text + std::string(field.name) + " " + std::to_string(from) + " -> " + std::to_string(to);
}

// Builds a base block, lets edit change the bytes, and records what it did.
// accept filters the base (say, "has heap padding"); edit may draw values.
template <class Accept, class Edit>
rc::Gen<BrokenBlock> edited(Rule rule, Base base, std::size_t min_tensors, Accept accept,
                            Edit edit) {
  return rc::gen::exec([=] {
    BrokenBlock broken;
    broken.rule = rule;
    broken.description = *rc::gen::suchThat(base_block(base, min_tensors), accept);
    BuiltBlock built = build(broken.description).value();
    broken.how = edit(built);
    broken.bytes = std::move(built.bytes);
    broken.byte_edits = true;
    return broken;
  });
}

template <class Edit>
rc::Gen<BrokenBlock> edited(Rule rule, Base base, std::size_t min_tensors, Edit edit) {
  return edited(rule, base, min_tensors, [](const BlockDescription&) { return true; }, edit);
}

std::size_t pick_tensor(const BuiltBlock& built) {
  return *rc::gen::inRange<std::size_t>(0, built.placement.tensors.size());
}

// ---- header ----

rc::Gen<BrokenBlock> break_truncated(Base base) {
  return edited(Rule::kFrameTruncated, base, 0, [](BuiltBlock& built) {
    const std::size_t size = built.bytes.size();
    const auto length = *rc::gen::inRange<std::size_t>(0, size);
    built.bytes.resize(length);
    return "cut to " + std::to_string(length) + " of " + std::to_string(size) + " bytes";
  });
}

rc::Gen<BrokenBlock> break_magic(Base base) {
  return edited(Rule::kFrameMagic, base, 0, [](BuiltBlock& built) {
    const auto at = *rc::gen::inRange<std::size_t>(0, 4);
    built.bytes[at] ^= nonzero_byte();
    return "magic byte " + std::to_string(at) + " changed";
  });
}

rc::Gen<BrokenBlock> break_version(Base base) {
  return edited(Rule::kFrameVersion, base, 0, [](BuiltBlock& built) {
    const auto version = *rc::gen::distinctFrom(rc::gen::arbitrary<std::uint8_t>(), kVersion);
    set(built.bytes, 0, header::kVersionField, version);
    return "version " + std::to_string(version);
  });
}

rc::Gen<BrokenBlock> break_le_flag(Base base) {
  return edited(Rule::kFrameLeFlag, base, 0, [](BuiltBlock& built) {
    // Other bits may be set too: the little-endian bit is checked first.
    const std::uint8_t flags = *rc::gen::arbitrary<std::uint8_t>() & ~kFlagLittleEndian;
    set(built.bytes, 0, header::kFlags, flags);
    return "flags " + std::to_string(flags);
  });
}

rc::Gen<BrokenBlock> break_flags_reserved(Base base) {
  return edited(Rule::kFrameFlagsReserved, base, 0, [](BuiltBlock& built) {
    const auto others = *rc::gen::suchThat(rc::gen::arbitrary<std::uint8_t>(), [](std::uint8_t v) {
      return (v & ~kFlagLittleEndian) != 0;
    });
    const std::uint8_t flags = others | kFlagLittleEndian;
    set(built.bytes, 0, header::kFlags, flags);
    return "flags " + std::to_string(flags);
  });
}

rc::Gen<BrokenBlock> break_header_reserved(Base base) {
  return edited(Rule::kFrameHeaderReserved, base, 0, [](BuiltBlock& built) {
    const auto value = *nonzero_value(header::kReserved);
    set(built.bytes, 0, header::kReserved, value);
    return describe_set(header::kReserved, 0, value);
  });
}

rc::Gen<BrokenBlock> break_heap_align(Base base) {
  return edited(Rule::kFrameHeapAlign, base, 0, [](BuiltBlock& built) {
    const std::uint64_t original = get(built.bytes, 0, header::kHeapLength);
    const std::uint64_t high = *rc::gen::oneOf(
        rc::gen::just(original), rc::gen::arbitrary<std::uint64_t>());
    const std::uint64_t value =
        ((high & ~std::uint64_t{7}) | *rc::gen::inRange<std::uint64_t>(1, 8)) &
        field_mask(header::kHeapLength);
    set(built.bytes, 0, header::kHeapLength, value);
    return describe_set(header::kHeapLength, original, value);
  });
}

rc::Gen<BrokenBlock> break_payload_offset(Base base) {
  return edited(Rule::kFramePayloadOffset, base, 0, [](BuiltBlock& built) {
    const std::uint64_t original = get(built.bytes, 0, header::kPayloadOffset);
    const auto value = *other_value(header::kPayloadOffset, original);
    set(built.bytes, 0, header::kPayloadOffset, value);
    return describe_set(header::kPayloadOffset, original, value);
  });
}

rc::Gen<BrokenBlock> break_trailing(Base base) {
  return edited(Rule::kFrameTrailing, base, 0, [](BuiltBlock& built) {
    const auto extra = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::uint8_t>>(
        rc::gen::arbitrary<std::uint8_t>()));
    built.bytes.insert(built.bytes.end(), extra.begin(), extra.end());
    return "appended " + to_hex(extra);
  });
}

// ---- directory entries ----

rc::Gen<BrokenBlock> break_entry_reserved(Base base) {
  return edited(Rule::kFrameEntryReserved, base, 1, [](BuiltBlock& built) {
    const std::size_t i = pick_tensor(built);
    const Field& field =
        **rc::gen::element(&entry::kReserved28, &entry::kReserved48, &entry::kReserved56);
    const auto value = *nonzero_value(field);
    set(built.bytes, built.placement.tensors[i].entry, field, value);
    return describe_set(field, 0, value, i);
  });
}

rc::Gen<BrokenBlock> break_name_empty(Base base) {
  return edited(Rule::kFrameNameEmpty, base, 1, [](BuiltBlock& built) {
    const std::size_t i = pick_tensor(built);
    const std::uint64_t at = built.placement.tensors[i].entry;
    const std::uint64_t original = get(built.bytes, at, entry::kNameLength);
    set(built.bytes, at, entry::kNameLength, 0);
    return describe_set(entry::kNameLength, original, 0, i);
  });
}

// Sets one entry field of a random tensor to a different value.
rc::Gen<BrokenBlock> break_entry_field(Rule rule, Base base, const Field& field) {
  return edited(rule, base, 1, [field](BuiltBlock& built) {
    const std::size_t i = pick_tensor(built);
    const std::uint64_t at = built.placement.tensors[i].entry;
    const std::uint64_t original = get(built.bytes, at, field);
    const auto value = *other_value(field, original);
    set(built.bytes, at, field, value);
    return describe_set(field, original, value, i);
  });
}

rc::Gen<BrokenBlock> break_shape_offset(Base base) {
  return break_entry_field(Rule::kFrameShapeOffset, base, entry::kShapeOffset);
}

rc::Gen<BrokenBlock> break_name_offset(Base base) {
  // A wrong rank moves the canonical name offset: the same rule.
  return rc::gen::oneOf(break_entry_field(Rule::kFrameNameOffset, base, entry::kNameOffset),
                        break_entry_field(Rule::kFrameNameOffset, base, entry::kRank));
}

rc::Gen<BrokenBlock> break_layout_offset(Base base) {
  return break_entry_field(Rule::kFrameLayoutOffset, base, entry::kLayoutOffset);
}

// Either spare bytes at the heap's end (payload_offset moved to stay canonical)
// or the last name overrunning heap_length.
rc::Gen<BrokenBlock> break_heap_length(Base base) {
  return edited(Rule::kFrameHeapLength, base, 0, [](BuiltBlock& built) -> std::string {
    const Placement& placement = built.placement;
    const bool last_has_no_layout =
        !placement.tensors.empty() &&
        get(built.bytes, placement.tensors.back().entry, entry::kLayoutLength) == 0;
    if (last_has_no_layout && *rc::gen::arbitrary<bool>()) {
      const std::uint64_t at = placement.tensors.back().entry;
      const std::uint64_t original = get(built.bytes, at, entry::kNameLength);
      const std::uint64_t name_end = placement.tensors.back().name + original;
      const std::uint64_t past =
          placement.heap_start + placement.heap_length - name_end +
          *rc::gen::inRange<std::uint64_t>(1, 64);
      set(built.bytes, at, entry::kNameLength, original + past);
      return describe_set(entry::kNameLength, original, original + past,
                          placement.tensors.size() - 1) + " (past the heap)";
    }
    const std::uint64_t spare = 8 * *rc::gen::inRange<std::uint64_t>(1, 9);
    const std::uint64_t heap_length = placement.heap_length + spare;
    const std::uint64_t payload_offset = align_up(placement.heap_start + heap_length, kPayloadAlign);
    // Zero bytes keep the directory, the heap and the payload region where they were
    // relative to their starts; only the gap grows.
    built.bytes.insert(built.bytes.begin() + static_cast<std::ptrdiff_t>(placement.payload_offset),
                       payload_offset - placement.payload_offset, 0);
    set(built.bytes, 0, header::kHeapLength, heap_length);
    set(built.bytes, 0, header::kPayloadOffset, payload_offset);
    return describe_set(header::kHeapLength, placement.heap_length, heap_length) +
           " (spare heap bytes), payload_offset " + std::to_string(payload_offset);
  });
}

// The zero bytes that end heap segment i, absolute [begin, end).
std::pair<std::uint64_t, std::uint64_t> heap_padding(const BuiltBlock& built, std::size_t i,
                                                     const BlockDescription& description) {
  const TensorPlacement& at = built.placement.tensors[i];
  return {at.layout + description.tensors[i].layout.size(), at.segment_end};
}

bool has_heap_padding(const BlockDescription& description) {
  for (const auto& tensor : description.tensors)
    if ((tensor.name.size() + tensor.layout.size()) % kHeapAlign != 0) return true;
  return false;
}

rc::Gen<BrokenBlock> break_pad_heap(Base base) {
  return rc::gen::exec([base] {
    BrokenBlock broken;
    broken.rule = Rule::kFramePadHeap;
    broken.description = *rc::gen::suchThat(base_block(base, 1), has_heap_padding);
    BuiltBlock built = build(broken.description).value();
    std::vector<std::size_t> padded;
    for (std::size_t i = 0; i < broken.description.tensors.size(); ++i)
      if (auto [begin, end] = heap_padding(built, i, broken.description); begin < end)
        padded.push_back(i);
    const std::size_t i = *rc::gen::elementOf(padded);
    const auto [begin, end] = heap_padding(built, i, broken.description);
    const auto at = *rc::gen::inRange(begin, end);
    built.bytes[at] = nonzero_byte();
    broken.how = "heap padding byte " + std::to_string(at) + " of tensor " + std::to_string(i) +
                 " set to " + std::to_string(built.bytes[at]);
    broken.bytes = std::move(built.bytes);
    broken.byte_edits = true;
    return broken;
  });
}

// Content defects: the builder writes them with canonical framing.
template <class Change>
rc::Gen<BrokenBlock> changed_content(Rule rule, Base base, std::size_t min_tensors,
                                     Change change) {
  return rc::gen::exec([=] {
    BrokenBlock broken;
    broken.rule = rule;
    broken.description = *base_block(base, min_tensors);
    broken.how = change(broken.description);
    broken.bytes = build(broken.description).value().bytes;
    return broken;
  });
}

rc::Gen<BrokenBlock> break_name_utf8(Base base) {
  return changed_content(Rule::kFrameNameUtf8, base, 1, [](BlockDescription& block) {
    const auto i = *rc::gen::inRange<std::size_t>(0, block.tensors.size());
    block.tensors[i].name = *invalid_utf8_text();
    return "tensor " + std::to_string(i) + " name is not UTF-8";
  });
}

rc::Gen<BrokenBlock> break_name_unique(Base base) {
  return changed_content(Rule::kFrameNameUnique, base, 2, [](BlockDescription& block) {
    const auto later = *rc::gen::inRange<std::size_t>(1, block.tensors.size());
    const auto earlier = *rc::gen::inRange<std::size_t>(0, later);
    block.tensors[later].name = block.tensors[earlier].name;
    return "tensor " + std::to_string(later) + " repeats the name of tensor " +
           std::to_string(earlier);
  });
}

rc::Gen<BrokenBlock> break_data_offset(Base base) {
  return break_entry_field(Rule::kFrameDataOffset, base, entry::kDataOffset);
}

// A tensor after the first whose payload starts past the previous payload's end.
std::vector<std::size_t> payload_padded_tensors(const Placement& placement) {
  std::vector<std::size_t> padded;
  for (std::size_t i = 1; i < placement.tensors.size(); ++i)
    if (placement.tensors[i].data > placement.tensors[i - 1].data_end) padded.push_back(i);
  return padded;
}

rc::Gen<BrokenBlock> break_pad_payload(Base base) {
  return edited(
      Rule::kFramePadPayload, base, 2,
      [](const BlockDescription& block) {
        return !payload_padded_tensors(place(block).value()).empty();
      },
      [](BuiltBlock& built) {
        const std::size_t i = *rc::gen::elementOf(payload_padded_tensors(built.placement));
        const auto at = *rc::gen::inRange(built.placement.tensors[i - 1].data_end,
                                          built.placement.tensors[i].data);
        built.bytes[at] = nonzero_byte();
        return "payload padding byte " + std::to_string(at) + " before tensor " +
               std::to_string(i) + " set to " + std::to_string(built.bytes[at]);
      });
}

rc::Gen<BrokenBlock> break_payload_length(Base base) {
  return edited(Rule::kFramePayloadLength, base, 0, [](BuiltBlock& built) -> std::string {
    const Placement& placement = built.placement;
    const auto variant = *rc::gen::inRange(0, placement.tensors.empty() ? 1 : 3);
    const auto extra = *rc::gen::inRange<std::uint64_t>(1, 100);
    if (variant == 0) {
      // payload_length and the block grow together, so only the entries disagree.
      built.bytes.resize(built.bytes.size() + extra, 0);
      set(built.bytes, 0, header::kPayloadLength, placement.payload_length + extra);
      return describe_set(header::kPayloadLength, placement.payload_length,
                          placement.payload_length + extra) + " with as many bytes appended";
    }
    const std::size_t last = placement.tensors.size() - 1;
    const std::uint64_t at = placement.tensors[last].entry;
    const std::uint64_t original = get(built.bytes, at, entry::kByteLength);
    if (variant == 1 || original == 0) {
      set(built.bytes, at, entry::kByteLength, original + extra);
      return describe_set(entry::kByteLength, original, original + extra, last) +
             " (past payload_length)";
    }
    const std::uint64_t shorter = original - std::min(original, extra);
    set(built.bytes, at, entry::kByteLength, shorter);
    return describe_set(entry::kByteLength, original, shorter, last) +
           " (short of payload_length)";
  });
}

bool has_gap(const BlockDescription& block) {
  const Placement placement = place(block).value();
  return placement.heap_start + placement.heap_length < placement.payload_offset;
}

rc::Gen<BrokenBlock> break_pad_gap(Base base) {
  return edited(Rule::kFramePadGap, base, 0, has_gap, [](BuiltBlock& built) {
    const Placement& placement = built.placement;
    const auto at =
        *rc::gen::inRange(placement.heap_start + placement.heap_length, placement.payload_offset);
    built.bytes[at] = nonzero_byte();
    return "gap byte " + std::to_string(at) + " set to " + std::to_string(built.bytes[at]);
  });
}

rc::Gen<BrokenBlock> break_field_range(Base base) {
  return rc::gen::exec([base] {
    BrokenBlock broken;
    broken.rule = Rule::kFrameFieldRange;
    broken.encoder_only = true;
    broken.description = *base_block(base, 1);
    const auto i = *rc::gen::inRange<std::size_t>(0, broken.description.tensors.size());
    const auto rank = *rc::gen::inRange<std::size_t>(65536, 65540);
    broken.description.tensors[i].shape.assign(rank, 1);
    broken.how = "tensor " + std::to_string(i) + " has rank " + std::to_string(rank);
    return broken;
  });
}

// ---- TYPE ----
//
// One breaker per TYPE rule: a tensor that breaks the rule and nothing earlier
// in the per-tensor order. break_type below places it in a block.

rc::Gen<std::uint32_t> any_block_size() {
  return rc::gen::weightedOneOf<std::uint32_t>({
      {1, rc::gen::just<std::uint32_t>(0)},
      {2, rc::gen::inRange<std::uint32_t>(1, 65)},
      {1, rc::gen::arbitrary<std::uint32_t>()},
  });
}

rc::Gen<std::string> any_layout() {
  return rc::gen::oneOf(rc::gen::just(std::string()), utf8_text(), invalid_utf8_text());
}

rc::Gen<std::vector<std::uint8_t>> small_bytes(std::size_t max) {
  return rc::gen::exec([max] {
    const auto count = *rc::gen::inRange<std::size_t>(0, max + 1);
    return *rc::gen::container<std::vector<std::uint8_t>>(count, rc::gen::arbitrary<std::uint8_t>());
  });
}

// A tensor with the code and anything else: the code class is checked first.
rc::Gen<TensorDescription> with_bad_code(std::string name, rc::Gen<std::uint16_t> codes) {
  return rc::gen::exec([name, codes] {
    TensorDescription tensor{name, *codes, *any_shape(), *any_layout(), *any_block_size(),
                             *small_bytes(32)};
    return tensor;
  });
}

bool is_bool(const DtypeInfo& info) { return info.values == ValueRule::kBoolByte; }
bool is_nibble(const DtypeInfo& info) { return info.packing == Packing::kNibble; }
bool is_wider_than_byte(const DtypeInfo& info) { return info.width > 1; }

rc::Gen<TensorDescription> closed_with(std::string name, bool (*condition)(const DtypeInfo&)) {
  return rc::gen::mapcat(closed_dtype_code_where(condition), [name](std::uint16_t code) {
    return valid_closed_tensor(name, code);
  });
}

rc::Gen<TensorDescription> any_valid_closed(std::string name) {
  return closed_with(std::move(name), [](const DtypeInfo&) { return true; });
}

std::uint64_t count_of(const TensorDescription& tensor) { return *element_count(tensor.shape); }

// TYPE-CODE-ZERO
rc::Gen<TensorDescription> broken_code_zero(std::string name) {
  return with_bad_code(name, rc::gen::just<std::uint16_t>(0));
}

// TYPE-CODE-RESERVED: 20..4095.
rc::Gen<TensorDescription> broken_code_reserved(std::string name) {
  return with_bad_code(name, rc::gen::inRange<std::uint16_t>(kFirstReservedCode, kFirstOpaqueCode));
}

// TYPE-CODE-ABOVE-OPAQUE: 32768..65535.
rc::Gen<TensorDescription> broken_code_above_opaque(std::string name) {
  const auto codes =
      rc::gen::map(rc::gen::inRange<std::uint32_t>(kLastOpaqueCode + 1, 0x10000),
                   [](std::uint32_t code) { return static_cast<std::uint16_t>(code); });
  return with_bad_code(name, codes);
}

// TYPE-CLOSED-LAYOUT
rc::Gen<TensorDescription> broken_closed_layout(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *any_valid_closed(name);
    tensor.layout = *rc::gen::nonEmpty(any_layout());
    tensor.block_size = *any_block_size();  // checked after the layout
    return tensor;
  });
}

// TYPE-CLOSED-BLOCK-SIZE
rc::Gen<TensorDescription> broken_closed_block_size(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *any_valid_closed(name);
    tensor.block_size = *rc::gen::positive<std::uint32_t>();
    return tensor;
  });
}

// TYPE-SHAPE-OVERFLOW
rc::Gen<TensorDescription> broken_shape_overflow(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor;
    tensor.name = name;
    tensor.dtype = *closed_dtype_code();
    // Two dimensions of at least 2^32 overflow; no dimension is 0.
    const auto rank = *rc::gen::inRange<std::size_t>(2, kMaxRank + 1);
    for (std::size_t axis = 0; axis < rank; ++axis)
      tensor.shape.push_back(*rc::gen::inRange<std::uint64_t>(1, 1000));
    const auto first = *rc::gen::inRange<std::size_t>(0, rank);
    const auto second = *rc::gen::distinctFrom(rc::gen::inRange<std::size_t>(0, rank), first);
    for (const std::size_t axis : {first, second})
      tensor.shape[axis] = *rc::gen::oneOf(
          rc::gen::inRange<std::uint64_t>(std::uint64_t{1} << 32, kU64Max), rc::gen::just(kU64Max));
    tensor.payload = *small_bytes(16);
    return tensor;
  });
}

// TYPE-BYTE-LENGTH, first way: a valid closed tensor's payload a few bytes short or long.
rc::Gen<TensorDescription> payload_short_or_long(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *any_valid_closed(name);
    const bool shorten = !tensor.payload.empty() && *rc::gen::arbitrary<bool>();
    if (shorten) {
      const auto cut = *rc::gen::inRange<std::size_t>(
          1, std::min<std::size_t>(tensor.payload.size(), 8) + 1);
      tensor.payload.resize(tensor.payload.size() - cut);
    } else {
      const auto extra = *small_bytes(8);
      tensor.payload.insert(tensor.payload.end(), extra.begin(), extra.end());
      tensor.payload.push_back(0);
    }
    return tensor;
  });
}

// TYPE-BYTE-LENGTH, second way: a product that fits 64 bits but whose byte count does not.
rc::Gen<TensorDescription> byte_count_past_u64(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor;
    tensor.name = name;
    tensor.dtype = *closed_dtype_code_where(is_wider_than_byte);
    const std::uint64_t width = find_dtype(tensor.dtype)->width;
    tensor.shape = {*rc::gen::inRange<std::uint64_t>(kU64Max / width + 1, kU64Max)};
    tensor.payload = *small_bytes(16);
    return tensor;
  });
}

// TYPE-BYTE-LENGTH
rc::Gen<TensorDescription> broken_byte_length(std::string name) {
  return rc::gen::oneOf(payload_short_or_long(name), byte_count_past_u64(name));
}

// TYPE-BOOL-BYTE
rc::Gen<TensorDescription> broken_bool_byte(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *rc::gen::suchThat(closed_with(name, is_bool),
                                     [](const TensorDescription& t) { return count_of(t) > 0; });
    const auto at = *rc::gen::inRange<std::size_t>(0, tensor.payload.size());
    // Bool bytes must be 0 or 1.
    tensor.payload[at] = static_cast<std::uint8_t>(*rc::gen::inRange(2, 256));
    return tensor;
  });
}

// TYPE-HIGH-NIBBLE
rc::Gen<TensorDescription> broken_high_nibble(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *rc::gen::suchThat(closed_with(name, is_nibble), [](const TensorDescription& t) {
      return count_of(t) % 2 == 1;
    });
    tensor.payload.back() |= static_cast<std::uint8_t>(*rc::gen::inRange<std::uint8_t>(1, 16) << 4);
    return tensor;
  });
}

// TYPE-OPAQUE-LAYOUT
rc::Gen<TensorDescription> broken_opaque_layout(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor{name, *opaque_dtype_code(), *any_shape(), std::string(),
                             *any_block_size(), *small_bytes(32)};
    return tensor;
  });
}

// TYPE-OPAQUE-LAYOUT-UTF8
rc::Gen<TensorDescription> broken_opaque_layout_utf8(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor{name, *opaque_dtype_code(), *any_shape(), *invalid_utf8_text(),
                             *any_block_size(), *small_bytes(32)};
    return tensor;
  });
}

// TYPE-OPAQUE-BLOCK-SIZE
rc::Gen<TensorDescription> broken_opaque_block_size(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor{name, *opaque_dtype_code(), *any_shape(), *utf8_text(), 0,
                             *small_bytes(32)};
    return tensor;
  });
}

// TYPE-OPAQUE-MULTIPLE
rc::Gen<TensorDescription> broken_opaque_multiple(std::string name) {
  return rc::gen::exec([name] {
    auto tensor = *valid_opaque_tensor(name);
    tensor.block_size = *rc::gen::weightedOneOf<std::uint32_t>({
        {3, rc::gen::inRange<std::uint32_t>(2, 65)},
        {1, rc::gen::inRange<std::uint32_t>(65, 0xFFFFFFFFu)},
    });
    const std::uint64_t blocks =
        tensor.block_size > kMaxPayloadBytes ? 0 : *rc::gen::inRange<std::uint64_t>(0, 4);
    const std::uint64_t rest =
        *rc::gen::inRange<std::uint64_t>(1, std::min<std::uint64_t>(tensor.block_size, 64));
    tensor.payload = *rc::gen::container<std::vector<std::uint8_t>>(
        blocks * tensor.block_size + rest, rc::gen::arbitrary<std::uint8_t>());
    return tensor;
  });
}

struct TypeBreaker {
  Rule rule;
  rc::Gen<TensorDescription> (*make)(std::string name);
};

constexpr std::array kTypeBreakers{
    TypeBreaker{Rule::kTypeCodeZero, broken_code_zero},
    TypeBreaker{Rule::kTypeCodeReserved, broken_code_reserved},
    TypeBreaker{Rule::kTypeCodeAboveOpaque, broken_code_above_opaque},
    TypeBreaker{Rule::kTypeClosedLayout, broken_closed_layout},
    TypeBreaker{Rule::kTypeClosedBlockSize, broken_closed_block_size},
    TypeBreaker{Rule::kTypeShapeOverflow, broken_shape_overflow},
    TypeBreaker{Rule::kTypeByteLength, broken_byte_length},
    TypeBreaker{Rule::kTypeBoolByte, broken_bool_byte},
    TypeBreaker{Rule::kTypeHighNibble, broken_high_nibble},
    TypeBreaker{Rule::kTypeOpaqueLayout, broken_opaque_layout},
    TypeBreaker{Rule::kTypeOpaqueLayoutUtf8, broken_opaque_layout_utf8},
    TypeBreaker{Rule::kTypeOpaqueBlockSize, broken_opaque_block_size},
    TypeBreaker{Rule::kTypeOpaqueMultiple, broken_opaque_multiple},
};

}  // namespace

rc::Gen<TensorDescription> type_broken_tensor(Rule rule, std::string name) {
  for (const TypeBreaker& breaker : kTypeBreakers)
    if (breaker.rule == rule) return breaker.make(std::move(name));
  throw std::invalid_argument("type_broken_tensor needs a TYPE rule, got " +
                              std::string(rule_info(rule).id));
}

namespace {

std::vector<Rule> type_rules() {
  std::vector<Rule> rules;
  for (const RuleInfo& info : all_rules())
    if (info.error_class == ErrorClass::kType) rules.push_back(info.rule);
  return rules;
}

// Tensor i breaks the rule; earlier tensors are valid; later ones may break
// other TYPE rules, which must not be reported (first defect in directory order).
rc::Gen<BrokenBlock> break_type(Rule rule) {
  return rc::gen::exec([rule] {
    BrokenBlock broken;
    broken.rule = rule;
    broken.description = *valid_block(1, kMaxTensors);
    auto& tensors = broken.description.tensors;
    const auto i = *rc::gen::inRange<std::size_t>(0, tensors.size());
    tensors[i] = *type_broken_tensor(rule, tensors[i].name);
    broken.how = "tensor " + std::to_string(i) + " breaks " + std::string(rule_info(rule).id);
    for (std::size_t later = i + 1; later < tensors.size(); ++later) {
      if (!*rc::gen::weightedElement<bool>({{2, false}, {1, true}})) continue;
      const Rule other = *rc::gen::elementOf(type_rules());
      tensors[later] = *type_broken_tensor(other, tensors[later].name);
      broken.how += "; later tensor " + std::to_string(later) + " breaks " +
                    std::string(rule_info(other).id);
    }
    broken.bytes = build(broken.description).value().bytes;
    return broken;
  });
}

template <Rule R>
rc::Gen<BrokenBlock> break_type_rule(Base) {
  return break_type(R);
}

constexpr std::array kBreakers{
    RuleBreaker{Rule::kFrameTruncated, break_truncated},
    RuleBreaker{Rule::kFrameMagic, break_magic},
    RuleBreaker{Rule::kFrameVersion, break_version},
    RuleBreaker{Rule::kFrameLeFlag, break_le_flag},
    RuleBreaker{Rule::kFrameFlagsReserved, break_flags_reserved},
    RuleBreaker{Rule::kFrameHeaderReserved, break_header_reserved},
    RuleBreaker{Rule::kFrameHeapAlign, break_heap_align},
    RuleBreaker{Rule::kFramePayloadOffset, break_payload_offset},
    RuleBreaker{Rule::kFrameTrailing, break_trailing},
    RuleBreaker{Rule::kFrameEntryReserved, break_entry_reserved},
    RuleBreaker{Rule::kFrameNameEmpty, break_name_empty},
    RuleBreaker{Rule::kFrameShapeOffset, break_shape_offset},
    RuleBreaker{Rule::kFrameNameOffset, break_name_offset},
    RuleBreaker{Rule::kFrameLayoutOffset, break_layout_offset},
    RuleBreaker{Rule::kFrameHeapLength, break_heap_length},
    RuleBreaker{Rule::kFramePadHeap, break_pad_heap},
    RuleBreaker{Rule::kFrameNameUtf8, break_name_utf8},
    RuleBreaker{Rule::kFrameNameUnique, break_name_unique},
    RuleBreaker{Rule::kFrameDataOffset, break_data_offset},
    RuleBreaker{Rule::kFramePadPayload, break_pad_payload},
    RuleBreaker{Rule::kFramePayloadLength, break_payload_length},
    RuleBreaker{Rule::kFramePadGap, break_pad_gap},
    RuleBreaker{Rule::kFrameFieldRange, break_field_range},
    RuleBreaker{Rule::kTypeCodeZero, break_type_rule<Rule::kTypeCodeZero>},
    RuleBreaker{Rule::kTypeCodeReserved, break_type_rule<Rule::kTypeCodeReserved>},
    RuleBreaker{Rule::kTypeCodeAboveOpaque, break_type_rule<Rule::kTypeCodeAboveOpaque>},
    RuleBreaker{Rule::kTypeClosedLayout, break_type_rule<Rule::kTypeClosedLayout>},
    RuleBreaker{Rule::kTypeClosedBlockSize, break_type_rule<Rule::kTypeClosedBlockSize>},
    RuleBreaker{Rule::kTypeShapeOverflow, break_type_rule<Rule::kTypeShapeOverflow>},
    RuleBreaker{Rule::kTypeByteLength, break_type_rule<Rule::kTypeByteLength>},
    RuleBreaker{Rule::kTypeBoolByte, break_type_rule<Rule::kTypeBoolByte>},
    RuleBreaker{Rule::kTypeHighNibble, break_type_rule<Rule::kTypeHighNibble>},
    RuleBreaker{Rule::kTypeOpaqueLayout, break_type_rule<Rule::kTypeOpaqueLayout>},
    RuleBreaker{Rule::kTypeOpaqueLayoutUtf8, break_type_rule<Rule::kTypeOpaqueLayoutUtf8>},
    RuleBreaker{Rule::kTypeOpaqueBlockSize, break_type_rule<Rule::kTypeOpaqueBlockSize>},
    RuleBreaker{Rule::kTypeOpaqueMultiple, break_type_rule<Rule::kTypeOpaqueMultiple>},
};

}  // namespace

std::span<const RuleBreaker> rule_breakers() { return kBreakers; }

const RuleBreaker* find_breaker(Rule rule) {
  for (const RuleBreaker& breaker : kBreakers)
    if (breaker.rule == rule) return &breaker;
  return nullptr;
}

rc::Gen<BlockDescription> base_block(Base base, std::size_t min_tensors) {
  if (base == Base::kValid) return valid_block(min_tensors, kMaxTensors);
  return rc::gen::exec([min_tensors] {
    auto block = *valid_block(std::max<std::size_t>(min_tensors, 1), kMaxTensors);
    const auto i = *rc::gen::inRange<std::size_t>(0, block.tensors.size());
    block.tensors[i] = *type_broken_tensor(*rc::gen::elementOf(type_rules()), block.tensors[i].name);
    return block;
  });
}

void showValue(const BrokenBlock& broken, std::ostream& os) {
  os << "breaks " << rule_info(broken.rule).id << ": " << broken.how << "\n  content: ";
  kiln::showValue(broken.description, os);
  if (broken.encoder_only) {
    os << "\n  (encoder only: no block)";
  } else {
    os << "\n  block: ";
    showValue(Bytes{broken.bytes}, os);
  }
}

}  // namespace kiln::properties
