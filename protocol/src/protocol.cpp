#include "kiln/protocol.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <limits>

#include "kiln/hex.hpp"
#include "kiln/utf8.hpp"

namespace kiln::protocol {
namespace {

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

std::string join(std::string_view where, std::string_view key) {
  std::string path(where);
  if (!path.empty()) path += '.';
  path += key;
  return path;
}

std::string indexed(std::string_view where, std::size_t index) {
  return std::string(where) + '[' + std::to_string(index) + ']';
}

// from_hex names a bad digit by its byte, which is half a character when it is
// not ASCII: name the whole character, so the message stays valid UTF-8.
std::string hex_problem(std::string_view text, const HexError& problem) {
  if (problem.position >= text.size()) return problem.message;
  const auto lead = static_cast<unsigned char>(text[problem.position]);
  if (lead < 0x80) return problem.message;
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  return "'" + std::string(text.substr(problem.position, length)) + "' is not a hex digit";
}

// What is wrong with value as a JSON number 0..max, named by field; range
// says what the field must be.
std::optional<std::string> number_error(const Json& value, std::string_view field,
                                        std::uint64_t max, const std::string& range) {
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() <= max) return std::nullopt;
    return std::string(field) + ": " + range + ", got " + value.dump();
  }
  // nlohmann keeps negative integers signed and integers above 2^64 - 1 as doubles.
  if (value.is_number_integer())
    return std::string(field) + ": " + range + ", got the negative " + value.dump();
  if (value.is_number_float() && value.get<double>() >= 18446744073709551616.0)
    return std::string(field) + ": " + range + ", got a number above 2^64 - 1";
  return std::string(field) + ": " + range + ", got " + describe_json_value(value);
}

// A field of at most 32 bits (or a counter: protocol, id) is a JSON number only.
std::optional<std::string> unsigned_error(const Json& value, std::string_view field,
                                          std::uint64_t max) {
  return number_error(value, field, max, "must be an integer from 0 to " + std::to_string(max));
}

// Why text is not a canonical decimal string of a value up to 2^64 - 1, or
// nullopt with value set: the one reader of the string form.
std::optional<std::string_view> decimal_problem(std::string_view text, std::uint64_t& value) noexcept {
  if (text.empty()) return "is empty";
  // By byte value: std::isdigit follows the locale.
  if (std::any_of(text.begin(), text.end(), [](char c) { return c < '0' || c > '9'; }))
    return "holds a character other than the digits 0 to 9";
  if (text.size() > 1 && text[0] == '0') return "has a leading zero";
  value = 0;
  for (const char c : text) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMaxU64 - digit) / 10) return "is above 2^64 - 1";
    value = value * 10 + digit;
  }
  return std::nullopt;
}

// Reads the fields of one JSON object, keeping only the first problem so that a
// message names the first offending field in reading order.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string where) : object_(object), where_(std::move(where)) {}

  bool failed() const { return error_.has_value(); }
  const std::string& error() const { return *error_; }
  std::string path(std::string_view key) const { return join(where_, key); }

  void fail(std::string message) {
    if (!error_) error_ = std::move(message);
  }

  const Json* optional(const char* key) const {
    const auto found = object_.find(key);
    return found == object_.end() ? nullptr : &*found;
  }

  const Json* required(const char* key) {
    const Json* value = optional(key);
    if (!value) fail(path(key) + ": required field is missing");
    return value;
  }

  std::optional<std::string> string(const char* key, bool is_required = true) {
    const Json* value = is_required ? required(key) : optional(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) {
      fail(path(key) + ": must be a string, got " + describe_json_value(*value));
      return std::nullopt;
    }
    return value->get<std::string>();
  }

  std::optional<std::uint64_t> unsigned_integer(const char* key, std::uint64_t max,
                                                bool is_required = true) {
    const Json* value = is_required ? required(key) : optional(key);
    if (!value) return std::nullopt;
    if (auto problem = unsigned_error(*value, path(key), max)) {
      fail(std::move(*problem));
      return std::nullopt;
    }
    return value->get<std::uint64_t>();
  }

  // A 64-bit field: a number or its canonical decimal string.
  std::optional<std::uint64_t> uint64(const char* key, bool is_required = true) {
    const Json* value = is_required ? required(key) : optional(key);
    if (!value) return std::nullopt;
    auto parsed = uint64_from_json(*value, path(key));
    if (!parsed) {
      fail(std::move(parsed).error());
      return std::nullopt;
    }
    return parsed.value();
  }

  std::optional<std::vector<std::uint8_t>> hex(const char* key) {
    const Json* value = required(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) {
      fail(path(key) + ": must be a hex string, got " + describe_json_value(*value));
      return std::nullopt;
    }
    HexError problem;
    const std::string& text = value->get_ref<const std::string&>();
    auto bytes = from_hex(text, &problem);
    if (!bytes)
      fail(path(key) + ": not hex: " + hex_problem(text, problem) + " at character " +
           std::to_string(problem.position));
    return bytes;
  }

  // A list of names: at most kMaxListEntries, each cut to kMaxNameBytes.
  std::optional<std::vector<std::string>> names(const char* key, bool is_required = true) {
    const Json* value = is_required ? required(key) : optional(key);
    if (!value) return std::nullopt;
    if (!value->is_array()) {
      fail(path(key) + ": must be an array of strings, got " + describe_json_value(*value));
      return std::nullopt;
    }
    if (value->size() > kMaxListEntries) {
      fail(path(key) + ": must have at most " + std::to_string(kMaxListEntries) +
           " entries, got " + std::to_string(value->size()));
      return std::nullopt;
    }
    std::vector<std::string> items;
    for (std::size_t i = 0; i < value->size(); ++i) {
      const Json& item = (*value)[i];
      if (!item.is_string()) {
        fail(indexed(path(key), i) + ": must be a string, got " + describe_json_value(item));
        return std::nullopt;
      }
      items.push_back(bounded_message(item.get_ref<const std::string&>(), kMaxNameBytes));
    }
    return items;
  }

 private:
  const Json& object_;
  std::string where_;
  std::optional<std::string> error_;
};

