// The hurray-elements parts of a fuzz finding's case (fuzz_case.hpp) and of
// the case file's text (type, shape, mode, data, elements and expect).
#include "kiln/conformance/hurray_elements/finding_case.hpp"

#include <span>
#include <string_view>

#include "cases/case_writer.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/hex.hpp"
#include "profiles/hurray_elements/module.hpp"

namespace kiln::conformance {
namespace {

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

Case elements_finding_case(Operation op, const ElementsInput& input, const std::string& id,
                           const std::string& summary, const std::optional<std::string>& adapter_rule) {
  Case c = finding_base_case(id, summary);
  c.profile = std::string(hurray_elements::profile().name());
  ElementsCase& body = hurray_elements::set_body(c);
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

namespace hurray_elements {

CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) {
  auto& body = hurray_elements::body(c);
  CaseYamlMembers members;
  members.rules = "rules: " + rule_list(body.rules) + "\n";
  if (!body.also_breaks.empty()) members.rules += "also_breaks: " + rule_list(body.also_breaks) + "\n";
  members.body = hurray_yaml_body(body) + "ops: [" + std::string(ops) + "]\n";
  return members;
}

}  // namespace hurray_elements
}  // namespace kiln::conformance
