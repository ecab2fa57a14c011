// The mutants. Each is one implementer's bug, written as the smallest strategy
// over the reference library (see kiln/mutants.hpp for where each hook runs).
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "kiln/mutants.hpp"
#include "kiln/utf8.hpp"

namespace kiln::mutants {
namespace {

using protocol::Reject;
using Check = std::optional<Reject>;

Reject reject(Rule rule, std::string message) {
  return Reject{rule_info(rule).error_class, std::move(message), std::string(rule_info(rule).id),
                std::nullopt};
}

Mutant make(std::string_view name, std::string_view family, std::string_view description) {
  Mutant mutant;
  mutant.name = name;
  mutant.family = family;
  mutant.description = description;
  return mutant;
}

Mutant missing(std::string_view name, std::string_view family, std::string_view description,
               Rule rule) {
  Mutant mutant = make(name, family, description);
  mutant.waived.add(rule);
  return mutant;
}

// ---- Raw access to the input, for the checks a mutant makes itself ----

std::uint64_t heap_start(const BlockView& view) { return entry_start(view.tensors.size()); }

// Each complete directory entry of a copy of the input, for bugs in how fields are read.
Bytes with_entries(ByteSpan input, const std::function<void(std::uint8_t*)>& change) {
  Bytes copy(input.begin(), input.end());
  const auto count = read_field(copy, 0, header::kTensorCount);
  if (!count) return copy;
  for (std::uint64_t i = 0; i < *count && entry_start(i) + kEntrySize <= copy.size(); ++i)
    change(copy.data() + entry_start(i));
  return copy;
}

void swap_field_bytes(std::uint8_t* entry, const Field& field) {
  std::reverse(entry + field.offset, entry + field.offset + field.width);
}

// The implementer's range test puts code `from` where `to` belongs: read it as
// `to`, and report the stored code back on accept.
void read_code_as(Mutant& mutant, std::uint16_t from, std::uint16_t to) {
  mutant.reshape_input = [from, to](ByteSpan input) {
    return with_entries(input, [&](std::uint8_t* entry) {
      if (load_u16(entry + entry::kDtype.offset) == from)
        store_le(entry + entry::kDtype.offset, entry::kDtype.width, to);
    });
  };
  mutant.alter_accepted = [](BlockDescription& block, ByteSpan original) {
    for (std::size_t i = 0; i < block.tensors.size(); ++i)
      block.tensors[i].dtype = load_u16(original.data() + entry_start(i) + entry::kDtype.offset);
  };
}

// ---- Sloppy UTF-8: the reference check, forgiving one kind of bad sequence ----

bool continuation(std::string_view text, std::size_t at) {
  return at < text.size() && (static_cast<std::uint8_t>(text[at]) & 0xC0) == 0x80;
}

bool continuations(std::string_view text, std::size_t from, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (!continuation(text, from + i)) return false;
  return true;
}

std::uint8_t byte_at(std::string_view text, std::size_t at) {
  return at < text.size() ? static_cast<std::uint8_t>(text[at]) : 0;
}

// Each returns the length of the forgiven sequence at `at`, or 0.
std::size_t overlong_form(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  if ((lead == 0xC0 || lead == 0xC1) && continuations(text, at + 1, 1)) return 2;
  if (lead == 0xE0 && next >= 0x80 && next <= 0x9F && continuations(text, at + 1, 2)) return 3;
  if (lead == 0xF0 && next >= 0x80 && next <= 0x8F && continuations(text, at + 1, 3)) return 4;
  return 0;
}

std::size_t surrogate(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  return lead == 0xED && next >= 0xA0 && next <= 0xBF && continuations(text, at + 1, 2) ? 3 : 0;
}

std::size_t above_max(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  if (lead == 0xF4 && next >= 0x90 && continuations(text, at + 1, 3)) return 4;
  if (lead >= 0xF5 && lead <= 0xF7 && continuations(text, at + 1, 3)) return 4;
  return 0;
}

using Forgiven = std::size_t (*)(std::string_view, std::size_t);

bool valid_but_for(std::string_view text, Forgiven forgiven) {
  std::size_t from = 0;
  while (auto bad = find_invalid_utf8(text.substr(from))) {
    const std::size_t length = forgiven(text, from + *bad);
    if (length == 0) return false;
    from += *bad + length;
  }
  return true;
}

Mutant sloppy_name_utf8(std::string_view name, std::string_view description, Forgiven forgiven) {
  Mutant mutant = missing(name, "names", description, Rule::kFrameNameUtf8);
  mutant.extra_frame_check = [forgiven](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors)
      if (!valid_but_for(tensor.name, forgiven))
        return reject(Rule::kFrameNameUtf8, "name is not valid UTF-8");
    return std::nullopt;
  };
  return mutant;
}

// Uniqueness over a key the implementer derived from the name.
Mutant sloppy_unique(std::string_view name, std::string_view description,
                     std::string (*key)(std::string_view)) {
  Mutant mutant = missing(name, "names", description, Rule::kFrameNameUnique);
  mutant.extra_frame_check = [key](const BlockView& view, ByteSpan) -> Check {
    std::set<std::string> seen;
    for (const auto& tensor : view.tensors)
      if (!seen.insert(key(tensor.name)).second)
        return reject(Rule::kFrameNameUnique, "name repeats an earlier tensor's name");
    return std::nullopt;
  };
  return mutant;
}

std::string_view up_to_nul(std::string_view text) { return text.substr(0, text.find('\0')); }

// ---- Dtype helpers for the mutants' own TYPE checks ----

std::uint16_t code_of(std::string_view dtype) { return find_dtype(dtype)->code; }

bool packed(const TensorView& tensor) {
  const DtypeInfo* info = find_dtype(tensor.dtype);
  return info && info->packing == Packing::kNibble;
}

std::optional<std::uint64_t> count_of(const TensorView& tensor) {
  const auto shape = tensor.shape();
  return element_count(shape);
}

// The length rule with the implementer's own expected length for closed dtypes
// (nullopt: "too large"), in place of the reference's.
Mutant sloppy_length(std::string_view name, std::string_view family, std::string_view description,
                     std::optional<std::uint64_t> (*expected)(const DtypeInfo&, std::uint64_t)) {
  Mutant mutant = missing(name, family, description, Rule::kTypeByteLength);
  mutant.extra_type_check = [expected](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      const DtypeInfo* info = find_dtype(tensor.dtype);
      const auto count = count_of(tensor);
      if (!info || !count) continue;  // the reference's shape rule is still enforced
      const auto want = expected(*info, *count);
      if (!want || tensor.payload.size() != *want)
        return reject(Rule::kTypeByteLength, "byte_length does not fit the shape");
    }
    return std::nullopt;
  };
  return mutant;
}