std::span<const std::uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

Json error_json(std::string_view message) {
  Json json;
  json["result"] = "error";
  json["message"] = message;
  return json;
}

std::string byte_text(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", byte);
  return text;
}

// The end of the run of whole 8-byte words from at that hold no byte below
// 0x20, no quote and no backslash: bytes a string's scan passes over.
std::size_t plain_string_bytes_end(std::string_view line, std::size_t at) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  const auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  while (line.size() - at >= 8) {
    std::uint64_t word;
    std::memcpy(&word, line.data() + at, 8);
    // A byte below 0x20, or one equal to '"' or '\\' (a borrow can mark a
    // byte above a marked one too: then the bytes are read one by one).
    const std::uint64_t low = (word - 0x20 * kOnes) & ~word & kHighs;
    if (low | has_zero(word ^ ('"' * kOnes)) | has_zero(word ^ ('\\' * kOnes))) break;
    at += 8;
  }
  return at;
}

// One linear pass over a line, before nlohmann builds anything: nlohmann builds
// as deep and as wide as the text says (and copies an ordered object's members
// recursively when it grows), and it takes a NUL byte for the end of the input.
// Tracking strings and escapes as its lexer does, the pass sees the same
// brackets and members, so nothing it lets through can build deeper than
// kMaxJsonDepth or wider than kMaxObjectMembers, even when the text is not JSON.
std::optional<std::string> scan_line(std::string_view line,
                                     std::size_t max_values = std::numeric_limits<std::size_t>::max()) {
  // Each value but the line's first follows a comma or is a container's
  // first: 1 + commas + containers is never fewer than the values there are.
  std::size_t values = 1;
  struct Level {
    bool object;
    std::size_t members;
  };
  std::array<Level, kMaxJsonDepth> levels{};
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t at = 0; at < line.size(); ++at) {
    const auto byte = static_cast<unsigned char>(line[at]);
    if (byte < 0x20) {
      if (in_string)
        return "the line has a raw control byte " + byte_text(byte) + " inside a string at byte " +
               std::to_string(at) + "; JSON writes it as an escape such as \\u00" +
               byte_text(byte).substr(2);
      if (byte != '\t' && byte != '\n' && byte != '\r')
        return "the line has a raw control byte " + byte_text(byte) + " at byte " +
               std::to_string(at) + "; JSON allows only space, tab, CR and LF between tokens";
      continue;
    }
    if (in_string) {
      if (escaped) escaped = false;
      else if (byte == '\\') escaped = true;
      else if (byte == '"') in_string = false;
      // Past the string's plain bytes eight at a time (a block's hex is most
      // of a line): none of them changes anything above.
      if (in_string && !escaped) at = plain_string_bytes_end(line, at + 1) - 1;
      continue;
    }
    switch (byte) {
      case '"':
        in_string = true;
        break;
      case ',':
      case '[':
      case '{':
        if (++values > max_values)
          return "the line holds more than " + std::to_string(max_values) +
                 " JSON values (at byte " + std::to_string(at) +
                 "), more than any answer to its request can hold";
        if (byte == ',') break;
        if (depth == kMaxJsonDepth)
          return "the line nests arrays and objects more than " + std::to_string(kMaxJsonDepth) +
                 " levels deep at byte " + std::to_string(at);
        levels[depth++] = Level{byte == '{', 0};
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;  // an unmatched one is nlohmann's to report
        break;
      case ':':  // one per member
        if (depth > 0 && levels[depth - 1].object &&
            ++levels[depth - 1].members > kMaxObjectMembers)
          return "the line has an object with more than " + std::to_string(kMaxObjectMembers) +
                 " members at byte " + std::to_string(at);
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 9:
// <reason>" as "at byte 8: <reason>", cut: the reason quotes the token it was
// reading, which can be the rest of the line.
std::string parse_error_text(const Json::parse_error& error, std::size_t line_size) {
  std::string_view what = error.what();
  if (const auto column = what.find("column"); column != std::string_view::npos)
    if (const auto colon = what.find(": ", column); colon != std::string_view::npos)
      what.remove_prefix(colon + 2);
  // error.byte counts the characters read, the offending one (or the end) last.
  const std::size_t at = std::min<std::size_t>(error.byte > 0 ? error.byte - 1 : 0, line_size);
  return "at byte " + std::to_string(at) + (at == line_size ? " (the end of the line)" : "") +
         ": " + bounded_message(what, 2 * kMaxExcerptBytes);
}

}  // namespace

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::kHello: return kOpHello;
    case Op::kDecode: return kOpDecode;
    case Op::kEncode: return kOpEncode;
  }
  return "?";
}

