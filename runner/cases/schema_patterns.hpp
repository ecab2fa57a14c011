// The case schema's "pattern" keywords, matched with RE2 where RE2 and
// std::regex (ECMAScript, valijson's engine) match exactly the same strings.
// valijson's own matching of a long hex block with std::regex was most of
// what applying the schema cost. A pattern outside that shared syntax, or one
// RE2 cannot compile, stays with std::regex, so every pattern means what it
// meant. case_loader.cpp routes valijson's pattern checks here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace re2 {
class RE2;
}

namespace kiln::conformance {

class SchemaPatterns {
 public:
  SchemaPatterns();
  ~SchemaPatterns();
  SchemaPatterns(SchemaPatterns&&) noexcept;
  SchemaPatterns& operator=(SchemaPatterns&&) noexcept;

  // Compiles pattern with RE2 when its syntax is in the shared part.
  void add(const std::string& pattern);
  // Whether text holds a match (as std::regex_search says), or nullopt for a
  // pattern left to std::regex.
  std::optional<bool> search(const std::string& pattern, std::string_view text) const;

  // The patterns valijson's checks on this thread use while the scope lasts.
  class Scope {
   public:
    explicit Scope(const SchemaPatterns& patterns);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const SchemaPatterns* previous_;
  };
  static const SchemaPatterns* on_this_thread();

 private:
  std::unordered_map<std::string, std::unique_ptr<re2::RE2>> compiled_;
};

// Whether pattern keeps to the syntax ECMAScript and RE2 (on bytes, Latin-1)
// read alike: ASCII literals and escaped metacharacters, \n \t \r \f \v,
// bracket classes of those and ranges, groups without "(?", alternation,
// anchors and the greedy or lazy quantifiers * + ? {n} {n,} {n,m} (m <= 1000).
// Not '.', shorthand classes (\d \s \w), backreferences or lookaround, where
// the two differ.
bool in_shared_regex_syntax(std::string_view pattern);

}  // namespace kiln::conformance
