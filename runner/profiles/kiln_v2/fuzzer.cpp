// The kiln-v2 fuzzer of `kiln-conformance fuzz`: blocks and descriptions grown
// from the golden cases, mutated as bytes and as structure (the mutators of
// fuzz/mutate/), each judged against the reference's answer to the same input.
#include "profiles/kiln_v2/module.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <utility>
#include <variant>

#include "kiln/adapter.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/finding_case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/minimize.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/mutate/generate.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance::kiln_v2 {
namespace {

using Bytes = std::vector<std::uint8_t>;

using fuzzing::bucket;
using fuzzing::description_bytes;
using fuzzing::Judgement;
using fuzzing::mix;

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
  const std::string verdict = reference_verdict(reference);
  const auto* reference_reject = std::get_if<protocol::Reject>(&reference);
  const std::string rule = reference_reject ? reference_reject->rule.value_or("") : "";
  if (auto failed = fuzzing::judge_failed_exchange(op, verdict, rule, exchange)) return std::move(*failed);
  Judgement judgement;
  judgement.verdict = verdict;
  judgement.reference_rule = rule;
  CaseResult result;
  judge(expected, op, exchange.outcome, result);
  if (result.status == Status::kPass) return judgement;
  const auto& outcome = exchange.outcome;
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    // The rule the adapter cites names an accept case's rule, but is no
    // part of the dedup key: one missing check shows up with many.
    if (reject->rule) judgement.adapter_rule = fuzzing::cited_rule(*reject->rule);
    judgement.answer = "rejects " + std::string(to_string(reject->error_class));
  } else if (std::holds_alternative<protocol::Accept>(outcome)) {
    judgement.answer = std::holds_alternative<protocol::Accept>(reference) ? "accepts other tensors" : "accepts";
  } else if (std::holds_alternative<protocol::EncodedBlock>(outcome)) {
    judgement.answer =
        std::holds_alternative<protocol::EncodedBlock>(reference) ? "encodes other bytes" : "encodes";
  } else {
    judgement.answer = "answers with an error";
  }
  fuzzing::disagrees(judgement, op, result);
  return judgement;
}

}  // namespace

