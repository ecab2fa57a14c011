// Request and reply lines written and read without a Json (protocol.hpp,
// "Lines without a Json"): every line of a run goes through these, so what a
// line costs is the pipe's, not a tree of nodes built, walked and freed at
// each end. Each function handles the lines the runner and serve() exchange in
// the common case and declines the rest; the Json path in protocol.cpp then
// reads or writes them, and words every error. What these accept, the Json
// path accepts too, with the same value (lines_test.cpp holds them to it).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "kiln/protocol.hpp"
#include "kiln/hex.hpp"
#include "kiln/utf8.hpp"

namespace kiln::protocol {
namespace {

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

// ---- writing ----

constexpr char kHexDigits[] = "0123456789abcdef";

void append_hex(std::string& out, const std::uint8_t* bytes, std::size_t size) {
  const std::size_t at = out.size();
  out.resize(at + 2 * size);
  char* p = out.data() + at;
  for (std::size_t i = 0; i < size; ++i) {
    *p++ = kHexDigits[bytes[i] >> 4];
    *p++ = kHexDigits[bytes[i] & 0x0F];
  }
}

void append_hex(std::string& out, std::span<const std::uint8_t> bytes) {
  append_hex(out, bytes.data(), bytes.size());
}

void append_number(std::string& out, std::uint64_t value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  out.append(text, static_cast<std::size_t>(end - text));
}

// As nlohmann's dump escapes a string (ensure_ascii off): the quote, the
// backslash and the control characters, by name where JSON has one
// (\b \t \n \f \r), else as \u00xx in lower case; every other byte as it is.
// False for text that is not valid UTF-8, which dump refuses.
bool append_string(std::string& out, std::string_view text) {
  if (!is_valid_utf8(text)) return false;
  out += '"';
  std::size_t run = 0;  // the start of the bytes not yet copied
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != '"' && byte != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (byte) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        out += "\\u00";
        out += kHexDigits[byte >> 4];
        out += kHexDigits[byte & 0x0F];
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
  return true;
}

void append_uint64(std::string& out, std::uint64_t value, Int64Form form) {
  if (form == Int64Form::kString) out += '"';
  append_number(out, value);
  if (form == Int64Form::kString) out += '"';
}

void append_shape(std::string& out, const std::vector<std::uint64_t>& shape, Int64Form form) {
  out += '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    append_uint64(out, shape[i], form);
  }
  out += ']';
}

std::span<const std::uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// tensor_to_json, dumped.
bool append_tensor(std::string& out, const TensorDescription& tensor, Int64Form form) {
  if (is_valid_utf8(tensor.name)) {
    out += "{\"name\":";
    append_string(out, tensor.name);
  } else {
    out += "{\"name_hex\":\"";
    append_hex(out, bytes_of(tensor.name));
    out += '"';
  }
  out += ",\"dtype\":";
  append_number(out, tensor.dtype);
  out += ",\"shape\":";
  append_shape(out, tensor.shape, form);
  if (tensor.layout.empty()) {
    out += ",\"layout\":null";
  } else if (is_valid_utf8(tensor.layout)) {
    out += ",\"layout\":";
    append_string(out, tensor.layout);
  } else {
    out += ",\"layout_hex\":\"";
    append_hex(out, bytes_of(tensor.layout));
    out += '"';
  }
  out += ",\"block_size\":";
  append_number(out, tensor.block_size);
  out += ",\"payload\":\"";
  append_hex(out, tensor.payload);
  out += "\"}";
  return true;
}

bool append_tensors(std::string& out, const BlockDescription& description, Int64Form form) {
  out += '[';
  for (std::size_t i = 0; i < description.tensors.size(); ++i) {
    if (i) out += ',';
    append_tensor(out, description.tensors[i], form);
  }
  out += ']';
  return true;
}

// hurray::element_to_hex(element, bits), appended.
void append_element(std::string& out, const hurray::Element& element, unsigned bits) {
  const unsigned digits = (std::min(bits, 128u) + 3) / 4;
  out += '"';
  for (unsigned d = digits; d-- > 0;) {
    const unsigned shift = 4 * d;
    const std::uint64_t word = shift < 64 ? element.low : element.high;
    out += kHexDigits[(word >> (shift % 64)) & 0x0F];
  }
  out += '"';
}

template <class RejectType>
bool append_reject(std::string& out, std::string_view error_class, const RejectType& reject, Int64Form form) {
  out += "{\"result\":\"reject\",\"class\":";
  if (!append_string(out, error_class)) return false;
  out += ",\"message\":";
  if (!append_string(out, reject.message)) return false;
  if (reject.rule) {
    out += ",\"rule\":";
    if (!append_string(out, *reject.rule)) return false;
  }
  if (reject.offset) {
    out += ",\"offset\":";
    append_uint64(out, *reject.offset, form);
  }
  return true;
}

// ---- reading ----

// A strict reader of the JSON this file handles, over a line that passed
// line_problem (valid UTF-8, no raw control byte in a string). Every method
// returns false for what it does not handle, and the caller declines the line.
class Reader {
 public:
  explicit Reader(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  bool eat(char c) {
    white_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool at(char c) {
    white_space();
    return p_ != end_ && *p_ == c;
  }
  bool at_end() {
    white_space();
    return p_ == end_;
  }

  // A string without escapes, as it stands in the line (member names, hex).
  bool raw_string(std::string_view& text) {
    if (!eat('"')) return false;
    const auto* quote = static_cast<const char*>(std::memchr(p_, '"', static_cast<std::size_t>(end_ - p_)));
    if (!quote || std::memchr(p_, '\\', static_cast<std::size_t>(quote - p_))) return false;
    text = std::string_view(p_, static_cast<std::size_t>(quote - p_));
    p_ = quote + 1;
    return true;
  }

  // Any string, its escapes read as nlohmann reads them.
  bool string(std::string& text) {
    if (!eat('"')) return false;
    text.clear();
    for (;;) {
      const char* stop = p_;
      while (stop != end_ && *stop != '"' && *stop != '\\') ++stop;
      text.append(p_, static_cast<std::size_t>(stop - p_));
      p_ = stop;
      if (p_ == end_) return false;
      if (*p_++ == '"') return true;
      if (p_ == end_) return false;
      switch (*p_++) {
        case '"': text += '"'; break;
        case '\\': text += '\\'; break;
        case '/': text += '/'; break;
        case 'b': text += '\b'; break;
        case 'f': text += '\f'; break;
        case 'n': text += '\n'; break;
        case 'r': text += '\r'; break;
        case 't': text += '\t'; break;
        case 'u': {
          std::uint32_t code = 0;
          if (!hex4(code)) return false;
          if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate alone
          if (code >= 0xD800 && code <= 0xDBFF) {
            std::uint32_t low = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          kiln::append_utf8(text, static_cast<char32_t>(code));
          break;
        }
        default: return false;
      }
    }
  }

  // A JSON number that is an integer from 0 to 2^64 - 1, as nlohmann keeps it
  // unsigned: digits only, no leading zero, no fraction or exponent.
  bool number(std::uint64_t& value) {
    white_space();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    value = 0;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
        const auto digit = static_cast<std::uint64_t>(*p_ - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
        value = value * 10 + digit;
        ++p_;
      }
    }
    return p_ == end_ || !(*p_ == '.' || *p_ == 'e' || *p_ == 'E' || (*p_ >= '0' && *p_ <= '9'));
  }

  bool null() {
    white_space();
    if (end_ - p_ < 4 || std::memcmp(p_, "null", 4) != 0) return false;
    p_ += 4;
    return true;
  }

  // A 64-bit field: a number or its canonical decimal string.
  bool uint64(std::uint64_t& value) {
    if (!at('"')) return number(value);
    std::string_view text;
    if (!raw_string(text)) return false;
    const auto parsed = uint64_from_decimal(text);
    if (!parsed) return false;
    value = *parsed;
    return true;
  }

  bool bounded(std::uint64_t max, std::uint64_t& value) { return number(value) && value <= max; }

  bool hex(std::vector<std::uint8_t>& bytes) {
    std::string_view text;
    if (!raw_string(text)) return false;
    auto decoded = from_hex(text);
    if (!decoded) return false;
    bytes = std::move(*decoded);
    return true;
  }

  // {"name": value, ...}: member(name) reads each value.
  template <class Member>
  bool object(Member&& member) {
    if (!eat('{')) return false;
    if (eat('}')) return true;
    do {
      std::string_view name;
      if (!raw_string(name) || !eat(':') || !member(name)) return false;
    } while (eat(','));
    return eat('}');
  }

  template <class Item>
  bool array(Item&& item) {
    if (!eat('[')) return false;
    if (eat(']')) return true;
    do {
      if (!item()) return false;
    } while (eat(','));
    return eat(']');
  }

 private:
  void white_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool hex4(std::uint32_t& code) {
    if (end_ - p_ < 4) return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      std::uint32_t digit;
      if (c >= '0' && c <= '9') digit = static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') digit = static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') digit = static_cast<std::uint32_t>(c - 'A' + 10);
      else return false;
      code = code * 16 + digit;
    }
    return true;
  }

