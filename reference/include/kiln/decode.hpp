// The strict reference decoder. Bytes in; a block of views into those bytes, or
// the first defect (FRAME before TYPE, then directory order). It never throws on
// bad input, never reads outside the input, and allocates only O(tensor count)
// after the directory is known to be present.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/endian.hpp"
#include "kiln/error.hpp"
#include "kiln/layout.hpp"

namespace kiln {

struct TensorView {
  std::string_view name;
  std::uint16_t dtype = 0;
  std::uint16_t rank = 0;
  const std::uint8_t* shape_bytes = nullptr;  // rank little-endian u64 dimensions
  std::string_view layout;
  std::uint32_t block_size = 0;
  std::span<const std::uint8_t> payload;

  std::uint64_t dimension(std::size_t axis) const noexcept {
    return load_u64(shape_bytes + kDimensionSize * axis);
  }
  std::vector<std::uint64_t> shape() const;
  TensorDescription to_description() const;
};

static_assert(std::is_trivially_copyable_v<TensorView>);

// The tensor views of a block: a vector (the same operations the decoder and
// its readers use) that holds one view in place, so that decoding a
// one-tensor block allocates nothing; more views go to the heap, as a
// std::vector's would.
class TensorViews {
 public:
  using value_type = TensorView;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = TensorView&;
  using const_reference = const TensorView&;
  using pointer = TensorView*;
  using const_pointer = const TensorView*;
  using iterator = TensorView*;
  using const_iterator = const TensorView*;

  TensorViews() noexcept = default;
  TensorViews(const TensorViews& other) { append(other.data(), other.size()); }
  TensorViews(TensorViews&& other) noexcept { take(other); }
  TensorViews& operator=(const TensorViews& other) {
    if (this != &other) {
      clear();
      append(other.data(), other.size());
    }
    return *this;
  }
  TensorViews& operator=(TensorViews&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~TensorViews() { release(); }

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  TensorView* data() noexcept { return data_; }
  const TensorView* data() const noexcept { return data_; }
  TensorView* begin() noexcept { return data_; }
  TensorView* end() noexcept { return data_ + size_; }
  const TensorView* begin() const noexcept { return data_; }
  const TensorView* end() const noexcept { return data_ + size_; }
  const TensorView* cbegin() const noexcept { return data_; }
  const TensorView* cend() const noexcept { return data_ + size_; }
  TensorView& operator[](std::size_t i) noexcept { return data_[i]; }
  const TensorView& operator[](std::size_t i) const noexcept { return data_[i]; }
  TensorView& at(std::size_t i) {
    if (i >= size_) throw std::out_of_range("TensorViews::at");
    return data_[i];
  }
  const TensorView& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("TensorViews::at");
    return data_[i];
  }
  TensorView& front() noexcept { return data_[0]; }
  const TensorView& front() const noexcept { return data_[0]; }
  TensorView& back() noexcept { return data_[size_ - 1]; }
  const TensorView& back() const noexcept { return data_[size_ - 1]; }

  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    TensorView* grown = std::allocator<TensorView>().allocate(capacity);
    std::uninitialized_copy(data_, data_ + size_, grown);
    const std::size_t size = size_;
    release();
    data_ = grown;
    size_ = size;
    capacity_ = capacity;
  }
  void push_back(const TensorView& view) {
    if (size_ == capacity_) [[unlikely]] {
      grow_and_add(TensorView(view));  // a copy: view may be one of ours
      return;
    }
    data_[size_++] = view;
  }
  // A view from its fields (TensorView{fields...}), built where it is stored.
  template <class... Fields>
  TensorView& emplace_back(Fields&&... fields) {
    // Built before growing: fields may be read from one of ours.
    if (size_ == capacity_) [[unlikely]]
      return grow_and_add(TensorView{std::forward<Fields>(fields)...});
    return *::new (static_cast<void*>(data_ + size_++))
        TensorView{std::forward<Fields>(fields)...};
  }
  void clear() noexcept { size_ = 0; }

 private:
  static constexpr std::size_t kInPlace = 1;

  bool in_place() const noexcept { return data_ == in_place_.views; }
  TensorView& grow_and_add(const TensorView& view) {
    reserve(2 * capacity_);
    return *::new (static_cast<void*>(data_ + size_++)) TensorView(view);
  }
  void append(const TensorView* views, std::size_t count) {
    reserve(size_ + count);
    std::uninitialized_copy(views, views + count, data_ + size_);
    size_ += count;
  }
  // Frees the heap array, if any, and leaves the views empty and in place.
  void release() noexcept {
    if (!in_place()) std::allocator<TensorView>().deallocate(data_, capacity_);
    data_ = in_place_.views;
    capacity_ = kInPlace;
    size_ = 0;
  }
  // Takes other's views (an empty, in-place this), and leaves other empty.
  void take(TensorViews& other) noexcept {
    if (other.in_place()) {
      // One fixed-size copy (a call to memmove was a fifth of a one-tensor decode).
      static_assert(kInPlace == 1);
      if (other.size_ != 0) ::new (static_cast<void*>(in_place_.views)) TensorView(other.front());
      size_ = other.size_;
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      size_ = other.size_;
      other.data_ = other.in_place_.views;
      other.capacity_ = kInPlace;
    }
    other.size_ = 0;
  }

  // Raw storage: no view is constructed until one is added.
  union InPlace {
    InPlace() noexcept {}
    TensorView views[kInPlace];
  } in_place_;
  TensorView* data_ = in_place_.views;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInPlace;
};

struct BlockView {
  TensorViews tensors;

  BlockDescription to_description() const;
};

Result<BlockView> decode(std::span<const std::uint8_t> bytes);

// Lenient reading, for tools that inspect broken blocks and for adapters that
// model an implementer's missing check. A waived check is skipped and the
// decoder goes on as a reader that never made it would: it reads from the
// canonical position where a waived offset disagrees, and wraps a waived shape
// overflow. Checks that keep every read inside the input are never waived:
// FRAME-TRUNCATED, and the bounds parts of FRAME-HEAP-LENGTH and
// FRAME-PAYLOAD-LENGTH (only their "ends exactly here" totals are waived).
struct DecodeOptions {
  RuleSet waived;
};

Result<BlockView> decode(std::span<const std::uint8_t> bytes, const DecodeOptions& options);

// Whether decode(bytes, options) honours waiving this rule.
bool is_waivable(Rule rule) noexcept;

// The shape product with the format's exact reading: 1 for rank 0, 0 when any
// dimension is 0 (whatever the others are), nullopt only for a nonzero product
// above 2^64 - 1.
std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept;

}  // namespace kiln
