#include "kiln/conformance/fuzz.hpp"

#include "fuzz/fuzz_engine.hpp"
#include "profiles/registry.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <sstream>
#include <thread>
#include <memory>
#include <ostream>
#include <utility>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/safe_file.hpp"

namespace kiln::conformance {
namespace {

using Clock = std::chrono::steady_clock;

// The process options of a fuzz run: the hello gets its own, longer limit, and
// the run's adapter is restarted for as long as the budget lasts (the fuzzer
// waits between starts), never given up on after a few.
ProcessOptions process_options(int timeout_ms, int hello_timeout_ms) {
  ProcessOptions process;
  process.timeout = std::chrono::milliseconds(timeout_ms);
  process.hello_timeout = std::chrono::milliseconds(std::max(timeout_ms, hello_timeout_ms));
  process.max_reply_bytes = protocol::max_reply_line_bytes(kMaxFuzzInputBytes);
  process.max_consecutive_start_failures = std::numeric_limits<int>::max();
  return process;
}

fuzzing::DriverFactory fresh_drivers(const std::string& adapter, const ProcessOptions& process) {
  return [adapter, process](std::chrono::milliseconds timeout) {
    ProcessOptions fresh = process;
    fresh.timeout = timeout;
    auto made = make_driver(adapter, fresh);
    return made ? std::move(made).value() : nullptr;
  };
}

// The hello, asked a few times with a pause between: one slow or failed start
// on a loaded machine does not make an adapter unusable.
Checked<protocol::Hello> usable_hello(Driver& driver) {
  for (int attempt = 1;; ++attempt) {
    auto hello = driver.hello();
    if (hello || attempt == 3) return hello;
    std::this_thread::sleep_for(std::chrono::milliseconds(250 * attempt));
  }
}

}  // namespace

namespace fuzzing {

std::unique_ptr<FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver, DriverFactory fresh,
                                        const protocol::Hello& hello, const CaseSet* seeds, std::ostream& out,
                                        std::ostream& err) {
  // The options were checked against the registry: the profile is one of its,
  // with a fuzzer.
  const ProfileModule* module = find_profile_module(options.profile);
  if (!module || !module->make_fuzzer) return nullptr;
  return module->make_fuzzer(options, driver, std::move(fresh), hello, seeds, out, err);
}

}  // namespace fuzzing

using fuzzing::make_fuzzer;

FuzzSummary run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  // A profile whose fuzzer makes its own inputs reads no case folder.
  const ProfileModule* module = find_profile_module(options.profile);
  if (!module || !module->fuzzer_reads_cases) return run_fuzz(options, CaseSet{}, out, err);
  const CaseSet set = load_case_set(options.cases_dir);
  if (!report_load_errors(set, err)) {
    err << "fuzz: " << set.errors.size() << " case file(s) do not load: no seeds\n";
    return FuzzSummary{kExitUsage, 0, 0, {}, {}};
  }
  return run_fuzz(options, set, out, err);
}

