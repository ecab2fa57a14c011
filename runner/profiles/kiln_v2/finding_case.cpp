// The kiln-v2 parts of a fuzz finding's case (fuzz_case.hpp) and of the case
// file's text (the tensors, faults, expect and block members).
#include "kiln/conformance/kiln_v2/finding_case.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <variant>

#include "cases/case_writer.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance {
namespace {

// The empty block (FORMAT.md 2.5) is the canonical block of `tensors: []`.
constexpr std::size_t kEmptyBlockBytes = 64;

// The rules the reference meets in block besides first, waiving each in turn
// (the read of cases/README.md "Isolation"): they go in also_breaks. Stops at
// an accept or at a check that cannot be waived.
std::vector<Rule> further_broken_rules(std::span<const std::uint8_t> block, Rule first) {
  std::vector<Rule> further;
  RuleSet waived;
  waived.add(first);
  for (std::size_t round = 0; round < all_rules().size(); ++round) {
    auto decoded = decode(block, DecodeOptions{waived});
    if (decoded || waived.contains(decoded.error().rule)) break;
    further.push_back(decoded.error().rule);
    waived.add(decoded.error().rule);
  }
  return further;
}

void expect_reject(Case& c, const protocol::Reject& reject) {
  auto& body = kiln_v2::body(c);
  body.expect.accept = false;
  body.expect.error_class = reject.error_class;
  body.expect.rule = reject.rule ? rule_from_id(*reject.rule) : std::nullopt;
}

// rules and also_breaks of a reject case with an optional block. restored: the
// block with its truncate faults left out, which isolation reads too when the
// read of the block stops at its cut (cases/README.md, "Exemptions").
void name_broken_rules(Case& c, const std::optional<std::vector<std::uint8_t>>& block,
                       const std::optional<std::vector<std::uint8_t>>& restored = std::nullopt) {
  auto& body = kiln_v2::body(c);
  if (!body.expect.rule) return;
  body.rules = {*body.expect.rule};
  if (block) body.also_breaks = further_broken_rules(*block, *body.expect.rule);
  if (restored)
    for (Rule rule : further_broken_rules(*restored, *body.expect.rule))
      if (std::find(body.also_breaks.begin(), body.also_breaks.end(), rule) == body.also_breaks.end() &&
          rule != Rule::kFrameTruncated)
        body.also_breaks.push_back(rule);
  for (Rule rule : body.also_breaks) body.rules.push_back(rule);
}

// An accept case's rules: the one the adapter cited wrongly, else the rule
// that judges the first tensor's payload length.
std::vector<Rule> accept_rules(const BlockDescription& description,
                               const std::optional<std::string>& adapter_rule) {
  if (adapter_rule)
    if (auto rule = rule_from_id(*adapter_rule)) return {*rule};
  if (description.tensors.empty()) return {Rule::kFramePayloadLength};
  return {classify_code(description.tensors.front().dtype) == CodeClass::kOpaque
              ? Rule::kTypeOpaqueMultiple
              : Rule::kTypeByteLength};
}

void write_text_key(std::string& out, std::string_view key, std::string_view text) {
  out += "    " + text_key(key, text) + "\n";
}

}  // namespace

Case decode_finding_case(std::span<const std::uint8_t> block, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule) {
  Case c = finding_base_case(id, summary);
  KilnCase& body = kiln_v2::set_body(c);
  body.block = std::vector<std::uint8_t>(block.begin(), block.end());
  if (const auto* accept = std::get_if<protocol::Accept>(&reference)) {
    body.description = accept->description;
    body.rules = accept_rules(body.description, adapter_rule);
  } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
    expect_reject(c, *reject);
    const std::size_t head = std::min(block.size(), kEmptyBlockBytes);
    if (head > 0)
      body.faults.push_back(Overwrite{Anchor{"0"}, std::vector<std::uint8_t>(block.begin(),
                                                                          block.begin() + head)});
    std::optional<std::vector<std::uint8_t>> restored;
    if (block.size() > kEmptyBlockBytes) {
      body.faults.push_back(Append{std::vector<std::uint8_t>(block.begin() + head, block.end())});
    } else if (block.size() < kEmptyBlockBytes) {
      body.faults.push_back(Truncate{Anchor{std::to_string(block.size())}});
      // The empty block with these bytes over its start: what isolation reads
      // when the cut stops its read of the block.
      restored = build(BlockDescription{}).value().bytes;
      std::copy(block.begin(), block.end(), restored->begin());
    }
    name_broken_rules(c, body.block, restored);
  }
  c.ops = c.derived_ops();
  return c;
}

