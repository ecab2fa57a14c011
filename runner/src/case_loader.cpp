#include "kiln/conformance/case_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include "kiln/conformance/short_match.hpp"
#include <set>
#include <sstream>

#include "kiln/conformance/materialize.hpp"
#include "kiln/conformance/values.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance {
namespace {

// Thrown inside this file only, caught in load_case_file: a YAML tree walk
// reads far more clearly with one error exit.
struct Invalid {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void invalid(const YAML::Node& node, std::string message) {
  throw Invalid{node.Mark(), std::move(message)};
}

void require_map(const YAML::Node& node, const std::string& what) {
  if (!node.IsMap()) invalid(node, what + " must be a mapping");
}

void check_keys(const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& what) {
  for (const auto& item : map) {
    if (!item.first.IsScalar()) invalid(item.first, "a key in " + what + " must be a scalar");
    const std::string key = item.first.Scalar();
    if (!allowed.count(key))
      invalid(item.first, "unknown key '" + key + "' in " + what);
  }
}

const YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& what) {
  const YAML::Node node = map[key];
  if (!node) invalid(map, what + " lacks the required key '" + key + "'");
  return node;
}

std::string scalar(const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) invalid(node, what + " must be a scalar");
  return node.Scalar();
}

std::uint64_t unsigned_scalar(const YAML::Node& node, const std::string& what,
                              std::uint64_t maximum) {
  const std::string text = scalar(node, what);
  auto value = parse_u64(text);
  if (!value || *value > maximum)
    invalid(node, what + " must be an integer from 0 to " + std::to_string(maximum) + ", not '" +
                      text + "'");
  return *value;
}

std::vector<std::uint8_t> hex_scalar(const YAML::Node& node, const std::string& what,
                                     bool allow_space) {
  HexError error;
  auto bytes = from_hex(scalar(node, what), &error, allow_space);
  if (!bytes) invalid(node, what + ": " + error.message + " at character " +
                                std::to_string(error.position));
  return *bytes;
}

Rule rule_scalar(const YAML::Node& node) {
  const std::string id = scalar(node, "a rule ID");
  auto rule = rule_from_id(id);
  if (!rule) invalid(node, "'" + id + "' is not a rule ID of reference/FORMAT.md");
  return *rule;
}

std::uint16_t dtype_scalar(const YAML::Node& node) {
  const std::string text = scalar(node, "dtype");
  if (auto info = find_dtype(std::string_view(text))) return info->code;
  auto code = parse_u64(text);
  if (!code || *code > 0xFFFF)
    invalid(node, "dtype '" + text + "' is neither a dtype name nor a code from 0 to 65535");
  return static_cast<std::uint16_t>(*code);
}

std::vector<std::uint64_t> shape_node(const YAML::Node& node) {
  std::vector<std::uint64_t> shape;
  if (node.IsSequence()) {
    for (const auto& dim : node)
      shape.push_back(unsigned_scalar(dim, "a dimension", ~std::uint64_t{0}));
    return shape;
  }
  require_map(node, "shape");
  check_keys(node, {"rank", "fill"}, "shape");
  // Ranks above 65535 are allowed here on purpose: they make the encoder-only
  // FRAME-FIELD-RANGE case. The bound keeps a typo from allocating gigabytes.
  const auto rank = unsigned_scalar(required(node, "rank", "shape"), "rank", 1u << 20);
  const auto fill = unsigned_scalar(required(node, "fill", "shape"), "fill", ~std::uint64_t{0});
  shape.assign(rank, fill);
  return shape;
}

TensorDescription tensor_node(const YAML::Node& node, std::size_t index) {
  const std::string what = "tensor " + std::to_string(index);
  require_map(node, what);
  check_keys(node,
             {"name", "name_hex", "dtype", "shape", "layout", "layout_hex", "block_size",
              "payload", "values"},
             what);
  TensorDescription tensor;
  if (node["name"] && node["name_hex"]) invalid(node, what + " has both name and name_hex");
  if (node["name"]) {
    tensor.name = scalar(node["name"], "name");
  } else if (node["name_hex"]) {
    auto bytes = hex_scalar(node["name_hex"], "name_hex", false);
    tensor.name.assign(bytes.begin(), bytes.end());
  } else {
    invalid(node, what + " lacks name (or name_hex)");
  }
  tensor.dtype = dtype_scalar(required(node, "dtype", what));
  tensor.shape = shape_node(required(node, "shape", what));
  if (node["layout"] && node["layout_hex"]) invalid(node, what + " has both layout and layout_hex");
  if (node["layout"]) tensor.layout = scalar(node["layout"], "layout");
  if (node["layout_hex"]) {
    auto bytes = hex_scalar(node["layout_hex"], "layout_hex", false);
    tensor.layout.assign(bytes.begin(), bytes.end());
  }
  if (node["block_size"])
    tensor.block_size =
        static_cast<std::uint32_t>(unsigned_scalar(node["block_size"], "block_size", 0xFFFFFFFFu));

  const YAML::Node payload = node["payload"];
  const YAML::Node values = node["values"];
  if (payload && values) invalid(node, what + " has both payload and values");
  if (payload) {
    tensor.payload = hex_scalar(payload, "payload", true);
  } else if (values) {
    const DtypeInfo* info = find_dtype(tensor.dtype);
    if (!info)
      invalid(values, "dtype " + std::to_string(tensor.dtype) +
                          " has no element width: give payload as hex instead of values");
    if (!values.IsSequence()) invalid(values, "values must be a sequence");
    std::vector<std::uint64_t> elements;
    for (const auto& value : values) {
      std::string error;
      auto bits = element_bits(*info, scalar(value, "a value"), error);
      if (!bits) invalid(value, error);
      elements.push_back(*bits);
    }
    tensor.payload = pack_elements(*info, elements);
  } else {
    invalid(node, what + " lacks payload (or values)");
  }
  return tensor;
}