// The features of an input, for novelty: an input that shows a new one joins
// the pool, so combinations (a dtype with a rank, a name length, a position or
// an empty shape; two neighbouring dtypes; a count with a verdict) are built on
// step by step. Coarse on purpose: a pool that grows with every input would
// rarely pick the one that opened a new combination.
std::vector<std::uint64_t> input_features(Operation op, const BlockDescription& description,
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

namespace {

protocol::DecodeRequest decode_request(std::span<const std::uint8_t> block) {
  return protocol::DecodeRequest{"fuzz", std::string(protocol::kProfileKilnV2), Bytes(block.begin(), block.end())};
}

protocol::EncodeRequest encode_request(const BlockDescription& description) {
  return protocol::EncodeRequest{"fuzz", std::string(protocol::kProfileKilnV2), description};
}

class Fuzzer final : public fuzzing::FuzzerBase {
 public:
  Fuzzer(const FuzzOptions& options, Driver& driver, fuzzing::DriverFactory fresh_driver,
         std::ostream& out, std::ostream& err)
      : FuzzerBase(options, driver, std::move(fresh_driver), out, err) {
    bytes_mutator_ = [this](std::uint8_t* data, std::size_t size, std::size_t max_size) {
      return mutate::mutate_bytes(data, size, max_size, rng_);
    };
  }

  void seed_from(const CaseSet& set) {
    for (const Case& c : set.cases) {
      const KilnCase* body = c.body_as<KilnCase>();  // the set holds other profiles' cases too
      if (!body) continue;
      if (body->block && body->block->size() <= kMaxFuzzInputBytes) keep_block(*body->block);
      if (description_bytes(body->description) <= kMaxFuzzInputBytes) keep_description(body->description);
    }
    if (blocks_.empty()) keep_block(build(BlockDescription{}).value().bytes);
    if (descriptions_.empty()) keep_description(BlockDescription{});
  }

  Judgement judge(const protocol::Request& request, const Exchange& exchange) override {
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request)) {
      const protocol::Outcome reference = reference_.decode(decode->block);
      return judge_exchange(Operation::kDecode, decode_expectation(decode->block, reference), reference,
                            exchange);
    }
    const auto& description = std::get<protocol::EncodeRequest>(request).description;
    const protocol::Outcome reference = reference_.encode(description);
    Case expected;
    KilnCase& body = kiln_v2::set_body(expected);
    body.description = description;
    if (const auto* encoded = std::get_if<protocol::EncodedBlock>(&reference)) {
      body.block = encoded->bytes;
    } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
      body.expect.accept = false;
      body.expect.error_class = reject->error_class;
    }
    return judge_exchange(Operation::kEncode, expected, reference, exchange);
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

  static Case decode_expectation(std::span<const std::uint8_t> block, const protocol::Outcome& reference) {
    Case c;
    KilnCase& body = kiln_v2::set_body(c);
    body.block = Bytes(block.begin(), block.end());
    if (const auto* accept = std::get_if<protocol::Accept>(&reference)) {
      body.description = accept->description;
    } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
      body.expect.accept = false;
      body.expect.error_class = reject->error_class;
    }
    return c;
  }

  // Every other input is generated by construction (kiln/mutate/generate.hpp,
  // by its own index: the schedule's combinations come round at any seed), the
  // rest grow from the pool: the golden cases and what was new.
  bool fuzz_decode() override {
    std::optional<Bytes> child;
    if (decodes_++ % 2 == 0) child = mutate::generate_block(generated_decodes_++, rng_, kMaxFuzzInputBytes);
    const Bytes& parent = blocks_[pick_parent(blocks_.size())];
    if (!child && below(10) < 8) child = mutate::mutate_block(parent, rng_, kMaxFuzzInputBytes, bytes_mutator_);
    if (!child) {
      Bytes bytes = parent;
      const std::size_t size = bytes.size();
      bytes.resize(std::max(kMaxFuzzInputBytes, size));
      bytes.resize(mutate::mutate_bytes(bytes.data(), size, bytes.size(), rng_));
      child = std::move(bytes);
    }
    const auto judged = send(decode_request(*child));
    if (!judged) return false;
    const std::string verdict = novelty_verdict(*judged);
    const auto lenient = mutate::read_leniently(*child);
    if (novel(input_features(Operation::kDecode, lenient.value_or(BlockDescription{}), verdict)))
      add_to_pool(blocks_, *child, child->size());
    return true;
  }

  bool fuzz_encode() override {
    BlockDescription child;
    if (encodes_++ % 2 == 0) {
      child = mutate::generate_description(generated_encodes_++, rng_, kMaxFuzzInputBytes);
    } else {
      child = descriptions_[pick_parent(descriptions_.size())];
      mutate::mutate_description(child, rng_, kMaxFuzzInputBytes, bytes_mutator_);
    }
    if (description_bytes(child) > kMaxFuzzInputBytes) return false;
    const auto judged = send(encode_request(child));
    if (!judged) return false;
    const std::string verdict = novelty_verdict(*judged);
    if (novel(input_features(Operation::kEncode, child, verdict)))
      add_to_pool(descriptions_, child, description_bytes(child));
    return true;
  }

  protocol::Request minimize(const protocol::Request& request,
                             const std::function<bool(const protocol::Request&)>& still_fails,
                             std::size_t budget) override {
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request)) {
      const BlockPredicate same = [&](std::span<const std::uint8_t> candidate) {
        return still_fails(decode_request(candidate));
      };
      return decode_request(minimize_block(decode->block, same, budget));
    }
    const DescriptionPredicate same = [&](const BlockDescription& candidate) {
      return still_fails(encode_request(candidate));
    };
    return encode_request(
        minimize_description(std::get<protocol::EncodeRequest>(request).description, same, budget));
  }

  std::string finding_id(const protocol::Request& request) override {
    Sha256 hash;
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request)) {
      hash.update(std::span<const std::uint8_t>(decode->block));
      return "kiln-v2-" + options_.id_word + "-decode-" + hash.hex_digest().substr(0, 12);
    }
    hash.update(protocol::tensors_to_json(std::get<protocol::EncodeRequest>(request).description).dump());
    return "kiln-v2-" + options_.id_word + "-encode-" + hash.hex_digest().substr(0, 12);
  }

  Case finding_case(const protocol::Request& request, const std::string& id, const Judgement& found) override {
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request))
      return decode_finding_case(decode->block, reference_.decode(decode->block), id, summary_of(found),
                                 found.adapter_rule);
    const auto& description = std::get<protocol::EncodeRequest>(request).description;
    return encode_finding_case(description, reference_.encode(description), id, summary_of(found),
                               found.adapter_rule);
  }

  std::string size_of(const protocol::Request& request) override {
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request))
      return std::to_string(decode->block.size()) + " bytes";
    return std::to_string(std::get<protocol::EncodeRequest>(request).description.tensors.size()) + " tensors";
  }

  mutate::ByteMutator bytes_mutator_;
  protocol::ReferenceAdapter reference_;
  std::vector<Bytes> blocks_;
  std::vector<BlockDescription> descriptions_;
  // Inputs made per op, and how many of them were generated.
  std::uint64_t decodes_ = 0, generated_decodes_ = 0, encodes_ = 0, generated_encodes_ = 0;
};

}  // namespace

std::unique_ptr<fuzzing::FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver,
                                                 fuzzing::DriverFactory fresh, const protocol::Hello&,
                                                 const CaseSet* seeds, std::ostream& out, std::ostream& err) {
  auto fuzzer = std::make_unique<Fuzzer>(options, driver, std::move(fresh), out, err);
  if (seeds) fuzzer->seed_from(*seeds);
  return fuzzer;
}

}  // namespace kiln::conformance::kiln_v2
