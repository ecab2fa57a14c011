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

// A set of rules (one bit each), for waiving checks when reading leniently.
class RuleSet {
 public:
  constexpr RuleSet() = default;
  constexpr RuleSet& add(Rule rule) noexcept {
    bits_ |= std::uint64_t{1} << static_cast<unsigned>(rule);
    return *this;
  }
  constexpr bool contains(Rule rule) const noexcept {
    return (bits_ >> static_cast<unsigned>(rule)) & 1u;
  }
  constexpr bool empty() const noexcept { return bits_ == 0; }

 private:
  static_assert(static_cast<unsigned>(Rule::kTypeOpaqueMultiple) < 64, "RuleSet holds 64 rules");
  std::uint64_t bits_ = 0;
};

std::span<const RuleInfo> all_rules() noexcept;
const RuleInfo& rule_info(Rule rule) noexcept;
std::optional<Rule> rule_from_id(std::string_view id) noexcept;

}  // namespace kiln
