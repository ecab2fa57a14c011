// Byte layout of a Kiln v2 block: sizes, alignments and the named fields of the
// header and of a directory entry. The decoder reads through these, the builder
// writes through them and faults address fields by their names.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kiln {

inline constexpr std::array<std::uint8_t, 4> kMagic{0x4b, 0x49, 0x4c, 0x4e};  // "KILN"
inline constexpr std::uint8_t kVersion = 2;
inline constexpr std::uint8_t kFlagLittleEndian = 0x02;  // flag bit 1
inline constexpr std::uint64_t kHeaderSize = 32;
inline constexpr std::uint64_t kEntrySize = 64;
inline constexpr std::uint64_t kHeapAlign = 8;
inline constexpr std::uint64_t kPayloadAlign = 64;
inline constexpr std::uint64_t kDimensionSize = 8;

struct Field {
  std::string_view name;
  std::uint8_t offset;  // from the header's or the entry's first byte
  std::uint8_t width;   // bytes, little-endian unsigned
};

namespace header {
inline constexpr Field kMagicField{"magic", 0, 4};
inline constexpr Field kVersionField{"version", 4, 1};
inline constexpr Field kFlags{"flags", 5, 1};
inline constexpr Field kReserved{"reserved", 6, 2};
inline constexpr Field kTensorCount{"tensor_count", 8, 4};
inline constexpr Field kHeapLength{"heap_length", 12, 4};
inline constexpr Field kPayloadOffset{"payload_offset", 16, 8};
inline constexpr Field kPayloadLength{"payload_length", 24, 8};
inline constexpr std::array kAll{kMagicField, kVersionField, kFlags,         kReserved,
                                 kTensorCount, kHeapLength,  kPayloadOffset, kPayloadLength};
}  // namespace header

namespace entry {
inline constexpr Field kNameOffset{"name_offset", 0, 4};
inline constexpr Field kNameLength{"name_length", 4, 4};
inline constexpr Field kDtype{"dtype", 8, 2};
inline constexpr Field kRank{"rank", 10, 2};
inline constexpr Field kShapeOffset{"shape_offset", 12, 4};
inline constexpr Field kLayoutOffset{"layout_offset", 16, 4};
inline constexpr Field kLayoutLength{"layout_length", 20, 4};
inline constexpr Field kBlockSize{"block_size", 24, 4};
inline constexpr Field kReserved28{"reserved28", 28, 4};
inline constexpr Field kDataOffset{"data_offset", 32, 8};
inline constexpr Field kByteLength{"byte_length", 40, 8};
// The 16 reserved bytes at 48 are two fields so that each fits a u64.
inline constexpr Field kReserved48{"reserved48", 48, 8};
inline constexpr Field kReserved56{"reserved56", 56, 8};
inline constexpr std::array kAll{kNameOffset,   kNameLength,   kDtype,      kRank,
                                 kShapeOffset,  kLayoutOffset, kLayoutLength, kBlockSize,
                                 kReserved28,   kDataOffset,   kByteLength, kReserved48,
                                 kReserved56};
}  // namespace entry

constexpr const Field* find_field(std::string_view name, bool in_entry) noexcept {
  if (in_entry) {
    for (const Field& f : entry::kAll)
      if (f.name == name) return &f;
  } else {
    for (const Field& f : header::kAll)
      if (f.name == name) return &f;
  }
  return nullptr;
}

// Rounds up to a multiple of a power of two; callers keep value far from 2^64.
constexpr std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) noexcept {
  return (value + alignment - 1) & ~(alignment - 1);
}

constexpr std::uint64_t entry_start(std::uint64_t index) noexcept {
  return kHeaderSize + kEntrySize * index;
}

}  // namespace kiln
