#include "schema_patterns.hpp"

#include <re2/re2.h>

#include <cstddef>

namespace kiln::conformance {

namespace {

thread_local const SchemaPatterns* current_patterns = nullptr;

bool is_metacharacter(char c) {
  return std::string_view("\\^$.|?*+()[]{}/-").find(c) != std::string_view::npos;
}

// An escape both read alike: a metacharacter taken literally, or a control.
bool is_shared_escape(char c) {
  return is_metacharacter(c) || c == 'n' || c == 't' || c == 'r' || c == 'f' || c == 'v';
}

bool is_plain_ascii(char c) { return c >= 0x20 && c < 0x7f; }

// The character a class item stands for at pattern[i] (a literal or an
// escape), advancing i past it; -1 if it is not one both read alike.
int class_character(std::string_view pattern, std::size_t& i) {
  const char c = pattern[i];
  if (c == '\\') {
    if (i + 1 >= pattern.size() || !is_shared_escape(pattern[i + 1])) return -1;
    const char e = pattern[i + 1];
    i += 2;
    switch (e) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'f': return '\f';
      case 'v': return '\v';
      default: return static_cast<unsigned char>(e);
    }
  }
  if (!is_plain_ascii(c) || c == '[' || c == ']' || c == '-') return -1;
  ++i;
  return static_cast<unsigned char>(c);
}

// Past the bracket class that opens at pattern[i], or npos.
std::size_t past_class(std::string_view pattern, std::size_t i) {
  ++i;
  if (i < pattern.size() && pattern[i] == '^') ++i;
  bool empty = true;
  while (i < pattern.size() && pattern[i] != ']') {
    // '-' first or last is itself, for both.
    if (pattern[i] == '-' && (empty || (i + 1 < pattern.size() && pattern[i + 1] == ']'))) {
      ++i;
      empty = false;
      continue;
    }
    const int low = class_character(pattern, i);
    if (low < 0) return std::string_view::npos;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      ++i;
      const int high = class_character(pattern, i);
      if (high < low) return std::string_view::npos;
    }
    empty = false;
  }
  if (i >= pattern.size() || empty) return std::string_view::npos;
  return i + 1;
}

// Past a {n}, {n,} or {n,m} at pattern[i], or npos.
std::size_t past_braces(std::string_view pattern, std::size_t i) {
  auto number = [&](std::size_t& at, long& value) {
    const std::size_t start = at;
    value = 0;
    while (at < pattern.size() && pattern[at] >= '0' && pattern[at] <= '9' && at - start < 5)
      value = value * 10 + (pattern[at++] - '0');
    return at > start;
  };
  ++i;
  long low = 0;
  long high = 0;
  if (!number(i, low)) return std::string_view::npos;
  high = low;
  if (i < pattern.size() && pattern[i] == ',') {
    ++i;
    if (i < pattern.size() && pattern[i] != '}' && !number(i, high)) return std::string_view::npos;
    if (pattern[i - 1] == ',') high = low;  // {n,}: no upper bound to check
  }
  if (i >= pattern.size() || pattern[i] != '}' || high < low || high > 1000) return std::string_view::npos;
  return i + 1;
}

}  // namespace

bool in_shared_regex_syntax(std::string_view pattern) {
  bool after_atom = false;  // a quantifier may follow
  int depth = 0;
  for (std::size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (!is_plain_ascii(c)) return false;
    switch (c) {
      case '\\':
        if (i + 1 >= pattern.size() || !is_shared_escape(pattern[i + 1])) return false;
        i += 2;
        after_atom = true;
        continue;
      case '[':
        i = past_class(pattern, i);
        if (i == std::string_view::npos) return false;
        after_atom = true;
        continue;
      case '(':
        if (i + 1 < pattern.size() && pattern[i + 1] == '?') return false;
        ++depth;
        after_atom = false;
        break;
      case ')':
        if (depth-- == 0) return false;
        after_atom = true;
        break;
      case '|':
      case '^':
      case '$': after_atom = false; break;
      case '*':
      case '+':
      case '?':
      case '{': {
        if (!after_atom) return false;
        if (c == '{') {
          i = past_braces(pattern, i);
          if (i == std::string_view::npos) return false;
        } else {
          ++i;
        }
        if (i < pattern.size() && pattern[i] == '?') ++i;  // lazy: the same strings match
        after_atom = false;
        continue;
      }
      case '.':
      case ']':
      case '}': return false;
      default: after_atom = true; break;
    }
    ++i;
  }
  return depth == 0;
}

SchemaPatterns::SchemaPatterns() = default;
SchemaPatterns::~SchemaPatterns() = default;
SchemaPatterns::SchemaPatterns(SchemaPatterns&&) noexcept = default;
SchemaPatterns& SchemaPatterns::operator=(SchemaPatterns&&) noexcept = default;

void SchemaPatterns::add(const std::string& pattern) {
  if (compiled_.count(pattern) || !in_shared_regex_syntax(pattern)) return;
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as std::regex<char> reads them
  options.set_log_errors(false);
  auto compiled = std::make_unique<RE2>(pattern, options);
  if (compiled->ok()) compiled_.emplace(pattern, std::move(compiled));
}

std::optional<bool> SchemaPatterns::search(const std::string& pattern, std::string_view text) const {
  const auto found = compiled_.find(pattern);
  if (found == compiled_.end()) return std::nullopt;
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *found->second);
}

SchemaPatterns::Scope::Scope(const SchemaPatterns& patterns) : previous_(current_patterns) {
  current_patterns = &patterns;
}

SchemaPatterns::Scope::~Scope() { current_patterns = previous_; }

const SchemaPatterns* SchemaPatterns::on_this_thread() { return current_patterns; }

}  // namespace kiln::conformance