std::optional<Op> op_from_string(std::string_view text) noexcept {
  if (text == kOpHello) return Op::kHello;
  if (text == kOpDecode) return Op::kDecode;
  if (text == kOpEncode) return Op::kEncode;
  return std::nullopt;
}

Op op_of(const Request& request) noexcept {
  return std::visit(
      [](const auto& message) {
        using T = std::decay_t<decltype(message)>;
        if constexpr (std::is_same_v<T, HelloRequest>) return Op::kHello;
        else if constexpr (std::is_same_v<T, DecodeRequest> || std::is_same_v<T, ElementsDecodeRequest>)
          return Op::kDecode;
        else return Op::kEncode;
      },
      request);
}

std::string_view profile_of(const Request& request) noexcept {
  return std::visit(
      [](const auto& message) -> std::string_view {
        using T = std::decay_t<decltype(message)>;
        if constexpr (std::is_same_v<T, HelloRequest>) return {};
        else if constexpr (std::is_same_v<T, DecodeRequest> || std::is_same_v<T, EncodeRequest>)
          return message.profile;
        else return kProfileHurrayElements;
      },
      request);
}

bool Hello::offers_op(Op op) const {
  return std::find(ops.begin(), ops.end(), to_string(op)) != ops.end();
}

bool Hello::offers_profile(std::string_view profile) const {
  return std::find(profiles.begin(), profiles.end(), profile) != profiles.end();
}

std::string_view case_id_of(const Request& request) noexcept {
  return std::visit(
      [](const auto& message) -> std::string_view {
        if constexpr (std::is_same_v<std::decay_t<decltype(message)>, HelloRequest>) return {};
        else return message.case_id;
      },
      request);
}

bool Hello::supports_tier2(std::string_view type_name) const {
  return std::find(hurray_tier2.begin(), hurray_tier2.end(), type_name) != hurray_tier2.end();
}

ElementsReject reject_from(const hurray::Error& error) {
  return ElementsReject{error.error_class(), error.message, std::string(error.rule_id()),
                        error.offset};
}

Reject reject_from(const Error& error) {
  std::string message =
      error.tensor ? "tensor " + std::to_string(*error.tensor) + ": " + error.message
                   : error.message;
  return Reject{error.error_class(), std::move(message), std::string(error.rule_id()),
                error.offset};
}

std::string bounded_message(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t kept = limit;
  // Back up over continuation bytes so a multi-byte character is never split.
  while (kept > 0 && (static_cast<unsigned char>(text[kept]) & 0xC0) == 0x80) --kept;
  return std::string(text.substr(0, kept)) + "... [" + std::to_string(text.size() - kept) +
         " more bytes cut]";
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char byte) {
    if (byte == '\n') out += "\\n";
    else if (byte == '\r') out += "\\r";
    else if (byte == '\t') out += "\\t";
    else {
      static constexpr char kDigits[] = "0123456789abcdef";
      out += "\\x";
      out += kDigits[byte >> 4];
      out += kDigits[byte & 0xF];
    }
  };
  while (!text.empty()) {
    // Everything before the first invalid byte is UTF-8; each pass scans only
    // up to that byte, so the whole is linear.
    const std::size_t valid = find_invalid_utf8(text).value_or(text.size());
    for (const char c : text.substr(0, valid)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7F) escape(byte);
      else out += c;
    }
    if (valid == text.size()) break;
    escape(static_cast<unsigned char>(text[valid]));
    text.remove_prefix(valid + 1);
  }
  return out;
}

