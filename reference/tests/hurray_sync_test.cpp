// HURRAY.md and kiln::hurray's tables agree: the rule IDs (every one documented,
// none invented), each rule's class, and every row of the type table (tag, name,
// tier, width, and whether the tag is the seed's or an assumption).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "kiln/hurray.hpp"

#ifndef KILN_HURRAY_MD_PATH
#error "KILN_HURRAY_MD_PATH must name reference/HURRAY.md"
#endif

namespace kiln::hurray {
namespace {

std::string hurray_md() {
  std::ifstream file(KILN_HURRAY_MD_PATH);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::set<std::string> rule_ids_in(const std::string& text) {
  static const std::regex kRuleId(R"(\bHURRAY-[A-Z0-9]+(-[A-Z0-9]+)*\b)");
  std::set<std::string> ids;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kRuleId);
       it != std::sregex_iterator(); ++it)
    ids.insert(it->str());
  return ids;
}

TEST(HurraySync, ExtractorFindsWholeIds) {
  EXPECT_EQ(rule_ids_in("see HURRAY-PAD-6BIT, `HURRAY-TAG-ZERO-FF` and XHURRAY-NO; HURRAY- alone"),
            (std::set<std::string>{"HURRAY-PAD-6BIT", "HURRAY-TAG-ZERO-FF"}));
}

TEST(HurraySync, HurrayMdNamesExactlyTheRulesOfTheCodec) {
  const std::string text = hurray_md();
  ASSERT_FALSE(text.empty()) << "cannot read " << KILN_HURRAY_MD_PATH;
  const std::set<std::string> documented = rule_ids_in(text);
  std::set<std::string> implemented;
  for (const RuleInfo& info : all_rules()) implemented.insert(std::string(info.id));
  for (const auto& id : implemented)
    EXPECT_TRUE(documented.count(id)) << id << " is in all_rules() but not in HURRAY.md";
  for (const auto& id : documented)
    EXPECT_TRUE(implemented.count(id)) << id << " is in HURRAY.md but not in all_rules()";
}

// Rows of the rule table: | `HURRAY-...` | TAG or DATA | ...
TEST(HurraySync, RuleTableGivesEachRuleItsClass) {
  const std::string text = hurray_md();
  static const std::regex kRow(R"(\n\| `(HURRAY-[A-Z0-9-]+)` \| (TAG|DATA) \|)");
  std::map<std::string, std::string> rows;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kRow);
       it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(rows.emplace((*it)[1].str(), (*it)[2].str()).second) << (*it)[1] << " twice";
  EXPECT_EQ(rows.size(), all_rules().size());
  for (const RuleInfo& info : all_rules()) {
    const auto row = rows.find(std::string(info.id));
    ASSERT_NE(row, rows.end()) << info.id << " has no row in the rule table";
    EXPECT_EQ(row->second, to_string(info.error_class)) << info.id;
  }
}

// Rows of the type table: | 0x42 | float8_e8m0 | 2 | 8 | ... | seed |
TEST(HurraySync, TypeTableIsTheCodesTable) {
  const std::string text = hurray_md();
  static const std::regex kRow(
      R"(\n\| 0x([0-9A-F]{2}) \| ([a-z0-9_]+) \| ([12]) \| ([0-9]+) \| [^|]+ \| (seed|assumption) \|)");
  std::size_t rows = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kRow);
       it != std::sregex_iterator(); ++it) {
    ++rows;
    const std::string name = (*it)[2];
    const TypeInfo* info = type_by_name(name);
    ASSERT_NE(info, nullptr) << name << " is in HURRAY.md but not in kTypes";
    EXPECT_EQ(std::stoul((*it)[1].str(), nullptr, 16), info->tag) << name;
    EXPECT_EQ(std::stoul((*it)[3].str()), static_cast<unsigned>(info->tier)) << name;
    EXPECT_EQ(std::stoul((*it)[4].str()), info->bits) << name;
    EXPECT_EQ((*it)[5].str() == "assumption", info->source == TagSource::kAssumed) << name;
  }
  EXPECT_EQ(rows, kTypes.size());
}

}  // namespace
}  // namespace kiln::hurray
