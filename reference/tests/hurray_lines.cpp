// A line tool over the Hurray codec, for tests written in other languages (the
// NumPy cross-check). One request per line on stdin, one answer per line on stdout:
//   decode TYPE MODE SHAPE DATA   ->  accept E1 E2 ... | opaque | reject CLASS RULE
//   encode TYPE SHAPE ELEMENTS    ->  data HEX | reject CLASS RULE | error MESSAGE
// TYPE is a type name of kiln::hurray::kTypes or a decimal tag; MODE strict or
// permissive; SHAPE `-` (a scalar) or decimal dimensions joined by commas; DATA
// hex or `-` (no bytes); ELEMENTS hex elements joined by commas or `-` (none).
// Exit status: 0 when every line was a well-formed request, 2 at the first that
// was not (after a message on stderr).
#include <charconv>
#include <cstdint>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hex.hpp"
#include "kiln/hurray.hpp"

namespace {

using namespace kiln::hurray;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text == "-") return parts;
  std::string part;
  std::istringstream stream(text);
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

bool parse_u64(const std::string& text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool parse_tag(const std::string& text, std::uint8_t& tag) {
  if (const TypeInfo* type = type_by_name(text)) {
    tag = type->tag;
    return true;
  }
  std::uint64_t value = 0;
  if (!parse_u64(text, value) || value > 0xFF) return false;
  tag = static_cast<std::uint8_t>(value);
  return true;
}

bool parse_shape(const std::string& text, std::vector<std::uint64_t>& shape) {
  for (const std::string& part : split(text, ',')) {
    std::uint64_t dimension = 0;
    if (!parse_u64(part, dimension)) return false;
    shape.push_back(dimension);
  }
  return true;
}

std::string reject(const Error& error) {
  return "reject " + std::string(to_string(error.error_class())) + " " +
         std::string(error.rule_id());
}

// The answer to one line, or an empty string for a malformed request.
std::string answer(const std::string& line) {
  std::istringstream words(line);
  std::string op, type_text, third, fourth, fifth;
  words >> op >> type_text >> third >> fourth >> fifth;
  std::uint8_t tag = 0;
  std::vector<std::uint64_t> shape;
  if (!parse_tag(type_text, tag)) return {};
  if (op == "decode") {
    const auto mode = mode_from_string(third);
    const auto data =
        fifth == "-" ? std::optional(std::vector<std::uint8_t>{}) : kiln::from_hex(fifth);
    if (!mode || !parse_shape(fourth, shape) || !data) return {};
    const auto decoded = decode(tag, shape, *mode, *data);
    if (!decoded) return reject(decoded.error());
    if (decoded.value().opaque) return "opaque";
    std::string out = "accept";
    for (std::uint64_t i = 0; i < decoded.value().count; ++i)
      out += " " + element_to_hex(decoded.value().element(i), decoded.value().type->bits);
    return out;
  }
  if (op == "encode") {
    if (!parse_shape(third, shape)) return {};
    std::vector<Element> elements;
    for (const std::string& text : split(fourth, ',')) {
      const auto element = element_from_hex(text);
      if (!element) return "error element '" + text + "' is not hex";
      elements.push_back(*element);
    }
    const auto encoded = encode(tag, shape, elements);
    if (!encoded) return reject(encoded.error());
    return "data " + (encoded.value().empty() ? std::string("-") : kiln::to_hex(encoded.value()));
  }
  return {};
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  std::size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    const std::string reply = answer(line);
    if (reply.empty()) {
      std::cerr << "hurray_lines: line " << number << " is not a request: " << line << "\n";
      return 2;
    }
    std::cout << reply << "\n";
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}