std::string quoted_excerpt(std::string_view text, std::size_t limit) {
  // Replace, not throw: the text may be cut bytes from anywhere.
  return Json(bounded_message(text, limit)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string_view json_kind(const Json& value) noexcept {
  if (value.is_object()) return "object";
  if (value.is_array()) return "array";
  if (value.is_string()) return "string";
  if (value.is_number()) return "number";
  if (value.is_boolean()) return "boolean";
  if (value.is_null()) return "null";
  return "unusable value";  // binary or discarded: never parsed from text
}

std::string describe_json_value(const Json& value) {
  // Scalars other than strings are short as written, so they are quoted.
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  return (value.is_string() ? "a " : "an ") + std::string(json_kind(value));
}

namespace {

// A shape of either profile: an array of 64-bit integers (bounded by the line
// it came in).
std::optional<std::vector<std::uint64_t>> shape_field(FieldReader& reader, const char* key) {
  const Json* shape = reader.required(key);
  if (!shape) return std::nullopt;
  if (!shape->is_array()) {
    reader.fail(reader.path(key) + ": must be an array of integers, got " + describe_json_value(*shape));
    return std::nullopt;
  }
  std::vector<std::uint64_t> dimensions;
  dimensions.reserve(shape->size());
  for (std::size_t axis = 0; axis < shape->size(); ++axis) {
    auto dimension = uint64_from_json((*shape)[axis], indexed(reader.path(key), axis));
    if (!dimension) {
      reader.fail(std::move(dimension).error());
      return std::nullopt;
    }
    dimensions.push_back(dimension.value());
  }
  return dimensions;
}

Json shape_to_json(const std::vector<std::uint64_t>& shape, Int64Form form) {
  Json json = Json::array();
  for (const std::uint64_t dimension : shape) json.push_back(uint64_to_json(dimension, form));
  return json;
}

}  // namespace

// ---- 64-bit integers ----

std::string_view to_string(Int64Form form) noexcept {
  return form == Int64Form::kString ? "string" : "number";
}

std::optional<Int64Form> int64_form_from_string(std::string_view text) noexcept {
  if (text == "number") return Int64Form::kNumber;
  if (text == "string") return Int64Form::kString;
  return std::nullopt;
}

Json uint64_to_json(std::uint64_t value, Int64Form form) {
  if (form == Int64Form::kString) return Json(std::to_string(value));
  return Json(value);
}

std::optional<std::uint64_t> uint64_from_decimal(std::string_view text) noexcept {
  std::uint64_t value = 0;
  if (decimal_problem(text, value)) return std::nullopt;
  return value;
}

Checked<std::uint64_t> uint64_from_json(const Json& value, std::string_view field) {
  const std::string range = "must be an integer from 0 to " + std::to_string(kMaxU64) +
                            ", as a number or a decimal string";
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    std::uint64_t parsed = 0;
    if (auto problem = decimal_problem(text, parsed))
      return Failure(std::string(field) + ": " + range + ", got the string " + quoted_excerpt(text) +
                     ", which " + std::string(*problem));
    return parsed;
  }
  if (auto problem = number_error(value, field, kMaxU64, range)) return Failure(std::move(*problem));
  return value.get<std::uint64_t>();
}

// ---- Tensor descriptions ----

Json tensor_to_json(const TensorDescription& tensor, Int64Form form) {
  Json json;
  // JSON strings carry only UTF-8: bytes that are not (an encoder must refuse
  // them) travel as hex, so every description the cases hold can be sent.
  if (is_valid_utf8(tensor.name)) json["name"] = tensor.name;
  else json["name_hex"] = to_hex(as_bytes(tensor.name));
  json["dtype"] = tensor.dtype;
  json["shape"] = shape_to_json(tensor.shape, form);
  if (is_valid_utf8(tensor.layout))
    json["layout"] = tensor.layout.empty() ? Json(nullptr) : Json(tensor.layout);
  else
    json["layout_hex"] = to_hex(as_bytes(tensor.layout));
  json["block_size"] = tensor.block_size;
  json["payload"] = to_hex(tensor.payload);
  return json;
}

Checked<TensorDescription> tensor_from_json(const Json& json, std::string_view where) {
  if (!json.is_object())
    return Failure(std::string(where) + ": must be an object, got " +
                   describe_json_value(json));
  FieldReader reader(json, std::string(where));
  TensorDescription tensor;
  if (reader.optional("name_hex") && !reader.optional("name")) {
    if (auto bytes = reader.hex("name_hex")) tensor.name.assign(bytes->begin(), bytes->end());
  } else if (auto name = reader.string("name")) {
    tensor.name = std::move(*name);
  }
  if (auto dtype = reader.unsigned_integer("dtype", kMaxU16))
    tensor.dtype = static_cast<std::uint16_t>(*dtype);
  if (auto shape = shape_field(reader, "shape")) tensor.shape = std::move(*shape);
  if (reader.optional("layout_hex") && !reader.optional("layout")) {
    if (auto bytes = reader.hex("layout_hex")) tensor.layout.assign(bytes->begin(), bytes->end());
  } else if (const Json* layout = reader.required("layout")) {
    if (layout->is_string())
      tensor.layout = layout->get<std::string>();
    else if (!layout->is_null())
      reader.fail(reader.path("layout") + ": must be a string or null, got " + describe_json_value(*layout));
  }
  if (auto block_size = reader.unsigned_integer("block_size", kMaxU32))
    tensor.block_size = static_cast<std::uint32_t>(*block_size);
  if (auto payload = reader.hex("payload")) tensor.payload = std::move(*payload);
  if (reader.failed()) return Failure(reader.error());
  return tensor;
}

Json tensors_to_json(const BlockDescription& description, Int64Form form) {
  Json json = Json::array();
  for (const auto& tensor : description.tensors) json.push_back(tensor_to_json(tensor, form));
  return json;
}

Checked<BlockDescription> tensors_from_json(const Json& json, std::string_view where) {
  if (!json.is_array())
    return Failure(std::string(where) + ": must be an array of tensors, got " +
                   describe_json_value(json));
  BlockDescription description;
  description.tensors.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    auto tensor = tensor_from_json(json[i], indexed(where, i));
    if (!tensor) return Failure(tensor.error());
    description.tensors.push_back(std::move(tensor).value());
  }
  return description;
}

