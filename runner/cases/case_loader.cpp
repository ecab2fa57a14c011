#include "kiln/conformance/case_loader.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>

#include "kiln/builder.hpp"
#include "kiln/conformance/materialize.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/short_match.hpp"
#include "kiln/conformance/values.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance {

struct CaseSchema::Impl {
  std::string display_name;
  valijson::Schema schema;
  // valijson compiles each pattern with std::regex's default, recursive matcher,
  // which overflows the stack on a long payload; these are compiled first, with
  // the polynomial (breadth-first) matcher, and valijson finds them here.
  std::unordered_map<std::string, std::regex> regexes;
};

namespace {

namespace fs = std::filesystem;

// Thrown inside this file only, caught in load_case_file: a YAML tree walk
// reads far more clearly with one error exit.
struct Invalid {
  YAML::Mark mark;
  std::string message;
  // When set, the error is about one character of this scalar: the catch turns
  // the character's index into its own line:column.
  std::optional<YAML::Node> scalar;
  std::size_t character = 0;
};

[[noreturn]] void invalid(const YAML::Mark& mark, std::string message) {
  throw Invalid{mark, std::move(message), std::nullopt, 0};
}

[[noreturn]] void invalid(const YAML::Node& node, std::string message) {
  invalid(node.Mark(), std::move(message));
}

[[noreturn]] void invalid_at(const YAML::Node& scalar_node, std::size_t character,
                             std::string message) {
  throw Invalid{scalar_node.Mark(), std::move(message), scalar_node, character};
}

// Where a file's size limit is documented, for the message of one past it.
constexpr std::string_view kLimitsNote = " (cases/README.md, Limits)";

// ---- YAML: a bounded first pass over the events ----

// Case files are plain YAML (cases/README.md): one document, no anchors,
// aliases or tags. Refusing aliases outright bounds a file's expanded size by
// its own size; the node count and depth bound the tree yaml-cpp builds and the
// recursion of everything that walks it. Throws Invalid at the first problem.
class BoundedScan final : public YAML::EventHandler {
 public:
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) invalid(mark, "a second YAML document: a case file holds exactly one");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, "", anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    invalid(mark, "an alias: " + std::string(kPlain));
  }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    invalid(mark, "an anchor '&" + name + "': " + kPlain);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string&) override {
    node(mark, tag, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  static constexpr const char* kPlain = "case files are plain YAML, without anchors or aliases";

  void node(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) invalid(mark, "an anchor: " + std::string(kPlain));
    // "?" is an untagged plain node, "!" an untagged quoted or block scalar.
    if (!tag.empty() && tag != "?" && tag != "!")
      invalid(mark, "a tag '" + tag + "': case files are plain YAML, without tags");
    if (++nodes_ > kMaxCaseNodes)
      invalid(mark, "more than " + std::to_string(kMaxCaseNodes) +
                        " YAML nodes: larger than any case (cases/README.md, Limits)");
  }
  void open(const YAML::Mark& mark) {
    if (++depth_ > kMaxCaseDepth)
      invalid(mark, "nested more than " + std::to_string(kMaxCaseDepth) +
                        " levels deep (cases/README.md, Limits)");
  }

  int documents_ = 0;
  std::size_t nodes_ = 0;
  int depth_ = 0;
};

// ---- YAML 1.2 core schema types of scalars ----

enum class Kind { kNull, kBool, kInteger, kFloat, kString, kSequence, kMapping };

bool all_of_chars(std::string_view text, bool (*accept)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), accept);
}
bool is_decimal(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string_view without_sign(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return text;
}

bool is_core_integer(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && text[1] == 'o') return all_of_chars(text.substr(2), is_octal);
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') return all_of_chars(text.substr(2), is_hex);
  return all_of_chars(without_sign(text), is_decimal);
}

bool is_core_float(std::string_view text) {
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return true;
  const std::string_view unsigned_text = without_sign(text);
  if (unsigned_text == ".inf" || unsigned_text == ".Inf" || unsigned_text == ".INF") return true;
  // [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
  std::string_view rest = unsigned_text;
  auto digits = [&rest] {
    std::size_t count = 0;
    while (count < rest.size() && is_decimal(rest[count])) ++count;
    rest.remove_prefix(count);
    return count;
  };
  const std::size_t whole = digits();
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    if (digits() == 0 && whole == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (!rest.empty() && (rest.front() == 'e' || rest.front() == 'E')) {
    rest.remove_prefix(1);
    if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) rest.remove_prefix(1);
    if (digits() == 0) return false;
  }
  return rest.empty();
}

// What a YAML 1.2 reader (the core schema) makes of the node: a quoted or block
// scalar is a string; a plain one may be null, a bool, an integer or a float.
Kind kind_of(const YAML::Node& node) {
  if (node.IsMap()) return Kind::kMapping;
  if (node.IsSequence()) return Kind::kSequence;
  if (node.IsNull()) return Kind::kNull;
  if (node.Tag() != "?") return Kind::kString;
  const std::string& text = node.Scalar();
  if (text == "true" || text == "True" || text == "TRUE" || text == "false" || text == "False" ||
      text == "FALSE")
    return Kind::kBool;
  if (is_core_integer(text)) return Kind::kInteger;
  if (is_core_float(text)) return Kind::kFloat;
  return Kind::kString;
}

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kInteger: return "an integer";
    case Kind::kFloat: return "a number";
    case Kind::kString: return "a string";
    case Kind::kSequence: return "a sequence";
    case Kind::kMapping: return "a mapping";
  }
  return "?";
}

