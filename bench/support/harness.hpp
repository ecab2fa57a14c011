// What every bench program shares: contenders timed in turn inside one
// benchmark iteration (the machine is shared and noisy, so only ratios measured
// side by side mean anything), aims on ratio counters with a summary after the
// run, and the payload-size flag that keeps default runs short.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::bench {

// Per-contender wall-clock samples, one per call; ratios use the medians so
// that a burst of load from another process skews neither side.
class Contest {
 public:
  explicit Contest(std::size_t contenders) : samples_(contenders) {}

  template <class Body>
  void time(std::size_t contender, Body&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    const auto stop = std::chrono::steady_clock::now();
    samples_[contender].push_back(std::chrono::duration<double>(stop - start).count());
  }

  double median_seconds(std::size_t contender) const;

 private:
  std::vector<std::vector<double>> samples_;
};

// A ratio counter's target, checked in the summary printed after the run.
struct Aim {
  enum class Kind { kAtLeast, kAtMost };
  std::string_view counter;
  Kind kind;
  double target;
  std::string_view meaning;
};

// Parses and removes --payload_mib=N (default_mib when absent): the payload
// size of the large-block benchmarks. The recorded run passes 1024.
std::uint64_t take_payload_bytes(int& argc, char** argv, std::uint64_t default_mib);

// Initialize, run, then print every aim counter against its target. Returns
// the process exit status: 1 when a benchmark reported an error.
int run_benchmarks(int& argc, char** argv, std::span<const Aim> aims);

// 1 GiB as 1 GiB, 64 MiB as 64 MiB: names for sizes in benchmark output.
std::string size_name(std::uint64_t bytes);

}  // namespace kiln::bench
