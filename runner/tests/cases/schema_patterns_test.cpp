// The case schema's patterns matched by RE2 (cases/schema_patterns.hpp): only
// in the syntax ECMAScript and RE2 share, and then to the same verdict as
// std::regex_search, which valijson would have used.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "cases/schema_patterns.hpp"

namespace kiln::conformance {
namespace {

void collect_patterns(const nlohmann::json& json, std::vector<std::string>& patterns) {
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (key == "pattern" && value.is_string()) patterns.push_back(value.get<std::string>());
      collect_patterns(value, patterns);
    }
  } else if (json.is_array()) {
    for (const auto& value : json) collect_patterns(value, patterns);
  }
}

std::vector<std::string> suite_schema_patterns() {
  std::ifstream file(std::string(KILN_SOURCE_CASES_DIR) + "/case.schema.json");
  std::vector<std::string> patterns;
  collect_patterns(nlohmann::json::parse(file), patterns);
  return patterns;
}

TEST(SchemaPatterns, EveryPatternOfTheSuiteSchemaIsMatchedByRe2AsByStdRegex) {
  const auto patterns = suite_schema_patterns();
  ASSERT_GT(patterns.size(), 10u);
  std::mt19937 random(42);
  // The characters the patterns are about, and some they are not.
  const std::string alphabet = "0123456789abcdefABCDEF-+[]._ \nxyzKILNHURAYTPEFM\xc3\xa9\x80";
  for (const std::string& pattern : patterns) {
    SCOPED_TRACE(pattern);
    EXPECT_TRUE(in_shared_regex_syntax(pattern));
    SchemaPatterns compiled;
    compiled.add(pattern);
    const std::regex reference(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
    std::vector<std::string> texts = {"", "00", "0a\n1b\n", "FRAME-MAGIC", "kiln-v2-x", "tensor[0].name+1",
                                      "seed 000 kiln-v2-a", "brief", "0x1F", "HURRAY-TAG", "a\n"};
    for (int i = 0; i < 3000; ++i) {
      std::string text;
      const int length = static_cast<int>(random() % 24);
      for (int k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
      texts.push_back(text);
    }
    for (const std::string& text : texts) {
      const auto matched = compiled.search(pattern, text);
      ASSERT_TRUE(matched.has_value());
      EXPECT_EQ(*matched, std::regex_search(text, reference)) << "text '" << text << "'";
    }
  }
}

TEST(SchemaPatterns, SyntaxTheEnginesReadDifferentlyStaysWithStdRegex) {
  for (const std::string pattern :
       {".", "a.b", "\\d", "\\w+", "\\s", "\\b", "(?=a)", "(?:a)", "(a)\\1", "a{1001}", "[[:alpha:]]",
        "[]a]", "[a--]", "\\x41", "\\u0041", "a**", "*a", "é", "(a", "a)", "{1}", "[z-a]"}) {
    EXPECT_FALSE(in_shared_regex_syntax(pattern)) << pattern;
    SchemaPatterns compiled;
    compiled.add(pattern);
    EXPECT_FALSE(compiled.search(pattern, "a").has_value()) << pattern;
  }
  for (const std::string pattern : {"^a$", "^([0-9a-f]{2}|\\n)*$", "^[^\\n]+$", "a{2,}", "a{0,1000}?",
                                    "^(x|y\\-z)+$", "[\\]\\[]", "\\.\\*", "[a-z0-9-]", "[-a]"})
    EXPECT_TRUE(in_shared_regex_syntax(pattern)) << pattern;
}

TEST(SchemaPatterns, AScopeSetsThePatternsOfItsThreadOnly) {
  SchemaPatterns outer;
  SchemaPatterns inner;
  EXPECT_EQ(SchemaPatterns::on_this_thread(), nullptr);
  {
    const SchemaPatterns::Scope first(outer);
    EXPECT_EQ(SchemaPatterns::on_this_thread(), &outer);
    {
      const SchemaPatterns::Scope second(inner);
      EXPECT_EQ(SchemaPatterns::on_this_thread(), &inner);
    }
    EXPECT_EQ(SchemaPatterns::on_this_thread(), &outer);
  }
  EXPECT_EQ(SchemaPatterns::on_this_thread(), nullptr);
}

}  // namespace
}  // namespace kiln::conformance
