#include "fuzz_engine.hpp"

#include <chrono>
#include <fstream>
#include <ostream>
#include <random>
#include <system_error>

#include "kiln/conformance/fuzz_case.hpp"

namespace kiln::conformance::fuzzing {
namespace {

using Clock = std::chrono::steady_clock;

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::optional<std::string> failed_exchange(const Exchange& exchange) {
  switch (exchange.kind) {
    case Exchange::Kind::kCrash: return "crashes";
    case Exchange::Kind::kTimeout: return "hangs";
    case Exchange::Kind::kProtocol: return "breaks the protocol";
    case Exchange::Kind::kReply: break;
  }
  return std::nullopt;
}

std::string signature(Operation op, const std::string& reference_verdict, const std::string& answer) {
  return std::string(to_string(op)) + ": reference " + reference_verdict + ", adapter " + answer;
}

std::string cited_rule(const std::string& rule) {
  return protocol::printable(rule.substr(0, kMaxAdapterRuleBytes));
}

FuzzerBase::FuzzerBase(const FuzzOptions& options, Driver& driver, std::ostream& out,
                       std::ostream& err)
    : options_(options),
      driver_(driver),
      out_(out),
      err_(err),
      rng_(static_cast<mutate::Random::result_type>(options.seed % 2147483646 + 1)) {}

std::uint64_t FuzzerBase::run(const std::vector<Operation>& ops) {
  const auto start = Clock::now();
  auto last_progress = start;
  const std::optional<double> seconds =
      options_.runs ? options_.seconds : options_.seconds.value_or(kDefaultFuzzSeconds);
  std::uint64_t inputs = 0;
  while (!options_.runs || inputs < *options_.runs) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (seconds && elapsed >= *seconds) break;
    if (!options_.quiet_progress && now - last_progress >= std::chrono::seconds(1)) {
      last_progress = now;
      out_ << "fuzz: " << inputs << " inputs, " << static_cast<std::uint64_t>(inputs / elapsed)
           << "/s, " << findings_.size() << " findings" << std::endl;
    }
    const Operation op = ops.size() == 1 ? ops.front() : ops[below(ops.size())];
    if (op == Operation::kDecode ? fuzz_decode() : fuzz_encode()) ++inputs;
  }
  return inputs;
}

std::size_t FuzzerBase::below(std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng_);
}

std::size_t FuzzerBase::pick_parent(std::size_t pool_size) {
  constexpr std::size_t kNewest = 32;
  if (pool_size > kNewest && below(2) == 0) return pool_size - 1 - below(kNewest);
  return below(pool_size);
}

bool FuzzerBase::novel(const std::vector<std::uint64_t>& seen) {
  bool any = false;
  for (std::uint64_t feature : seen)
    if (features_.size() < kMaxFeatures && features_.insert(feature).second) any = true;
  return any;
}

void FuzzerBase::record(Operation op, const Judgement& found, Case test_case, const std::string& shrunk) {
  FuzzFinding finding;
  finding.op = op;
  finding.signature = found.signature;
  finding.file = options_.out_dir / (test_case.id + ".yaml");
  // kiln-v2 is the default profile: its lines stay as they were.
  const std::string profile = options_.profile == protocol::kProfileKilnV2
                                  ? std::string()
                                  : " --profile " + options_.profile;
  const std::string replay = options_.program + " run --cases " +
                             shell_quoted(options_.out_dir.string()) + " --filter " +
                             test_case.id + profile + " --adapter " + shell_quoted(options_.adapter);
  const std::string text =
      case_yaml(test_case, {"Found by: " + options_.program + " fuzz" + profile + " --adapter " +
                                shell_quoted(options_.adapter) + " --seed " +
                                std::to_string(options_.seed),
                            "Replay: " + replay});
  std::error_code error;
  std::filesystem::create_directories(options_.out_dir, error);
  std::ofstream file(finding.file, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (error || !file) {
    err_ << "fuzz: cannot write " << finding.file.string() << "\n";
    write_failed_ = true;
  } else {
    finding.check_problems = check_case_file(finding.file);
  }
  out_ << "FINDING " << findings_.size() + 1 << ": " << protocol::printable(found.signature) << "\n"
       << "    case:   " << finding.file.string() << " (" << shrunk << ")\n"
       << "    replay: " << protocol::printable(replay) << "\n";
  for (const auto& problem : finding.check_problems)
    out_ << "    cases check: " << protocol::printable(problem) << "\n";
  out_.flush();
  finding.test_case = std::move(test_case);
  findings_.push_back(std::move(finding));
}

}  // namespace kiln::conformance::fuzzing
