// Profile kiln-v2's case body (cases/README.md): the description's tensors,
// faults, the expectation, rules and the block, read strictly from a case file.
#include "profiles/kiln_v2/case_body.hpp"

#include <algorithm>
#include <regex>

#include "kiln/conformance/yaml_reading.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/conformance/short_match.hpp"
#include "profiles/kiln_v2/values.hpp"
#include "kiln/dtype.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance::kiln_v2 {

using namespace yaml_reading;

namespace {

Rule rule_scalar(const yaml::Node& node) {
  const std::string id = string_scalar(node, "a rule ID");
  auto rule = rule_from_id(id);
  if (!rule) invalid(node, "'" + id + "' is not a rule ID of reference/FORMAT.md");
  return *rule;
}

std::uint16_t dtype_scalar(const yaml::Node& node) {
  const Kind kind = kind_of(node);
  if (kind == Kind::kInteger)
    return static_cast<std::uint16_t>(unsigned_scalar(node, "a dtype code", 0xFFFF));
  const std::string text = scalar(node, "dtype");
  if (kind == Kind::kString)
    if (auto info = find_dtype(std::string_view(text))) return info->code;
  invalid(node, "dtype '" + text + "' is neither a dtype name nor a code from 0 to 65535");
}

// The text element_bits reads for one typed value, as a YAML reader types it:
// a plain 0x38 is the integer 56 (for f32 the number 56.0), while the string
// "0x38" is a raw bit pattern.
std::string value_text(const yaml::Node& node) {
  const Kind kind = kind_of(node);
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  switch (kind) {
    case Kind::kBool:
    case Kind::kFloat:
      return text;
    case Kind::kInteger: {
      if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
        const auto value = parse_core_unsigned(text);
        if (!value) invalid(node, "the integer " + text + " is beyond 2^64 - 1");
        return std::to_string(*value);
      }
      return text;
    }
    case Kind::kString: {
      const bool raw_bits = text.size() > 2 && text[0] == '0' && text[1] == 'x' &&
                            all_of_chars(std::string_view(text).substr(2), is_hex);
      if (raw_bits || text == ".nan" || text == ".inf" || text == "-.inf") return text;
      break;
    }
    default:
      break;
  }
  invalid(node, "a value is a number, true or false, or a quoted \"0x...\" bit pattern, not " +
                    kind_name(kind) + (node.IsScalar() ? " '" + text + "'" : ""));
}

TensorDescription tensor_node(const yaml::Node& node, std::size_t index) {
  const std::string what = "tensor " + std::to_string(index);
  require_map(node, what);
  check_keys(node,
             {"name", "name_hex", "dtype", "shape", "layout", "layout_hex", "block_size",
              "payload", "values"},
             what);
  TensorDescription tensor;
  if (node["name"] && node["name_hex"]) invalid(node, what + " has both name and name_hex");
  if (node["name"]) {
    tensor.name = string_scalar(node["name"], "name");
  } else if (node["name_hex"]) {
    auto bytes = hex_scalar(node["name_hex"], "name_hex", HexForm::kPacked);
    tensor.name.assign(bytes.begin(), bytes.end());
  } else {
    invalid(node, what + " lacks name (or name_hex)");
  }
  tensor.dtype = dtype_scalar(required(node, "dtype", what));
  tensor.shape = shape_node(required(node, "shape", what));
  if (node["layout"] && node["layout_hex"]) invalid(node, what + " has both layout and layout_hex");
  if (node["layout"]) tensor.layout = string_scalar(node["layout"], "layout");
  if (node["layout_hex"]) {
    auto bytes = hex_scalar(node["layout_hex"], "layout_hex", HexForm::kPacked);
    tensor.layout.assign(bytes.begin(), bytes.end());
  }
  if (node["block_size"])
    tensor.block_size =
        static_cast<std::uint32_t>(unsigned_scalar(node["block_size"], "block_size", 0xFFFFFFFFu));

  const yaml::Node payload = node["payload"];
  const yaml::Node values = node["values"];
  if (payload && values) invalid(node, what + " has both payload and values");
  if (payload) {
    tensor.payload = hex_scalar(payload, "payload", HexForm::kPacked);
  } else if (values) {
    if (!values.IsSequence()) invalid(values, "values must be a sequence");
    const DtypeInfo* info = find_dtype(tensor.dtype);
    if (!info)
      invalid(values, "dtype " + std::to_string(tensor.dtype) +
                          " has no element width: give payload as hex instead of values");
    std::vector<std::uint64_t> elements;
    for (const auto& value : values) {
      auto bits = element_bits(*info, value_text(value));
      if (!bits) invalid(value, bits.error());
      elements.push_back(bits.value());
    }
    tensor.payload = pack_elements(*info, elements);
  } else {
    invalid(node, what + " lacks payload (or values)");
  }
  return tensor;
}

