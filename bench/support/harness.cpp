#include "harness.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

namespace kiln::bench {

double Contest::median_seconds(std::size_t contender) const {
  std::vector<double> sorted = samples_[contender];
  if (sorted.empty()) return 0;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

std::uint64_t take_payload_bytes(int& argc, char** argv, std::uint64_t default_mib) {
  constexpr std::string_view kFlag = "--payload_mib=";
  std::uint64_t mib = default_mib;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) == kFlag) {
      mib = std::stoull(std::string(arg.substr(kFlag.size())));
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  return mib << 20;
}

std::string size_name(std::uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  return std::to_string(bytes) + "B";
}

namespace {

// Passes everything to the reporter --benchmark_format chose and keeps the
// runs, so that the aims can be summarised once all have finished.
class AimReporter final : public ::benchmark::BenchmarkReporter {
 public:
  AimReporter(std::string program, std::span<const Aim> aims)
      : inner_(::benchmark::CreateDefaultDisplayReporter()),
        program_(std::move(program)),
        aims_(aims) {}

  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    inner_->ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) failed_ = true;
      else if (run.run_type == Run::RT_Iteration || run.aggregate_name == "median")
        runs_.push_back(run);
    }
  }

  void Finalize() override {
    inner_->Finalize();
    std::printf("\n== %s: ratios against their aims\n", program_.c_str());
    for (const Run& run : runs_) {
      for (const Aim& aim : aims_) {
        const auto counter = run.counters.find(std::string(aim.counter));
        if (counter == run.counters.end()) continue;
        const double value = counter->second.value;
        const bool met = aim.kind == Aim::Kind::kAtLeast ? value >= aim.target : value <= aim.target;
        std::printf("ratio %-58s %-22s %10.3f  aim %s %-6g %-7s %.*s\n",
                    run.benchmark_name().c_str(), std::string(aim.counter).c_str(), value,
                    aim.kind == Aim::Kind::kAtLeast ? ">=" : "<=", aim.target,
                    met ? "met" : "NOT MET", static_cast<int>(aim.meaning.size()),
                    aim.meaning.data());
      }
    }
    std::fflush(stdout);
  }

  bool failed() const { return failed_; }

 private:
  std::unique_ptr<::benchmark::BenchmarkReporter> inner_;
  std::string program_;
  std::span<const Aim> aims_;
  std::vector<Run> runs_;
  bool failed_ = false;
};

}  // namespace

int run_benchmarks(int& argc, char** argv, std::span<const Aim> aims) {
  ::benchmark::Initialize(&argc, argv);
  if (::benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::string program = argv[0];
  if (const auto slash = program.rfind('/'); slash != std::string::npos)
    program = program.substr(slash + 1);
  AimReporter reporter(program, aims);
  ::benchmark::RunSpecifiedBenchmarks(&reporter);
  ::benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}

}  // namespace kiln::bench
