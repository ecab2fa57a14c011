// Profile hurray-elements's case body (cases/README.md, "Profile
// hurray-elements"): the type or tag, shape, mode, data, elements, expectation
// and rules, read strictly from a case file.
#include "profiles/hurray_elements/case_body.hpp"

#include <algorithm>
#include <regex>

#include "kiln/conformance/yaml_reading.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"

namespace kiln::conformance::hurray_elements {

using namespace yaml_reading;

namespace {

hurray::Rule hurray_rule_scalar(const yaml::Node& node) {
  const std::string id = string_scalar(node, "a rule ID");
  auto rule = hurray::rule_from_id(id);
  if (!rule) invalid(node, "'" + id + "' is not a rule ID of reference/HURRAY.md");
  return *rule;
}

std::vector<hurray::Rule> hurray_rules_node(const yaml::Node& node, const std::string& what) {
  if (!node.IsSequence() || node.size() == 0) invalid(node, what + " is a non-empty sequence");
  std::vector<hurray::Rule> rules;
  for (const auto& item : node) {
    const hurray::Rule rule = hurray_rule_scalar(item);
    if (std::find(rules.begin(), rules.end(), rule) != rules.end())
      invalid(item, "rule " + std::string(hurray::rule_info(rule).id) + " is listed twice");
    rules.push_back(rule);
  }
  return rules;
}

// A type name of kiln::hurray::kTypes, or a raw tag 0..255 for a case about a tag
// that names no type.
void hurray_type_node(const yaml::Node& node, ElementsCase& body) {
  if (kind_of(node) == Kind::kInteger) {
    body.tag = static_cast<std::uint8_t>(unsigned_scalar(node, "a type tag", 0xFF));
    if (const hurray::TypeInfo* named = hurray::type_by_tag(body.tag))
      invalid(node, "tag " + std::to_string(body.tag) + " is type " + std::string(named->name) +
                        ": name it, so that a different tag assignment is one table edit");
    return;
  }
  const std::string name = string_scalar(node, "type");
  body.type = hurray::type_by_name(name);
  if (!body.type) invalid(node, "type '" + name + "' is not a type of reference/HURRAY.md 3.2");
  body.tag = body.type->tag;
}

std::vector<std::string> hurray_elements_node(const yaml::Node& node) {
  if (!node.IsSequence()) invalid(node, "elements is a sequence of hex strings");
  std::vector<std::string> elements;
  for (const auto& item : node) {
    if (kind_of(item) != Kind::kString)
      invalid(item, "an element is a quoted hex string (\"0f\"), not a YAML number");
    std::string text = string_scalar(item, "an element");
    if (text.empty() || text.size() > 64 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return is_decimal(c) || (c >= 'a' && c <= 'f'); }))
      invalid(item, "an element is 1 to 64 lower-case hex digits, not '" + text + "'");
    elements.push_back(std::move(text));
  }
  return elements;
}

void hurray_expect_node(const yaml::Node& node, ElementsCase& body) {
  require_map(node, "expect");
  const std::string result = string_scalar(required(node, "result", "expect"), "result");
  if (result == "accept" || result == "opaque") {
    check_keys(node, {"result"}, "expect (" + result + ")");
    body.result = result == "accept" ? ElementsCase::Result::kAccept : ElementsCase::Result::kOpaque;
    return;
  }
  if (result != "reject") invalid(node["result"], "result is accept, opaque or reject, not '" + result + "'");
  check_keys(node, {"result", "class", "rule"}, "expect (reject)");
  body.result = ElementsCase::Result::kReject;
  const yaml::Node class_node = required(node, "class", "expect (reject)");
  const std::string class_name = string_scalar(class_node, "class");
  body.error_class = hurray::error_class_from_string(class_name);
  if (!body.error_class) invalid(class_node, "class is TAG or DATA");
  const yaml::Node rule_node = required(node, "rule", "expect (reject)");
  body.rule = hurray_rule_scalar(rule_node);
  if (hurray::rule_info(*body.rule).error_class != *body.error_class)
    invalid(rule_node, "rule " + std::string(hurray::rule_info(*body.rule).id) + " is not of class " +
                           class_name);
}

}  // namespace

void read_case_body(const yaml::Node& root, Case& c) {
  check_keys(root,
             {"id", "summary", "rules", "also_breaks", "source", "level", "profile", "type", "shape",
              "mode", "data", "elements", "expect", "ops"},
             "the case (profile hurray-elements)");
  static const std::regex kId("^hurray-[a-z0-9]+(-[a-z0-9]+)*$");
  static const std::regex kSource("^(seed 003 hurray-[a-z0-9-]+|brief|suite|family [a-z0-9]+(-[a-z0-9]+)*)$");
  common_members(root, c, kId, "hurray-[a-z0-9-]", kSource,
                 "'seed 003 <case id>', 'brief', 'suite' or 'family <name>'");
  ElementsCase& body = set_body(c);
  const yaml::Node rules = required(root, "rules", "the case");
  body.rules = hurray_rules_node(rules, "rules");
  hurray_type_node(required(root, "type", "the case"), body);
  const yaml::Node shape = required(root, "shape", "the case");
  if (!shape.IsSequence()) invalid(shape, "shape is a sequence of dimensions");
  body.shape = shape_node(shape);
  if (const yaml::Node mode = root["mode"]) {
    const std::string text = string_scalar(mode, "mode");
    body.mode = hurray::mode_from_string(text);
    if (!body.mode) invalid(mode, "mode is strict or permissive, not '" + text + "'");
  }
  if (const yaml::Node data = root["data"]) body.data = hex_scalar(data, "data", HexForm::kLines);
  if (const yaml::Node elements = root["elements"]) body.elements = hurray_elements_node(elements);
  const yaml::Node expect = required(root, "expect", "the case");
  hurray_expect_node(expect, body);

  // The forms of cases/README.md: what each result needs and refuses.
  using Result = ElementsCase::Result;
  if (body.mode && !body.data) invalid(root["mode"], "mode is for decode: a case with mode has data");
  if (body.result == Result::kAccept && (!body.data || !body.elements))
    invalid(expect, "an accept case has both data and elements");
  if (body.result == Result::kOpaque) {
    if (!body.data || body.elements || body.decode_mode() != hurray::Mode::kPermissive || body.type)
      invalid(expect, "an opaque case has data, no elements, mode permissive and a raw tag");
  }
  if (body.result == Result::kReject && body.data.has_value() == body.elements.has_value())
    invalid(expect, "a reject case has data (a decode test) or elements (an encode test), not both");
  if (body.rule && std::find(body.rules.begin(), body.rules.end(), *body.rule) == body.rules.end())
    invalid(rules, "rules must list expect.rule " + std::string(hurray::rule_info(*body.rule).id));
  if (const yaml::Node also = root["also_breaks"]) {
    if (body.result != Result::kReject)
      invalid(also, "an accept case breaks no rule: also_breaks is for reject cases");
    body.also_breaks = hurray_rules_node(also, "also_breaks");
    for (std::size_t i = 0; i < body.also_breaks.size(); ++i) {
      const hurray::Rule rule = body.also_breaks[i];
      const std::string id(hurray::rule_info(rule).id);
      if (rule == *body.rule) invalid(also[i], "also_breaks lists expect.rule " + id + ": it names only the other rules");
      if (std::find(body.rules.begin(), body.rules.end(), rule) == body.rules.end())
        invalid(also[i], "also_breaks lists " + id + ", which rules does not list");
    }
  }
  if (const yaml::Node ops = root["ops"]) c.ops = ops_node(ops);
}

}  // namespace kiln::conformance::hurray_elements