Anchor anchor_scalar(const yaml::Node& node, const std::string& what, std::size_t tensor_count) {
  const Kind kind = kind_of(node);
  if (kind != Kind::kInteger && kind != Kind::kString)
    invalid(node, what + " is an anchor or an offset, not " + kind_name(kind));
  Anchor anchor{node.Scalar()};
  if (kind == Kind::kString && parse_u64(anchor.text))
    invalid(node, what + ": an offset is an integer, written without quotes");
  if (kind == Kind::kInteger) {
    const auto offset = parse_core_unsigned(anchor.text);
    if (!offset) invalid(node, what + ": an offset is an integer from 0 to 2^64 - 1");
    anchor.text = std::to_string(*offset);
  }
  if (auto problem = anchor_problem(anchor, tensor_count)) invalid(node, *problem);
  return anchor;
}

Fault fault_node(const yaml::Node& node, std::size_t tensor_count) {
  require_map(node, "a fault");
  if (node["set"]) {
    check_keys(node, {"set", "value"}, "a set fault");
    static const std::regex kTarget(R"(^(header|tensor\[([0-9]+)\])\.([a-z0-9_]+)$)");
    const std::string target = string_scalar(node["set"], "set");
    std::smatch match;
    if (!short_match(target, match, kTarget))
      invalid(node["set"], "set names header.<field> or tensor[i].<field>, not '" + target + "'");
    SetField set;
    const bool in_entry = match[1].str() != "header";
    if (in_entry) {
      const auto index = parse_u64(match[2].str());
      if (!index || *index >= tensor_count)
        invalid(node["set"], match[1].str() + " does not exist: the description has " +
                                 std::to_string(tensor_count) + " tensor(s)");
      set.tensor = static_cast<std::uint32_t>(*index);
    }
    set.field = match[3].str();
    const Field* field = find_field(set.field, in_entry);
    if (!field) invalid(node["set"], "no field '" + set.field + "' in " + match[1].str());
    const std::uint64_t maximum =
        field->width >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * field->width)) - 1;
    set.value = unsigned_scalar(required(node, "value", "a set fault"), "value", maximum);
    return set;
  }
  if (node["overwrite"]) {
    check_keys(node, {"overwrite", "bytes"}, "an overwrite fault");
    return Overwrite{anchor_scalar(node["overwrite"], "overwrite", tensor_count),
                     hex_scalar(required(node, "bytes", "an overwrite fault"), "bytes",
                                HexForm::kPackedNonEmpty)};
  }
  if (node["truncate"]) {
    check_keys(node, {"truncate"}, "a truncate fault");
    return Truncate{anchor_scalar(node["truncate"], "truncate", tensor_count)};
  }
  if (node["append"]) {
    check_keys(node, {"append"}, "an append fault");
    return Append{hex_scalar(node["append"], "append", HexForm::kPackedNonEmpty)};
  }
  invalid(node, "a fault is one of set, overwrite, truncate, append");
}

Expectation expect_node(const yaml::Node& node) {
  require_map(node, "expect");
  const std::string result = string_scalar(required(node, "result", "expect"), "result");
  Expectation expect;
  if (result == "accept") {
    check_keys(node, {"result"}, "expect (accept)");
    return expect;
  }
  if (result != "reject") invalid(node["result"], "result is accept or reject, not '" + result + "'");
  check_keys(node, {"result", "class", "rule"}, "expect (reject)");
  expect.accept = false;
  const yaml::Node class_node = required(node, "class", "expect (reject)");
  const std::string class_name = string_scalar(class_node, "class");
  expect.error_class = error_class_from_string(class_name);
  if (!expect.error_class) invalid(class_node, "class is FRAME or TYPE");
  const yaml::Node rule_node = required(node, "rule", "expect (reject)");
  expect.rule = rule_scalar(rule_node);
  if (rule_info(*expect.rule).error_class != *expect.error_class)
    invalid(rule_node, "rule " + std::string(rule_info(*expect.rule).id) + " is not of class " +
                           class_name);
  return expect;
}