  const char* p_;
  const char* end_;
};

// Each member at most once: a repeated one (the Json path keeps the last) is declined.
struct Seen {
  std::uint32_t bits = 0;
  bool first(unsigned member) {
    const std::uint32_t bit = std::uint32_t{1} << member;
    if (bits & bit) return false;
    bits |= bit;
    return true;
  }
  bool has(unsigned member) const { return (bits >> member) & 1; }
};

// tensor_from_json: a name or name_hex, a layout or layout_hex (not both).
bool read_tensor(Reader& reader, TensorDescription& tensor) {
  enum : unsigned { kName, kDtype, kShape, kLayout, kBlockSize, kPayload, kNameHex, kLayoutHex };
  Seen seen;
  std::vector<std::uint8_t> raw;
  const bool read = reader.object([&](std::string_view name) {
    std::uint64_t value = 0;
    if (name == "name") return !seen.has(kNameHex) && seen.first(kName) && reader.string(tensor.name);
    if (name == "name_hex") {
      if (seen.has(kName) || !seen.first(kNameHex) || !reader.hex(raw)) return false;
      tensor.name.assign(raw.begin(), raw.end());
      return true;
    }
    if (name == "layout_hex") {
      if (seen.has(kLayout) || !seen.first(kLayoutHex) || !reader.hex(raw)) return false;
      tensor.layout.assign(raw.begin(), raw.end());
      return true;
    }
    if (name == "dtype") {
      if (!seen.first(kDtype) || !reader.bounded(kMaxU16, value)) return false;
      tensor.dtype = static_cast<std::uint16_t>(value);
      return true;
    }
    if (name == "shape")
      return seen.first(kShape) && reader.array([&] {
               if (!reader.uint64(value)) return false;
               tensor.shape.push_back(value);
               return true;
             });
    if (name == "layout") {
      if (seen.has(kLayoutHex) || !seen.first(kLayout)) return false;
      if (reader.null()) return true;
      return reader.string(tensor.layout);
    }
    if (name == "block_size") {
      if (!seen.first(kBlockSize) || !reader.bounded(kMaxU32, value)) return false;
      tensor.block_size = static_cast<std::uint32_t>(value);
      return true;
    }
    if (name == "payload") return seen.first(kPayload) && reader.hex(tensor.payload);
    return false;
  });
  const auto both = [&](unsigned a, unsigned b) { return seen.has(a) || seen.has(b); };
  return read && both(kName, kNameHex) && seen.has(kDtype) && seen.has(kShape) && both(kLayout, kLayoutHex) &&
         seen.has(kBlockSize) && seen.has(kPayload);
}

bool read_tensors(Reader& reader, BlockDescription& description) {
  return reader.array([&] {
    description.tensors.emplace_back();
    return read_tensor(reader, description.tensors.back());
  });
}

bool read_shape(Reader& reader, std::vector<std::uint64_t>& shape) {
  return reader.array([&] {
    std::uint64_t value = 0;
    if (!reader.uint64(value)) return false;
    shape.push_back(value);
    return true;
  });
}

}  // namespace