std::optional<std::uint64_t> exact_whole(const DtypeInfo& info, std::uint64_t count) {
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{info.width}, &bytes)) return std::nullopt;
  return bytes;
}

// A TYPE check of the implementer's own, cited as `rule` (none: a rule the format lacks).
Mutant check_types(std::string_view name, std::string_view family, std::string_view description,
                   std::optional<Rule> rule, bool (*bad)(const TensorView&)) {
  Mutant mutant = make(name, family, description);
  mutant.extra_type_check = [rule, description, bad](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      if (!bad(tensor)) continue;
      if (rule) return reject(*rule, std::string(description));
      return Reject{ErrorClass::kType, std::string(description), std::nullopt, std::nullopt};
    }
    return std::nullopt;
  };
  return mutant;
}

// ---- IEEE bit patterns, for the value bugs ----

// A value bug: every element of every IEEE tensor goes through `change`.
Mutant on_floats(std::string_view name, std::string_view description,
                 std::uint64_t (*change)(const FloatLayout&, std::uint64_t)) {
  Mutant mutant = make(name, "float-values", description);
  mutant.alter_accepted = [change](BlockDescription& block, ByteSpan) {
    for (auto& tensor : block.tensors) {
      const DtypeInfo* dtype = find_dtype(tensor.dtype);
      const auto layout = dtype ? float_layout(*dtype) : std::nullopt;
      if (!layout) continue;
      for (std::size_t at = 0; at + dtype->width <= tensor.payload.size(); at += dtype->width) {
        std::uint8_t* element = tensor.payload.data() + at;
        store_le(element, dtype->width, change(*layout, load_le(element, dtype->width)));
      }
    }
  };
  return mutant;
}

// ---- Reporting bugs ----

Mutant reported_as(std::string_view name, std::string_view description, Rule rule,
                   ErrorClass reported) {
  Mutant mutant = make(name, "reporting", description);
  mutant.alter_reject = [rule, reported](Reject& reject, ByteSpan) {
    if (reject.rule == rule_info(rule).id) reject.error_class = reported;
  };
  return mutant;
}

