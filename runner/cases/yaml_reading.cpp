// The YAML readers of kiln/conformance/yaml_reading.hpp.
#include "kiln/conformance/yaml_reading.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "kiln/hex.hpp"

namespace kiln::conformance::yaml_reading {

[[noreturn]] void invalid(const YAML::Mark& mark, std::string message) {
  throw Invalid{mark, std::move(message), std::nullopt, 0};
}

[[noreturn]] void invalid(const yaml::Node& node, std::string message) {
  invalid(node.Mark(), std::move(message));
}

[[noreturn]] void invalid_at(const yaml::Node& scalar_node, std::size_t character,
                             std::string message) {
  throw Invalid{scalar_node.Mark(), std::move(message), scalar_node, character};
}

namespace {

bool is_octal(char c) { return c >= '0' && c <= '7'; }

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

}  // namespace

// ---- YAML 1.2 core schema types of scalars ----

bool all_of_chars(std::string_view text, bool (*accept)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), accept);
}
bool is_decimal(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// What a YAML 1.2 reader (the core schema) makes of the node: a quoted or block
// scalar is a string; a plain one may be null, a bool, an integer or a float.
Kind kind_of(const yaml::Node& node) {
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

// The document a YAML 1.2 reader makes of the file (the scan has bounded its
// size and depth, and keys are unique strings).
nlohmann::json json_of(const yaml::Node& node) {
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

// ---- scalars and nodes ----

void require_map(const yaml::Node& node, const std::string& what) {
  if (!node.IsMap()) invalid(node, what + " must be a mapping, not " + kind_name(kind_of(node)));
}

void check_keys(const yaml::Node& map, const std::set<std::string>& allowed,
                const std::string& what) {
  for (const auto& item : map) {
    const std::string key = item.first.Scalar();
    if (!allowed.count(key)) invalid(item.first, "unknown key '" + key + "' in " + what);
  }
}

const yaml::Node required(const yaml::Node& map, const std::string& key, const std::string& what) {
  const yaml::Node node = map[key];
  if (!node) invalid(map, what + " lacks the required key '" + key + "'");
  return node;
}

std::string scalar(const yaml::Node& node, const std::string& what) {
  if (!node.IsScalar()) invalid(node, what + " must be a scalar, not " + kind_name(kind_of(node)));
  return node.Scalar();
}

// A scalar that YAML reads as a string: `name: 123` is an integer, not a name.
std::string string_scalar(const yaml::Node& node, const std::string& what) {
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

std::uint64_t unsigned_scalar(const yaml::Node& node, const std::string& what,
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

std::vector<std::uint8_t> hex_scalar(const yaml::Node& node, const std::string& what, HexForm form) {
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

std::vector<std::uint64_t> shape_node(const yaml::Node& node) {
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

// ---- positions ----

// The 1-based position of a character of a scalar, when the file spells the
// scalar's characters one for one from its mark: plain and quoted scalars on one
// line, and literal blocks ("|"). nullopt for anything else (escapes, folding).
std::optional<std::pair<int, int>> character_position(const std::string& source,
                                                      const yaml::Node& node,
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

}  // namespace kiln::conformance::yaml_reading
