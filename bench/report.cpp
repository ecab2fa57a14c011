// Memory of the run's reports against their size: writing the JSON report and
// the run's HTML page (`run --json --html`) and reading a report back
// (`report --html`: load_run_report, then the matrix page). Each is measured as
// the peak heap it holds at once (a counting operator new in this program,
// frees subtracted) and the growth of peak RSS (VmHWM reset through
// /proc/self/clear_refs), each divided by the size of the file written or read.
//
// Three synthetic runs: the suite's shape (mostly passing case results and
// generated checks, as `make run` writes), many failures with short text, and
// a few failures whose detail and adapter stderr are long and full of control
// bytes (each written as a six-byte escape).
//
// `bench_report --check` measures the same at a tenth of the results and exits
// 1 when a heap aim is not met: peak heap is counted, not timed, so it is a
// test (ctest bench-report-memory).
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "counting_allocations.hpp"
#include "kiln/conformance/html_report.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/run.hpp"
#include "support/harness.hpp"
#include "support/process_memory.hpp"

namespace {

namespace kc = kiln::conformance;
using kiln::bench::Aim;

// Text of `length` bytes mixing what escapes grow: controls, quotes, '<', non-ASCII.
std::string hostile_text(std::size_t length, std::size_t seed) {
  static constexpr std::string_view kPieces[] = {"\x01", "\x1b[31m", "\"", "<", "\xc3\xa9", "\xe2\x80\xa8",
                                                 "\x7f", "\n", "plain text ", "\xff"};
  std::string text;
  text.reserve(length + 16);
  for (std::size_t i = seed; text.size() < length; i = i * 2654435761u + 1) text += kPieces[(i >> 7) % 10];
  text.resize(length);
  return text;
}

struct SyntheticRun {
  kc::RunOptions options;
  std::vector<kc::CaseResult> results;
  std::vector<kc::GeneratedPhase> generated;
  kc::Totals totals;
  std::string certificate;

  kc::ReportContext context() const {
    kc::ReportContext context{options, std::nullopt, std::string(64, 'a'), results.size(), results, totals,
                              certificate, 12.5, "2026-12-02T00:00:00Z", generated};
    context.hello = kiln::protocol::Hello{};
    context.hello->name = "bench-adapter";
    context.hello->version = "1.0";
    context.hello->protocol = 1;
    context.hello->ops = {"decode", "encode"};
    context.hello->profiles = {"kiln-v2", "hurray-elements"};
    return context;
  }
};

kc::CaseResult case_result(std::size_t i, bool failing) {
  kc::CaseResult result;
  result.case_id = "kiln-v2-header-dir-entry-" + std::to_string(i);
  result.topic = i % 3 ? "header" : "directory";
  result.profile = i % 2 ? "kiln-v2" : "hurray-elements";
  result.op = i % 2 ? kc::Operation::kDecode : kc::Operation::kEncode;
  result.rules = {"FRAME-MAGIC", "DIR-ORDER"};
  result.expected = "reject FRAME-MAGIC";
  result.got = failing ? "accept" : "reject FRAME-MAGIC";
  result.seconds = 0.0001;
  if (failing) {
    result.status = kc::Status::kFail;
    result.verdict = kc::Verdict::kUnexpectedFailure;
    result.detail = "the adapter accepted a block the reference rejects";
  }
  return result;
}

SyntheticRun synthetic_run(std::size_t cases, std::size_t generated_checks, std::size_t failing_every,
                           std::size_t text_bytes) {
  SyntheticRun run;
  run.options.adapter = "./bench-adapter --flag";
  run.options.cases_dir = "cases";
  for (std::size_t i = 0; i < cases; ++i) {
    kc::CaseResult result = case_result(i, failing_every && i % failing_every == 0);
    if (text_bytes && result.verdict != kc::Verdict::kPass) {
      result.detail = hostile_text(text_bytes, i);
      result.adapter_stderr = hostile_text(text_bytes, i + 1);
    }
    run.results.push_back(std::move(result));
  }
  if (generated_checks) {
    kc::GeneratedPhase phase;
    phase.profile = "kiln-v2";
    phase.seed = 7;
    phase.planned = phase.ran = generated_checks;
    for (std::size_t n = 1; n <= generated_checks; ++n) {
      kc::CaseResult check;
      check.case_id = "generated-kiln-v2-7-" + std::to_string(1000000 + n).substr(1);
      check.topic = "(generated)";
      check.profile = "kiln-v2";
      check.expected = "reference accept";
      check.got = "accept";
      check.generated = kc::CaseResult::Generated{7, n, {}, {}};
      run.results.push_back(std::move(check));
    }
    run.generated.push_back(std::move(phase));
  }
  for (const kc::TopicTotals& topic : kc::totals_by_topic(run.results)) {
    run.totals.passed += topic.totals.passed;
    run.totals.failed += topic.totals.failed;
  }
  run.certificate = run.totals.failed ? "NOT CONFORMANT: bench-adapter fails" : "CONFORMANT: bench-adapter";
  return run;
}

struct Shape {
  const char* name;
  std::size_t cases, generated_checks, failing_every, text_bytes;
};
// The suite's shape (7,275 case results and 20,000 generated checks, as the
// recorded `make run`); 60,000 failures with short text; 100 failures with 64 KiB
// of detail and 64 KiB of stderr each.
constexpr Shape kShapes[] = {{"suite", 7275, 20000, 0, 0},
                             {"short_failures", 60000, 0, 1, 0},
                             {"long_text", 100, 0, 1, 64 << 10}};

// The same run with a tenth of its results (its text as long).
Shape tenth(Shape shape) {
  shape.cases = std::max<std::size_t>(shape.cases / 10, 1);
  shape.generated_checks /= 10;
  return shape;
}

// The aims on reading a report back (load_run_report, and `report --html`
// whole), peak heap per byte of the report: within 4 times for the suite's
// shape, 6 for any. Writing holds about one result and the fixed fields
// whatever the report's length: its peak with all the results against its
// peak with a tenth of them.
constexpr double kSuiteReadAim = 4, kAnyReadAim = 6, kWriteGrowthAim = 1.5;

struct Measured {
  std::uint64_t peak_heap = 0;
  std::int64_t peak_rss_growth = 0;
};

Measured measure(const std::function<bool()>& body, bool& ok) {
  malloc_trim(0);  // what earlier steps freed goes back to the system, so RSS growth is this step's
  kiln::bench::reset_peak_memory();
  const kiln::bench::MemoryStatus before = kiln::bench::read_memory_status();
  kiln::bench::start_counting_allocations();
  ok = body();
  const kiln::bench::AllocationCount counted = kiln::bench::stop_counting_allocations();
  const kiln::bench::MemoryStatus after = kiln::bench::read_memory_status();
  return {counted.peak_bytes, static_cast<std::int64_t>(after.peak) - static_cast<std::int64_t>(before.resident)};
}

std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string path = (std::filesystem::temp_directory_path() / "kiln-bench-report-XXXXXX").string();
    if (!mkdtemp(path.data())) throw std::runtime_error("mkdtemp failed");
    return std::filesystem::path(path);
  }();
  return dir;
}

