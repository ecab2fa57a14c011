#include "kiln/conformance/fuzz.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <ostream>
#include <set>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "kiln/adapter.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/fuzz_minimize.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;

// Bounds on what a run keeps: the inputs it mutates from, the features it has
// seen, and the adapter calls one minimization may make (a hang costs a
// timeout each, so it gets few).
constexpr std::size_t kMaxPoolBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxPoolEntries = 100000;
constexpr std::size_t kMaxFeatures = std::size_t{1} << 20;
constexpr std::size_t kMinimizeBudget = 2000;
constexpr std::size_t kMinimizeBudgetSlow = 8;  // crashes restart, hangs wait: few tries
constexpr std::size_t kMaxAdapterRuleBytes = 64;

std::size_t description_bytes(const BlockDescription& description) {
  std::size_t total = 0;
  for (const auto& t : description.tensors)
    total += t.name.size() + t.layout.size() + t.payload.size() + 8 * t.shape.size() + 64;
  return total;
}

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string reference_verdict(const protocol::Outcome& outcome) {
  if (std::holds_alternative<protocol::Accept>(outcome)) return "accepts";
  if (std::holds_alternative<protocol::EncodedBlock>(outcome)) return "encodes";
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome))
    return "rejects " + std::string(to_string(reject->error_class)) + " (" +
           reject->rule.value_or("no rule") + ")";
  return "errs";
}

// What the adapter answered, and whether it disagrees with the reference.
struct Judgement {
  bool fails = false;
  std::string signature;
  std::optional<std::string> adapter_rule;
};

Judgement judge_exchange(Operation op, const Case& expected, const protocol::Outcome& reference,
                         const Exchange& exchange) {
  Judgement judgement;
  std::string answer;
  switch (exchange.kind) {
    case Exchange::Kind::kCrash: answer = "crashes"; break;
    case Exchange::Kind::kTimeout: answer = "hangs"; break;
    case Exchange::Kind::kProtocol: answer = "breaks the protocol"; break;
    case Exchange::Kind::kReply: {
      CaseResult result;
      judge(expected, op, exchange.outcome, result);
      if (result.status == Status::kPass) return judgement;
      const auto& outcome = exchange.outcome;
      if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
        // The rule the adapter cites names an accept case's rule, but is no
        // part of the dedup key: one missing check shows up with many.
        if (reject->rule)
          judgement.adapter_rule =
              protocol::printable(reject->rule->substr(0, kMaxAdapterRuleBytes));
        answer = "rejects " + std::string(to_string(reject->error_class));
      } else if (std::holds_alternative<protocol::Accept>(outcome)) {
        answer = std::holds_alternative<protocol::Accept>(reference) ? "accepts other tensors"
                                                                     : "accepts";
      } else if (std::holds_alternative<protocol::EncodedBlock>(outcome)) {
        answer = std::holds_alternative<protocol::EncodedBlock>(reference) ? "encodes other bytes"
                                                                           : "encodes";
      } else {
        answer = "answers with an error";
      }
      break;
    }
  }
  judgement.fails = true;
  judgement.signature = std::string(to_string(op)) + ": reference " + reference_verdict(reference) +
                        ", adapter " + answer;
  return judgement;
}

// A small integer's bit length: the bucket of a count or a length.
std::uint64_t bucket(std::uint64_t value) {
  return value == 0 ? 0 : 64 - static_cast<std::uint64_t>(__builtin_clzll(value));
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
  return seed;
}

// The features of an input, for novelty: an input that shows a new one joins
// the pool, so combinations (a dtype with a rank, a name length, a position or
// an empty shape; two neighbouring dtypes; a count with a verdict) are built on
// step by step. Coarse on purpose: a pool that grows with every input would
// rarely pick the one that opened a new combination.
std::vector<std::uint64_t> features(Operation op, const BlockDescription& description,
                                    const std::string& verdict) {
  const std::uint64_t base = mix(static_cast<std::uint64_t>(op) + 1, std::hash<std::string>{}(verdict));
  std::vector<std::uint64_t> out{base, mix(base, bucket(description.tensors.size()))};
  std::uint16_t previous = 0;
  for (std::size_t i = 0; i < description.tensors.size() && i < 64; ++i) {
    const auto& t = description.tensors[i];
    const bool zero_dim = std::find(t.shape.begin(), t.shape.end(), 0u) != t.shape.end();
    const std::uint64_t dtype = mix(static_cast<std::uint64_t>(op) + 100, t.dtype);
    out.push_back(mix(mix(dtype, 1), std::min<std::size_t>(t.shape.size(), 40)));
    out.push_back(mix(mix(dtype, 2), bucket(t.name.size())));
    out.push_back(mix(mix(dtype, 3), zero_dim));
    out.push_back(mix(mix(dtype, 4), bucket(i)));
    out.push_back(mix(mix(dtype, 5), bucket(t.layout.size())));
    out.push_back(mix(mix(dtype, 6), previous));
    previous = t.dtype;
  }
  return out;
}