bool append_request_line(std::string& out, const Request& request, Int64Form form, std::uint64_t id) {
  const std::size_t start = out.size();
  const bool written = std::visit(
      [&](const auto& message) {
        using T = std::decay_t<decltype(message)>;
        out += "{\"op\":\"";
        out += to_string(op_of(request));
        out += '"';
        if constexpr (std::is_same_v<T, HelloRequest>) {
          out += ",\"protocol\":";
          append_number(out, message.protocol);
        } else if constexpr (std::is_same_v<T, ElementsDecodeRequest> ||
                             std::is_same_v<T, ElementsEncodeRequest>) {
          out += ",\"profile\":\"";
          out += kProfileHurrayElements;
          out += '"';
          if (!message.case_id.empty()) {
            out += ",\"case\":";
            if (!append_string(out, message.case_id)) return false;
          }
          out += ",\"tag\":";
          append_number(out, message.tag);
          out += ",\"shape\":";
          append_shape(out, message.shape, form);
          if constexpr (std::is_same_v<T, ElementsDecodeRequest>) {
            out += ",\"mode\":";
            if (!append_string(out, hurray::to_string(message.mode))) return false;
            out += ",\"data\":\"";
            append_hex(out, message.data);
            out += '"';
          } else {
            out += ",\"elements\":[";
            for (std::size_t i = 0; i < message.elements.size(); ++i) {
              if (i) out += ',';
              if (!append_string(out, message.elements[i])) return false;
            }
            out += ']';
          }
        } else {
          if (!message.case_id.empty()) {
            out += ",\"case\":";
            if (!append_string(out, message.case_id)) return false;
          }
          out += ",\"profile\":";
          if (!append_string(out, message.profile)) return false;
          if constexpr (std::is_same_v<T, DecodeRequest>) {
            out += ",\"block\":\"";
            append_hex(out, message.block);
            out += '"';
          } else {
            out += ",\"tensors\":";
            append_tensors(out, message.description, form);
          }
        }
        return true;
      },
      request);
  if (!written) {
    out.resize(start);
    return false;
  }
  out += ",\"id\":";
  append_number(out, id);
  out += '}';
  return true;
}

