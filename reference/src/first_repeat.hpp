// Name uniqueness for the decoder: which entry first repeats an earlier entry's
// name. Names are added in directory order with their hash (computed while the
// name is in cache); first_repeat() then inserts them into an open-addressing
// table, prefetching ahead, so the check costs O(n) expected time.
//
// Flooding: the hash is keyed with a per-process random seed, so an adversary
// cannot choose colliding names in advance; and should collisions pile up all
// the same (more probes than a fixed multiple of the names), the check falls
// back to sorting, which is O(n log n) comparisons whatever the names are.
// Up to kFew names (most fuzz inputs and small blocks) stay in place and are
// compared pairwise, with no allocation.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace kiln::detail {

// The per-process key of NameHash (random_device, with the clock and an
// address mixed in should it fail).
const std::array<std::uint64_t, 3>& name_hash_key() noexcept;

// A keyed multiply-mix hash over 16-byte strides (the wyhash construction).
// Only equality of names matters, so native byte order is fine on any host.
struct NameHash {
  std::uint64_t operator()(std::string_view name) const noexcept {
    const auto& key = name_hash_key();
    const auto* p = reinterpret_cast<const unsigned char*>(name.data());
    std::size_t n = name.size();
    std::uint64_t h = key[0] ^ (n * 0x9E3779B97F4A7C15ull);
    while (n > 16) {
      h = mix(read64(p) ^ key[1], read64(p + 8) ^ h);
      p += 16;
      n -= 16;
    }
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    if (n >= 8) {
      a = read64(p);
      b = read64(p + n - 8);
    } else if (n >= 4) {
      a = read32(p);
      b = read32(p + n - 4);
    } else if (n > 0) {
      a = (std::uint64_t{p[0]} << 16) | (std::uint64_t{p[n / 2]} << 8) | p[n - 1];
    }
    return mix(a ^ key[1], b ^ h ^ key[2]) ^ h;
  }

 private:
  static std::uint64_t mix(std::uint64_t a, std::uint64_t b) noexcept {
    __extension__ using Wide = unsigned __int128;
    const Wide product = static_cast<Wide>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  }
  static std::uint64_t read64(const unsigned char* p) noexcept {
    std::uint64_t value;
    std::memcpy(&value, p, 8);
    return value;
  }
  static std::uint64_t read32(const unsigned char* p) noexcept {
    std::uint32_t value;
    std::memcpy(&value, p, 4);
    return value;
  }
};

// Hash is a parameter so that a test can force every collision (and the fallback).
template <class Hash = NameHash>
class BasicFirstRepeat {
 public:
  // Up to this many names are kept in place and compared pairwise (at most
  // kFew * (kFew - 1) / 2 hash comparisons): a small block allocates nothing
  // here, where the names, hashes and table were three allocations.
  static constexpr std::size_t kFew = 16;

  // Room for capacity names, allocated now (in place up to kFew): the caller
  // bounds it (tensor count, after the directory is known to be present).
  explicit BasicFirstRepeat(std::size_t capacity) {
    if (capacity <= kFew) return;
    heap_ = std::make_unique_for_overwrite<Name[]>(capacity);
    names_ = heap_.get();
    capacity_ = capacity;
  }
  // names_ may point into this object.
  BasicFirstRepeat(const BasicFirstRepeat&) = delete;
  BasicFirstRepeat& operator=(const BasicFirstRepeat&) = delete;

  // One name, with its hash: a few stores, inline in the decoder's loop.
  void add(std::string_view name) {
    if (size_ == capacity_) grow();
    names_[size_++] = Name{name.data(), name.size(), Hash{}(name)};
  }

  std::size_t size() const noexcept { return size_; }

  // The index of the first name equal to an earlier one, or nullopt. The
  // first insert that meets its equal is that index.
  std::optional<std::uint32_t> first_repeat() const {
    const std::size_t n = size_;
    if (n <= kFew) {
      for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (names_[j].hash == names_[i].hash && name(j) == name(i))
            return static_cast<std::uint32_t>(i);
      return std::nullopt;
    }
    std::size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    const std::size_t mask = slots - 1;
    // A slot holds (tag << 32) | (index + 1); 0 is empty. The tag (the hash's
    // high half) settles nearly every mismatch without reading a name.
    std::vector<std::uint64_t> table(slots, 0);
    // Linear probing at load <= 1/2 averages under 2.5 probes per insert.
    const std::size_t probe_budget = 8 * n + 1024;
    std::size_t probes = 0;
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) __builtin_prefetch(&table[names_[i + kAhead].hash & mask], 1);
      const std::uint64_t hash = names_[i].hash;
      const std::uint64_t tag = hash >> 32;
      for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
        const std::uint64_t slot = table[at];
        if (slot == 0) {
          table[at] = (tag << 32) | (i + 1);
          break;
        }
        if ((slot >> 32) == tag && name((slot & 0xFFFFFFFFu) - 1) == name(i))
          return static_cast<std::uint32_t>(i);
        if (++probes > probe_budget) return first_repeat_by_sorting();
      }
    }
    return std::nullopt;
  }

  // The same answer by a stable sort of the indices by name (no hashing).
  std::optional<std::uint32_t> first_repeat_by_sorting() const {
    std::vector<std::uint32_t> order(size_);
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return name(a) < name(b); });
    std::optional<std::uint32_t> first;
    for (std::size_t k = 1; k < order.size(); ++k)
      if (name(order[k]) == name(order[k - 1]) && (!first || order[k] < *first))
        first = order[k];
    return first;
  }

 private:
  // A name and its hash, side by side (one allocation for both).
  struct Name {
    const char* data;
    std::size_t size;
    std::uint64_t hash;
  };

  std::string_view name(std::size_t i) const noexcept { return {names_[i].data, names_[i].size}; }

  // More names than the capacity promised: twice the room.
  void grow() {
    auto grown = std::make_unique_for_overwrite<Name[]>(2 * capacity_);
    std::copy(names_, names_ + size_, grown.get());
    heap_ = std::move(grown);
    names_ = heap_.get();
    capacity_ *= 2;
  }

  // In place, left uninitialized (only the first size_ are read): zeroing
  // them cost more than comparing a few names.
  Name few_[kFew];
  std::unique_ptr<Name[]> heap_;
  Name* names_ = few_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kFew;
};

using FirstRepeat = BasicFirstRepeat<>;

}  // namespace kiln::detail