class Fuzzer {
 public:
  Fuzzer(const FuzzOptions& options, Driver& driver, std::ostream& out, std::ostream& err)
      : options_(options), driver_(driver), out_(out), err_(err), rng_(static_cast<mutate::Random::result_type>(options.seed % 2147483646 + 1)) {
    bytes_mutator_ = [this](std::uint8_t* data, std::size_t size, std::size_t max_size) {
      return mutate::mutate_bytes(data, size, max_size, rng_);
    };
  }

  void seed_from(const CaseSet& set) {
    for (const Case& c : set.cases) {
      if (c.profile != options_.profile) continue;
      if (c.block && c.block->size() <= kMaxFuzzInputBytes) keep_block(*c.block);
      if (description_bytes(c.description) <= kMaxFuzzInputBytes) keep_description(c.description);
    }
    if (blocks_.empty()) keep_block(build(BlockDescription{}).value().bytes);
    if (descriptions_.empty()) keep_description(BlockDescription{});
  }

  // Runs until the budget is spent; returns the number of inputs tried.
  std::uint64_t run(const std::vector<Operation>& ops) {
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

  std::vector<FuzzFinding>& findings() { return findings_; }
  bool write_failed() const { return write_failed_; }

 private:
  std::size_t below(std::size_t bound) {
    return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng_);
  }

  // Half the time one of the newest pool entries: what just opened a new
  // combination is built on while it is new, as a coverage fuzzer's queue does.
  std::size_t pick_parent(std::size_t pool_size) {
    constexpr std::size_t kNewest = 32;
    if (pool_size > kNewest && below(2) == 0) return pool_size - 1 - below(kNewest);
    return below(pool_size);
  }

  void keep_block(Bytes block) {
    pool_bytes_ += block.size();
    blocks_.push_back(std::move(block));
  }
  void keep_description(BlockDescription description) {
    pool_bytes_ += description_bytes(description);
    descriptions_.push_back(std::move(description));
  }

  bool novel(const std::vector<std::uint64_t>& seen) {
    bool any = false;
    for (std::uint64_t feature : seen)
      if (features_.size() < kMaxFeatures && features_.insert(feature).second) any = true;
    return any;
  }

  template <class T>
  void add_to_pool(std::vector<T>& pool, T item, std::size_t size) {
    if (pool_bytes_ + size > kMaxPoolBytes || pool.size() >= kMaxPoolEntries) {
      T& replaced = pool[below(pool.size())];  // a random one gives way
      replaced = std::move(item);
      return;
    }
    pool_bytes_ += size;
    pool.push_back(std::move(item));
  }

  // ---- decode ----