// ---- Requests ----

namespace {

// Element bit patterns as hex strings; one that is not hex is the caller's
// error. Each is read once and handed to keep(text, value): a request keeps
// the text, a reply the value.
template <class Keep>
bool elements_field(FieldReader& reader, const char* key, Keep keep) {
  const Json* elements = reader.required(key);
  if (!elements) return false;
  if (!elements->is_array()) {
    reader.fail(reader.path(key) + ": must be an array of hex strings, got " +
                describe_json_value(*elements));
    return false;
  }
  for (std::size_t i = 0; i < elements->size(); ++i) {
    const Json& item = (*elements)[i];
    const auto value = item.is_string() ? hurray::element_from_hex(item.get_ref<const std::string&>())
                                        : std::nullopt;
    if (!value) {
      reader.fail(indexed(reader.path(key), i) + ": must be a hex string, got " +
                  (item.is_string() ? quoted_excerpt(item.get_ref<const std::string&>())
                                    : describe_json_value(item)));
      return false;
    }
    keep(item.get_ref<const std::string&>(), *value);
  }
  return true;
}

Checked<Request> elements_request_from_json(FieldReader& reader, Op op, std::string case_id) {
  const auto tag = reader.unsigned_integer("tag", 0xFF);
  auto shape = tag ? shape_field(reader, "shape") : std::nullopt;
  if (reader.failed()) return Failure(reader.error());
  if (op == Op::kDecode) {
    hurray::Mode mode = hurray::Mode::kStrict;
    if (auto text = reader.string("mode", false)) {
      if (auto parsed = hurray::mode_from_string(*text)) mode = *parsed;
      else reader.fail("mode: must be \"strict\" or \"permissive\", got " + quoted_excerpt(*text));
    }
    auto data = reader.failed() ? std::nullopt : reader.hex("data");
    if (reader.failed()) return Failure(reader.error());
    return Request{ElementsDecodeRequest{std::move(case_id), static_cast<std::uint8_t>(*tag),
                                         std::move(*shape), mode, std::move(*data)}};
  }
  std::vector<std::string> elements;
  if (!elements_field(reader, "elements",
                      [&](const std::string& text, const hurray::Element&) { elements.push_back(text); }))
    return Failure(reader.error());
  return Request{ElementsEncodeRequest{std::move(case_id), static_cast<std::uint8_t>(*tag),
                                       std::move(*shape), std::move(elements)}};
}

}  // namespace

Json request_to_json(const Request& request, Int64Form form) {
  Json json;
  json["op"] = to_string(op_of(request));
  std::visit(
      [&](const auto& message) {
        using T = std::decay_t<decltype(message)>;
        if constexpr (std::is_same_v<T, HelloRequest>) {
          json["protocol"] = message.protocol;
        } else if constexpr (std::is_same_v<T, ElementsDecodeRequest> ||
                             std::is_same_v<T, ElementsEncodeRequest>) {
          json["profile"] = kProfileHurrayElements;
          if (!message.case_id.empty()) json["case"] = message.case_id;
          json["tag"] = message.tag;
          json["shape"] = shape_to_json(message.shape, form);
          if constexpr (std::is_same_v<T, ElementsDecodeRequest>) {
            json["mode"] = hurray::to_string(message.mode);
            json["data"] = to_hex(message.data);
          } else {
            json["elements"] = message.elements;
          }
        } else {
          if (!message.case_id.empty()) json["case"] = message.case_id;
          json["profile"] = message.profile;
          if constexpr (std::is_same_v<T, DecodeRequest>)
            json["block"] = to_hex(message.block);
          else
            json["tensors"] = tensors_to_json(message.description, form);
        }
      },
      request);
  return json;
}

