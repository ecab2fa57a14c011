// FORMAT.md and kiln::all_rules() name the same rule IDs: a rule documented but
// not implemented, or implemented but not documented, fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "kiln/rules.hpp"

#ifndef KILN_FORMAT_MD_PATH
#error "KILN_FORMAT_MD_PATH must name reference/FORMAT.md"
#endif

namespace kiln {
namespace {

std::set<std::string> rule_ids_in(const std::string& text) {
  static const std::regex kRuleId(R"(\b(FRAME|TYPE)-[A-Z0-9]+(-[A-Z0-9]+)*\b)");
  std::set<std::string> ids;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kRuleId);
       it != std::sregex_iterator(); ++it)
    ids.insert(it->str());
  return ids;
}

TEST(FormatSync, ExtractorFindsWholeIds) {
  EXPECT_EQ(rule_ids_in("see FRAME-PAD-GAP, `TYPE-BOOL-BYTE` and XFRAME-NO; FRAME- alone"),
            (std::set<std::string>{"FRAME-PAD-GAP", "TYPE-BOOL-BYTE"}));
}

TEST(FormatSync, FormatMdNamesExactlyTheRulesOfTheLibrary) {
  std::ifstream file(KILN_FORMAT_MD_PATH);
  ASSERT_TRUE(file) << "cannot read " << KILN_FORMAT_MD_PATH;
  std::stringstream text;
  text << file.rdbuf();
  const std::set<std::string> documented = rule_ids_in(text.str());

  std::set<std::string> implemented;
  for (const RuleInfo& info : all_rules()) implemented.insert(std::string(info.id));

  for (const auto& id : implemented)
    EXPECT_TRUE(documented.count(id)) << id << " is in all_rules() but not in FORMAT.md";
  for (const auto& id : documented)
    EXPECT_TRUE(implemented.count(id)) << id << " is in FORMAT.md but not in all_rules()";
}

}  // namespace
}  // namespace kiln