Anchor anchor_scalar(const YAML::Node& node, const std::string& what, std::size_t tensor_count) {
  Anchor anchor{scalar(node, what)};
  if (auto problem = anchor_problem(anchor, tensor_count)) invalid(node, *problem);
  return anchor;
}

Fault fault_node(const YAML::Node& node, std::size_t tensor_count) {
  require_map(node, "a fault");
  if (node["set"]) {
    check_keys(node, {"set", "value"}, "a set fault");
    static const std::regex kTarget(R"(^(header|tensor\[([0-9]+)\])\.([a-z0-9_]+)$)");
    const std::string target = scalar(node["set"], "set");
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
                     hex_scalar(required(node, "bytes", "an overwrite fault"), "bytes", false)};
  }
  if (node["truncate"]) {
    check_keys(node, {"truncate"}, "a truncate fault");
    return Truncate{anchor_scalar(node["truncate"], "truncate", tensor_count)};
  }
  if (node["append"]) {
    check_keys(node, {"append"}, "an append fault");
    return Append{hex_scalar(node["append"], "append", false)};
  }
  invalid(node, "a fault is one of set, overwrite, truncate, append");
}

Expectation expect_node(const YAML::Node& node) {
  require_map(node, "expect");
  const std::string result = scalar(required(node, "result", "expect"), "result");
  Expectation expect;
  if (result == "accept") {
    check_keys(node, {"result"}, "expect (accept)");
    return expect;
  }
  if (result != "reject") invalid(node["result"], "result is accept or reject, not '" + result + "'");
  check_keys(node, {"result", "class", "rule"}, "expect (reject)");
  expect.accept = false;
  const YAML::Node class_node = required(node, "class", "expect (reject)");
  expect.error_class = error_class_from_string(scalar(class_node, "class"));
  if (!expect.error_class) invalid(class_node, "class is FRAME or TYPE");
  const YAML::Node rule_node = required(node, "rule", "expect (reject)");
  expect.rule = rule_scalar(rule_node);
  if (rule_info(*expect.rule).error_class != *expect.error_class)
    invalid(rule_node, "rule " + std::string(rule_info(*expect.rule).id) + " is not of class " +
                           scalar(class_node, "class"));
  return expect;
}

std::vector<Operation> ops_node(const YAML::Node& node) {
  if (!node.IsSequence()) invalid(node, "ops must be a sequence");
  std::vector<Operation> ops;
  for (const auto& item : node) {
    const std::string op = scalar(item, "an op");
    if (op == "decode") ops.push_back(Operation::kDecode);
    else if (op == "encode") ops.push_back(Operation::kEncode);
    else invalid(item, "op is decode or encode, not '" + op + "'");
  }
  return ops;
}