Checked<Request> request_from_json(const Json& json) {
  if (!json.is_object())
    return Failure(std::string("a request must be a JSON object, got ") +
                   describe_json_value(json));
  FieldReader reader(json, "");
  const auto op_text = reader.string("op");
  if (!op_text) return Failure(reader.error());
  const auto op = op_from_string(*op_text);
  if (!op)
    return Failure("op: unknown op " + quoted_excerpt(*op_text) +
                   "; protocol 1 has hello, decode and encode");
  if (*op == Op::kHello) {
    const auto version = reader.unsigned_integer("protocol", kMaxU64);
    if (!version) return Failure(reader.error());
    return Request{HelloRequest{*version}};
  }
  std::string case_id = reader.string("case", false).value_or("");
  std::string profile = reader.string("profile", false).value_or(std::string(kProfileKilnV2));
  if (reader.failed()) return Failure(reader.error());
  if (profile == kProfileHurrayElements) return elements_request_from_json(reader, *op, std::move(case_id));
  if (*op == Op::kDecode) {
    auto block = reader.hex("block");
    if (!block) return Failure(reader.error());
    return Request{DecodeRequest{std::move(case_id), std::move(profile), std::move(*block)}};
  }
  const Json* tensors = reader.required("tensors");
  if (!tensors) return Failure(reader.error());
  auto description = tensors_from_json(*tensors, "tensors");
  if (!description) return Failure(description.error());
  return Request{
      EncodeRequest{std::move(case_id), std::move(profile), std::move(description).value()}};
}

// ---- Replies ----

Json hello_to_json(const Hello& hello) {
  Json json;
  json["name"] = hello.name;
  json["version"] = hello.version;
  json["protocol"] = hello.protocol;
  json["ops"] = hello.ops;
  json["profiles"] = hello.profiles;
  if (!hello.hurray_tier2.empty()) json["hurray_tier2"] = hello.hurray_tier2;
  if (hello.int64 != Int64Form::kNumber) json["int64"] = to_string(hello.int64);
  return json;
}

Checked<Hello> hello_from_json(const Json& json) {
  if (!json.is_object())
    return Failure(std::string("the hello reply must be a JSON object, got ") +
                   describe_json_value(json));
  FieldReader reader(json, "");
  if (const Json* result = reader.optional("result"); result && *result == "error") {
    const Json* message = reader.optional("message");
    return Failure("the adapter answered hello with an error: " +
                   (message && message->is_string()
                        ? bounded_message(message->get_ref<const std::string&>())
                        : std::string("(no message)")));
  }
  Hello hello;
  // Shown in every report: kept short.
  if (auto name = reader.string("name")) hello.name = bounded_message(*name, kMaxNameBytes);
  if (auto version = reader.string("version"))
    hello.version = bounded_message(*version, kMaxNameBytes);
  // Older adapters written from the design brief send neither protocol nor
  // profiles: they speak protocol 1 and kiln-v2.
  if (auto protocol = reader.unsigned_integer("protocol", kMaxU64, false))
    hello.protocol = *protocol;
  if (auto ops = reader.names("ops")) hello.ops = std::move(*ops);
  if (auto profiles = reader.names("profiles", false)) hello.profiles = std::move(*profiles);
  if (auto tier2 = reader.names("hurray_tier2", false)) {
    // A name outside the table would make the runner expect an unknown type's
    // bytes: the hello is wrong, not the cases.
    for (std::size_t i = 0; i < tier2->size() && !reader.failed(); ++i) {
      const hurray::TypeInfo* type = hurray::type_by_name((*tier2)[i]);
      if (!type || type->tier != hurray::Tier::k2)
        reader.fail(indexed("hurray_tier2", i) + ": " + quoted_excerpt((*tier2)[i]) +
                    " is not a Tier 2 type of hurray-elements");
    }
    hello.hurray_tier2 = std::move(*tier2);
  }
  // A form the runner does not know would send requests the adapter cannot read.
  if (auto int64 = reader.string("int64", false)) {
    if (auto form = int64_form_from_string(*int64)) hello.int64 = *form;
    else reader.fail("int64: must be \"number\" or \"string\", got " + quoted_excerpt(*int64));
  }
  if (reader.failed()) return Failure(reader.error());
  return hello;
}