FuzzSummary run_fuzz(const FuzzOptions& options, const CaseSet& set, std::ostream& out,
                     std::ostream& err) {
  FuzzSummary summary;
  if (!set.errors.empty()) {
    summary.exit_code = kExitUsage;
    return summary;
  }
  const ProfileModule* module = find_profile_module(options.profile);
  if (!module || !module->make_fuzzer) {
    err << "fuzz: --profile is " << fuzzable_profile_names(" or ") << ", not "
        << protocol::printable(options.profile) << (module ? " (a profile without a fuzzer)" : "") << "\n";
    summary.exit_code = kExitUsage;
    return summary;
  }
  std::error_code ignored;
  if (std::filesystem::exists(std::filesystem::symlink_status(options.out_dir, ignored)) &&
      !std::filesystem::is_directory(options.out_dir, ignored)) {
    err << "fuzz: --out " << options.out_dir.string() << " is not a directory\n";
    summary.exit_code = kExitUsage;
    return summary;
  }
  const ProcessOptions process = process_options(options.timeout_ms, options.hello_timeout_ms);
  auto made = make_driver(options.adapter, process);
  if (!made) {
    err << "fuzz: " << made.error() << "\n";
    summary.exit_code = kExitUsage;
    return summary;
  }
  const std::unique_ptr<Driver> driver = std::move(made).value();
  const auto hello = usable_hello(*driver);
  if (!hello || hello->protocol != protocol::kProtocolVersion) {
    err << "fuzz: the adapter is unusable: no protocol " << protocol::kProtocolVersion << " hello ("
        << (hello ? "it speaks protocol " + std::to_string(hello->protocol) : protocol::printable(hello.error()))
        << "); nothing was fuzzed\n";
    summary.exit_code = kExitAdapterUnusable;
    return summary;
  }
  std::vector<Operation> ops;
  for (Operation op : options.ops) {
    if (hello->offers_op(wire_op(op)) && std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  if (ops.empty() || !hello->offers_profile(options.profile)) {
    err << "fuzz: the adapter is unusable here: it offers none of the ops asked for with profile "
        << protocol::printable(options.profile) << "; nothing was fuzzed\n";
    summary.exit_code = kExitAdapterUnusable;
    return summary;
  }
  out << "adapter: " << protocol::printable(protocol::bounded_message(hello->name + " " + hello->version, 256))
      << "; seed " << options.seed << "\n";

  auto fuzzer = make_fuzzer(options, *driver, fresh_drivers(options.adapter, process), *hello, &set, out, err);
  const auto start = Clock::now();
  summary.inputs = fuzzer->run(ops);
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.findings = std::move(fuzzer->findings());
  summary.not_reproduced = std::move(fuzzer->not_reproduced());
  const double rate = summary.seconds > 0 ? summary.inputs / summary.seconds : 0;
  out << "fuzz: " << summary.inputs << " inputs in " << summary.seconds << " s ("
      << static_cast<std::uint64_t>(rate) << " inputs/s), " << summary.findings.size()
      << " confirmed findings" << (summary.findings.empty() ? "" : " written to " + options.out_dir.string())
      << ", " << summary.not_reproduced.size() << " not reproduced\n";
  if (fuzzer->adapter_lost())
    err << "fuzz: stopped early: " << fuzzer->adapter_lost_reason() << "\n";
  if (!summary.findings.empty() || fuzzer->write_failed()) summary.exit_code = kExitFailures;
  else if (fuzzer->adapter_lost()) summary.exit_code = kExitAdapterUnusable;
  else summary.exit_code = kExitOk;
  return summary;
}

// ---- replay ----

namespace {

struct RequestFile {
  std::string profile;
  std::vector<protocol::Request> requests;
};

// The request file fuzz writes (fuzz_engine.cpp): a header line, then requests.
Checked<RequestFile> read_request_file(const std::filesystem::path& path) {
  const std::string where = path.string();
  const Checked<std::string> read = read_regular_file(path, kMaxReplayFileBytes, " (the most a request file holds)");
  if (!read) return Failure(where + ": " + read.error());
  const std::string& text = read.value();
  RequestFile file;
  std::size_t line_number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_number;
    const std::string here = where + ":" + std::to_string(line_number) + ": ";
    if (line_number == 1) {
      auto header = protocol::parse_line(line);
      if (!header || !header.value().is_object() || header.value().value("kiln_conformance_requests", 0) != 1 ||
          !header.value().contains("profile") || !header.value()["profile"].is_string())
        return Failure(here + "not a kiln-conformance request file (the first line must be its header, "
                              "{\"kiln_conformance_requests\":1,\"profile\":...})");
      file.profile = header.value()["profile"].get<std::string>();
      const ProfileModule* module = find_profile_module(file.profile);
      if (!module) return Failure(here + "unknown profile " + protocol::quoted_excerpt(file.profile));
      // The profile's fuzzer judges the requests: a profile without one cannot be replayed.
      if (!module->make_fuzzer)
        return Failure(here + "profile " + file.profile + " has no fuzzer to judge the requests");
      continue;
    }
    if (file.requests.size() >= kMaxReplayRequests)
      return Failure(here + "more than " + std::to_string(kMaxReplayRequests) + " requests");
    auto request = protocol::parse_request(line);
    if (!request) return Failure(here + protocol::printable(request.error()));
    const auto op = protocol::op_of(request.value());
    if (op == protocol::Op::kHello || protocol::profile_of(request.value()) != file.profile)
      return Failure(here + "a request file holds " + file.profile + " decode and encode requests only");
    file.requests.push_back(std::move(request.value()));
  }
  if (line_number == 0) return Failure(where + ": empty");
  if (file.requests.empty()) return Failure(where + ": no requests after the header");
  return file;
}

}  // namespace

int run_replay(const ReplayOptions& options, std::ostream& out, std::ostream& err) {
  const auto read = read_request_file(options.file);
  if (!read) {
    err << "replay: " << protocol::printable(read.error()) << "\n";
    return kExitUsage;
  }
  const RequestFile& file = read.value();
  const ProcessOptions process = process_options(options.timeout_ms, options.hello_timeout_ms);
  auto made = make_driver(options.adapter, process);
  if (!made) {
    err << "replay: " << made.error() << "\n";
    return kExitUsage;
  }
  const std::unique_ptr<Driver> driver = std::move(made).value();
  const auto hello = driver->hello();
  if (!hello || hello->protocol != protocol::kProtocolVersion || !hello->offers_profile(file.profile)) {
    err << "replay: the adapter is unusable: "
        << (hello ? "its hello does not offer protocol " + std::to_string(protocol::kProtocolVersion) +
                        " with profile " + file.profile
                  : "no hello (" + protocol::printable(hello.error()) + ")")
        << "\n";
    return kExitAdapterUnusable;
  }
  FuzzOptions fuzz;
  fuzz.adapter = options.adapter;
  fuzz.profile = file.profile;
  fuzz.timeout_ms = options.timeout_ms;
  std::ostringstream ignored;
  auto judge = make_fuzzer(fuzz, *driver, fresh_drivers(options.adapter, process), *hello, nullptr, ignored, ignored);
  const auto judged = judge->judge_sequence(file.requests, *driver);
  if (!judged) {
    err << "replay: the adapter could not be started again (" << judged.error() << ")\n";
    return kExitAdapterUnusable;
  }
  out << "replay: " << file.requests.size() << " request(s) to one adapter; the last: reference "
      << protocol::printable(judged->verdict) << ", adapter "
      << (judged->fails ? protocol::printable(judged->answer) : std::string("agrees")) << "\n";
  if (judged->fails) {
    if (!judged->detail.empty()) out << "    " << protocol::printable(judged->detail) << "\n";
    out << "REPRODUCED: " << protocol::printable(judged->signature) << "\n";
    return kExitFailures;
  }
  out << "not reproduced: the last reply agrees with the reference\n";
  return kExitOk;
}

}  // namespace kiln::conformance