// ---- the structure every case file shares ----

// The index of the first byte that does not belong to well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) {
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) length = 2;
    else if ((lead & 0xF0) == 0xE0) length = 3;
    else if ((lead & 0xF8) == 0xF0) length = 4;
    else return i;
    if (text.size() - i < length) return i;
    std::uint32_t code = lead & (0x7Fu >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      code = code << 6 | (next & 0x3Fu);
    }
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return i;
    i += length;
  }
  return std::string_view::npos;
}

void check_utf8(const YAML::Node& scalar_node) {
  const std::size_t bad = invalid_utf8_at(scalar_node.Scalar());
  if (bad != std::string_view::npos)
    invalid_at(scalar_node, bad, "not UTF-8 at character " + std::to_string(bad) +
                                     ": YAML text is UTF-8 (name_hex and layout_hex take other bytes)");
}

// Keys must be strings and unique: yaml-cpp keeps every duplicate and returns the
// first, PyYAML the last, so a duplicate would mean different cases to different
// readers. Text must be UTF-8, as YAML requires (and valijson assumes).
void check_structure(const YAML::Node& node) {
  if (node.IsMap()) {
    std::unordered_set<std::string> seen;
    for (const auto& item : node) {
      if (!item.first.IsScalar() || item.first.IsNull())
        invalid(item.first, "a key must be a string");
      check_utf8(item.first);
      if (!seen.insert(item.first.Scalar()).second)
        invalid(item.first, "duplicate key '" + item.first.Scalar() + "'");
      check_structure(item.second);
    }
  } else if (node.IsSequence()) {
    for (const auto& child : node) check_structure(child);
  } else if (node.IsScalar()) {
    check_utf8(node);
  }
}

// ---- scalars the loader reads ----

void require_map(const YAML::Node& node, const std::string& what) {
  if (!node.IsMap()) invalid(node, what + " must be a mapping, not " + kind_name(kind_of(node)));
}

void check_keys(const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& what) {
  for (const auto& item : map) {
    const std::string key = item.first.Scalar();
    if (!allowed.count(key)) invalid(item.first, "unknown key '" + key + "' in " + what);
  }
}

const YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& what) {
  const YAML::Node node = map[key];
  if (!node) invalid(map, what + " lacks the required key '" + key + "'");
  return node;
}

std::string scalar(const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) invalid(node, what + " must be a scalar, not " + kind_name(kind_of(node)));
  return node.Scalar();
}

// A scalar that YAML reads as a string: `name: 123` is an integer, not a name.
std::string string_scalar(const YAML::Node& node, const std::string& what) {
  const Kind kind = kind_of(node);
  if (kind != Kind::kString)
    invalid(node, what + " must be a string, not " + kind_name(kind) +
                      (kind == Kind::kSequence || kind == Kind::kMapping ? "" : " (quote it)"));
  return node.Scalar();
}

// A non-negative YAML 1.2 integer: decimal (with an optional +), 0x hex or 0o
// octal; nullopt beyond 2^64 - 1 or for anything else.
std::optional<std::uint64_t> parse_core_unsigned(std::string_view text) {
  unsigned base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  } else if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    unsigned digit = 99;
    if (is_decimal(c)) digit = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f') digit = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = unsigned(c - 'A' + 10);
    if (digit >= base) return std::nullopt;
    if (__builtin_mul_overflow(value, std::uint64_t{base}, &value) ||
        __builtin_add_overflow(value, std::uint64_t{digit}, &value))
      return std::nullopt;
  }
  return value;
}

std::uint64_t unsigned_scalar(const YAML::Node& node, const std::string& what,
                              std::uint64_t maximum) {
  const Kind kind = kind_of(node);
  if (kind != Kind::kInteger)
    invalid(node, what + " must be an integer, not " + kind_name(kind));
  const std::string text = node.Scalar();
  auto value = parse_core_unsigned(text);
  if (!value || *value > maximum)
    invalid(node, what + " must be an integer from 0 to " + std::to_string(maximum) + ", not '" +
                      text + "'");
  return *value;
}

// How hex may be written: the schema's patterns, lower case in pairs.
enum class HexForm {
  kPacked,          // ^([0-9a-f]{2})*$
  kPackedNonEmpty,  // ^([0-9a-f]{2})+$
  kLines,           // ^([0-9a-f]{2}|\n)*$: the block, 32 bytes a line
};

std::vector<std::uint8_t> hex_scalar(const YAML::Node& node, const std::string& what, HexForm form) {
  const std::string text = string_scalar(node, what);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= 'A' && c <= 'F')
      invalid_at(node, i, what + ": upper-case hex digit '" + std::string(1, c) +
                              "' at character " + std::to_string(i) + ": hex is lower case");
    if (form == HexForm::kLines && c == '\n') continue;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f')
      invalid_at(node, i, what + ": white space at character " + std::to_string(i) +
                              (form == HexForm::kLines ? ": only line breaks go between bytes"
                                                       : ": hex is digits only"));
  }
  HexError error;
  auto bytes = from_hex(text, &error, form == HexForm::kLines);
  // A line break after half a byte: the line before it has an odd digit count.
  if (!bytes && form == HexForm::kLines && error.position > 0 && error.position < text.size() &&
      text[error.position] == '\n')
    error = HexError{error.position - 1, "odd number of hex digits"};
  if (!bytes)
    invalid_at(node, error.position,
               what + ": " + error.message + " at character " + std::to_string(error.position));
  if (form == HexForm::kPackedNonEmpty && bytes->empty()) invalid(node, what + " holds no bytes");
  return *bytes;
}