Json outcome_to_json(const Outcome& outcome, Int64Form form) {
  Json json;
  std::visit(
      [&](const auto& reply) {
        using T = std::decay_t<decltype(reply)>;
        if constexpr (std::is_same_v<T, Accept>) {
          json["result"] = "accept";
          json["tensors"] = tensors_to_json(reply.description, form);
        } else if constexpr (std::is_same_v<T, Reject>) {
          json["result"] = "reject";
          json["class"] = to_string(reply.error_class);
          json["message"] = reply.message;
          if (reply.rule) json["rule"] = *reply.rule;
          if (reply.offset) json["offset"] = uint64_to_json(*reply.offset, form);
        } else if constexpr (std::is_same_v<T, EncodedBlock>) {
          json["result"] = "block";
          json["block"] = to_hex(reply.bytes);
        } else if constexpr (std::is_same_v<T, ElementsAccept>) {
          json["result"] = "accept";
          json["elements"] = Json::array();
          for (const auto& element : reply.elements)
            // Without a width (a parsed reply), the fewest digits that hold the value.
            json["elements"].push_back(hurray::element_to_hex(
                element, reply.bits ? reply.bits : std::max(1u, hurray::significant_bits(element))));
        } else if constexpr (std::is_same_v<T, OpaqueAccept>) {
          json["result"] = "opaque";
        } else if constexpr (std::is_same_v<T, ElementsReject>) {
          json["result"] = "reject";
          json["class"] = hurray::to_string(reply.error_class);
          json["message"] = reply.message;
          if (reply.rule) json["rule"] = *reply.rule;
          if (reply.offset) json["offset"] = uint64_to_json(*reply.offset, form);
        } else if constexpr (std::is_same_v<T, ElementData>) {
          json["result"] = "data";
          json["data"] = to_hex(reply.bytes);
        } else {
          json = error_json(reply.message);
        }
      },
      outcome);
  return json;
}

namespace {

Checked<Outcome> elements_outcome_from_json(FieldReader& reader, const std::string& result, Op answered) {
  auto wrong_op = [&] {
    return Failure("result: " + quoted_excerpt(result) + " does not answer a hurray-elements " +
                   std::string(to_string(answered)));
  };
  if (result == "accept" || result == "opaque") {
    if (answered != Op::kDecode) return wrong_op();
    if (result == "opaque") return Outcome{OpaqueAccept{}};
    ElementsAccept accept;
    if (!elements_field(reader, "elements",
                        [&](const std::string&, const hurray::Element& value) { accept.elements.push_back(value); }))
      return Failure(reader.error());
    return Outcome{std::move(accept)};
  }
  if (result == "reject") {
    if (answered == Op::kHello) return wrong_op();
    ElementsReject reject;
    if (auto text = reader.string("class")) {
      if (auto error_class = hurray::error_class_from_string(*text))
        reject.error_class = *error_class;
      else
        reader.fail("class: must be \"TAG\" or \"DATA\", got " + quoted_excerpt(*text));
    }
    reject.message = bounded_message(reader.string("message", false).value_or(""));
    if (auto rule = reader.string("rule", false)) reject.rule = bounded_message(*rule, kMaxNameBytes);
    reject.offset = reader.uint64("offset", false);
    if (reader.failed()) return Failure(reader.error());
    return Outcome{std::move(reject)};
  }
  if (result == "data") {
    if (answered != Op::kEncode) return wrong_op();
    auto data = reader.hex("data");
    if (!data) return Failure(reader.error());
    return Outcome{ElementData{std::move(*data)}};
  }
  if (result == "error") {
    std::string message = bounded_message(reader.string("message", false).value_or(""));
    if (reader.failed()) return Failure(reader.error());
    return Outcome{ProtocolError{std::move(message)}};
  }
  return Failure("result: unknown result " + quoted_excerpt(result) +
                 "; hurray-elements expects accept, opaque, reject, data or error");
}

}  // namespace

bool answers(const Outcome& outcome, Op op, std::string_view profile) {
  if (std::holds_alternative<ProtocolError>(outcome)) return true;
  if (profile == kProfileHurrayElements) {
    if (std::holds_alternative<ElementsAccept>(outcome) || std::holds_alternative<OpaqueAccept>(outcome))
      return op == Op::kDecode;
    if (std::holds_alternative<ElementData>(outcome)) return op == Op::kEncode;
    return std::holds_alternative<ElementsReject>(outcome) && op != Op::kHello;
  }
  if (std::holds_alternative<Accept>(outcome)) return op == Op::kDecode;
  if (std::holds_alternative<EncodedBlock>(outcome)) return op == Op::kEncode;
  return std::holds_alternative<Reject>(outcome) && op != Op::kHello;
}

std::string outcome_summary(const Outcome& outcome) {
  if (std::holds_alternative<Accept>(outcome)) return "accept";
  if (std::holds_alternative<EncodedBlock>(outcome)) return "block";
  if (std::holds_alternative<ElementsAccept>(outcome)) return "accept (elements)";
  if (std::holds_alternative<OpaqueAccept>(outcome)) return "opaque";
  if (std::holds_alternative<ElementData>(outcome)) return "data";
  const auto reject_text = [](std::string_view error_class, const std::optional<std::string>& rule) {
    std::string text = "reject " + std::string(error_class);
    if (rule) text += " (" + bounded_message(*rule, 256) + ")";
    return text;
  };
  if (const auto* reject = std::get_if<Reject>(&outcome))
    return reject_text(to_string(reject->error_class), reject->rule);
  if (const auto* reject = std::get_if<ElementsReject>(&outcome))
    return reject_text(hurray::to_string(reject->error_class), reject->rule);
  return "error: " + bounded_message(std::get<ProtocolError>(outcome).message);
}

