#include "kiln/conformance/fuzz_case.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <variant>

#include "kiln/adapter.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
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
  c.expect.accept = false;
  c.expect.error_class = reject.error_class;
  c.expect.rule = reject.rule ? rule_from_id(*reject.rule) : std::nullopt;
}

// rules and also_breaks of a reject case with an optional block. restored: the
// block with its truncate faults left out, which isolation reads too when the
// read of the block stops at its cut (cases/README.md, "Exemptions").
void name_broken_rules(Case& c, const std::optional<std::vector<std::uint8_t>>& block,
                       const std::optional<std::vector<std::uint8_t>>& restored = std::nullopt) {
  if (!c.expect.rule) return;
  c.rules = {*c.expect.rule};
  if (block) c.also_breaks = further_broken_rules(*block, *c.expect.rule);
  if (restored)
    for (Rule rule : further_broken_rules(*restored, *c.expect.rule))
      if (std::find(c.also_breaks.begin(), c.also_breaks.end(), rule) == c.also_breaks.end() &&
          rule != Rule::kFrameTruncated)
        c.also_breaks.push_back(rule);
  for (Rule rule : c.also_breaks) c.rules.push_back(rule);
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

Case base_case(const std::string& id, const std::string& summary) {
  Case c;
  c.id = id;
  c.summary = summary;
  c.source = "suite";
  c.level = Level::kRequired;
  return c;
}

void write_text_key(std::string& out, std::string_view key, std::string_view text) {
  out += "    " + text_key(key, text) + "\n";
}

template <class AnyRule>
std::string rule_list(const std::vector<AnyRule>& rules) {
  std::string text;
  for (AnyRule rule : rules) text += (text.empty() ? "" : ", ") + std::string(rule_info(rule).id);
  return "[" + text + "]";
}

// ---- profile hurray-elements ----

using ElementsResult = ElementsCase::Result;

std::vector<std::string> canonical_elements(std::span<const hurray::Element> values, unsigned bits) {
  std::vector<std::string> texts;
  texts.reserve(values.size());
  for (const hurray::Element& value : values) texts.push_back(hurray::element_to_hex(value, bits));
  return texts;
}

void expect_elements_reject(ElementsCase& body, const hurray::Error& error,
                            const std::vector<hurray::Rule>& broken) {
  body.result = ElementsResult::kReject;
  body.error_class = error.error_class();
  body.rule = error.rule;
  body.rules = {error.rule};
  for (hurray::Rule rule : broken)
    if (rule != error.rule) body.also_breaks.push_back(rule);
  for (hurray::Rule rule : body.also_breaks) body.rules.push_back(rule);
}

// An accept or opaque case exercises the rule the adapter cited, or the one
// that judges the type's bytes (its padding, e8m0's patterns, else the size).
hurray::Rule elements_accept_rule(const ElementsCase& body, const std::optional<std::string>& adapter_rule) {
  if (adapter_rule)
    if (auto rule = hurray::rule_from_id(*adapter_rule)) return *rule;
  if (!body.type) return hurray::Rule::kTagUnrecognized;
  if (body.type->tag == hurray::kE8m0Tag) return hurray::Rule::kE8m0Reserved;
  switch (body.type->bits) {
    case 1: return hurray::Rule::kPadBool;
    case 2: return hurray::Rule::kPad2Bit;
    case 4: return hurray::Rule::kPad4Bit;
    case 6: return hurray::Rule::kPad6Bit;
    default: return hurray::Rule::kDataShort;
  }
}

std::string hurray_yaml_body(const ElementsCase& body) {
  std::string out;
  if (body.type) {
    out += "type: " + std::string(body.type->name) + "\n";
  } else {
    static constexpr char kDigits[] = "0123456789abcdef";
    out += std::string("type: 0x") + kDigits[body.tag >> 4] + kDigits[body.tag & 15] + "\n";
  }
  std::string shape;
  for (std::uint64_t dim : body.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
  out += "shape: [" + shape + "]\n";
  if (body.mode) out += "mode: " + std::string(hurray::to_string(*body.mode)) + "\n";
  if (body.data) out += "data: \"" + to_hex(*body.data) + "\"\n";
  if (body.elements) {
    std::string list;
    for (const auto& element : *body.elements) list += (list.empty() ? "\"" : ", \"") + element + "\"";
    out += "elements: [" + list + "]\n";
  }
  out += "expect:\n";
  switch (body.result) {
    case ElementsResult::kAccept: out += "  result: accept\n"; break;
    case ElementsResult::kOpaque: out += "  result: opaque\n"; break;
    case ElementsResult::kReject:
      out += "  result: reject\n";
      out += "  class: " + std::string(hurray::to_string(*body.error_class)) + "\n";
      out += "  rule: " + std::string(hurray::rule_info(*body.rule).id) + "\n";
      break;
  }
  return out;
}

}  // namespace

Case decode_finding_case(std::span<const std::uint8_t> block, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule) {
  Case c = base_case(id, summary);
  c.block = std::vector<std::uint8_t>(block.begin(), block.end());
  if (const auto* accept = std::get_if<protocol::Accept>(&reference)) {
    c.description = accept->description;
    c.rules = accept_rules(c.description, adapter_rule);
  } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
    expect_reject(c, *reject);
    const std::size_t head = std::min(block.size(), kEmptyBlockBytes);
    if (head > 0)
      c.faults.push_back(Overwrite{Anchor{"0"}, std::vector<std::uint8_t>(block.begin(),
                                                                          block.begin() + head)});
    std::optional<std::vector<std::uint8_t>> restored;
    if (block.size() > kEmptyBlockBytes) {
      c.faults.push_back(Append{std::vector<std::uint8_t>(block.begin() + head, block.end())});
    } else if (block.size() < kEmptyBlockBytes) {
      c.faults.push_back(Truncate{Anchor{std::to_string(block.size())}});
      // The empty block with these bytes over its start: what isolation reads
      // when the cut stops its read of the block.
      restored = build(BlockDescription{}).value().bytes;
      std::copy(block.begin(), block.end(), restored->begin());
    }
    name_broken_rules(c, c.block, restored);
  }
  c.ops = c.derived_ops();
  return c;
}