bool append_outcome_line(std::string& out, const Outcome& outcome, Int64Form form,
                         std::optional<std::uint64_t> id) {
  const std::size_t start = out.size();
  const bool written = std::visit(
      [&](const auto& reply) {
        using T = std::decay_t<decltype(reply)>;
        if constexpr (std::is_same_v<T, Accept>) {
          out += "{\"result\":\"accept\",\"tensors\":";
          return append_tensors(out, reply.description, form);
        } else if constexpr (std::is_same_v<T, Reject>) {
          return append_reject(out, to_string(reply.error_class), reply, form);
        } else if constexpr (std::is_same_v<T, EncodedBlock>) {
          out += "{\"result\":\"block\",\"block\":\"";
          append_hex(out, reply.bytes);
          out += '"';
          return true;
        } else if constexpr (std::is_same_v<T, ElementsAccept>) {
          out += "{\"result\":\"accept\",\"elements\":[";
          for (std::size_t i = 0; i < reply.elements.size(); ++i) {
            if (i) out += ',';
            const auto& element = reply.elements[i];
            append_element(out, element, reply.bits ? reply.bits : std::max(1u, hurray::significant_bits(element)));
          }
          out += ']';
          return true;
        } else if constexpr (std::is_same_v<T, OpaqueAccept>) {
          out += "{\"result\":\"opaque\"";
          return true;
        } else if constexpr (std::is_same_v<T, ElementsReject>) {
          return append_reject(out, hurray::to_string(reply.error_class), reply, form);
        } else if constexpr (std::is_same_v<T, ElementData>) {
          out += "{\"result\":\"data\",\"data\":\"";
          append_hex(out, reply.bytes);
          out += '"';
          return true;
        } else {
          out += "{\"result\":\"error\",\"message\":";
          return append_string(out, reply.message);
        }
      },
      outcome);
  if (!written) {
    out.resize(start);
    return false;
  }
  if (id) {
    out += ",\"id\":";
    append_number(out, *id);
  }
  out += '}';
  return true;
}