// The rules a reject case breaks on purpose besides expect.rule (cases/README.md,
// "Isolation"): each listed in rules too, so that coverage and rules stay the
// one list of what the case exercises.
std::vector<Rule> also_breaks_node(const yaml::Node& node, const Case& c) {
  auto& body = kiln_v2::body(c);
  if (body.expect.accept)
    invalid(node, "an accept case breaks no rule: also_breaks is for reject cases");
  if (!node.IsSequence() || node.size() == 0) invalid(node, "also_breaks is a non-empty sequence");
  std::vector<Rule> also;
  for (const auto& item : node) {
    const Rule rule = rule_scalar(item);
    const std::string id(rule_info(rule).id);
    if (rule == *body.expect.rule)
      invalid(item, "also_breaks lists expect.rule " + id + ": it names only the other rules");
    if (std::find(also.begin(), also.end(), rule) != also.end())
      invalid(item, "rule " + id + " is listed twice");
    if (std::find(body.rules.begin(), body.rules.end(), rule) == body.rules.end())
      invalid(item, "also_breaks lists " + id + ", which rules does not list");
    also.push_back(rule);
  }
  return also;
}

}  // namespace

void read_case_body(const yaml::Node& root, Case& c) {
  KilnCase& body = kiln_v2::set_body(c);
  check_keys(root,
             {"id", "summary", "rules", "also_breaks", "source", "level", "profile", "tensors",
              "faults", "expect", "ops", "block"},
             "the case");
  static const std::regex kId("^kiln-v2-[a-z0-9]+(-[a-z0-9]+)*$");
  static const std::regex kSource(
      "^(seed (000|001|002) kiln-v2-[a-z0-9-]+|brief|suite|family [a-z0-9]+(-[a-z0-9]+)*)$");
  common_members(root, c, kId, "kiln-v2-[a-z0-9-]", kSource,
                 "'seed NNN <case id>', 'brief', 'suite' or 'family <name>'");
  const yaml::Node rules = required(root, "rules", "the case");
  if (!rules.IsSequence() || rules.size() == 0) invalid(rules, "rules is a non-empty sequence");
  for (const auto& rule_node : rules) {
    const Rule rule = rule_scalar(rule_node);
    if (std::find(body.rules.begin(), body.rules.end(), rule) != body.rules.end())
      invalid(rule_node, "rule " + std::string(rule_info(rule).id) + " is listed twice");
    body.rules.push_back(rule);
  }
  const yaml::Node tensors = required(root, "tensors", "the case");
  if (!tensors.IsSequence()) invalid(tensors, "tensors is a sequence");
  // rank/fill shapes and typed values expand: bound what a file describes.
  std::uint64_t described_bytes = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    body.description.tensors.push_back(tensor_node(tensors[i], i));
    const auto& tensor = body.description.tensors.back();
    described_bytes += tensor.payload.size() + 8 * tensor.shape.size() + tensor.name.size() +
                       tensor.layout.size();
    if (described_bytes > kMaxDescriptionBytes)
      invalid(tensors[i], "the description exceeds " + std::to_string(kMaxDescriptionBytes >> 20) +
                              " MiB (cases/README.md, Limits)");
  }
  if (const yaml::Node faults = root["faults"]) {
    if (!faults.IsSequence() || faults.size() == 0) invalid(faults, "faults is a non-empty sequence");
    for (const auto& fault : faults)
      body.faults.push_back(fault_node(fault, body.description.tensors.size()));
  }
  body.expect = expect_node(required(root, "expect", "the case"));
  if (body.expect.accept && !body.faults.empty())
    invalid(root["faults"], "an accepted case has no faults: its block is its description");
  if (body.expect.rule &&
      std::find(body.rules.begin(), body.rules.end(), *body.expect.rule) == body.rules.end())
    invalid(rules, "rules must list expect.rule " + std::string(rule_info(*body.expect.rule).id));
  if (const yaml::Node also = root["also_breaks"]) body.also_breaks = also_breaks_node(also, c);
  if (const yaml::Node ops = root["ops"]) c.ops = ops_node(ops);
  if (const yaml::Node block = root["block"]) body.block = hex_scalar(block, "block", HexForm::kLines);
}

// A case without a block (cases/README.md, "block"). An accept case and a case
// with faults are decode tests: a description that cannot be placed gives them
// no block, ever. One that can be placed awaits regen, and `cases check` says so.
void check_block_can_exist(const Case& c, const yaml::Node& root) {
  auto& body = kiln_v2::body(c);
  if (body.block || (!body.expect.accept && body.faults.empty())) return;
  auto placed = place(body.description);
  if (placed) return;
  const std::string why = " (" + placed.error().describe() + ")";
  if (body.expect.accept)
    invalid(root["expect"]["result"],
            "an accept case must have a block, and its description cannot be placed in one" + why);
  invalid(root["faults"], "a case with faults is a decode test and must have a block, and its "
                          "description cannot be placed in one" + why);
}

}  // namespace kiln::conformance::kiln_v2