Rule rule_scalar(const YAML::Node& node) {
  const std::string id = string_scalar(node, "a rule ID");
  auto rule = rule_from_id(id);
  if (!rule) invalid(node, "'" + id + "' is not a rule ID of reference/FORMAT.md");
  return *rule;
}

std::uint16_t dtype_scalar(const YAML::Node& node) {
  const Kind kind = kind_of(node);
  if (kind == Kind::kInteger)
    return static_cast<std::uint16_t>(unsigned_scalar(node, "a dtype code", 0xFFFF));
  const std::string text = scalar(node, "dtype");
  if (kind == Kind::kString)
    if (auto info = find_dtype(std::string_view(text))) return info->code;
  invalid(node, "dtype '" + text + "' is neither a dtype name nor a code from 0 to 65535");
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

// The text element_bits reads for one typed value, as a YAML reader types it:
// a plain 0x38 is the integer 56 (for f32 the number 56.0), while the string
// "0x38" is a raw bit pattern.
std::string value_text(const YAML::Node& node) {
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

  const YAML::Node payload = node["payload"];
  const YAML::Node values = node["values"];
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
      std::string error;
      auto bits = element_bits(*info, value_text(value), error);
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

Fault fault_node(const YAML::Node& node, std::size_t tensor_count) {
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

Expectation expect_node(const YAML::Node& node) {
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
  const YAML::Node class_node = required(node, "class", "expect (reject)");
  const std::string class_name = string_scalar(class_node, "class");
  expect.error_class = error_class_from_string(class_name);
  if (!expect.error_class) invalid(class_node, "class is FRAME or TYPE");
  const YAML::Node rule_node = required(node, "rule", "expect (reject)");
  expect.rule = rule_scalar(rule_node);
  if (rule_info(*expect.rule).error_class != *expect.error_class)
    invalid(rule_node, "rule " + std::string(rule_info(*expect.rule).id) + " is not of class " +
                           class_name);
  return expect;
}

std::vector<Operation> ops_node(const YAML::Node& node) {
  if (!node.IsSequence() || node.size() == 0) invalid(node, "ops is a non-empty sequence");
  std::vector<Operation> ops;
  for (const auto& item : node) {
    const std::string op = string_scalar(item, "an op");
    Operation operation;
    if (op == "decode") operation = Operation::kDecode;
    else if (op == "encode") operation = Operation::kEncode;
    else invalid(item, "op is decode or encode, not '" + op + "'");
    if (std::find(ops.begin(), ops.end(), operation) != ops.end())
      invalid(item, "op " + op + " is listed twice");
    ops.push_back(operation);
  }
  return ops;
}

// The rules a reject case breaks on purpose besides expect.rule (cases/README.md,
// "Isolation"): each listed in rules too, so that coverage and rules stay the
// one list of what the case exercises.
std::vector<Rule> also_breaks_node(const YAML::Node& node, const Case& c) {
  if (c.expect.accept)
    invalid(node, "an accept case breaks no rule: also_breaks is for reject cases");
  if (!node.IsSequence() || node.size() == 0) invalid(node, "also_breaks is a non-empty sequence");
  std::vector<Rule> also;
  for (const auto& item : node) {
    const Rule rule = rule_scalar(item);
    const std::string id(rule_info(rule).id);
    if (rule == *c.expect.rule)
      invalid(item, "also_breaks lists expect.rule " + id + ": it names only the other rules");
    if (std::find(also.begin(), also.end(), rule) != also.end())
      invalid(item, "rule " + id + " is listed twice");
    if (std::find(c.rules.begin(), c.rules.end(), rule) == c.rules.end())
      invalid(item, "also_breaks lists " + id + ", which rules does not list");
    also.push_back(rule);
  }
  return also;
}

// A case without a block (cases/README.md, "block"). An accept case and a case
// with faults are decode tests: a description that cannot be placed gives them
// no block, ever. One that can be placed awaits regen, and `cases check` says so.
void check_block_can_exist(const Case& c, const YAML::Node& root) {
  if (c.block || (!c.expect.accept && c.faults.empty())) return;
  auto placed = place(c.description);
  if (placed) return;
  const std::string why = " (" + placed.error().describe() + ")";
  if (c.expect.accept)
    invalid(root["expect"]["result"],
            "an accept case must have a block, and its description cannot be placed in one" + why);
  invalid(root["faults"], "a case with faults is a decode test and must have a block, and its "
                          "description cannot be placed in one" + why);
}

// The members every profile's case shares: id, summary, source and level,
// checked against the profile's own id and source patterns.
void common_members(const YAML::Node& root, Case& c, const std::regex& id_pattern,
                    std::string_view id_form, const std::regex& source_pattern,
                    std::string_view source_form) {
  const YAML::Node id = required(root, "id", "the case");
  c.id = string_scalar(id, "id");
  if (c.id.size() > kLongestToken)
    invalid(id, "id is " + std::to_string(c.id.size()) + " characters long, more than " +
                    std::to_string(kLongestToken));
  if (!short_match(c.id, id_pattern))
    invalid(id, "id '" + c.id + "' is not lower-case " + std::string(id_form));
  c.summary = string_scalar(required(root, "summary", "the case"), "summary");
  if (c.summary.empty() || c.summary.find('\n') != std::string::npos)
    invalid(root["summary"], "summary is one non-empty line");
  c.source = string_scalar(required(root, "source", "the case"), "source");
  if (c.source.size() > kLongestToken)
    invalid(root["source"], "source is " + std::to_string(c.source.size()) +
                                " characters long, more than " + std::to_string(kLongestToken));
  if (!short_match(c.source, source_pattern)) invalid(root["source"], "source is " + std::string(source_form));
  const std::string level = string_scalar(required(root, "level", "the case"), "level");
  if (level == "required") c.level = Level::kRequired;
  else if (level == "recommended") c.level = Level::kRecommended;
  else invalid(root["level"], "level is required or recommended");
}

// ---- profile hurray-elements ----

hurray::Rule hurray_rule_scalar(const YAML::Node& node) {
  const std::string id = string_scalar(node, "a rule ID");
  auto rule = hurray::rule_from_id(id);
  if (!rule) invalid(node, "'" + id + "' is not a rule ID of reference/HURRAY.md");
  return *rule;
}

std::vector<hurray::Rule> hurray_rules_node(const YAML::Node& node, const std::string& what) {
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
void hurray_type_node(const YAML::Node& node, ElementsCase& body) {
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

std::vector<std::string> hurray_elements_node(const YAML::Node& node) {
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

void hurray_expect_node(const YAML::Node& node, ElementsCase& body) {
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
  const YAML::Node class_node = required(node, "class", "expect (reject)");
  const std::string class_name = string_scalar(class_node, "class");
  body.error_class = hurray::error_class_from_string(class_name);
  if (!body.error_class) invalid(class_node, "class is TAG or DATA");
  const YAML::Node rule_node = required(node, "rule", "expect (reject)");
  body.rule = hurray_rule_scalar(rule_node);
  if (hurray::rule_info(*body.rule).error_class != *body.error_class)
    invalid(rule_node, "rule " + std::string(hurray::rule_info(*body.rule).id) + " is not of class " +
                           class_name);
}

Case elements_case_node(const YAML::Node& root, const std::string& display_name) {
  check_keys(root,
             {"id", "summary", "rules", "also_breaks", "source", "level", "profile", "type", "shape",
              "mode", "data", "elements", "expect", "ops"},
             "the case (profile hurray-elements)");
  Case c;
  c.origin.file = display_name;
  c.profile = "hurray-elements";
  static const std::regex kId("^hurray-[a-z0-9]+(-[a-z0-9]+)*$");
  static const std::regex kSource("^(seed 003 hurray-[a-z0-9-]+|brief|suite|family [a-z0-9]+(-[a-z0-9]+)*)$");
  common_members(root, c, kId, "hurray-[a-z0-9-]", kSource,
                 "'seed 003 <case id>', 'brief', 'suite' or 'family <name>'");
  ElementsCase& body = c.elements.emplace();
  const YAML::Node rules = required(root, "rules", "the case");
  body.rules = hurray_rules_node(rules, "rules");
  hurray_type_node(required(root, "type", "the case"), body);
  const YAML::Node shape = required(root, "shape", "the case");
  if (!shape.IsSequence()) invalid(shape, "shape is a sequence of dimensions");
  body.shape = shape_node(shape);
  if (const YAML::Node mode = root["mode"]) {
    const std::string text = string_scalar(mode, "mode");
    body.mode = hurray::mode_from_string(text);
    if (!body.mode) invalid(mode, "mode is strict or permissive, not '" + text + "'");
  }
  if (const YAML::Node data = root["data"]) body.data = hex_scalar(data, "data", HexForm::kLines);
  if (const YAML::Node elements = root["elements"]) body.elements = hurray_elements_node(elements);
  const YAML::Node expect = required(root, "expect", "the case");
  hurray_expect_node(expect, body);
  // c.expect, the Kiln expectation, stays empty: Kiln's tools skip a case without a block.

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
  if (const YAML::Node also = root["also_breaks"]) {
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
  if (const YAML::Node ops = root["ops"]) c.ops = ops_node(ops);
  return c;
}

// ---- profile kiln-v2 ----

Case case_node(const YAML::Node& root, const std::string& display_name) {
  require_map(root, "a case file");
  if (const YAML::Node profile = root["profile"]) {
    const std::string name = string_scalar(profile, "profile");
    if (name == "hurray-elements") return elements_case_node(root, display_name);
    if (name != "kiln-v2") invalid(profile, "profile is kiln-v2 or hurray-elements, not '" + name + "'");
  }
  check_keys(root,
             {"id", "summary", "rules", "also_breaks", "source", "level", "profile", "tensors",
              "faults", "expect", "ops", "block"},
             "the case");
  Case c;
  c.origin.file = display_name;
  static const std::regex kId("^kiln-v2-[a-z0-9]+(-[a-z0-9]+)*$");
  static const std::regex kSource(
      "^(seed (000|001|002) kiln-v2-[a-z0-9-]+|brief|suite|family [a-z0-9]+(-[a-z0-9]+)*)$");
  common_members(root, c, kId, "kiln-v2-[a-z0-9-]", kSource,
                 "'seed NNN <case id>', 'brief', 'suite' or 'family <name>'");
  const YAML::Node rules = required(root, "rules", "the case");
  if (!rules.IsSequence() || rules.size() == 0) invalid(rules, "rules is a non-empty sequence");
  for (const auto& rule_node : rules) {
    const Rule rule = rule_scalar(rule_node);
    if (std::find(c.rules.begin(), c.rules.end(), rule) != c.rules.end())
      invalid(rule_node, "rule " + std::string(rule_info(rule).id) + " is listed twice");
    c.rules.push_back(rule);
  }
  const YAML::Node tensors = required(root, "tensors", "the case");
  if (!tensors.IsSequence()) invalid(tensors, "tensors is a sequence");
  // rank/fill shapes and typed values expand: bound what a file describes.
  std::uint64_t described_bytes = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    c.description.tensors.push_back(tensor_node(tensors[i], i));
    const auto& tensor = c.description.tensors.back();
    described_bytes += tensor.payload.size() + 8 * tensor.shape.size() + tensor.name.size() +
                       tensor.layout.size();
    if (described_bytes > kMaxDescriptionBytes)
      invalid(tensors[i], "the description exceeds " + std::to_string(kMaxDescriptionBytes >> 20) +
                              " MiB (cases/README.md, Limits)");
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
  if (const YAML::Node also = root["also_breaks"]) c.also_breaks = also_breaks_node(also, c);
  if (const YAML::Node ops = root["ops"]) c.ops = ops_node(ops);
  if (const YAML::Node block = root["block"]) c.block = hex_scalar(block, "block", HexForm::kLines);
  return c;
}

// ---- case.schema.json, applied with valijson ----

// An integer as JSON, for the validator. valijson reads every JSON integer as
// int64_t, so one above 2^63 - 1 would turn negative: it is given as 2^63 - 1,
// which every bound of the schema (0, at most 2^32 - 1, or 2^64 - 1) treats as
// it treats the true value. The loader itself checks the exact value.
nlohmann::json integer_json(const std::string& text) {
  std::string_view digits = text;
  bool negative = false;
  unsigned base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o')) {
    base = digits[1] == 'x' ? 16 : 8;
    digits.remove_prefix(2);
  } else if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  for (char c : digits) {
    const unsigned digit = is_decimal(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
    if (__builtin_mul_overflow(magnitude, std::uint64_t{base}, &magnitude) ||
        __builtin_add_overflow(magnitude, std::uint64_t{digit}, &magnitude))
      return negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();  // not an integer to JSON
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > kMax + 1) return -static_cast<double>(magnitude);
    return magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                 : -static_cast<std::int64_t>(magnitude);
  }
  return static_cast<std::int64_t>(std::min(magnitude, kMax));
}

nlohmann::json float_json(const std::string& text) {
  const std::string_view unsigned_text = without_sign(text);
  if (text[0] == '.' && unsigned_text.size() == 4 && (text[1] == 'n' || text[1] == 'N'))
    return std::numeric_limits<double>::quiet_NaN();
  if (unsigned_text.size() == 4 && unsigned_text[0] == '.')
    return text[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
  return std::strtod(text.c_str(), nullptr);
}

// The document a YAML 1.2 reader makes of the file (the scan has bounded its
// size and depth, and keys are unique strings).
nlohmann::json json_of(const YAML::Node& node) {
  switch (kind_of(node)) {
    case Kind::kMapping: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& item : node) object[item.first.Scalar()] = json_of(item.second);
      return object;
    }
    case Kind::kSequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& child : node) array.push_back(json_of(child));
      return array;
    }
    case Kind::kNull: return nullptr;
    case Kind::kBool: return node.Scalar()[0] == 't' || node.Scalar()[0] == 'T';
    case Kind::kInteger: return integer_json(node.Scalar());
    case Kind::kFloat: return float_json(node.Scalar());
    case Kind::kString: return node.Scalar();
  }
  return nullptr;
}

// valijson's context ("<root>", "[tensors]", "[0]", ...) as a node of the file
// and a readable path ("tensors[0].name"): as deep as the file goes.
std::pair<YAML::Node, std::string> locate(const YAML::Node& root,
                                          const std::vector<std::string>& context) {
  YAML::Node node(root);
  std::string path;
  for (std::size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') break;
    const std::string name = part.substr(1, part.size() - 2);
    std::optional<YAML::Node> child;
    if (node.IsMap()) {
      for (const auto& item : node)
        if (item.first.Scalar() == name) {
          child = item.second;
          break;
        }
      if (child) path += (path.empty() ? "" : ".") + name;
    } else if (node.IsSequence()) {
      const auto index = parse_u64(name);
      if (index && *index < node.size()) {
        child = node[*index];
        path += "[" + name + "]";
      }
    }
    if (!child) break;
    node.reset(*child);  // reset rebinds; operator= would overwrite the node's value
  }
  return {node, path};
}

void apply_schema(const YAML::Node& root, CaseSchema::Impl& schema) {
  using Adapter = valijson::adapters::NlohmannJsonAdapter;
  nlohmann::json document = json_of(root);
  // ops is regen's to write, from the rest of the file: ops_node has checked its
  // form, and `cases check` compares it with the derived ops. A stale ops must
  // not stop regen from writing the fresh one.
  document.erase("ops");
  const Adapter target(document);
  // Without results valijson stops at the first failure: the cheap common case.
  valijson::ValidationVisitor<Adapter> quick(target, {"<root>"}, true, nullptr, schema.regexes);
  if (quick.validateSchema(schema.schema)) return;

  valijson::ValidationResults results;
  valijson::ValidationVisitor<Adapter> full(target, {"<root>"}, true, &results, schema.regexes);
  full.validateSchema(schema.schema);
  // The deepest error names the offending node; the ones above it only say
  // that a child failed.
  const valijson::ValidationResults::Error* deepest = nullptr;
  for (const auto& error : results)
    if (!deepest || error.context.size() > deepest->context.size()) deepest = &error;
  if (!deepest) invalid(root, "does not satisfy " + schema.display_name);
  const auto [node, path] = locate(root, deepest->context);
  std::string description = deepest->description;
  if (!description.empty() && description.back() == '.') description.pop_back();
  invalid(node, (path.empty() ? std::string("the case") : path) + " (" + kind_name(kind_of(node)) +
                    ") does not satisfy " + schema.display_name + ": " + description);
}

// ---- the cases folder ----

struct FoundFile {
  fs::path path;
  std::string topic;
};

class FolderWalk {
 public:
  FolderWalk(fs::path base, std::vector<CaseError>& errors)
      : base_(std::move(base)), errors_(errors) {}

  std::string display(const fs::path& path) const {
    const std::string relative = path.lexically_relative(base_).generic_string();
    return relative.empty() ? path.generic_string() : relative;
  }

  // Every *.yaml below folder. Links to files are followed; links to folders are
  // not (a loop would never end), and so are errors rather than silently skipped.
  void walk(const fs::path& folder, const std::string& topic, int depth) {
    if (depth > kMaxFolderDepth) {
      fail(folder, "folders nest more than " + std::to_string(kMaxFolderDepth) +
                       " deep below the cases root");
      return;
    }
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
      const fs::path& path = it->path();
      std::error_code entry_error;
      const fs::file_status own = it->symlink_status(entry_error);
      if (entry_error) {
        fail(path, "cannot read: " + entry_error.message());
        continue;
      }
      if (fs::is_directory(own)) {
        const std::string name = path.filename().string();
        walk(path, topic.empty() ? name : topic + "/" + name, depth + 1);
        continue;
      }
      fs::file_status target = own;
      if (fs::is_symlink(own)) {
        target = fs::status(path, entry_error);
        if (entry_error || !fs::exists(target)) {
          fail(path, "a link that leads nowhere: " +
                         (entry_error ? entry_error.message() : std::string("no such file")));
          continue;
        }
        if (fs::is_directory(target)) {
          fail(path, "a link to a folder: links to folders are not followed");
          continue;
        }
      }
      if (path.extension() != ".yaml") continue;
      if (!fs::is_regular_file(target)) {
        fail(path, "not a regular file");
        continue;
      }
      files.push_back(FoundFile{path, topic});
    }
    if (error) fail(folder, "cannot read the folder: " + error.message());
  }

  std::vector<FoundFile> files;

 private:
  void fail(const fs::path& path, std::string message) {
    errors_.push_back(CaseError{SourceMark{display(path), 0, 0}, std::move(message)});
  }

  fs::path base_;
  std::vector<CaseError>& errors_;
};

// ---- positions ----

// The 1-based position of a character of a scalar, when the file spells the
// scalar's characters one for one from its mark: plain and quoted scalars on one
// line, and literal blocks ("|"). nullopt for anything else (escapes, folding).
std::optional<std::pair<int, int>> character_position(const std::string& source,
                                                      const YAML::Node& node,
                                                      std::size_t index) {
  const YAML::Mark start = node.Mark();
  if (!node.IsScalar() || start.pos < 0 || static_cast<std::size_t>(start.pos) >= source.size())
    return std::nullopt;
  const std::string& value = node.Scalar();
  if (index >= value.size()) return std::nullopt;
  const auto at = static_cast<std::size_t>(start.pos);
  if (source[at] == '|') {
    // The content starts on the next line; its indentation is that of the
    // first line that is not blank.
    std::size_t line_start = source.find('\n', at);
    if (line_start == std::string::npos) return std::nullopt;
    ++line_start;
    std::size_t indent = std::string::npos;
    for (std::size_t p = line_start; p < source.size();) {
      const std::size_t first = source.find_first_not_of(' ', p);
      if (first == std::string::npos) break;
      if (source[first] != '\n') {
        indent = first - p;
        break;
      }
      p = first + 1;
    }
    if (indent == std::string::npos) return std::nullopt;
    // Literal style keeps line breaks: value line k is file line k after the header.
    const std::size_t previous_break = index == 0 ? std::string::npos : value.rfind('\n', index - 1);
    const std::size_t value_line_start = previous_break == std::string::npos ? 0 : previous_break + 1;
    const auto lines_before = static_cast<std::size_t>(
        std::count(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(value_line_start), '\n'));
    std::size_t p = line_start;
    for (std::size_t k = 0; k < lines_before; ++k) {
      p = source.find('\n', p);
      if (p == std::string::npos) return std::nullopt;
      ++p;
    }
    const std::size_t column = index - value_line_start;
    const std::size_t position = p + indent + column;
    if (position >= source.size() ||
        source.compare(p + indent, column + 1, value, value_line_start, column + 1) != 0)
      return std::nullopt;
    return std::pair<int, int>{start.line + 2 + static_cast<int>(lines_before),
                               static_cast<int>(indent + column) + 1};
  }
  if (value.find('\n') <= index) return std::nullopt;
  const std::size_t offset = (source[at] == '"' || source[at] == '\'') ? 1 : 0;
  if (at + offset + index >= source.size() ||
      source.compare(at + offset, index + 1, value, 0, index + 1) != 0)
    return std::nullopt;
  return std::pair<int, int>{start.line + 1, start.column + 1 + static_cast<int>(offset + index)};
}

// yaml-cpp marks a node it made up (a missing value) with -1: the error then
// points at the start of the file rather than at 0:0.
std::pair<int, int> position_of(const YAML::Mark& mark) {
  if (mark.line < 0 || mark.column < 0) return {1, 1};
  return {mark.line + 1, mark.column + 1};
}

// ---- the schema file ----

constexpr std::uintmax_t kMaxSchemaBytes = std::uintmax_t{1} << 20;
constexpr int kMaxSchemaDepth = 64;

struct SchemaTooDeep {};

// Prepares the schema's JSON for valijson: integers above 2^63 - 1 become doubles
// (valijson reads integers as int64_t, so 2^64 - 1 would read as -1), and every
// pattern is compiled ahead with the non-recursive matcher.
void prepare_schema(nlohmann::json& json, CaseSchema::Impl& impl) {
  if (json.is_number_unsigned() &&
      json.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    json = static_cast<double>(json.get<std::uint64_t>());
    return;
  }
  if (json.is_object()) {
    for (auto& [key, value] : json.items()) {
      if (key == "pattern" && value.is_string()) {
        const std::string pattern = value.get<std::string>();
        impl.regexes.emplace(pattern, std::regex(pattern, std::regex::ECMAScript |
                                                              std::regex_constants::__polynomial));
      }
      if (key == "patternProperties" && value.is_object())
        for (const auto& [pattern, ignored] : value.items())
          impl.regexes.emplace(pattern, std::regex(pattern, std::regex::ECMAScript |
                                                                std::regex_constants::__polynomial));
      prepare_schema(value, impl);
    }
  } else if (json.is_array()) {
    for (auto& value : json) prepare_schema(value, impl);
  }
}

}  // namespace

CaseSchema::CaseSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CaseSchema::CaseSchema(CaseSchema&&) noexcept = default;
CaseSchema& CaseSchema::operator=(CaseSchema&&) noexcept = default;
CaseSchema::~CaseSchema() = default;

std::variant<CaseSchema, CaseError> CaseSchema::load(const std::filesystem::path& file,
                                                     const std::string& display_name) {
  const FileText read = read_regular_file(file, kMaxSchemaBytes, kLimitsNote);
  if (!read.text) return CaseError{SourceMark{display_name, 0, 0}, read.problem};
  return parse(*read.text, display_name);
}

std::variant<CaseSchema, CaseError> CaseSchema::parse(const std::string& text,
                                                      const std::string& display_name) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  auto impl = std::make_unique<Impl>();
  impl->display_name = display_name;
  try {
    nlohmann::json json = nlohmann::json::parse(
        text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > kMaxSchemaDepth) throw SchemaTooDeep{};
          return true;
        });
    prepare_schema(json, *impl);
    // ops is written by regen, and apply_schema leaves it out (see there): out
    // of the required keys of the case, and of each profile's case under $defs.
    const auto drop_ops = [](nlohmann::json& object) {
      if (object.is_object() && object.contains("required") && object["required"].is_array()) {
        auto& required_keys = object["required"];
        required_keys.erase(std::remove(required_keys.begin(), required_keys.end(), "ops"),
                            required_keys.end());
      }
    };
    drop_ops(json);
    if (json.is_object() && json.contains("$defs") && json["$defs"].is_object())
      for (auto& profile : json["$defs"]) drop_ops(profile);
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    const valijson::adapters::NlohmannJsonAdapter adapter(json);
    parser.populateSchema(adapter, impl->schema);
  } catch (const SchemaTooDeep&) {
    return error_at(0, 0, "nested more than " + std::to_string(kMaxSchemaDepth) + " deep");
  } catch (const nlohmann::json::parse_error& problem) {
    // byte counts from 1: the character where the JSON went wrong.
    const std::size_t at = std::min<std::size_t>(problem.byte ? problem.byte - 1 : 0, text.size());
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i)
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    return error_at(line, static_cast<int>(at - line_start) + 1,
                    std::string("not JSON: ") + problem.what());
  } catch (const std::regex_error& problem) {
    return error_at(0, 0, std::string("a pattern std::regex cannot compile: ") + problem.what());
  } catch (const std::exception& problem) {
    return error_at(0, 0, std::string("valijson cannot read the schema: ") + problem.what());
  }
  return CaseSchema(std::move(impl));
}

