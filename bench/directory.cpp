// Directory decode: kiln::decode over model-like blocks of 1, 1,000 and 100,000
// tensors, against what a C++ user does for safetensors today (parse the JSON
// header with nlohmann::json and validate its offsets) and against a plain
// memcpy of the same header, directory and heap bytes.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kiln/kiln.hpp"
#include "support/blocks.hpp"
#include "support/harness.hpp"

namespace {

using kiln::bench::Aim;

enum Contender : std::size_t { kKiln, kJson, kMemcpy };

void BM_Directory(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const kiln::BlockDescription description = kiln::bench::model_directory(count);
  auto encoded = kiln::encode(description);
  if (!encoded) return state.SkipWithError(encoded.error().describe().c_str());
  const std::vector<std::uint8_t>& block = encoded.value();
  // Header, directory and heap: what decode reads apart from bool payloads.
  const std::uint64_t directory_bytes = *kiln::read_field(block, 0, kiln::header::kPayloadOffset);
  const kiln::bench::SafetensorsHeader safetensors = kiln::bench::safetensors_header(description);

  // Both readers must accept and see every tensor, or the race means nothing.
  auto decoded = kiln::decode(block);
  std::string why;
  if (!decoded || decoded.value().tensors.size() != count)
    return state.SkipWithError("kiln::decode did not accept the model block");
  if (kiln::bench::validate_safetensors(safetensors, &why) != static_cast<long long>(count))
    return state.SkipWithError(("safetensors validation failed: " + why).c_str());

  std::vector<std::uint8_t> copy(directory_bytes);
  // Enough calls per sample that each lasts well above the clock's resolution.
  const std::size_t calls = std::max<std::size_t>(1, 10000 / count);
  // Each contender takes several samples in a row: the first decode after the
  // JSON parser has freed its DOM pays for glibc's free-list consolidation
  // (measured: 170 -> 480 ns per tensor at 100,000 tensors), and the median
  // should show each reader in its own steady state, not the other's debris.
  constexpr int kSamplesPerRound = 5;
  kiln::bench::Contest contest(3);
  for (auto _ : state) {
    for (int sample = 0; sample < kSamplesPerRound; ++sample)
      contest.time(kKiln, [&] {
        for (std::size_t i = 0; i < calls; ++i) {
          auto result = kiln::decode(block);
          benchmark::DoNotOptimize(result);
        }
      });
    for (int sample = 0; sample < kSamplesPerRound; ++sample)
      contest.time(kJson, [&] {
        for (std::size_t i = 0; i < calls; ++i) {
          auto tensors = kiln::bench::validate_safetensors(safetensors);
          benchmark::DoNotOptimize(tensors);
        }
      });
    for (int sample = 0; sample < kSamplesPerRound; ++sample)
      contest.time(kMemcpy, [&] {
        for (std::size_t i = 0; i < calls; ++i) {
          std::memcpy(copy.data(), block.data(), directory_bytes);
          benchmark::DoNotOptimize(copy.data());
          benchmark::ClobberMemory();
        }
      });
  }
  const double kiln_s = contest.median_seconds(kKiln) / calls;
  const double json_s = contest.median_seconds(kJson) / calls;
  const double memcpy_s = contest.median_seconds(kMemcpy) / calls;
  state.counters["directory_bytes"] = static_cast<double>(directory_bytes);
  state.counters["json_bytes"] = static_cast<double>(safetensors.bytes.size());
  state.counters["kiln_B/s"] = directory_bytes / kiln_s;
  state.counters["json_B/s"] = safetensors.bytes.size() / json_s;
  state.counters["memcpy_B/s"] = directory_bytes / memcpy_s;
  state.counters["kiln_tensors/s"] = count / kiln_s;
  state.counters["json_tensors/s"] = count / json_s;
  state.counters["kiln_vs_json"] = json_s / kiln_s;
  state.counters["kiln_per_memcpy"] = kiln_s / memcpy_s;
}
BENCHMARK(BM_Directory)->Arg(1)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

constexpr Aim kAims[] = {
    {"kiln_vs_json", Aim::Kind::kAtLeast, 20, "times faster than nlohmann::json + offset checks"},
    {"kiln_per_memcpy", Aim::Kind::kAtMost, 3, "times a memcpy of header+directory+heap"},
};

}  // namespace

int main(int argc, char** argv) { return kiln::bench::run_benchmarks(argc, argv, kAims); }