Checked<Outcome> outcome_from_json(const Json& json, Op answered, std::string_view profile) {
  if (!json.is_object())
    return Failure(std::string("a reply must be a JSON object, got ") +
                   describe_json_value(json));
  FieldReader reader(json, "");
  const auto result = reader.string("result");
  if (!result) return Failure(reader.error());
  if (profile == kProfileHurrayElements) return elements_outcome_from_json(reader, *result, answered);
  auto wrong_op = [&] {
    return Failure("result: " + quoted_excerpt(*result) + " does not answer " +
                   std::string(to_string(answered)));
  };
  if (*result == "accept") {
    if (answered != Op::kDecode) return wrong_op();
    const Json* tensors = reader.required("tensors");
    if (!tensors) return Failure(reader.error());
    auto description = tensors_from_json(*tensors, "tensors");
    if (!description) return Failure(description.error());
    return Outcome{Accept{std::move(description).value()}};
  }
  if (*result == "reject") {
    if (answered == Op::kHello) return wrong_op();
    Reject reject;
    if (auto text = reader.string("class")) {
      if (auto error_class = error_class_from_string(*text))
        reject.error_class = *error_class;
      else
        reader.fail("class: must be \"FRAME\" or \"TYPE\", got " + quoted_excerpt(*text));
    }
    // Only the class is compared: the rest is help for a reader of the report,
    // kept per result, so bounded.
    reject.message = bounded_message(reader.string("message", false).value_or(""));
    if (auto rule = reader.string("rule", false))
      reject.rule = bounded_message(*rule, kMaxNameBytes);
    reject.offset = reader.uint64("offset", false);
    if (reader.failed()) return Failure(reader.error());
    return Outcome{std::move(reject)};
  }
  if (*result == "block") {
    if (answered != Op::kEncode) return wrong_op();
    auto block = reader.hex("block");
    if (!block) return Failure(reader.error());
    return Outcome{EncodedBlock{std::move(*block)}};
  }
  if (*result == "error") {
    std::string message = bounded_message(reader.string("message", false).value_or(""));
    if (reader.failed()) return Failure(reader.error());
    return Outcome{ProtocolError{std::move(message)}};
  }
  return Failure("result: unknown result " + quoted_excerpt(*result) +
                 "; expected accept, reject, block or error");
}

// ---- Lines ----

Checked<Json> parse_line(std::string_view line) {
  return parse_line(line, std::numeric_limits<std::size_t>::max());
}

std::size_t max_reply_values(std::size_t request_line_bytes) noexcept {
  constexpr std::size_t kRoom = 64;
  if (request_line_bytes > (std::numeric_limits<std::size_t>::max() - kRoom) / 4)
    return std::numeric_limits<std::size_t>::max();
  return 4 * request_line_bytes + kRoom;
}

std::optional<std::string> line_problem(std::string_view line, std::size_t max_values) {
  if (auto bad = find_invalid_utf8(line))
    return "the line is not valid UTF-8 at byte " + std::to_string(*bad);
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return "the line is empty; expected one JSON object";
  return scan_line(line, max_values);
}

namespace {

Checked<Json> parse_checked(std::string_view line, std::size_t max_values, const Json::parser_callback_t& callback) {
  if (auto problem = line_problem(line, max_values)) return Failure(std::move(*problem));
  try {
    // Strict: one value and nothing after it but white space.
    return Json::parse(line, callback, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const Json::parse_error& error) {
    return Failure("the line is not JSON " + parse_error_text(error, line.size()));
  } catch (const Json::exception& error) {
    return Failure("the line is not JSON: " +
                   bounded_message(error.what(), 2 * kMaxExcerptBytes));
  }
}

}  // namespace

Checked<Json> parse_line(std::string_view line, std::size_t max_values) {
  return parse_checked(line, max_values, nullptr);
}

Checked<Json> parse_line(std::string_view line, const Json::parser_callback_t& callback) {
  return parse_checked(line, std::numeric_limits<std::size_t>::max(), callback);
}

Checked<std::string> to_line(const Json& json) {
  try {
    return json.dump();
  } catch (const Json::exception& error) {
    return Failure(std::string("cannot write JSON: ") + error.what());
  }
}

Checked<Request> parse_request(std::string_view line) {
  auto json = parse_line(line);
  if (!json) return Failure(json.error());
  return request_from_json(json.value());
}

Checked<Hello> parse_hello_reply(std::string_view line) {
  auto json = parse_line(line);
  if (!json) return Failure(json.error());
  return hello_from_json(json.value());
}

Checked<Outcome> parse_reply(std::string_view line, Op answered, std::string_view profile) {
  auto json = parse_line(line);
  if (!json) return Failure(json.error());
  return outcome_from_json(json.value(), answered, profile);
}

}  // namespace kiln::protocol