const std::variant<CaseSchema, CaseError>& CaseSchema::builtin() {
  static const std::variant<CaseSchema, CaseError> schema =
      parse(std::string(builtin_case_schema_text()), "the built-in case.schema.json");
  return schema;
}

std::string SourceMark::describe() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string CaseError::describe() const { return where.describe() + ": " + message; }

std::string_view to_string(Operation operation) noexcept {
  return operation == Operation::kDecode ? "decode" : "encode";
}

std::vector<Operation> Case::derived_ops() const {
  std::vector<Operation> ops;
  if (elements) {
    // hurray-elements: decode the data; encode the elements (no mode: encode has none).
    if (elements->data) ops.push_back(Operation::kDecode);
    if (elements->elements && elements->decode_mode() != hurray::Mode::kPermissive)
      ops.push_back(Operation::kEncode);
    return ops;
  }
  // A case with faults has bytes no description encodes to: a decode test only,
  // even before regen has written its block.
  if (block || !faults.empty()) ops.push_back(Operation::kDecode);
  if (faults.empty()) ops.push_back(Operation::kEncode);
  return ops;
}

std::vector<std::string_view> Case::rule_ids() const {
  std::vector<std::string_view> ids;
  if (elements) {
    for (hurray::Rule rule : elements->rules) ids.push_back(hurray::rule_info(rule).id);
  } else {
    for (Rule rule : rules) ids.push_back(rule_info(rule).id);
  }
  return ids;
}

