// `kiln-conformance fuzz --profile hurray-elements`: inputs built over the
// element layer's own structure (tag, shape, mode, data; tag, shape, elements;
// fuzz_inputs.cpp), judged against kiln::hurray with the Tier 2 types the
// adapter's hello claims, each disagreement shrunk and written as a hurray case
// (fuzz_case.hpp). This half is what the engine calls: the loop, the oracle,
// novelty and the findings.
#include "profiles/hurray_elements/fuzzer.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "kiln/adapter.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/minimize.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/hex.hpp"
#include "profiles/hurray_elements/module.hpp"

namespace kiln::conformance::hurray_elements {
namespace {

using Bytes = std::vector<std::uint8_t>;
using fuzzing::bucket;
using fuzzing::cited_rule;
using fuzzing::disagrees;
using fuzzing::elements_bytes;
using fuzzing::judge_failed_exchange;
using fuzzing::Judgement;
using fuzzing::mix;
using hurray::Element;
using hurray::Mode;
using hurray::TypeInfo;

// ---- the oracle's words ----

std::string class_and_rule(const hurray::Error& error) {
  return std::string(hurray::to_string(error.error_class())) + " (" + std::string(error.rule_id()) + ")";
}

std::string decode_verdict(const hurray::Result<hurray::Decoded>& decoded) {
  if (!decoded) return "rejects " + class_and_rule(decoded.error());
  return decoded.value().opaque ? "accepts as opaque" : "accepts";
}

std::string encode_verdict(const hurray::Result<Bytes>& encoded) {
  return encoded ? "encodes" : "rejects " + class_and_rule(encoded.error());
}

std::string input_identity(Operation op, const ElementsInput& input) {
  std::string text = std::string(to_string(op)) + " " + std::to_string(input.tag) + " shape";
  for (std::uint64_t dim : input.shape) text += " " + std::to_string(dim);
  if (op == Operation::kDecode)
    return text + " " + std::string(hurray::to_string(input.mode)) + " " + to_hex(input.data);
  for (const auto& element : input.elements) text += " " + element;
  return text;
}

// ---- requests ----

protocol::Request request_of(Operation op, const ElementsInput& input) {
  if (op == Operation::kDecode)
    return protocol::ElementsDecodeRequest{"fuzz", input.tag, input.shape, input.mode, input.data};
  return protocol::ElementsEncodeRequest{"fuzz", input.tag, input.shape, input.elements};
}

std::pair<Operation, ElementsInput> input_of(const protocol::Request& request) {
  if (const auto* decode = std::get_if<protocol::ElementsDecodeRequest>(&request))
    return {Operation::kDecode, ElementsInput{decode->tag, decode->shape, decode->mode, decode->data, {}}};
  const auto& encode = std::get<protocol::ElementsEncodeRequest>(request);
  return {Operation::kEncode, ElementsInput{encode.tag, encode.shape, Mode::kStrict, {}, encode.elements}};
}

// ---- novelty ----

std::size_t input_bytes(const ElementsInput& input) {
  return elements_bytes(input.data.size(), input.shape.size(), input.elements);
}

}  // namespace

// A tag with a verdict, a count class (its remainder per byte or group and
// its size), a rank, how the data's length compares with S, the mode.
std::vector<std::uint64_t> input_features(Operation op, const ElementsInput& input, const std::string& verdict) {
  const std::uint64_t base = mix(static_cast<std::uint64_t>(op) + 1, std::hash<std::string>{}(verdict));
  const TypeInfo* type = hurray::type_by_tag(input.tag);
  const auto count = hurray::element_count(input.shape);
  const unsigned per = type ? per_unit(type->bits) : 1;
  const std::uint64_t count_class = count ? *count % per + 16 * bucket(*count) : 9999;
  std::uint64_t length_class = 3;
  if (const auto size = type && count ? hurray::data_size(*type, *count) : std::nullopt; size)
    length_class = input.data.size() == *size ? 0 : input.data.size() < *size ? 1 : 2;
  const std::uint64_t tag = mix(base, input.tag + 1000u);
  return {base,
          tag,
          mix(mix(tag, 1), count_class),
          mix(mix(tag, 2), std::min<std::size_t>(input.shape.size(), 8)),
          mix(mix(tag, 3), length_class + 4 * static_cast<std::uint64_t>(input.mode)),
          mix(mix(tag, 4), bucket(input.elements.size()))};
}


// ---- the loop ----

Judgement ElementsFuzzer::judge(const protocol::Request& request, const Exchange& exchange) {
  const auto [op, input] = input_of(request);
  return judge_input(op, input, exchange);
}

bool ElementsFuzzer::fuzz_decode() { return fuzz(Operation::kDecode, decodes_); }
bool ElementsFuzzer::fuzz_encode() { return fuzz(Operation::kEncode, encodes_); }

bool ElementsFuzzer::fuzz(Operation op, std::vector<ElementsInput>& pool) {
  // One input in three from the schedule (by its own index: every type meets
  // every count class, shape form and fill at any seed), a fresh random one a
  // quarter of the rest: every class of tag and shape stays in reach however
  // the pool has grown.
  std::uint64_t& made = op == Operation::kDecode ? decodes_made_ : encodes_made_;
  std::uint64_t& scheduled_index = op == Operation::kDecode ? decodes_scheduled_ : encodes_scheduled_;
  ElementsInput child = made++ % 3 == 0            ? scheduled(op, scheduled_index++)
                        : pool.empty() || below(4) == 0 ? generate(op)
                                                        : mutate(pool[pick_parent(pool.size())], op);
  const auto judged = send(request_of(op, child));
  if (!judged) return false;
  if (novel(input_features(op, child, novelty_verdict(*judged))))
    add_to_pool(pool, child, input_bytes(child));
  return true;
}

// ---- the oracle ----

Judgement ElementsFuzzer::judge_input(Operation op, const ElementsInput& input, const Exchange& exchange) {
  // The case as `cases check` reads it (the reference with every Tier 2 type),
  // judged with the hello as `run` judges it: what is found is what the written
  // case fails.
  const Case expected = elements_finding_case(op, input, "hurray-fuzz", "fuzz", std::nullopt);
  bool reference_accepts = false;
  std::string verdict, rule;
  if (op == Operation::kDecode) {
    const auto decoded = hurray::decode(input.tag, input.shape, input.mode, input.data, tier2_);
    verdict = decode_verdict(decoded);
    if (!decoded) rule = std::string(decoded.error().rule_id());
    reference_accepts = decoded && !decoded.value().opaque;
  } else {
    const auto values = protocol::parse_elements(input.elements).value_or(std::vector<Element>{});
    const auto encoded = hurray::encode(input.tag, input.shape, values, tier2_);
    verdict = encode_verdict(encoded);
    if (!encoded) rule = std::string(encoded.error().rule_id());
    reference_accepts = encoded.ok();
  }
  if (auto failed = judge_failed_exchange(op, verdict, rule, exchange)) return std::move(*failed);

  Judgement judgement;
  judgement.verdict = verdict;
  judgement.reference_rule = rule;
  CaseResult result;
  conformance::judge(expected, op, exchange.outcome, result, &hello_);
  if (result.status == Status::kPass) return judgement;
  const auto& outcome = exchange.outcome;
  if (const auto* reject = std::get_if<protocol::ElementsReject>(&outcome)) {
    // As for kiln-v2: the cited rule names an accept case's rule, outside the key.
    if (reject->rule) judgement.adapter_rule = cited_rule(*reject->rule);
    judgement.answer = "rejects " + std::string(hurray::to_string(reject->error_class));
  } else if (std::holds_alternative<protocol::ElementsAccept>(outcome)) {
    judgement.answer = reference_accepts ? "accepts other elements" : "accepts";
  } else if (std::holds_alternative<protocol::OpaqueAccept>(outcome)) {
    judgement.answer = "answers opaque";
  } else if (std::holds_alternative<protocol::ElementData>(outcome)) {
    judgement.answer = reference_accepts ? "encodes other bytes" : "encodes";
  } else {
    judgement.answer = "answers with an error";
  }
  disagrees(judgement, op, result);
  return judgement;
}

protocol::Request ElementsFuzzer::minimize(const protocol::Request& request,
                                           const std::function<bool(const protocol::Request&)>& still_fails,
                                           std::size_t budget) {
  const auto [op, input] = input_of(request);
  const ElementsPredicate same = [&, op = op](const ElementsInput& candidate) {
    return still_fails(request_of(op, candidate));
  };
  return request_of(op, minimize_elements(input, op, same, budget));
}

std::string ElementsFuzzer::finding_id(const protocol::Request& request) {
  const auto [op, input] = input_of(request);
  Sha256 hash;
  hash.update(input_identity(op, input));
  return "hurray-" + options_.id_word + "-" + std::string(to_string(op)) + "-" + hash.hex_digest().substr(0, 12);
}

Case ElementsFuzzer::finding_case(const protocol::Request& request, const std::string& id,
                                  const Judgement& found) {
  const auto [op, input] = input_of(request);
  return elements_finding_case(op, input, id, summary_of(found), found.adapter_rule);
}

std::string ElementsFuzzer::size_of(const protocol::Request& request) {
  const auto [op, input] = input_of(request);
  return op == Operation::kDecode ? std::to_string(input.data.size()) + " bytes"
                                  : std::to_string(input.elements.size()) + " elements";
}

std::unique_ptr<fuzzing::FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver,
                                                 fuzzing::DriverFactory fresh, const protocol::Hello& hello,
                                                 const CaseSet*, std::ostream& out, std::ostream& err) {
  return std::make_unique<ElementsFuzzer>(options, driver, std::move(fresh), hello, out, err);
}

}  // namespace kiln::conformance::hurray_elements