std::optional<ReadRequest> read_request_line(std::string_view line) {
  if (line_problem(line)) return std::nullopt;
  enum : unsigned { kOp, kId, kProtocol, kCase, kProfile, kBlock, kTensors, kTag, kShape, kMode, kData, kElements };
  Seen seen;
  std::string op_text, case_id, profile, mode_text;
  std::uint64_t id = 0, version = 0, tag = 0;
  std::vector<std::uint8_t> bytes;  // block or data
  BlockDescription description;
  std::vector<std::uint64_t> shape;
  std::vector<std::string> elements;
  Reader reader(line);
  const bool read = reader.object([&](std::string_view name) {
    if (name == "op") return seen.first(kOp) && reader.string(op_text);
    if (name == "id") return seen.first(kId) && reader.number(id);
    if (name == "protocol") return seen.first(kProtocol) && reader.number(version);
    if (name == "case") return seen.first(kCase) && reader.string(case_id);
    if (name == "profile") return seen.first(kProfile) && reader.string(profile);
    if (name == "block") return seen.first(kBlock) && !seen.has(kData) && reader.hex(bytes);
    if (name == "data") return seen.first(kData) && !seen.has(kBlock) && reader.hex(bytes);
    if (name == "tensors") return seen.first(kTensors) && read_tensors(reader, description);
    if (name == "tag") return seen.first(kTag) && reader.number(tag);
    if (name == "shape") return seen.first(kShape) && read_shape(reader, shape);
    if (name == "mode") return seen.first(kMode) && reader.string(mode_text);
    if (name == "elements")
      return seen.first(kElements) && reader.array([&] {
               elements.emplace_back();
               return reader.string(elements.back()) && hurray::element_from_hex(elements.back()).has_value();
             });
    return false;
  });
  if (!read || !reader.at_end() || !seen.has(kOp)) return std::nullopt;
  const auto op = op_from_string(op_text);
  if (!op) return std::nullopt;
  ReadRequest result;
  if (seen.has(kId)) result.id = id;
  if (*op == Op::kHello) {
    if (!seen.has(kProtocol)) return std::nullopt;
    result.request = HelloRequest{version};
    return result;
  }
  if (!seen.has(kProfile)) profile = std::string(kProfileKilnV2);
  if (profile == kProfileHurrayElements) {
    if (!seen.has(kTag) || tag > 0xFF || !seen.has(kShape)) return std::nullopt;
    if (*op == Op::kDecode) {
      auto mode = hurray::Mode::kStrict;
      if (seen.has(kMode)) {
        const auto parsed = hurray::mode_from_string(mode_text);
        if (!parsed) return std::nullopt;
        mode = *parsed;
      }
      if (!seen.has(kData)) return std::nullopt;
      result.request = ElementsDecodeRequest{std::move(case_id), static_cast<std::uint8_t>(tag), std::move(shape),
                                             mode, std::move(bytes)};
      return result;
    }
    if (!seen.has(kElements)) return std::nullopt;
    result.request = ElementsEncodeRequest{std::move(case_id), static_cast<std::uint8_t>(tag), std::move(shape),
                                           std::move(elements)};
    return result;
  }
  if (*op == Op::kDecode) {
    if (!seen.has(kBlock)) return std::nullopt;
    result.request = DecodeRequest{std::move(case_id), std::move(profile), std::move(bytes)};
    return result;
  }
  if (!seen.has(kTensors)) return std::nullopt;
  result.request = EncodeRequest{std::move(case_id), std::move(profile), std::move(description)};
  return result;
}

