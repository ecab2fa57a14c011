// The decoder sizes no allocation by a declared field it has not checked against
// the bytes present. This program replaces the global operator new/delete with a
// version that records the largest single request while a scope is watching.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "kiln/hurray.hpp"
#include "test_support.hpp"

namespace {

std::atomic<bool> g_watching{false};
std::atomic<std::size_t> g_largest{0};
std::atomic<std::size_t> g_count{0};

void record(std::size_t size) noexcept {
  if (!g_watching.load(std::memory_order_relaxed)) return;
  g_count.fetch_add(1, std::memory_order_relaxed);
  std::size_t seen = g_largest.load(std::memory_order_relaxed);
  while (size > seen && !g_largest.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
  }
}

void* allocate(std::size_t size) noexcept {
  record(size);
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace kiln::testing {
namespace {

constexpr std::size_t kSmall = 64 * 1024;
constexpr std::uint64_t kTwo62 = std::uint64_t{1} << 62;

// Records the largest single allocation made while it lives.
class AllocationWatch {
 public:
  AllocationWatch() {
    g_largest = 0;
    g_count = 0;
    g_watching = true;
  }
  ~AllocationWatch() { g_watching = false; }
  std::size_t largest() const { return g_largest.load(); }
  std::size_t count() const { return g_count.load(); }
};

// The largest single allocation made by decode(bytes), and its result.
std::size_t largest_allocation_in_decode(const Bytes& bytes, std::optional<Error>& error) {
  AllocationWatch watch;
  auto decoded = decode(bytes);
  const std::size_t largest = watch.largest();
  if (!decoded) error = decoded.error();
  return largest;
}

// The watch must see allocations, or the bounds below prove nothing.
TEST(AllocationWatch, SeesALargeAllocation) {
  std::size_t largest = 0;
  {
    AllocationWatch watch;
    auto* big = new std::uint8_t[1 << 20];
    big[0] = 1;
    largest = watch.largest();
    delete[] big;
  }
  EXPECT_GE(largest, std::size_t{1} << 20);
}

TEST(AllocationWatch, SeesTheDecodersOwnAllocations) {
  // Accepting 40 tensors reserves the view vector: 40 views at once.
  BlockDescription description;
  for (int i = 0; i < 40; ++i)
    description.tensors.push_back(tensor("t" + std::to_string(i), 9, {1}, {1}));
  std::optional<Error> error;
  const std::size_t largest = largest_allocation_in_decode(bytes_of(description), error);
  EXPECT_FALSE(error);
  EXPECT_GE(largest, 40 * sizeof(TensorView));
}

// The allocations of accepting n tensors (issue 28): none for one tensor (the
// view is held in place, no name table), the views alone up to 16 tensors
// (names compared in place), and views, names and table above that.
std::size_t allocations_accepting(std::size_t count) {
  BlockDescription description;
  for (std::size_t i = 0; i < count; ++i)
    description.tensors.push_back(tensor("t" + std::to_string(i), 9, {1}, {1}));
  const Bytes bytes = bytes_of(description);
  AllocationWatch watch;
  const auto decoded = decode(bytes);
  const std::size_t allocations = watch.count();
  EXPECT_TRUE(decoded) << count;
  EXPECT_EQ(decoded->tensors.size(), count);
  return allocations;
}

TEST(AllocationCounts, AcceptingATensorAllocatesNothing) {
  EXPECT_EQ(allocations_accepting(0), 0u);
  EXPECT_EQ(allocations_accepting(1), 0u);
}

TEST(AllocationCounts, AFewTensorsAllocateTheViewsOnly) {
  for (std::size_t count : {2, 3, 8, 16}) EXPECT_EQ(allocations_accepting(count), 1u) << count;
}

TEST(AllocationCounts, ManyTensorsAllocateViewsNamesAndTable) {
  for (std::size_t count : {17, 1000}) EXPECT_EQ(allocations_accepting(count), 3u) << count;
}

TEST(DeclaredSizes, PayloadOf2To62BytesInA192ByteBlockAllocatesLittle) {
  Bytes bytes = bytes_of(block({tensor("x", 9, {64}, Bytes(64, 7))}));
  ASSERT_EQ(bytes.size(), 192u);
  ASSERT_TRUE(write_field(bytes, 0, header::kPayloadLength, kTwo62));
  ASSERT_TRUE(write_field(bytes, entry_start(0), entry::kByteLength, kTwo62));
  store_le(bytes.data() + 96, 8, kTwo62);  // the dimension agrees with the length

  std::optional<Error> error;
  const std::size_t largest = largest_allocation_in_decode(bytes, error);
  ASSERT_TRUE(error);
  EXPECT_TRUE(matches(*error, Expected{Rule::kFrameTruncated, 192, std::nullopt}));
  EXPECT_LT(largest, kSmall);
}

TEST(DeclaredSizes, HeapAndNameLengthsNear2To32InASmallBlockAllocateLittle) {
  // heap_length 2^32 - 8 with the payload_offset it implies: the heap is missing.
  Bytes bytes = bytes_of(block({tensor("x", 9, {1}, {1})}));
  const std::uint64_t heap = 0xFFFFFFF8u;
  ASSERT_TRUE(write_field(bytes, 0, header::kHeapLength, heap));
  ASSERT_TRUE(write_field(bytes, 0, header::kPayloadOffset,
                          align_up(entry_start(1) + heap, kPayloadAlign)));
  {
    std::optional<Error> error;
    const std::size_t largest = largest_allocation_in_decode(bytes, error);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->rule, Rule::kFrameTruncated);
    EXPECT_LT(largest, kSmall);
  }
  // name_length 2^32 - 1 in an intact frame: the name runs past the heap.
  Bytes named = bytes_of(block({tensor("x", 9, {1}, {1})}));
  ASSERT_TRUE(write_field(named, entry_start(0), entry::kNameLength, 0xFFFFFFFFu));
  std::optional<Error> error;
  const std::size_t largest = largest_allocation_in_decode(named, error);
  ASSERT_TRUE(error);
  EXPECT_TRUE(matches(*error, Expected{Rule::kFrameHeapLength, 12, 0u}));
  EXPECT_LT(largest, kSmall);
}

TEST(DeclaredSizes, TensorCount2To32Minus1InA64ByteBlockAllocatesLittle) {
  const std::uint64_t count = 0xFFFFFFFFu;
  Bytes bytes = bytes_of(block({}));
  ASSERT_EQ(bytes.size(), 64u);
  ASSERT_TRUE(write_field(bytes, 0, header::kTensorCount, count));

  {
    std::optional<Error> error;
    const std::size_t largest = largest_allocation_in_decode(bytes, error);
    ASSERT_TRUE(error);
    EXPECT_TRUE(matches(*error, Expected{Rule::kFramePayloadOffset, 16, std::nullopt}));
    EXPECT_LT(largest, kSmall);
  }
  // With the payload_offset that count implies, the directory is simply missing.
  ASSERT_TRUE(
      write_field(bytes, 0, header::kPayloadOffset, align_up(entry_start(count), kPayloadAlign)));
  {
    std::optional<Error> error;
    const std::size_t largest = largest_allocation_in_decode(bytes, error);
    ASSERT_TRUE(error);
    EXPECT_TRUE(matches(*error, Expected{Rule::kFrameTruncated, 64, std::nullopt}));
    EXPECT_LT(largest, kSmall);
  }
}

// The Hurray element codec: a declared shape sizes nothing, and accepting a
// tensor allocates nothing at all (the result is a view of the caller's bytes).
TEST(HurrayDeclaredSizes, HugeShapesWithTinyDataAllocateLittle) {
  const std::vector<std::uint8_t> tiny{1, 2, 3};
  for (const hurray::TypeInfo& type : hurray::kTypes) {
    for (const std::vector<std::uint64_t>& shape :
         {std::vector<std::uint64_t>{kTwo62}, std::vector<std::uint64_t>{1u << 31, 1u << 31},
          std::vector<std::uint64_t>{~std::uint64_t{0}}}) {
      AllocationWatch watch;
      const auto decoded = hurray::decode(type.tag, shape, hurray::Mode::kStrict, tiny);
      const std::size_t largest = watch.largest();
      ASSERT_FALSE(decoded) << type.name;
      EXPECT_EQ(decoded.error().error_class(), hurray::ErrorClass::kData) << type.name;
      EXPECT_LT(largest, kSmall) << type.name;
    }
  }
}

TEST(HurrayDeclaredSizes, AcceptingAMegabyteTensorAllocatesNothing) {
  const std::vector<std::uint8_t> data(1 << 20, 0x55);
  for (const hurray::TypeInfo& type : hurray::kTypes) {
    const std::uint64_t per_unit = type.bits == 6 ? 4 : type.bits < 8 ? 8 / type.bits : 1;
    const std::uint64_t unit_bytes = type.bits == 6 ? 3 : type.bits < 8 ? 1 : type.bits / 8;
    const std::uint64_t count = data.size() / unit_bytes * per_unit;
    const std::vector<std::uint64_t> shape{count};
    AllocationWatch watch;
    const auto decoded = hurray::decode(type.tag, shape, hurray::Mode::kStrict, data);
    const std::size_t allocations = watch.count();
    ASSERT_TRUE(decoded) << type.name;
    EXPECT_EQ(allocations, 0u) << type.name;
  }
}

}  // namespace
}  // namespace kiln::testing