std::optional<std::string_view> Case::expected_rule_id() const {
  if (elements) {
    if (!elements->rule) return std::nullopt;
    return hurray::rule_info(*elements->rule).id;
  }
  if (!expect.rule) return std::nullopt;
  return rule_info(*expect.rule).id;
}

bool Case::expects_reject() const {
  return elements ? elements->result == ElementsCase::Result::kReject : !expect.accept;
}

std::variant<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                             const std::string& display_name,
                                             const CaseSchema& schema, const std::string& topic) {
  const FileText read = read_regular_file(file, kMaxCaseFileBytes, kLimitsNote);
  if (!read.text) return CaseError{SourceMark{display_name, 0, 0}, read.problem};
  return load_case_text(*read.text, display_name, schema, topic);
}

std::variant<Case, CaseError> load_case_text(const std::string& text,
                                             const std::string& display_name,
                                             const CaseSchema& schema, const std::string& topic) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  if (text.size() > kMaxCaseFileBytes)
    return error_at(0, 0, "larger than " + std::to_string(kMaxCaseFileBytes) + " bytes");
  try {
    try {
      BoundedScan scan;
      std::istringstream events(text);
      YAML::Parser parser(events);
      while (parser.HandleNextDocument(scan)) {
      }
      if (scan.documents() == 0)
        return error_at(1, 1, "no YAML document (the file is empty or only comments): a case is "
                              "a mapping of the keys in cases/README.md");
      const YAML::Node root = YAML::Load(text);
      require_map(root, "a case file");
      check_structure(root);
      Case c = case_node(root, display_name);
      apply_schema(root, schema.impl());
      if (!c.elements) check_block_can_exist(c, root);
      c.topic = topic;
      return c;
    } catch (const Invalid& problem) {
      auto [line, column] = position_of(problem.mark);
      if (problem.scalar)
        if (auto exact = character_position(text, *problem.scalar, problem.character))
          std::tie(line, column) = *exact;
      return error_at(line, column, problem.message);
    } catch (const YAML::Exception& problem) {
      const auto [line, column] = position_of(problem.mark);
      return error_at(line, column, problem.msg);
    }
  } catch (const std::exception& problem) {  // out of memory, say: an error, never an abort
    return error_at(1, 1, std::string("cannot load: ") + problem.what());
  }
}

