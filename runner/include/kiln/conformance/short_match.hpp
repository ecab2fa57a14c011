// std::regex recurses once per character in libstdc++, so matching a long,
// hostile scalar can exhaust the stack. Every pattern the case tools match is a
// short token (an id, an anchor, a field name): longer text is simply no match.
#pragma once

#include <regex>
#include <string>

namespace kiln::conformance {

inline constexpr std::size_t kLongestToken = 256;

inline bool short_match(const std::string& text, std::smatch& match, const std::regex& pattern) {
  return text.size() <= kLongestToken && std::regex_match(text, match, pattern);
}

inline bool short_match(const std::string& text, const std::regex& pattern) {
  std::smatch match;
  return short_match(text, match, pattern);
}

}  // namespace kiln::conformance
