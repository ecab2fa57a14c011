// Checks of what the reports write, made apart from the report code itself:
// strict UTF-8, well-formed XML 1.0 and GFM table cells. report_test.cpp and
// generated_report_test.cpp both use them, so they are defined once, in
// report_checks.cpp.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::conformance::report_checks {

// Strict UTF-8 decoding, written apart from the report's own: the code points,
// or nullopt at the first byte that does not start a well-formed sequence.
std::optional<std::u32string> decode_utf8(std::string_view text, std::size_t* bad_at = nullptr);

// A strict well-formedness check of the XML subset junit_report writes (an XML
// declaration, elements, attributes, text, entity and character references):
// anything else, a forbidden character, an unbalanced tag or a stray & or < is
// a problem. Collects each element's attributes, references resolved.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // character data directly inside, references resolved
};

struct XmlCheck {
  std::string problem;  // empty: well formed
  std::vector<XmlElement> elements;
};

XmlCheck check_xml(const std::string& xml);

// GFM table cells: a '|' not escaped by a backslash ends a cell; a backslash
// escapes the character after it. The row's own leading '|' opens the first.
std::size_t cell_count(const std::string& row);

}  // namespace kiln::conformance::report_checks