CaseSet load_case_set(const std::filesystem::path& root) {
  CaseSet set;
  std::error_code error;
  const fs::file_status status = fs::status(root, error);
  if (error || !fs::is_directory(status)) {
    set.errors.push_back(CaseError{SourceMark{root.string(), 0, 0},
                                   error ? "cannot read: " + error.message()
                                         : std::string("not a folder of cases")});
    return set;
  }
  // Names in messages and Case::origin are relative to the root's parent
  // ("cases/type/x.yaml"): regen writes to root.parent_path() / origin.file.
  FolderWalk walk(root.parent_path(), set.errors);
  // The schema beside the cases; without one, the suite's own, built in.
  const fs::path schema_file = root / kCaseSchemaFile;
  std::optional<CaseSchema> own_schema;
  const fs::file_status schema_status = fs::symlink_status(schema_file, error);
  if (schema_status.type() != fs::file_type::not_found) {
    auto loaded = CaseSchema::load(schema_file, walk.display(schema_file));
    if (auto* problem = std::get_if<CaseError>(&loaded)) {
      set.errors.push_back(std::move(*problem));
      return set;
    }
    own_schema = std::get<CaseSchema>(std::move(loaded));
  }
  if (!own_schema) {
    if (const auto* problem = std::get_if<CaseError>(&CaseSchema::builtin())) {
      set.errors.push_back(*problem);
      return set;
    }
  }
  const CaseSchema& schema = own_schema ? *own_schema : std::get<CaseSchema>(CaseSchema::builtin());
  walk.walk(root, "", 0);
  std::sort(walk.files.begin(), walk.files.end(),
            [](const FoundFile& a, const FoundFile& b) { return a.path < b.path; });

  std::map<std::string, std::string> first_file_of_id;
  for (const auto& [file, topic] : walk.files) {
    const std::string display = walk.display(file);
    auto loaded = load_case_file(file, display, schema, topic);
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
