// Payload checks: kiln::decode over one large tensor (a bool tensor, whose
// every byte is checked, and an odd-count u4 tensor, whose last byte is),
// against memchr over the same bytes for a byte that is absent: the memory
// bandwidth limit. And f32/f16/opaque acceptance, which should cost nothing
// per byte: a 1 MiB and a large payload decode in the same time.
//
// --payload_mib=N sets the large payload (default 64 MiB; the recorded run
// uses 1024). One buffer is allocated and filled once; each benchmark writes
// its own frame just in front of the payload.
#include <cstring>
#include <memory>
#include <string>

#include "kiln/kiln.hpp"
#include "support/blocks.hpp"
#include "support/harness.hpp"

namespace {

using kiln::bench::Aim;
using kiln::bench::LargeKind;

constexpr std::uint64_t kSmallPayload = std::uint64_t{1} << 20;
// Room for any of the frames in front of the payload.
constexpr std::uint64_t kFrameRoom = 4096;

// A payload of the given size with kFrameRoom bytes in front of it. block()
// writes a frame so that it ends where the payload starts.
class PayloadBuffer {
 public:
  explicit PayloadBuffer(std::uint64_t payload_bytes)
      : payload_bytes_(payload_bytes), storage_(new std::uint8_t[kFrameRoom + payload_bytes]) {
    kiln::bench::fill_zero_one({payload(), payload_bytes_});
  }

  std::uint8_t* payload() { return storage_.get() + kFrameRoom; }
  std::uint64_t payload_bytes() const { return payload_bytes_; }

  std::span<const std::uint8_t> block(LargeKind kind) {
    const kiln::bench::Frame frame = kiln::bench::large_tensor_frame(kind, payload_bytes_);
    std::uint8_t* start = payload() - frame.bytes.size();
    std::memcpy(start, frame.bytes.data(), frame.bytes.size());
    return {start, frame.bytes.size() + payload_bytes_};
  }

 private:
  std::uint64_t payload_bytes_;
  std::unique_ptr<std::uint8_t[]> storage_;
};

std::uint64_t g_large_payload = 0;

PayloadBuffer& large_buffer() {
  static PayloadBuffer buffer(g_large_payload);
  return buffer;
}

PayloadBuffer& small_buffer() {
  static PayloadBuffer buffer(kSmallPayload);
  return buffer;
}

enum Contender : std::size_t { kKiln, kMemchr };

// The checks that read payload bytes, against the fastest scan of those bytes.
void BM_PayloadCheck(benchmark::State& state, LargeKind kind) {
  PayloadBuffer& buffer = large_buffer();
  const auto block = buffer.block(kind);
  if (auto decoded = kiln::decode(block); !decoded)
    return state.SkipWithError(decoded.error().describe().c_str());
  kiln::bench::Contest contest(2);
  for (auto _ : state) {
    contest.time(kKiln, [&] {
      auto result = kiln::decode(block);
      benchmark::DoNotOptimize(result);
    });
    contest.time(kMemchr, [&] {
      const void* found = std::memchr(buffer.payload(), 2, buffer.payload_bytes());
      benchmark::DoNotOptimize(found);
    });
  }
  const double bytes = static_cast<double>(buffer.payload_bytes());
  state.counters["payload_bytes"] = bytes;
  state.counters["kiln_B/s"] = bytes / contest.median_seconds(kKiln);
  state.counters["memchr_B/s"] = bytes / contest.median_seconds(kMemchr);
  state.counters["kiln_per_memchr"] = contest.median_seconds(kKiln) / contest.median_seconds(kMemchr);
}

enum Size : std::size_t { kSmall, kLarge };

// Dtypes with no value rule: decode reads the frame and never the payload.
void BM_AcceptWithoutScan(benchmark::State& state, LargeKind kind) {
  const auto small = small_buffer().block(kind);
  const auto large = large_buffer().block(kind);
  for (const auto block : {small, large})
    if (auto decoded = kiln::decode(block); !decoded)
      return state.SkipWithError(decoded.error().describe().c_str());
  // One decode takes a few hundred nanoseconds: time a batch per sample.
  constexpr int kCalls = 1000;
  kiln::bench::Contest contest(2);
  for (auto _ : state) {
    for (const auto& [size, block] : {std::pair{kSmall, small}, std::pair{kLarge, large}})
      contest.time(size, [&] {
        for (int i = 0; i < kCalls; ++i) {
          auto result = kiln::decode(block);
          benchmark::DoNotOptimize(result);
        }
      });
  }
  const double small_s = contest.median_seconds(kSmall) / kCalls;
  const double large_s = contest.median_seconds(kLarge) / kCalls;
  state.counters["small_payload_bytes"] = static_cast<double>(kSmallPayload);
  state.counters["large_payload_bytes"] = static_cast<double>(large_buffer().payload_bytes());
  state.counters["small_ns"] = small_s * 1e9;
  state.counters["large_ns"] = large_s * 1e9;
  state.counters["large_per_small"] = large_s / small_s;
}

constexpr Aim kAims[] = {
    {"kiln_per_memchr", Aim::Kind::kAtMost, 2, "times memchr over the same payload"},
    {"large_per_small", Aim::Kind::kAtMost, 1.25,
     "decode time, large payload over 1 MiB (1 = nothing per byte)"},
};

}  // namespace

int main(int argc, char** argv) {
  g_large_payload = kiln::bench::take_payload_bytes(argc, argv, 64);
  const std::string size = kiln::bench::size_name(g_large_payload);
  for (const LargeKind kind : {LargeKind::kBool, LargeKind::kU4Odd})
    benchmark::RegisterBenchmark(
        ("BM_PayloadCheck/" + std::string(kiln::bench::to_string(kind)) + "/" + size).c_str(),
        BM_PayloadCheck, kind)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  for (const LargeKind kind : {LargeKind::kF32, LargeKind::kF16, LargeKind::kOpaque})
    benchmark::RegisterBenchmark(
        ("BM_AcceptWithoutScan/" + std::string(kiln::bench::to_string(kind)) + "/1MiB_vs_" + size)
            .c_str(),
        BM_AcceptWithoutScan, kind)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return kiln::bench::run_benchmarks(argc, argv, kAims);
}