Case encode_finding_case(const BlockDescription& description, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule) {
  Case c = finding_base_case(id, summary);
  KilnCase& body = kiln_v2::set_body(c);
  body.description = description;
  if (const auto* encoded = std::get_if<protocol::EncodedBlock>(&reference)) {
    body.block = encoded->bytes;
    body.rules = accept_rules(description, adapter_rule);
  } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
    expect_reject(c, *reject);
    if (auto built = build(description)) body.block = std::move(built.value().bytes);
    name_broken_rules(c, body.block);
  }
  c.ops = c.derived_ops();
  return c;
}

namespace kiln_v2 {

CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) {
  auto& body = kiln_v2::body(c);
  CaseYamlMembers members;
  members.rules = "rules: " + rule_list(body.rules) + "\n";
  if (!body.also_breaks.empty()) members.rules += "also_breaks: " + rule_list(body.also_breaks) + "\n";
  std::string& out = members.body;
  if (body.description.tensors.empty()) out += "tensors: []\n";
  else out += "tensors:\n";
  for (const TensorDescription& tensor : body.description.tensors) {
    out += "  - " + text_key("name", tensor.name) + "\n";
    const DtypeInfo* info = find_dtype(tensor.dtype);
    out += "    dtype: " + (info ? std::string(info->name) : std::to_string(tensor.dtype)) + "\n";
    std::string shape;
    for (std::uint64_t dim : tensor.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
    out += "    shape: [" + shape + "]\n";
    if (!tensor.layout.empty()) write_text_key(out, "layout", tensor.layout);
    if (tensor.block_size != 0) out += "    block_size: " + std::to_string(tensor.block_size) + "\n";
    out += "    payload: \"" + to_hex(tensor.payload) + "\"\n";
  }
  if (!body.faults.empty()) out += "faults:\n";
  for (const Fault& fault : body.faults) {
    if (const auto* overwrite = std::get_if<Overwrite>(&fault))
      out += "  - {overwrite: " + overwrite->at.text + ", bytes: \"" + to_hex(overwrite->bytes) + "\"}\n";
    else if (const auto* append = std::get_if<Append>(&fault))
      out += "  - {append: \"" + to_hex(append->bytes) + "\"}\n";
    else if (const auto* truncate = std::get_if<Truncate>(&fault))
      out += "  - {truncate: " + truncate->to.text + "}\n";
    else if (const auto* set = std::get_if<SetField>(&fault))
      out += "  - {set: \"" + (set->tensor ? "tensor[" + std::to_string(*set->tensor) + "]" : "header") +
             "." + set->field + "\", value: " + std::to_string(set->value) + "}\n";
  }
  out += "expect:\n";
  if (body.expect.accept) {
    out += "  result: accept\n";
  } else {
    out += "  result: reject\n";
    out += "  class: " + std::string(to_string(*body.expect.error_class)) + "\n";
    if (body.expect.rule) out += "  rule: " + std::string(rule_info(*body.expect.rule).id) + "\n";
  }
  out += "ops: [" + std::string(ops) + "]\n";
  if (body.block) out += "block: |\n" + block_hex_lines(*body.block, "  ");
  return members;
}

}  // namespace kiln_v2
}  // namespace kiln::conformance