std::optional<Outcome> read_reply_line(std::string_view line, std::size_t max_values, Op answered,
                                       std::string_view profile, std::uint64_t id,
                                       std::string_view case_id, bool& echoed_id) {
  echoed_id = false;
  if (line_problem(line, max_values)) return std::nullopt;
  enum : unsigned { kResult, kId, kCase, kTensors, kClass, kMessage, kRule, kOffset, kBlock, kData, kElements };
  Seen seen;
  std::string result, echoed_case, error_class, message, rule;
  std::uint64_t echoed = 0, offset = 0;
  BlockDescription description;
  std::vector<std::uint8_t> bytes;  // block or data
  std::vector<hurray::Element> elements;
  Reader reader(line);
  std::string element_text;
  const bool read = reader.object([&](std::string_view name) {
    if (name == "result") return seen.first(kResult) && reader.string(result);
    if (name == "id") return seen.first(kId) && reader.number(echoed);
    if (name == "case") return seen.first(kCase) && reader.string(echoed_case);
    if (name == "tensors") return seen.first(kTensors) && read_tensors(reader, description);
    if (name == "class") return seen.first(kClass) && reader.string(error_class);
    if (name == "message") return seen.first(kMessage) && reader.string(message);
    if (name == "rule") return seen.first(kRule) && reader.string(rule);
    if (name == "offset") return seen.first(kOffset) && reader.uint64(offset);
    if (name == "block") return seen.first(kBlock) && !seen.has(kData) && reader.hex(bytes);
    if (name == "data") return seen.first(kData) && !seen.has(kBlock) && reader.hex(bytes);
    if (name == "elements")
      return seen.first(kElements) && reader.array([&] {
               if (!reader.string(element_text)) return false;
               const auto element = hurray::element_from_hex(element_text);
               if (!element) return false;
               elements.push_back(*element);
               return true;
             });
    return false;
  });
  if (!read || !reader.at_end() || !seen.has(kResult)) return std::nullopt;
  // What the driver checks before the outcome: an id or a case that is not the
  // request's is its to word.
  if (seen.has(kId) && echoed != id) return std::nullopt;
  if (seen.has(kCase) && echoed_case != case_id) return std::nullopt;
  const auto reject_of = [&](auto reject) -> std::optional<Outcome> {
    if (answered == Op::kHello || !seen.has(kClass)) return std::nullopt;
    if constexpr (std::is_same_v<decltype(reject), ElementsReject>) {
      const auto parsed = hurray::error_class_from_string(error_class);
      if (!parsed) return std::nullopt;
      reject.error_class = *parsed;
    } else {
      const auto parsed = error_class_from_string(error_class);
      if (!parsed) return std::nullopt;
      reject.error_class = *parsed;
    }
    reject.message = bounded_message(message);
    if (seen.has(kRule)) reject.rule = bounded_message(rule, kMaxNameBytes);
    if (seen.has(kOffset)) reject.offset = offset;
    return Outcome{std::move(reject)};
  };
  std::optional<Outcome> outcome;
  if (result == "error") {
    outcome = ProtocolError{bounded_message(message)};
  } else if (profile == kProfileHurrayElements) {
    if (result == "accept" && answered == Op::kDecode && seen.has(kElements)) {
      ElementsAccept accept;
      accept.elements = std::move(elements);
      outcome = std::move(accept);
    } else if (result == "opaque" && answered == Op::kDecode) {
      outcome = OpaqueAccept{};
    } else if (result == "reject") {
      outcome = reject_of(ElementsReject{});
    } else if (result == "data" && answered == Op::kEncode && seen.has(kData)) {
      outcome = ElementData{std::move(bytes)};
    }
  } else if (result == "accept" && answered == Op::kDecode && seen.has(kTensors)) {
    outcome = Accept{std::move(description)};
  } else if (result == "reject") {
    outcome = reject_of(Reject{});
  } else if (result == "block" && answered == Op::kEncode && seen.has(kBlock)) {
    outcome = EncodedBlock{std::move(bytes)};
  }
  if (outcome) echoed_id = seen.has(kId);
  return outcome;
}

}  // namespace kiln::protocol