// ---- Encoder bugs: rewrites of the canonical bytes ----

Mutant encoder_bug(std::string_view name, std::string_view description,
                   std::function<void(Bytes&, const Placement&, const BlockDescription&)> rewrite) {
  Mutant mutant = make(name, "encoder", description);
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

// ---- The catalogue ----

std::vector<Mutant> build_catalogue() {
  std::vector<Mutant> all;
  auto add = [&](Mutant mutant) { all.push_back(std::move(mutant)); };

  // Header: magic, version, flags, reserved.
  add(missing("magic-unchecked", "header", "the magic bytes are never compared", Rule::kFrameMagic));
  add(missing("version-unchecked", "version", "any version byte is read as version 2",
              Rule::kFrameVersion));
  {
    Mutant m = missing("version-2-or-later", "version",
                       "\"forward compatible\": versions above 2 are read as 2",
                       Rule::kFrameVersion);
    m.extra_frame_check = [](const BlockView&, ByteSpan input) -> Check {
      if (input[header::kVersionField.offset] < kVersion)
        return reject(Rule::kFrameVersion, "version below 2");
      return std::nullopt;
    };
    add(std::move(m));
  }
  add(missing("le-flag-optional", "flags", "flag bit 1 (little-endian) may be clear",
              Rule::kFrameLeFlag));
  add(missing("flags-other-bits-ignored", "flags", "flag bits other than bit 1 are ignored",
              Rule::kFrameFlagsReserved));
  {
    Mutant m = missing("flags-high-nibble-ignored", "flags",
                       "only the low nibble of flags is checked (flags & 0x0D)",
                       Rule::kFrameFlagsReserved);
    m.extra_frame_check = [](const BlockView&, ByteSpan input) -> Check {
      if (input[header::kFlags.offset] & 0x0D)
        return reject(Rule::kFrameFlagsReserved, "flags set a low bit other than bit 1");
      return std::nullopt;
    };
    add(std::move(m));
  }
  add(missing("header-reserved-unchecked", "reserved", "header bytes 6..7 are never checked",
              Rule::kFrameHeaderReserved));
  add(missing("entry-reserved-unchecked", "reserved",
              "the reserved entry bytes (28..31, 48..63) are never checked",
              Rule::kFrameEntryReserved));
  {
    Mutant m = missing("entry-reserved56-unchecked", "reserved",
                       "the 16 reserved bytes at 48 are checked as one u64: bytes 56..63 never",
                       Rule::kFrameEntryReserved);
    m.extra_frame_check = [](const BlockView& view, ByteSpan input) -> Check {
      for (std::size_t i = 0; i < view.tensors.size(); ++i)
        for (const Field* field : {&entry::kReserved28, &entry::kReserved48})
          if (read_field(input, entry_start(i), *field) != 0)
            return reject(Rule::kFrameEntryReserved, "reserved entry bytes are not 0");
      return std::nullopt;
    };
    add(std::move(m));
  }

  // Offsets and lengths.
  // Not here: "heap_length need not be a multiple of 8" (FRAME-HEAP-ALIGN waived) is
  // equivalent to the reference, since segments end 8-aligned and the total check
  // FRAME-HEAP-LENGTH then rejects every unaligned heap_length, with the same class.
  add(missing("payload-offset-unchecked", "offsets",
              "payload_offset is never compared with align64(heap end)",
              Rule::kFramePayloadOffset));
  add(missing("shape-offset-unchecked", "offsets", "shape_offset is not checked",
              Rule::kFrameShapeOffset));
  add(missing("name-offset-unchecked", "offsets", "name_offset is not checked",
              Rule::kFrameNameOffset));
  add(missing("layout-offset-unchecked", "offsets", "layout_offset is not checked",
              Rule::kFrameLayoutOffset));
  {
    Mutant m = missing("layout-offset-checked-only-with-layout", "offsets",
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
    add(std::move(m));
  }
  add(missing("data-offset-unchecked", "offsets", "data_offset is not checked",
              Rule::kFrameDataOffset));
  {
    Mutant m = missing("data-offset-aligned-only", "offsets",
                       "data_offset need only be a multiple of 64, not the canonical one",
                       Rule::kFrameDataOffset);
    m.extra_frame_check = [](const BlockView& view, ByteSpan input) -> Check {
      for (std::size_t i = 0; i < view.tensors.size(); ++i)
        if (read_field(input, entry_start(i), entry::kDataOffset).value_or(0) % kPayloadAlign)
          return reject(Rule::kFrameDataOffset, "data_offset is not a multiple of 64");
      return std::nullopt;
    };
    add(std::move(m));
  }
  add(missing("heap-length-spare-allowed", "lengths",
              "heap_length may exceed the end of the last segment", Rule::kFrameHeapLength));
  add(missing("payload-length-spare-allowed", "lengths",
              "payload_length may exceed the end of the last payload",
              Rule::kFramePayloadLength));
  add(missing("name-empty-allowed", "names", "name_length 0 is accepted", Rule::kFrameNameEmpty));

  // Padding.
  add(missing("heap-padding-unchecked", "padding", "heap segment padding need not be zero",
              Rule::kFramePadHeap));
  add(missing("payload-padding-unchecked", "padding", "padding between payloads need not be zero",
              Rule::kFramePadPayload));
  add(missing("gap-padding-unchecked", "padding",
              "padding between the heap and payload_offset need not be zero", Rule::kFramePadGap));

  // Truncation and trailing bytes.
  add(missing("trailing-bytes-ignored", "truncation", "bytes after the block's end are ignored",
              Rule::kFrameTrailing));
  {
    Mutant m = make("short-read-zero-filled", "truncation",
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
    add(std::move(m));
  }

  // Names.
  add(missing("name-utf8-unchecked", "names", "names are taken as bytes, never validated",
              Rule::kFrameNameUtf8));
  add(sloppy_name_utf8("name-utf8-overlong-accepted",
                       "the UTF-8 check decodes overlong forms (C0 80, E0 80 80, F0 80 80 80)",
                       overlong_form));
  add(sloppy_name_utf8("name-utf8-surrogates-accepted",
                       "the UTF-8 check lets encoded surrogates ED A0..BF through", surrogate));
  add(sloppy_name_utf8("name-utf8-above-max-accepted",
                       "the UTF-8 check lets code points above U+10FFFF through (F4 90.., F5..F7)",
                       above_max));
  add(missing("name-unique-unchecked", "names", "duplicate names are accepted",
              Rule::kFrameNameUnique));
  add(sloppy_unique("name-unique-as-c-strings", "names are compared as C strings (up to U+0000)",
                    [](std::string_view name) { return std::string(up_to_nul(name)); }));
  add(sloppy_unique("name-unique-ignoring-case", "names are compared ASCII case-insensitively",
                    [](std::string_view name) {
                      std::string key(name);
                      for (char& c : key)
                        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                      return key;
                    }));
  {
    Mutant m = make("name-truncated-at-nul", "names",
                    "names are handed out as C strings: cut at the first U+0000");
    m.alter_accepted = [](BlockDescription& block, ByteSpan) {
      for (auto& tensor : block.tensors) tensor.name = std::string(up_to_nul(tensor.name));
    };
    add(std::move(m));
  }

  // Dtype code ranges: 0, 19/20, 4095/4096, 32767/32768.
  add(missing("code-zero-accepted", "dtype-range", "dtype code 0 is accepted", Rule::kTypeCodeZero));
  add(missing("reserved-codes-accepted", "dtype-range", "codes 20..4095 are accepted unchecked",
              Rule::kTypeCodeReserved));
  add(missing("codes-above-opaque-accepted", "dtype-range",
              "codes above 32767 are accepted unchecked", Rule::kTypeCodeAboveOpaque));
  {
    Mutant m = make("code-19-reserved", "dtype-range",
                    "closed codes end at 18 (code < 19): e8m0 is rejected as reserved");
    read_code_as(m, 19, kFirstReservedCode);
    add(std::move(m));
  }
  {
    Mutant m = missing("code-20-closed", "dtype-range",
                       "closed codes end at 20 (code <= 20): code 20 is accepted unchecked",
                       Rule::kTypeCodeReserved);
    m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
      for (const auto& tensor : view.tensors)
        if (classify_code(tensor.dtype) == CodeClass::kReserved &&
            tensor.dtype != kFirstReservedCode)
          return reject(Rule::kTypeCodeReserved, "dtype code is reserved");
      return std::nullopt;
    };
    add(std::move(m));
  }
  {
    Mutant m = make("code-4095-opaque", "dtype-range",
                    "opaque codes start at 4095 (code >= 4095): 4095 is read as opaque");
    read_code_as(m, kFirstOpaqueCode - 1, kFirstOpaqueCode);
    add(std::move(m));
  }
  {
    Mutant m = make("code-4096-reserved", "dtype-range",
                    "opaque codes start at 4097 (code > 4096): 4096 is rejected as reserved");
    read_code_as(m, kFirstOpaqueCode, kFirstOpaqueCode - 1);
    add(std::move(m));
  }
  {
    Mutant m = make("code-32767-above-opaque", "dtype-range",
                    "opaque codes end at 32766 (code < 32767): 32767 is rejected");
    read_code_as(m, kLastOpaqueCode, kLastOpaqueCode + 1);
    add(std::move(m));
  }
  {
    Mutant m = make("code-32768-opaque", "dtype-range",
                    "opaque codes end at 32768 (code <= 32768): 32768 is read as opaque");
    read_code_as(m, kLastOpaqueCode + 1, kLastOpaqueCode);
    add(std::move(m));
  }

  // Big-endian reads of one field.
  {
    Mutant m = make("dtype-read-big-endian", "big-endian", "the dtype field is read big-endian");
    m.reshape_input = [](ByteSpan input) {
      return with_entries(input, [](std::uint8_t* entry) { swap_field_bytes(entry, entry::kDtype); });
    };
    add(std::move(m));
  }
  {
    Mutant m = make("rank-read-big-endian", "big-endian", "the rank field is read big-endian");
    m.reshape_input = [](ByteSpan input) {
      return with_entries(input, [](std::uint8_t* entry) { swap_field_bytes(entry, entry::kRank); });
    };
    add(std::move(m));
  }

  // Closed dtypes: lengths, packing, values.
  add(sloppy_length("packed-length-rounded-down", "packed",
                    "i4/u4/e2m1 byte_length is floor(n / 2), not ceil(n / 2)",
                    [](const DtypeInfo& info, std::uint64_t count) -> std::optional<std::uint64_t> {
                      return info.packing == Packing::kNibble ? count / 2 : exact_whole(info, count);
                    }));
  add(sloppy_length("byte-count-wraps", "shape",
                    "n * width is computed without an overflow check and wraps",
                    [](const DtypeInfo& info, std::uint64_t count) -> std::optional<std::uint64_t> {
                      return info.packing == Packing::kNibble ? count / 2 + count % 2
                                                              : count * info.width;
                    }));
  add(missing("high-nibble-unchecked", "packed", "the unused high nibble of an odd count is ignored",
              Rule::kTypeHighNibble));
  add(check_types("high-nibble-checked-on-even-counts", "packed",
                  "the last high nibble must be 0 for even counts too", Rule::kTypeHighNibble,
                  [](const TensorView& tensor) {
                    const auto count = count_of(tensor);
                    return packed(tensor) && count && *count % 2 == 0 && !tensor.payload.empty() &&
                           (tensor.payload.back() >> 4) != 0;
                  }));
  {
    Mutant m = check_types("nibble-order-swapped", "packed",
                           "the earlier element is taken as the high nibble, so the low one must be 0",
                           Rule::kTypeHighNibble, [](const TensorView& tensor) {
                             const auto count = count_of(tensor);
                             return packed(tensor) && count && *count % 2 == 1 &&
                                    !tensor.payload.empty() && (tensor.payload.back() & 0x0F) != 0;
                           });
    m.waived.add(Rule::kTypeHighNibble);
    add(std::move(m));
  }
  add(missing("bool-byte-unchecked", "bool", "bool bytes other than 0 and 1 are accepted",
              Rule::kTypeBoolByte));
  {
    Mutant m = check_types("bool-tail-unchecked", "bool",
                           "the word-at-a-time bool check skips the last size % 8 bytes",
                           Rule::kTypeBoolByte, [](const TensorView& tensor) {
                             if (tensor.dtype != code_of("bool")) return false;
                             const std::size_t whole = tensor.payload.size() / 8 * 8;
                             return std::any_of(tensor.payload.begin(),
                                                tensor.payload.begin() + static_cast<std::ptrdiff_t>(whole),
                                                [](std::uint8_t b) { return b > 1; });
                           });
    m.waived.add(Rule::kTypeBoolByte);
    add(std::move(m));
  }
  add(check_types("e8m0-ff-rejected", "e8m0", "e8m0 0xFF (NaN) is rejected as in the Hurray profile",
                  std::nullopt, [](const TensorView& tensor) {
                    return tensor.dtype == code_of("e8m0") &&
                           std::find(tensor.payload.begin(), tensor.payload.end(), 0xFF) !=
                               tensor.payload.end();
                  }));
  add(on_floats("nan-quieted", "signalling NaNs come back quiet (the quiet bit set)",
                [](const FloatLayout& f, std::uint64_t bits) {
                  const bool nan =
                      (bits & f.exponent_mask) == f.exponent_mask && (bits & f.fraction_mask) != 0;
                  return nan ? bits | f.quiet_bit : bits;
                }));
  add(on_floats("negative-zero-flipped", "-0.0 comes back as +0.0",
                [](const FloatLayout& f, std::uint64_t bits) {
                  return bits == f.sign_mask ? std::uint64_t{0} : bits;
                }));
  add(on_floats("denormals-flushed", "subnormal values come back as zero of the same sign",
                [](const FloatLayout& f, std::uint64_t bits) {
                  const bool subnormal =
                      (bits & f.exponent_mask) == 0 && (bits & f.fraction_mask) != 0;
                  return subnormal ? bits & f.sign_mask : bits;
                }));
  add(missing("closed-layout-accepted", "closed-dtype", "a closed dtype may carry a layout name",
              Rule::kTypeClosedLayout));
  add(missing("closed-block-size-accepted", "closed-dtype", "a closed dtype may have block_size > 0",
              Rule::kTypeClosedBlockSize));
  add(missing("shape-overflow-wraps", "shape", "the shape product wraps modulo 2^64",
              Rule::kTypeShapeOverflow));
  add(check_types("shape-overflow-before-zero", "shape",
                  "the product is checked for overflow left to right, before a later 0 dimension",
                  Rule::kTypeShapeOverflow, [](const TensorView& tensor) {
                    if (classify_code(tensor.dtype) != CodeClass::kClosed) return false;
                    std::uint64_t product = 1;
                    for (std::uint64_t dimension : tensor.shape())
                      if (__builtin_mul_overflow(product, dimension, &product)) return true;
                    return false;
                  }));

  // Opaque dtypes.
  add(missing("opaque-layout-optional", "opaque", "an opaque dtype may have no layout name",
              Rule::kTypeOpaqueLayout));
  add(missing("opaque-layout-utf8-unchecked", "opaque", "opaque layout names are not validated",
              Rule::kTypeOpaqueLayoutUtf8));
  add(missing("opaque-block-size-zero-allowed", "opaque", "an opaque dtype may have block_size 0",
              Rule::kTypeOpaqueBlockSize));
  add(missing("opaque-multiple-unchecked", "opaque",
              "byte_length need not be a multiple of block_size", Rule::kTypeOpaqueMultiple));
  add(check_types("opaque-shape-overflow-checked", "opaque",
                  "the shape product of an opaque tensor is computed and its overflow rejected",
                  Rule::kTypeShapeOverflow, [](const TensorView& tensor) {
                    return classify_code(tensor.dtype) == CodeClass::kOpaque && !count_of(tensor);
                  }));

  // Reporting.
  add(reported_as("byte-length-reported-as-frame",
                  "TYPE-BYTE-LENGTH is reported as FRAME (\"a length is framing\")",
                  Rule::kTypeByteLength, ErrorClass::kFrame));
  add(reported_as("opaque-layout-utf8-reported-as-frame",
                  "TYPE-OPAQUE-LAYOUT-UTF8 is reported as FRAME (one UTF-8 error for all names)",
                  Rule::kTypeOpaqueLayoutUtf8, ErrorClass::kFrame));
  add(reported_as("payload-length-reported-as-type",
                  "FRAME-PAYLOAD-LENGTH is reported as TYPE (\"the payload is the tensor's\")",
                  Rule::kFramePayloadLength, ErrorClass::kType));
  add(reported_as("name-utf8-reported-as-type",
                  "FRAME-NAME-UTF8 is reported as TYPE (\"names are content\")",
                  Rule::kFrameNameUtf8, ErrorClass::kType));
  {
    Mutant m = make("types-before-frame", "reporting",
                    "tensors are type-checked before the frame is finished: TYPE wins over FRAME");
    m.alter_reject = [](Reject& reject, ByteSpan input) {
      if (reject.error_class != ErrorClass::kFrame) return;
      RuleSet every_frame_rule;
      for (const RuleInfo& info : all_rules())
        if (info.error_class == ErrorClass::kFrame) every_frame_rule.add(info.rule);
      auto lenient = kiln::decode(input, DecodeOptions{every_frame_rule});
      if (!lenient && lenient.error().error_class() == ErrorClass::kType)
        reject = protocol::reject_from(lenient.error());
    };
    add(std::move(m));
  }

  // Encoder bugs.
  add(encoder_bug("enc-heap-padding-not-zeroed", "heap segment padding is left uninitialised",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
                    for (std::size_t i = 0; i < block.tensors.size(); ++i) {
                      const auto& at = placement.tensors[i];
                      fill(bytes, at.layout + block.tensors[i].layout.size(), at.segment_end);
                    }
                  }));
  add(encoder_bug("enc-payload-padding-filled", "padding between payloads is left uninitialised",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
                    std::uint64_t previous_end = placement.payload_offset;
                    for (const auto& at : placement.tensors) {
                      fill(bytes, previous_end, at.data);
                      previous_end = at.data_end;
                    }
                  }));
  add(encoder_bug("enc-gap-padding-filled",
                  "padding between the heap and payload_offset is left uninitialised",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
                    fill(bytes, placement.heap_start + placement.heap_length,
                         placement.payload_offset);
                  }));
  add(encoder_bug("enc-payload-length-rounded-up",
                  "payload_length is rounded up to 64 and the block padded to it",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
                    const std::uint64_t length = align_up(placement.payload_length, kPayloadAlign);
                    write_field(bytes, 0, header::kPayloadLength, length);
                    bytes.resize(placement.payload_offset + length, 0);
                  }));
  add(encoder_bug("enc-data-offset-from-block-start",
                  "data_offset is written relative to the block start",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription&) {
                    for (const auto& at : placement.tensors)
                      write_field(bytes, at.entry, entry::kDataOffset, at.data);
                  }));
  add(encoder_bug("enc-payload-align-8", "payloads are aligned to 8 bytes instead of 64",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
                    relay_payloads(bytes, placement, block, 8);
                  }));
  add(encoder_bug("enc-heap-segments-unpadded",
                  "heap segments are written back to back, the heap padded only at its end",
                  relay_heap_unpadded));
  add(encoder_bug("enc-layout-offset-for-empty-layout",
                  "layout_offset points past the name even when there is no layout",
                  [](Bytes& bytes, const Placement& placement, const BlockDescription& block) {
                    for (std::size_t i = 0; i < block.tensors.size(); ++i)
                      if (block.tensors[i].layout.empty())
                        write_field(bytes, placement.tensors[i].entry, entry::kLayoutOffset,
                                    placement.tensors[i].layout - placement.heap_start);
                  }));
  add(encoder_bug("enc-empty-block-header-only",
                  "a block with no tensors is the 32-byte header alone (payload_offset 32)",
                  [](Bytes& bytes, const Placement&, const BlockDescription& block) {
                    if (!block.tensors.empty()) return;
                    bytes.resize(kHeaderSize);
                    write_field(bytes, 0, header::kPayloadOffset, kHeaderSize);
                  }));
  {
    Mutant m = make("enc-sorted-by-name", "encoder",
                    "tensors are written in sorted name order (a std::map), not the given order");
    m.reorder = [](BlockDescription& block) {
      std::stable_sort(block.tensors.begin(), block.tensors.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; });
    };
    add(std::move(m));
  }
  {
    Mutant m = make("enc-no-refusal", "encoder",
                    "the encoder writes whatever it is given, valid or not");
    m.encoder_refuses = false;
    add(std::move(m));
  }
  return all;
}

}  // namespace

const std::vector<Mutant>& catalogue() {
  static const std::vector<Mutant> all = build_catalogue();
  return all;
}

const Mutant* find_mutant(std::string_view name) {
  for (const Mutant& mutant : catalogue())
    if (mutant.name == name) return &mutant;
  return nullptr;
}

const Mutant& control() {
  static const Mutant reference =
      make("control", "control", "the reference through the mutant pipeline, with no bug");
  return reference;
}

}  // namespace kiln::mutants