// Each step of a run's reports and `report --html` on one shape, as run and
// report do them: the JSON report and the run's page streamed, the report
// read back, and the matrix page of it.
struct ShapeMemory {
  Measured write_json, write_page, load, report;
  double json_bytes = 0, page_bytes = 0, results = 0;
  std::string error;  // empty: every step succeeded
};

ShapeMemory measure_shape(const Shape& shape) {
  const SyntheticRun run = synthetic_run(shape.cases, shape.generated_checks, shape.failing_every, shape.text_bytes);
  const kc::ReportContext context = run.context();
  const std::filesystem::path json = scratch_dir() / (std::string(shape.name) + ".json");
  const std::filesystem::path html = scratch_dir() / (std::string(shape.name) + ".html");
  const std::filesystem::path matrix = scratch_dir() / (std::string(shape.name) + "-matrix.html");
  ShapeMemory memory;
  memory.results = static_cast<double>(run.results.size());
  std::string error;
  bool ok = false;
  const auto failed = [&](const std::string& what) {
    memory.error = what;
    return memory;
  };
  // Whether a step succeeded; its error is kept for the message.
  const auto done = [&](const auto& step) {
    if (!step) error = step.error();
    return step.ok();
  };
  memory.write_json = measure([&] { return done(kc::write_json_report(context, json)); }, ok);
  if (!ok) return failed("the JSON report was not written: " + error);
  memory.write_page = measure([&] { return done(kc::write_run_page(context, html)); }, ok);
  if (!ok) return failed("the run page was not written: " + error);
  memory.load = measure([&] { return done(kc::load_run_report(json)); }, ok);
  if (!ok) return failed("the report did not load: " + error);
  std::ostringstream out, err;
  memory.report = measure([&] {
    kc::MatrixOptions options;
    options.reports = {json};
    options.html = matrix;
    return kc::report_matrix(options, out, err) == 0;
  }, ok);
  if (!ok) return failed("report --html failed: " + err.str());
  memory.json_bytes = static_cast<double>(std::filesystem::file_size(json));
  memory.page_bytes = static_cast<double>(std::filesystem::file_size(html));
  return memory;
}

double heap_per_byte(const Measured& step, double bytes) { return static_cast<double>(step.peak_heap) / bytes; }
double rss_per_byte(const Measured& step, double bytes) { return static_cast<double>(step.peak_rss_growth) / bytes; }

// A heap ratio with its aim.
struct Ratio {
  std::string counter;
  double value, aim;
};

