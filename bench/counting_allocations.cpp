// Its own translation unit so that no caller sees the replacement inline
// (GCC 12 then warns about free() on memory from operator new).
#include "counting_allocations.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include <malloc.h>  // malloc_usable_size: what a free gives back

namespace {

std::atomic<bool> g_counting{false};
std::atomic<std::uint64_t> g_allocations{0};
std::atomic<std::uint64_t> g_bytes{0};
// Signed: memory allocated before the start and freed during counting goes below 0.
std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};

void count_live(std::int64_t change) {
  const std::int64_t live = g_live.fetch_add(change, std::memory_order_relaxed) + change;
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void* allocate(std::size_t size, std::size_t alignment = 0) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(size, std::memory_order_relaxed);
  }
  if (size == 0) size = 1;
  void* pointer = nullptr;
  if (alignment <= alignof(std::max_align_t)) pointer = std::malloc(size);
  else if (posix_memalign(&pointer, alignment, size) != 0) pointer = nullptr;
  if (pointer && g_counting.load(std::memory_order_relaxed))
    count_live(static_cast<std::int64_t>(malloc_usable_size(pointer)));
  return pointer;
}

void release(void* pointer) noexcept {
  if (pointer && g_counting.load(std::memory_order_relaxed))
    count_live(-static_cast<std::int64_t>(malloc_usable_size(pointer)));
  std::free(pointer);
}

void* allocate_or_throw(std::size_t size, std::size_t alignment = 0) {
  if (void* pointer = allocate(size, alignment)) return pointer;
  throw std::bad_alloc();
}

}  // namespace

namespace kiln::bench {

void start_counting_allocations() {
  g_allocations = 0;
  g_bytes = 0;
  g_live = 0;
  g_peak = 0;
  g_counting = true;
}

AllocationCount stop_counting_allocations() {
  g_counting = false;
  return {g_allocations.load(), g_bytes.load(), static_cast<std::uint64_t>(g_peak.load())};
}

}  // namespace kiln::bench

void* operator new(std::size_t size) { return allocate_or_throw(size); }
void* operator new[](std::size_t size) { return allocate_or_throw(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* pointer) noexcept { release(pointer); }
void operator delete[](void* pointer) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete(void* pointer, std::align_val_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept { release(pointer); }
