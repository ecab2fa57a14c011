// A second, independent reader of the Kiln v2 block, written from the design
// brief for differential fuzzing. Unlike the reference decoder (which checks the
// whole frame up front), it reads the header on open() and validates directory
// entries one at a time, only when asked for them, checking each region against
// the input's real size as it goes. It shares the dtype table, the field table
// and the UTF-8 check with the reference (one source of truth) and nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/rules.hpp"

namespace kiln::fuzz {

struct LazyFailure {
  ErrorClass error_class;
  std::string_view what;  // a static description, for diagnostics
};

struct LazyTensor {
  std::string_view name;
  std::uint16_t dtype = 0;
  std::span<const std::uint8_t> shape_bytes;  // rank little-endian u64 dimensions
  std::string_view layout;
  std::uint32_t block_size = 0;
  std::span<const std::uint8_t> payload;

  std::size_t rank() const { return shape_bytes.size() / 8; }
  std::uint64_t dimension(std::size_t axis) const;
};

class LazyBlock {
 public:
  // Checks the 32-byte header only.
  static std::optional<LazyFailure> open(std::span<const std::uint8_t> bytes, LazyBlock& out);

  std::uint64_t declared_count() const { return count_; }

  // The frame of entry `index`, validating every entry before it first (their
  // heap and payload cursors and names are needed). A FRAME failure here is a
  // FRAME failure of the whole block.
  std::optional<LazyFailure> tensor(std::uint64_t index, const LazyTensor*& out);

  // The rest of the frame: every entry, then the block-wide totals.
  std::optional<LazyFailure> finish_frame();

  // The dtype rules for one tensor whose frame is valid.
  static std::optional<LazyFailure> check_type(const LazyTensor& tensor);

  const std::vector<LazyTensor>& validated() const { return tensors_; }

 private:
  std::optional<LazyFailure> validate_next();

  std::span<const std::uint8_t> bytes_;
  std::uint64_t count_ = 0;
  std::uint64_t heap_start_ = 0;
  std::uint64_t heap_length_ = 0;
  std::uint64_t payload_offset_ = 0;
  std::uint64_t payload_length_ = 0;
  std::uint64_t heap_end_seen_ = 0;     // heap-relative end of the last validated segment
  std::uint64_t payload_end_seen_ = 0;  // payload-relative end of the last validated payload
  std::set<std::string_view> names_;
  std::vector<LazyTensor> tensors_;
};

// The whole verdict: nullopt and the tensors, or the first failure's class.
std::optional<LazyFailure> lazy_read_all(std::span<const std::uint8_t> bytes, LazyBlock& block);

}  // namespace kiln::fuzz
