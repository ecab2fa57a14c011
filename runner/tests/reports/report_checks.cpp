// The report checks of report_checks.hpp.
#include "reports/report_checks.hpp"

#include <cctype>

#include "kiln/utf8.hpp"

namespace kiln::conformance::report_checks {
namespace {

bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

std::string utf8(char32_t code) {
  std::string out;
  append_utf8(out, code);
  return out;
}

}  // namespace

std::optional<std::u32string> decode_utf8(std::string_view text, std::size_t* bad_at) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char lead = b(0);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3
                                       : lead >= 0xF0 && lead < 0xF5    ? 4
                                                                        : 0;
    bool ok = length != 0 && i + length <= text.size();
    char32_t code = length == 1 ? lead : length == 2 ? lead & 0x1F : length == 3 ? lead & 0x0F : lead & 0x07;
    for (std::size_t k = 1; ok && k < length; ++k) {
      ok = (b(k) & 0xC0) == 0x80;
      code = (code << 6) | (b(k) & 0x3F);
    }
    // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
    if (ok && ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10FFFF ||
               (code >= 0xD800 && code <= 0xDFFF)))
      ok = false;
    if (!ok) {
      if (bad_at) *bad_at = i;
      return std::nullopt;
    }
    out += code;
    i += length;
  }
  return out;
}

XmlCheck check_xml(const std::string& xml) {
  XmlCheck check;
  std::size_t bad_at = 0;
  const auto code_points = decode_utf8(xml, &bad_at);
  if (!code_points) {
    check.problem = "not UTF-8 at byte " + std::to_string(bad_at);
    return check;
  }
  for (char32_t c : *code_points)
    if (!xml_char(c)) {
      check.problem = "U+" + std::to_string(static_cast<unsigned>(c)) + " is not an XML 1.0 Char";
      return check;
    }
  std::size_t at = 0;
  const auto fail = [&](const std::string& what) {
    if (check.problem.empty()) check.problem = what + " at byte " + std::to_string(at);
  };
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
  };
  const auto read_name = [&]() {
    const std::size_t start = at;
    while (at < xml.size() && name_char(xml[at])) ++at;
    return xml.substr(start, at - start);
  };
  // A reference at xml[at] == '&', appended resolved to out.
  const auto reference = [&](std::string& out) {
    const auto end = xml.find(';', at);
    if (end == std::string::npos) return fail("an unterminated reference"), false;
    const std::string name = xml.substr(at + 1, end - at - 1);
    static const std::map<std::string, std::string> kEntities = {
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
    if (auto it = kEntities.find(name); it != kEntities.end()) {
      out += it->second;
    } else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x';
      const std::string digits = name.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8 ||
          digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        return fail("a bad character reference &" + name + ";"), false;
      const auto code = static_cast<char32_t>(std::stoul(digits, nullptr, hex ? 16 : 10));
      if (!xml_char(code)) return fail("a reference to a character XML forbids"), false;
      out += utf8(code);
    } else {
      return fail("an unknown entity &" + name + ";"), false;
    }
    at = end + 1;
    return true;
  };
  const auto space = [&]() {
    while (at < xml.size() && (xml[at] == ' ' || xml[at] == '\n' || xml[at] == '\t' || xml[at] == '\r')) ++at;
  };

  if (xml.rfind("<?xml ", 0) != 0) return fail("no XML declaration"), check;
  at = xml.find("?>");
  if (at == std::string::npos) return fail("an unterminated XML declaration"), check;
  at += 2;
  std::vector<std::size_t> open;  // indices into check.elements
  bool had_root = false;
  while (at < xml.size() && check.problem.empty()) {
    if (xml[at] == '<') {
      ++at;
      if (at < xml.size() && xml[at] == '/') {
        ++at;
        const std::string name = read_name();
        space();
        if (open.empty() || check.elements[open.back()].name != name)
          return fail("a stray end tag </" + name + ">"), check;
        if (at >= xml.size() || xml[at] != '>') return fail("an unterminated end tag"), check;
        ++at;
        open.pop_back();
        continue;
      }
      if (open.empty() && had_root) return fail("a second root element"), check;
      XmlElement element;
      element.name = read_name();
      if (element.name.empty()) return fail("'<' that starts no element"), check;
      while (true) {
        const std::size_t before = at;
        space();
        if (at >= xml.size()) return fail("an unterminated start tag"), check;
        if (xml.compare(at, 2, "/>") == 0 || xml[at] == '>') break;
        if (at == before) return fail("no space before an attribute"), check;
        const std::string key = read_name();
        if (key.empty() || at >= xml.size() || xml[at] != '=') return fail("a bad attribute"), check;
        ++at;
        if (at >= xml.size() || (xml[at] != '"' && xml[at] != '\'')) return fail("an unquoted value"), check;
        const char quote = xml[at++];
        std::string value;
        while (at < xml.size() && xml[at] != quote) {
          if (xml[at] == '<') return fail("'<' in an attribute value"), check;
          if (xml[at] == '&') {
            if (!reference(value)) return check;
          } else {
            value += xml[at++];
          }
        }
        if (at >= xml.size()) return fail("an unterminated attribute value"), check;
        ++at;
        if (!element.attributes.emplace(key, value).second) return fail("a repeated attribute"), check;
      }
      had_root = true;
      check.elements.push_back(element);
      if (xml[at] == '>') {
        open.push_back(check.elements.size() - 1);
        ++at;
      } else {
        at += 2;
      }
    } else if (xml[at] == '&') {
      std::string text;
      if (!reference(text)) return check;
      if (open.empty()) return fail("a reference outside the root"), check;
      check.elements[open.back()].text += text;
    } else {
      if (xml.compare(at, 3, "]]>") == 0) return fail("]]> in text"), check;
      const char c = xml[at];
      if (open.empty() && c != ' ' && c != '\n' && c != '\t' && c != '\r')
        return fail("text outside the root"), check;
      if (!open.empty()) check.elements[open.back()].text += c;
      ++at;
    }
  }
  if (check.problem.empty() && !open.empty()) fail("unclosed <" + check.elements[open.back()].name + ">");
  if (check.problem.empty() && !had_root) fail("no root element");
  return check;
}

std::size_t cell_count(const std::string& row) {
  std::size_t cells = 0;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\') ++i;
    else if (row[i] == '|') ++cells;
  }
  return cells;
}

}  // namespace kiln::conformance::report_checks
