#include "kiln/conformance/fuzz.hpp"

#include "fuzz_engine.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
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

using fuzzing::bucket;
using fuzzing::Judgement;
using fuzzing::mix;

std::size_t description_bytes(const BlockDescription& description) {
  std::size_t total = 0;
  for (const auto& t : description.tensors)
    total += t.name.size() + t.layout.size() + t.payload.size() + 8 * t.shape.size() + 64;
  return total;
}

std::string reference_verdict(const protocol::Outcome& outcome) {
  if (std::holds_alternative<protocol::Accept>(outcome)) return "accepts";
  if (std::holds_alternative<protocol::EncodedBlock>(outcome)) return "encodes";
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome))
    return "rejects " + std::string(to_string(reject->error_class)) + " (" +
           reject->rule.value_or("no rule") + ")";
  return "errs";
}

Judgement judge_exchange(Operation op, const Case& expected, const protocol::Outcome& reference,
                         const Exchange& exchange) {
  Judgement judgement;
  std::string answer;
  if (auto failed = fuzzing::failed_exchange(exchange)) {
    answer = std::move(*failed);
  } else {
    CaseResult result;
    judge(expected, op, exchange.outcome, result);
    if (result.status == Status::kPass) return judgement;
    const auto& outcome = exchange.outcome;
    if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
      // The rule the adapter cites names an accept case's rule, but is no
      // part of the dedup key: one missing check shows up with many.
      if (reject->rule) judgement.adapter_rule = fuzzing::cited_rule(*reject->rule);
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
  }
  judgement.fails = true;
  judgement.signature = fuzzing::signature(op, reference_verdict(reference), answer);
  return judgement;
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

class Fuzzer final : public fuzzing::FuzzerBase {
 public:
  Fuzzer(const FuzzOptions& options, Driver& driver, std::ostream& out, std::ostream& err)
      : FuzzerBase(options, driver, out, err) {
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

 private:
  void keep_block(Bytes block) {
    pool_bytes_ += block.size();
    blocks_.push_back(std::move(block));
  }
  void keep_description(BlockDescription description) {
    pool_bytes_ += description_bytes(description);
    descriptions_.push_back(std::move(description));
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

  bool fuzz_decode() override {
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
    if (judgement.fails && first_of_its_kind(judgement.signature)) report_decode(*child, judgement);
    return true;
  }

  void report_decode(const Bytes& input, const Judgement& found) {
    const std::size_t budget = minimize_budget(found);
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

  bool fuzz_encode() override {
    BlockDescription child = descriptions_[pick_parent(descriptions_.size())];
    mutate::mutate_description(child, rng_, kMaxFuzzInputBytes, bytes_mutator_);
    if (description_bytes(child) > kMaxFuzzInputBytes) return false;
    protocol::Outcome reference;
    const Judgement judgement = try_encode(child, reference);
    const std::string verdict = reference_verdict(reference) + (judgement.fails ? " x" : "");
    if (novel(features(Operation::kEncode, child, verdict)))
      add_to_pool(descriptions_, child, description_bytes(child));
    if (judgement.fails && first_of_its_kind(judgement.signature)) report_encode(child, judgement);
    return true;
  }

  void report_encode(const BlockDescription& input, const Judgement& found) {
    const std::size_t budget = minimize_budget(found);
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

  mutate::ByteMutator bytes_mutator_;
  protocol::ReferenceAdapter reference_;
  std::vector<Bytes> blocks_;
  std::vector<BlockDescription> descriptions_;
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
  if (options.profile != protocol::kProfileKilnV2 && options.profile != protocol::kProfileHurrayElements) {
    err << "fuzz: --profile is kiln-v2 or hurray-elements, not " << protocol::printable(options.profile) << "\n";
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

  std::unique_ptr<fuzzing::FuzzerBase> fuzzer;
  if (options.profile == protocol::kProfileHurrayElements) {
    fuzzer = fuzzing::make_elements_fuzzer(options, *driver, *hello, set, out, err);
  } else {
    auto kiln = std::make_unique<Fuzzer>(options, *driver, out, err);
    kiln->seed_from(set);
    fuzzer = std::move(kiln);
  }
  const auto start = Clock::now();
  summary.inputs = fuzzer->run(ops);
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.findings = std::move(fuzzer->findings());
  const double rate = summary.seconds > 0 ? summary.inputs / summary.seconds : 0;
  out << "fuzz: " << summary.inputs << " inputs in " << summary.seconds << " s ("
      << static_cast<std::uint64_t>(rate) << " inputs/s), " << summary.findings.size()
      << " findings" << (summary.findings.empty() ? "" : " written to " + options.out_dir.string())
      << "\n";
  summary.exit_code = summary.findings.empty() && !fuzzer->write_failed() ? kExitOk : kExitFailures;
  return summary;
}

}  // namespace kiln::conformance
