#include "kiln/rules.hpp"

#include <array>

#include "kiln/dtype.hpp"
#include "kiln/error.hpp"

namespace kiln {
namespace {

constexpr ErrorClass F = ErrorClass::kFrame;
constexpr ErrorClass T = ErrorClass::kType;

// Same order as enum Rule; checked at compile time below.
constexpr std::array<RuleInfo, 36> kRules{{
    {Rule::kFrameTruncated, "FRAME-TRUNCATED", F,
     "the input ends before the header, the directory, the heap or the declared payload end"},
    {Rule::kFrameMagic, "FRAME-MAGIC", F, "bytes 0..3 are 4b 49 4c 4e (\"KILN\")"},
    {Rule::kFrameVersion, "FRAME-VERSION", F, "the version byte is 2"},
    {Rule::kFrameLeFlag, "FRAME-LE-FLAG", F, "flag bit 1 (0x02), the little-endian bit, is set"},
    {Rule::kFrameFlagsReserved, "FRAME-FLAGS-RESERVED", F, "every flag bit other than bit 1 is 0"},
    {Rule::kFrameHeaderReserved, "FRAME-HEADER-RESERVED", F, "header bytes 6..7 are 0"},
    {Rule::kFrameHeapAlign, "FRAME-HEAP-ALIGN", F, "heap_length is a multiple of 8"},
    {Rule::kFramePayloadOffset, "FRAME-PAYLOAD-OFFSET", F,
     "payload_offset equals align64(32 + 64 * tensor_count + heap_length)"},
    {Rule::kFrameTrailing, "FRAME-TRAILING", F,
     "no byte follows payload_offset + payload_length"},
    {Rule::kFrameEntryReserved, "FRAME-ENTRY-RESERVED", F,
     "entry bytes 28..31 and 48..63 are 0"},
    {Rule::kFrameNameEmpty, "FRAME-NAME-EMPTY", F, "name_length is at least 1"},
    {Rule::kFrameShapeOffset, "FRAME-SHAPE-OFFSET", F,
     "shape_offset is the start of the entry's canonical heap segment"},
    {Rule::kFrameNameOffset, "FRAME-NAME-OFFSET", F,
     "name_offset is shape_offset + 8 * rank"},
    {Rule::kFrameLayoutOffset, "FRAME-LAYOUT-OFFSET", F,
     "layout_offset is name_offset + name_length when layout_length > 0, else 0"},
    {Rule::kFrameHeapLength, "FRAME-HEAP-LENGTH", F,
     "the heap segments fit in heap_length and end exactly at it"},
    {Rule::kFramePadHeap, "FRAME-PAD-HEAP", F,
     "the padding that ends each heap segment at a multiple of 8 is zero bytes"},
    {Rule::kFrameNameUtf8, "FRAME-NAME-UTF8", F, "a tensor name is strict UTF-8"},
    {Rule::kFrameNameUnique, "FRAME-NAME-UNIQUE", F, "tensor names are unique within the block"},
    {Rule::kFrameDataOffset, "FRAME-DATA-OFFSET", F,
     "data_offset is the previous payload's end rounded up to 64 (0 for the first)"},
    {Rule::kFramePadPayload, "FRAME-PAD-PAYLOAD", F, "bytes between payloads are zero"},
    {Rule::kFramePayloadLength, "FRAME-PAYLOAD-LENGTH", F,
     "payload_length is the end of the last payload (0 with no tensors)"},
    {Rule::kFramePadGap, "FRAME-PAD-GAP", F,
     "bytes between the heap's end and payload_offset are zero"},
    {Rule::kFrameFieldRange, "FRAME-FIELD-RANGE", F,
     "an encoder refuses content whose counts or lengths do not fit their fields"},
    {Rule::kTypeCodeZero, "TYPE-CODE-ZERO", T, "dtype code 0 is rejected"},
    {Rule::kTypeCodeReserved, "TYPE-CODE-RESERVED", T, "dtype codes 20..4095 are rejected"},
    {Rule::kTypeCodeAboveOpaque, "TYPE-CODE-ABOVE-OPAQUE", T,
     "dtype codes above 32767 are rejected"},
    {Rule::kTypeClosedLayout, "TYPE-CLOSED-LAYOUT", T,
     "a dtype from 1 to 19 has layout_length 0"},
    {Rule::kTypeClosedBlockSize, "TYPE-CLOSED-BLOCK-SIZE", T,
     "a dtype from 1 to 19 has block_size 0"},
    {Rule::kTypeShapeOverflow, "TYPE-SHAPE-OVERFLOW", T,
     "a closed dtype's nonzero shape product fits in 64 bits"},
    {Rule::kTypeByteLength, "TYPE-BYTE-LENGTH", T,
     "byte_length is n * width, or ceil(n / 2) for i4, u4 and e2m1"},
    {Rule::kTypeBoolByte, "TYPE-BOOL-BYTE", T, "every bool byte is 0 or 1"},
    {Rule::kTypeHighNibble, "TYPE-HIGH-NIBBLE", T,
     "with an odd packed count, the last byte's high nibble is 0"},
    {Rule::kTypeOpaqueLayout, "TYPE-OPAQUE-LAYOUT", T,
     "an opaque dtype (4096..32767) has a layout name (layout_length at least 1)"},
    {Rule::kTypeOpaqueLayoutUtf8, "TYPE-OPAQUE-LAYOUT-UTF8", T,
     "an opaque layout name is strict UTF-8"},
    {Rule::kTypeOpaqueBlockSize, "TYPE-OPAQUE-BLOCK-SIZE", T,
     "an opaque dtype has block_size at least 1"},
    {Rule::kTypeOpaqueMultiple, "TYPE-OPAQUE-MULTIPLE", T,
     "an opaque payload's byte_length is a multiple of block_size"},
}};

constexpr bool table_matches_enum() {
  for (std::size_t i = 0; i < kRules.size(); ++i)
    if (static_cast<std::size_t>(kRules[i].rule) != i) return false;
  return kRules.back().rule == Rule::kTypeOpaqueMultiple;
}
static_assert(table_matches_enum(), "kRules must list every Rule in enum order");

}  // namespace

std::string_view to_string(ErrorClass error_class) noexcept {
  return error_class == ErrorClass::kFrame ? "FRAME" : "TYPE";
}

std::optional<ErrorClass> error_class_from_string(std::string_view text) noexcept {
  if (text == "FRAME") return ErrorClass::kFrame;
  if (text == "TYPE") return ErrorClass::kType;
  return std::nullopt;
}

std::span<const RuleInfo> all_rules() noexcept { return kRules; }

const RuleInfo& rule_info(Rule rule) noexcept { return kRules[static_cast<std::size_t>(rule)]; }

std::optional<Rule> rule_from_id(std::string_view id) noexcept {
  for (const auto& info : kRules)
    if (info.id == id) return info.rule;
  return std::nullopt;
}

std::string Error::describe() const {
  std::string text{to_string(error_class())};
  text += ' ';
  text += rule_id();
  text += " at byte ";
  text += std::to_string(offset);
  if (tensor) {
    text += " (tensor ";
    text += std::to_string(*tensor);
    text += ')';
  }
  text += ": ";
  text += message;
  return text;
}

std::string_view to_string(CodeClass code_class) noexcept {
  switch (code_class) {
    case CodeClass::kZero: return "zero";
    case CodeClass::kClosed: return "closed";
    case CodeClass::kReserved: return "reserved";
    case CodeClass::kOpaque: return "opaque";
    case CodeClass::kAboveOpaque: return "above-opaque";
  }
  return "unknown";
}

}  // namespace kiln
