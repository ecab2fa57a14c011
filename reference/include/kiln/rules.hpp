// Every rule of reference/FORMAT.md, by stable ID. The decoder, the encoder, the
// tests and the golden cases cite these IDs; the FORMAT.md test keeps the two in step.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace kiln {

enum class ErrorClass : std::uint8_t { kFrame, kType };

std::string_view to_string(ErrorClass error_class) noexcept;
std::optional<ErrorClass> error_class_from_string(std::string_view text) noexcept;

// Listed in the decoder's check order: FRAME rules first (header, block length,
// each entry in directory order, then the block-wide totals), then TYPE rules.
enum class Rule : std::uint8_t {
  kFrameTruncated,
  kFrameMagic,
  kFrameVersion,
  kFrameLeFlag,
  kFrameFlagsReserved,
  kFrameHeaderReserved,
  kFrameHeapAlign,
  kFramePayloadOffset,
  kFrameTrailing,
  kFrameEntryReserved,
  kFrameNameEmpty,
  kFrameShapeOffset,
  kFrameNameOffset,
  kFrameLayoutOffset,
  kFrameHeapLength,
  kFramePadHeap,
  kFrameNameUtf8,
  kFrameNameUnique,
  kFrameDataOffset,
  kFramePadPayload,
  kFramePayloadLength,
  kFramePadGap,
  kFrameFieldRange,
  kTypeCodeZero,
  kTypeCodeReserved,
  kTypeCodeAboveOpaque,
  kTypeClosedLayout,
  kTypeClosedBlockSize,
  kTypeShapeOverflow,
  kTypeByteLength,
  kTypeBoolByte,
  kTypeHighNibble,
  kTypeOpaqueLayout,
  kTypeOpaqueLayoutUtf8,
  kTypeOpaqueBlockSize,
  kTypeOpaqueMultiple,
};

struct RuleInfo {
  Rule rule;
  std::string_view id;
  ErrorClass error_class;
  std::string_view summary;
};

std::span<const RuleInfo> all_rules() noexcept;
const RuleInfo& rule_info(Rule rule) noexcept;
std::optional<Rule> rule_from_id(std::string_view id) noexcept;

}  // namespace kiln