Case case_node(const YAML::Node& root, const std::string& display_name) {
  require_map(root, "a case file");
  check_keys(root,
             {"id", "summary", "rules", "source", "level", "profile", "tensors", "faults",
              "expect", "ops", "block"},
             "the case");
  Case c;
  c.origin.file = display_name;
  const YAML::Node id = required(root, "id", "the case");
  c.id = scalar(id, "id");
  static const std::regex kId("^kiln-v2-[a-z0-9]+(-[a-z0-9]+)*$");
  if (c.id.size() > kLongestToken)
    invalid(id, "id is " + std::to_string(c.id.size()) + " characters long, more than " +
                    std::to_string(kLongestToken));
  if (!short_match(c.id, kId))
    invalid(id, "id '" + c.id + "' is not lower-case kiln-v2-[a-z0-9-]");
  c.summary = scalar(required(root, "summary", "the case"), "summary");
  if (c.summary.empty() || c.summary.find('\n') != std::string::npos)
    invalid(root["summary"], "summary is one non-empty line");
  const YAML::Node rules = required(root, "rules", "the case");
  if (!rules.IsSequence() || rules.size() == 0) invalid(rules, "rules is a non-empty sequence");
  for (const auto& rule : rules) c.rules.push_back(rule_scalar(rule));
  c.source = scalar(required(root, "source", "the case"), "source");
  static const std::regex kSource("^(seed (000|001|002) kiln-v2-[a-z0-9-]+|brief|suite)$");
  if (c.source.size() > kLongestToken)
    invalid(root["source"], "source is " + std::to_string(c.source.size()) +
                                " characters long, more than " + std::to_string(kLongestToken));
  if (!short_match(c.source, kSource))
    invalid(root["source"], "source is 'seed NNN <case id>', 'brief' or 'suite'");
  const std::string level = scalar(required(root, "level", "the case"), "level");
  if (level == "required") c.level = Level::kRequired;
  else if (level == "recommended") c.level = Level::kRecommended;
  else invalid(root["level"], "level is required or recommended");
  if (root["profile"]) {
    c.profile = scalar(root["profile"], "profile");
    if (c.profile != "kiln-v2") invalid(root["profile"], "the only profile is kiln-v2");
  }
  const YAML::Node tensors = required(root, "tensors", "the case");
  if (!tensors.IsSequence()) invalid(tensors, "tensors is a sequence");
  // Aliases can repeat one large tensor many times: bound what a file expands to.
  constexpr std::uint64_t kMaxDescriptionBytes = std::uint64_t{256} << 20;
  std::uint64_t described_bytes = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    c.description.tensors.push_back(tensor_node(tensors[i], i));
    const auto& tensor = c.description.tensors.back();
    described_bytes += tensor.payload.size() + 8 * tensor.shape.size() + tensor.name.size() +
                       tensor.layout.size();
    if (described_bytes > kMaxDescriptionBytes)
      invalid(tensors[i], "the description exceeds 256 MiB; not a case");
  }
  if (const YAML::Node faults = root["faults"]) {
    if (!faults.IsSequence() || faults.size() == 0) invalid(faults, "faults is a non-empty sequence");
    for (const auto& fault : faults)
      c.faults.push_back(fault_node(fault, c.description.tensors.size()));
  }
  c.expect = expect_node(required(root, "expect", "the case"));
  if (c.expect.accept && !c.faults.empty())
    invalid(root["faults"], "an accepted case has no faults: its block is its description");
  if (c.expect.rule &&
      std::find(c.rules.begin(), c.rules.end(), *c.expect.rule) == c.rules.end())
    invalid(rules, "rules must list expect.rule " + std::string(rule_info(*c.expect.rule).id));
  if (const YAML::Node ops = root["ops"]) c.ops = ops_node(ops);
  if (const YAML::Node block = root["block"]) c.block = hex_scalar(block, "block", true);
  return c;
}

}  // namespace

std::string SourceMark::describe() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string CaseError::describe() const { return where.describe() + ": " + message; }

std::string_view to_string(Operation operation) noexcept {
  return operation == Operation::kDecode ? "decode" : "encode";
}

std::vector<Operation> Case::derived_ops() const {
  if (!block) return {Operation::kEncode};
  if (!faults.empty()) return {Operation::kDecode};
  return {Operation::kDecode, Operation::kEncode};
}

std::variant<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                             const std::string& display_name) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return error_at(0, 0, "cannot open the file");
  // Case files are small; a bound keeps a stray huge file from exhausting memory.
  constexpr std::uintmax_t kMaxCaseFileBytes = 64u << 20;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(file, size_error);
  if (size_error) return error_at(0, 0, "cannot read the file's size: " + size_error.message());
  if (size > kMaxCaseFileBytes) return error_at(0, 0, "larger than 64 MiB; not a case file");
  try {
    const YAML::Node root = YAML::Load(stream);
    return case_node(root, display_name);
  } catch (const Invalid& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.message);
  } catch (const YAML::Exception& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.msg);
  } catch (const std::exception& problem) {  // out of memory, say: an error, never an abort
    return error_at(1, 1, std::string("cannot load: ") + problem.what());
  }
}

CaseSet load_case_set(const std::filesystem::path& root) {
  CaseSet set;
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) {
    set.errors.push_back(CaseError{SourceMark{root.string(), 0, 0}, "not a directory of cases"});
    return set;
  }
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error))
    if (it->is_regular_file() && it->path().extension() == ".yaml") files.push_back(it->path());
  std::sort(files.begin(), files.end());

  std::map<std::string, std::string> first_file_of_id;
  for (const auto& file : files) {
    const std::string display = file.lexically_relative(root.parent_path()).generic_string();
    auto loaded = load_case_file(file, display);
    if (auto* problem = std::get_if<CaseError>(&loaded)) {
      set.errors.push_back(std::move(*problem));
      continue;
    }
    Case& c = std::get<Case>(loaded);
    if (file.stem().string() != c.id) {
      set.errors.push_back(CaseError{SourceMark{display, 1, 1},
                                     "id '" + c.id + "' differs from the file name"});
      continue;
    }
    auto [it, inserted] = first_file_of_id.emplace(c.id, display);
    if (!inserted) {
      set.errors.push_back(CaseError{SourceMark{display, 1, 1},
                                     "duplicate id '" + c.id + "', first in " + it->second});
      continue;
    }
    set.cases.push_back(std::move(c));
  }
  std::sort(set.cases.begin(), set.cases.end(),
            [](const Case& a, const Case& b) { return a.id < b.id; });
  return set;
}

}  // namespace kiln::conformance