  Case decode_expectation(std::span<const std::uint8_t> block, const protocol::Outcome& reference) {
    Case c;
    c.block = Bytes(block.begin(), block.end());
    if (const auto* accept = std::get_if<protocol::Accept>(&reference)) {
      c.description = accept->description;
    } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
      c.expect.accept = false;
      c.expect.error_class = reject->error_class;
    }
    return c;
  }

  Judgement try_decode(std::span<const std::uint8_t> block, protocol::Outcome& reference) {
    reference = reference_.decode(block);
    protocol::DecodeRequest request;
    request.case_id = "fuzz";
    request.profile = options_.profile;
    request.block.assign(block.begin(), block.end());
    const Exchange exchange = driver_.exchange(request);
    return judge_exchange(Operation::kDecode, decode_expectation(block, reference), reference, exchange);
  }

  bool fuzz_decode() {
    const Bytes& parent = blocks_[pick_parent(blocks_.size())];
    std::optional<Bytes> child;
    if (below(10) < 8) child = mutate::mutate_block(parent, rng_, kMaxFuzzInputBytes, bytes_mutator_);
    if (!child) {
      Bytes bytes = parent;
      const std::size_t size = bytes.size();
      bytes.resize(std::max(kMaxFuzzInputBytes, size));
      bytes.resize(mutate::mutate_bytes(bytes.data(), size, bytes.size(), rng_));
      child = std::move(bytes);
    }
    protocol::Outcome reference;
    const Judgement judgement = try_decode(*child, reference);
    const std::string verdict = reference_verdict(reference) + (judgement.fails ? " x" : "");
    const auto lenient = mutate::read_leniently(*child);
    if (novel(features(Operation::kDecode, lenient.value_or(BlockDescription{}), verdict)))
      add_to_pool(blocks_, *child, child->size());
    if (judgement.fails && seen_.insert(judgement.signature).second) report_decode(*child, judgement);
    return true;
  }

  void report_decode(const Bytes& input, const Judgement& found) {
    const std::size_t budget = slow(found.signature) ? kMinimizeBudgetSlow : kMinimizeBudget;
    const BlockPredicate same = [&](std::span<const std::uint8_t> candidate) {
      protocol::Outcome reference;
      const Judgement again = try_decode(candidate, reference);
      return again.fails && again.signature == found.signature;
    };
    const Bytes smallest = minimize_block(input, same, budget);
    const protocol::Outcome reference = reference_.decode(smallest);
    Sha256 hash;
    hash.update(std::span<const std::uint8_t>(smallest));
    const std::string id = "kiln-v2-fuzz-decode-" + hash.hex_digest().substr(0, 12);
    record(Operation::kDecode, found,
           decode_finding_case(smallest, reference, id, summary_of(found), found.adapter_rule),
           "minimized from " + std::to_string(input.size()) + " to " +
               std::to_string(smallest.size()) + " bytes");
  }

  // ---- encode ----

  Judgement try_encode(const BlockDescription& description, protocol::Outcome& reference) {
    reference = reference_.encode(description);
    Case expected;
    expected.description = description;
    if (const auto* encoded = std::get_if<protocol::EncodedBlock>(&reference)) {
      expected.block = encoded->bytes;
    } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
      expected.expect.accept = false;
      expected.expect.error_class = reject->error_class;
    }
    protocol::EncodeRequest request;
    request.case_id = "fuzz";
    request.profile = options_.profile;
    request.description = description;
    const Exchange exchange = driver_.exchange(request);
    return judge_exchange(Operation::kEncode, expected, reference, exchange);
  }

  bool fuzz_encode() {
    BlockDescription child = descriptions_[pick_parent(descriptions_.size())];
    mutate::mutate_description(child, rng_, kMaxFuzzInputBytes, bytes_mutator_);
    if (description_bytes(child) > kMaxFuzzInputBytes) return false;
    protocol::Outcome reference;
    const Judgement judgement = try_encode(child, reference);
    const std::string verdict = reference_verdict(reference) + (judgement.fails ? " x" : "");
    if (novel(features(Operation::kEncode, child, verdict)))
      add_to_pool(descriptions_, child, description_bytes(child));
    if (judgement.fails && seen_.insert(judgement.signature).second) report_encode(child, judgement);
    return true;
  }

  void report_encode(const BlockDescription& input, const Judgement& found) {
    const std::size_t budget = slow(found.signature) ? kMinimizeBudgetSlow : kMinimizeBudget;
    const DescriptionPredicate same = [&](const BlockDescription& candidate) {
      protocol::Outcome reference;
      const Judgement again = try_encode(candidate, reference);
      return again.fails && again.signature == found.signature;
    };
    const BlockDescription smallest = minimize_description(input, same, budget);
    const protocol::Outcome reference = reference_.encode(smallest);
    Sha256 hash;
    hash.update(protocol::tensors_to_json(smallest).dump());
    const std::string id = "kiln-v2-fuzz-encode-" + hash.hex_digest().substr(0, 12);
    record(Operation::kEncode, found,
           encode_finding_case(smallest, reference, id, summary_of(found), found.adapter_rule),
           "minimized from " + std::to_string(input.tensors.size()) + " to " +
               std::to_string(smallest.tensors.size()) + " tensors");
  }

  // ---- findings ----

  static bool slow(const std::string& signature) {
    return signature.ends_with("crashes") || signature.ends_with("hangs");
  }

  static std::string summary_of(const Judgement& found) {
    return "found by kiln-conformance fuzz: " + found.signature;
  }

  void record(Operation op, const Judgement& found, Case test_case, const std::string& shrunk) {
    FuzzFinding finding;
    finding.op = op;
    finding.signature = found.signature;
    finding.file = options_.out_dir / (test_case.id + ".yaml");
    const std::string replay = options_.program + " run --cases " +
                               shell_quoted(options_.out_dir.string()) + " --filter " +
                               test_case.id + " --adapter " + shell_quoted(options_.adapter);
    const std::string text =
        case_yaml(test_case, {"Found by: " + options_.program + " fuzz --adapter " +
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

  const FuzzOptions& options_;
  Driver& driver_;
  std::ostream& out_;
  std::ostream& err_;
  mutate::Random rng_;
  mutate::ByteMutator bytes_mutator_;
  protocol::ReferenceAdapter reference_;
  std::vector<Bytes> blocks_;
  std::vector<BlockDescription> descriptions_;
  std::size_t pool_bytes_ = 0;
  std::unordered_set<std::uint64_t> features_;
  std::set<std::string> seen_;
  std::vector<FuzzFinding> findings_;
  bool write_failed_ = false;
};

}  // namespace

FuzzSummary run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(options.cases_dir);
  if (!report_load_errors(set, err)) {
    err << "fuzz: " << set.errors.size() << " case file(s) do not load: no seeds\n";
    return FuzzSummary{kExitUsage, 0, 0, {}};
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
  if (std::filesystem::exists(options.out_dir) && !std::filesystem::is_directory(options.out_dir)) {
    err << "fuzz: --out " << options.out_dir.string() << " is not a directory\n";
    summary.exit_code = kExitUsage;
    return summary;
  }
  ProcessOptions process;
  process.timeout = std::chrono::milliseconds(options.timeout_ms);
  process.max_reply_bytes = protocol::max_reply_line_bytes(kMaxFuzzInputBytes);
  std::string problem;
  auto driver = make_driver(options.adapter, process, problem);
  if (!driver) {
    err << "fuzz: " << problem << "\n";
    summary.exit_code = kExitUsage;
    return summary;
  }
  const auto hello = driver->hello(problem);
  if (!hello || hello->protocol != protocol::kProtocolVersion) {
    err << "fuzz: the adapter has no usable protocol " << protocol::kProtocolVersion << " hello"
        << (hello ? "" : " (" + protocol::printable(problem) + ")") << "\n";
    summary.exit_code = kExitFailures;
    return summary;
  }
  std::vector<Operation> ops;
  for (Operation op : options.ops) {
    const protocol::Op wire = op == Operation::kDecode ? protocol::Op::kDecode : protocol::Op::kEncode;
    if (hello->offers_op(wire) && std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  if (ops.empty() || !hello->offers_profile(options.profile)) {
    err << "fuzz: the adapter offers none of the ops asked for with profile "
        << protocol::printable(options.profile) << ": nothing to fuzz\n";
    summary.exit_code = kExitFailures;
    return summary;
  }
  out << "adapter: " << protocol::printable(protocol::bounded_message(hello->name + " " + hello->version, 256))
      << "; seed " << options.seed << "\n";

  Fuzzer fuzzer(options, *driver, out, err);
  fuzzer.seed_from(set);
  const auto start = Clock::now();
  summary.inputs = fuzzer.run(ops);
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.findings = std::move(fuzzer.findings());
  const double rate = summary.seconds > 0 ? summary.inputs / summary.seconds : 0;
  out << "fuzz: " << summary.inputs << " inputs in " << summary.seconds << " s ("
      << static_cast<std::uint64_t>(rate) << " inputs/s), " << summary.findings.size()
      << " findings" << (summary.findings.empty() ? "" : " written to " + options.out_dir.string())
      << "\n";
  summary.exit_code = summary.findings.empty() && !fuzzer.write_failed() ? kExitOk : kExitFailures;
  return summary;
}

}  // namespace kiln::conformance