// `smaller`: the same steps on a tenth of the shape.
std::vector<Ratio> heap_ratios(const Shape& shape, const ShapeMemory& memory, const ShapeMemory& smaller) {
  const auto growth = [](const Measured& step, const Measured& small_step) {
    return static_cast<double>(step.peak_heap) / static_cast<double>(std::max<std::uint64_t>(small_step.peak_heap, 1));
  };
  std::vector<Ratio> ratios = {
      {"write_json_heap/tenth", growth(memory.write_json, smaller.write_json), kWriteGrowthAim},
      {"write_page_heap/tenth", growth(memory.write_page, smaller.write_page), kWriteGrowthAim},
      {"load_heap/json", heap_per_byte(memory.load, memory.json_bytes), kAnyReadAim},
      {"report_heap/json", heap_per_byte(memory.report, memory.json_bytes), kAnyReadAim}};
  if (std::string_view(shape.name) == "suite") {
    ratios.push_back({"suite_load_heap/json", ratios[2].value, kSuiteReadAim});
    ratios.push_back({"suite_report_heap/json", ratios[3].value, kSuiteReadAim});
  }
  return ratios;
}

void BM_ReportMemory(benchmark::State& state, Shape shape) {
  ShapeMemory memory, smaller;
  for (auto _ : state) {
    memory = measure_shape(shape);
    if (!memory.error.empty()) return state.SkipWithError(memory.error.c_str());
    smaller = measure_shape(tenth(shape));
    if (!smaller.error.empty()) return state.SkipWithError(smaller.error.c_str());
  }
  state.counters["results"] = memory.results;
  state.counters["json_bytes"] = memory.json_bytes;
  state.counters["page_bytes"] = memory.page_bytes;
  for (const Ratio& ratio : heap_ratios(shape, memory, smaller)) state.counters[ratio.counter] = ratio.value;
  state.counters["write_json_heap/json"] = heap_per_byte(memory.write_json, memory.json_bytes);
  state.counters["write_page_heap/page"] = heap_per_byte(memory.write_page, memory.page_bytes);
  state.counters["write_json_rss/json"] = rss_per_byte(memory.write_json, memory.json_bytes);
  state.counters["write_page_rss/page"] = rss_per_byte(memory.write_page, memory.page_bytes);
  state.counters["load_rss/json"] = rss_per_byte(memory.load, memory.json_bytes);
  state.counters["report_rss/json"] = rss_per_byte(memory.report, memory.json_bytes);
}

constexpr Aim kAims[] = {
    {"write_json_heap/tenth", Aim::Kind::kAtMost, kWriteGrowthAim,
     "peak heap writing the JSON report, against writing a tenth of its results"},
    {"write_page_heap/tenth", Aim::Kind::kAtMost, kWriteGrowthAim,
     "peak heap writing the run's page, against writing a tenth of its results"},
    {"load_heap/json", Aim::Kind::kAtMost, kAnyReadAim, "peak heap of load_run_report, per byte of the report"},
    {"report_heap/json", Aim::Kind::kAtMost, kAnyReadAim,
     "peak heap of `report --html` (load and page), per byte read"},
    {"suite_load_heap/json", Aim::Kind::kAtMost, kSuiteReadAim, "the same of the suite's shape"},
    {"suite_report_heap/json", Aim::Kind::kAtMost, kSuiteReadAim, "the same of the suite's shape"},
};

// --check: each shape at a tenth of its results (and a hundredth for the
// writes' growth), the heap aims checked without timing anything (peak heap
// is counted, not sampled): the ctest bench-report-memory. 1 when an aim is
// not met or a step failed.
int check_aims() {
  int status = 0;
  for (const Shape& full : kShapes) {
    const Shape shape = tenth(full);
    const ShapeMemory memory = measure_shape(shape), smaller = measure_shape(tenth(shape));
    if (!memory.error.empty() || !smaller.error.empty()) {
      std::printf("%s: %s\n", shape.name, (memory.error.empty() ? smaller : memory).error.c_str());
      status = 1;
      continue;
    }
    std::printf("%-16s peak heap: writing the JSON report %llu bytes (%llu for a tenth), the page %llu (%llu), "
                "loading %llu, report --html %llu; report %.0f bytes\n",
                shape.name, static_cast<unsigned long long>(memory.write_json.peak_heap),
                static_cast<unsigned long long>(smaller.write_json.peak_heap),
                static_cast<unsigned long long>(memory.write_page.peak_heap),
                static_cast<unsigned long long>(smaller.write_page.peak_heap),
                static_cast<unsigned long long>(memory.load.peak_heap),
                static_cast<unsigned long long>(memory.report.peak_heap), memory.json_bytes);
    for (const Ratio& ratio : heap_ratios(shape, memory, smaller)) {
      const bool met = ratio.value <= ratio.aim;
      std::printf("%-16s %-24s %8.3f  aim <= %-5g %s\n", shape.name, ratio.counter.c_str(), ratio.value, ratio.aim,
                  met ? "met" : "NOT MET");
      if (!met) status = 1;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  // The first report written and read allocates the process's statics (the
  // profiles, the locale): outside any measured step.
  measure_shape({"warm-up", 1, 1, 1, 16});
  if (argc == 2 && std::string_view(argv[1]) == "--check") {
    status = check_aims();
  } else {
    for (const Shape& shape : kShapes)
      benchmark::RegisterBenchmark((std::string("BM_ReportMemory/") + shape.name).c_str(), BM_ReportMemory, shape)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    status = kiln::bench::run_benchmarks(argc, argv, kAims);
  }
  std::filesystem::remove_all(scratch_dir());
  return status;
}