Case encode_finding_case(const BlockDescription& description, const protocol::Outcome& reference,
                         const std::string& id, const std::string& summary,
                         const std::optional<std::string>& adapter_rule) {
  Case c = base_case(id, summary);
  c.description = description;
  if (const auto* encoded = std::get_if<protocol::EncodedBlock>(&reference)) {
    c.block = encoded->bytes;
    c.rules = accept_rules(description, adapter_rule);
  } else if (const auto* reject = std::get_if<protocol::Reject>(&reference)) {
    expect_reject(c, *reject);
    if (auto built = build(description)) c.block = std::move(built.value().bytes);
    name_broken_rules(c, c.block);
  }
  c.ops = c.derived_ops();
  return c;
}

Case elements_finding_case(Operation op, const ElementsInput& input, const std::string& id,
                           const std::string& summary, const std::optional<std::string>& adapter_rule) {
  Case c = base_case(id, summary);
  c.profile = std::string(protocol::kProfileHurrayElements);
  ElementsCase& body = c.elements.emplace();
  body.type = hurray::type_by_tag(input.tag);
  body.tag = input.tag;
  body.shape = input.shape;
  if (op == Operation::kDecode) {
    if (input.mode == hurray::Mode::kPermissive) body.mode = input.mode;
    body.data = input.data;
    const auto decoded = hurray::decode(input.tag, input.shape, input.mode, input.data);
    if (!decoded) {
      expect_elements_reject(body, decoded.error(),
                             hurray::broken_rules(input.tag, input.shape, input.mode, input.data));
    } else if (decoded.value().opaque) {
      body.result = ElementsResult::kOpaque;
    } else {
      const hurray::Decoded& tensor = decoded.value();
      std::vector<hurray::Element> values;
      values.reserve(static_cast<std::size_t>(tensor.count));
      for (std::uint64_t i = 0; i < tensor.count; ++i) values.push_back(tensor.element(i));
      body.elements = canonical_elements(values, tensor.type->bits);
    }
  } else {
    const auto values = protocol::parse_elements(input.elements).value_or(std::vector<hurray::Element>{});
    const auto encoded = hurray::encode(input.tag, input.shape, values);
    if (!encoded) {
      body.elements = input.elements;
      expect_elements_reject(body, encoded.error(),
                             hurray::encode_broken_rules(input.tag, input.shape, values));
    } else {
      // An accept case lists each element in its canonical form (the value is what counts).
      body.data = encoded.value();
      body.elements = canonical_elements(values, body.type->bits);
    }
  }
  if (body.result != ElementsResult::kReject) body.rules = {elements_accept_rule(body, adapter_rule)};
  c.ops = c.derived_ops();
  return c;
}

std::string case_yaml(const Case& c, const std::vector<std::string>& comments) {
  std::string out;
  for (const auto& comment : comments) out += "# " + protocol::printable(comment) + "\n";
  out += "id: " + c.id + "\n";
  out += "summary: " + yaml_quoted(protocol::printable(c.summary)) + "\n";
  if (c.elements) {
    out += "profile: " + c.profile + "\n";
    out += "rules: " + rule_list(c.elements->rules) + "\n";
    if (!c.elements->also_breaks.empty()) out += "also_breaks: " + rule_list(c.elements->also_breaks) + "\n";
  } else {
    out += "rules: " + rule_list(c.rules) + "\n";
    if (!c.also_breaks.empty()) out += "also_breaks: " + rule_list(c.also_breaks) + "\n";
  }
  out += "source: " + c.source + "\n";
  out += std::string("level: ") + (c.level == Level::kRequired ? "required" : "recommended") + "\n";
  std::string ops;
  for (Operation op : c.derived_ops()) ops += (ops.empty() ? "" : ", ") + std::string(to_string(op));
  if (c.elements) return out + hurray_yaml_body(*c.elements) + "ops: [" + ops + "]\n";
  if (c.description.tensors.empty()) out += "tensors: []\n";
  else out += "tensors:\n";
  for (const TensorDescription& tensor : c.description.tensors) {
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
  if (!c.faults.empty()) out += "faults:\n";
  for (const Fault& fault : c.faults) {
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
  if (c.expect.accept) {
    out += "  result: accept\n";
  } else {
    out += "  result: reject\n";
    out += "  class: " + std::string(to_string(*c.expect.error_class)) + "\n";
    if (c.expect.rule) out += "  rule: " + std::string(rule_info(*c.expect.rule).id) + "\n";
  }
  out += "ops: [" + ops + "]\n";
  if (c.block) out += "block: |\n" + block_hex_lines(*c.block, "  ");
  return out;
}

std::vector<std::string> check_case_file(const std::filesystem::path& file) {
  const auto& schema = CaseSchema::builtin();
  if (const auto* error = std::get_if<CaseError>(&schema)) return {error->describe()};
  auto loaded = load_case_file(file, file.string(), std::get<CaseSchema>(schema));
  if (const auto* error = std::get_if<CaseError>(&loaded)) return {error->describe()};
  const Case& c = std::get<Case>(loaded);
  std::vector<std::string> problems = check_case(c);
  if (problems.empty() && !c.expect.accept && c.block)
    for (auto& problem : check_isolation(c, *c.block).problems) problems.push_back(std::move(problem));
  return problems;
}

}  // namespace kiln::conformance
