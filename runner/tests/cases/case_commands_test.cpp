// The `cases` commands on a good case set (issue 3 item 4): regen writes only
// ops and block, keeping comments and key order, and is idempotent; check names
// the case, byte and field that differ from the regenerated block; coverage
// lists every rule; export writes each block and an index.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/hex.hpp"
#include "kiln/rules.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::snapshot;
using testing::write_text;

std::vector<std::uint8_t> bytes_of_hex(std::string_view hex) {
  auto bytes = from_hex(hex);
  EXPECT_TRUE(bytes.has_value()) << hex;
  return bytes.value_or(std::vector<std::uint8_t>{});
}

// ---- regen ----

// The brief's block in the case-file form: "block: |" and 32 bytes a line.
std::string u4_block_key() {
  const std::string hex = testing::kU4BlockHex;
  std::string text = "block: |\n";
  for (std::size_t at = 0; at < hex.size(); at += 64) text += "  " + hex.substr(at, 64) + "\n";
  return text;
}

const char* const kCommentedU4 =
    "# The brief's worked example.\n"
    "id: kiln-v2-u4\n"
    "summary: u4 [3] holds 1, 2, 3 as 21 03\n"
    "rules: [TYPE-BYTE-LENGTH, TYPE-HIGH-NIBBLE]\n"
    "source: seed 000 kiln-v2-u4\n"
    "level: required\n"
    "tensors:   # one tensor\n"
    "  - name: \"x\"\n"
    "    dtype: u4\n"
    "    shape: [3]\n"
    "    values: [1, 2, 3]  # low nibble first\n"
    "ops: [decode]\n"
    "expect:\n"
    "  result: accept\n"
    "# a comment at the end stays at the end\n";

TEST(CasesRegen, RewritesOnlyOpsAndBlockKeepingCommentsAndKeyOrder) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "seed" / "kiln-v2-u4.yaml", kCommentedU4);

  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(root, out, err), kExitOk) << err.str();
  std::string expected = kCommentedU4;
  expected.replace(expected.find("ops: [decode]\n"), 14, "ops: [decode, encode]\n");
  expected += u4_block_key();
  EXPECT_EQ(read_text(root / "seed" / "kiln-v2-u4.yaml"), expected);
  EXPECT_NE(out.str().find("1 file(s) rewritten"), std::string::npos) << out.str();
}

TEST(CasesRegen, ReplacesAStaleBlockWhereItStands) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  const std::string head =
      "id: kiln-v2-u4\n"
      "summary: u4 [3] holds 1, 2, 3 as 21 03\n"
      "rules: [TYPE-BYTE-LENGTH]\n"
      "source: suite\n"
      "level: required\n"
      "tensors:\n"
      "  - {name: x, dtype: u4, shape: [3], values: [1, 2, 3]}\n";
  const std::string tail =
      "ops: [decode, encode]\n"
      "expect:\n"
      "  result: accept\n";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml", head + "block: |\n  00ff\n\n  ee\n" + tail);

  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(root, out, err), kExitOk) << err.str();
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"), head + u4_block_key() + tail);
}

TEST(CasesRegen, IsIdempotent) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  const auto after_first = snapshot(root);

  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(root, out, err), kExitOk) << err.str();
  EXPECT_NE(out.str().find("regen: 6 cases, 0 file(s) rewritten"), std::string::npos) << out.str();
  EXPECT_EQ(snapshot(root), after_first);
}

TEST(CasesRegen, RewritesOpsThatTheSchemaWouldRefuse) {
  // case.schema.json wants [decode] for a case with faults; a stale ops is regen's
  // to fix, so the loader checks only its form.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  const std::string text = testing::seed_case_texts().at("kiln-v2-le-clear");
  write_text(root / "kiln-v2-le-clear.yaml", text + "ops: [decode, encode]\n");
  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(root, out, err), kExitOk) << err.str();
  const std::string after = read_text(root / "kiln-v2-le-clear.yaml");
  EXPECT_EQ(after.substr(0, text.size() + 14), text + "ops: [decode]\n") << after;
  std::ostringstream check_out, check_err;
  EXPECT_EQ(cases_check(root, check_out, check_err), kExitOk) << check_err.str();
}

TEST(CasesRegen, LeavesNoBlockForAnEncoderOnlyCase) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-rank-65536.yaml",
             "id: kiln-v2-rank-65536\n"
             "summary: rank 65536 does not fit the rank field\n"
             "rules: [FRAME-FIELD-RANGE]\n"
             "source: suite\n"
             "level: required\n"
             "tensors:\n"
             "  - {name: x, dtype: u8, shape: {rank: 65536, fill: 1}, payload: \"00\"}\n"
             "expect: {result: reject, class: FRAME, rule: FRAME-FIELD-RANGE}\n");
  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(root, out, err), kExitOk) << err.str();
  const std::string text = read_text(root / "kiln-v2-rank-65536.yaml");
  EXPECT_NE(text.find("\nops: [encode]\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("block:"), std::string::npos) << text;
  std::ostringstream check_out, check_err;
  EXPECT_EQ(cases_check(root, check_out, check_err), kExitOk) << check_err.str();
}

// ---- check ----

class CasesCheck : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root_)); }
  std::filesystem::path file(const std::string& id) const {
    const bool type_case = testing::seed_case_texts().at(id).find("class: TYPE") != std::string::npos;
    return root_ / (type_case ? "type" : "other") / (id + ".yaml");
  }
  int check(std::string& err_text) {
    std::ostringstream out, err;
    const int code = cases_check(root_, out, err);
    err_text = err.str();
    return code;
  }
  ScratchDir scratch_;
  std::filesystem::path root_ = scratch_ / "cases";
};

TEST_F(CasesCheck, PassesOnRegeneratedCases) {
  std::string err;
  EXPECT_EQ(check(err), kExitOk) << err;
  EXPECT_EQ(err, "");
}

TEST_F(CasesCheck, NamesTheCaseTheFirstDifferingByteAndItsFieldOfAStoredBlock) {
  std::string text = read_text(file("kiln-v2-u4"));
  // Byte 129 is the last payload byte, 03: the fifth block line's second byte.
  const std::string last_line = "  2103\n";
  const auto at = text.find(last_line);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, last_line.size(), "  2104\n");
  write_text(file("kiln-v2-u4"), text);

  std::string err;
  EXPECT_EQ(check(err), kExitFailures);
  EXPECT_NE(err.find("other/kiln-v2-u4.yaml: kiln-v2-u4: stored block differs from the "
                     "regenerated one at byte 129: tensor 0 payload"),
            std::string::npos)
      << err;
}

TEST_F(CasesCheck, ReportsOpsThatDifferFromTheDerivedOnes) {
  std::string text = read_text(file("kiln-v2-f32"));
  const auto at = text.find("ops: [decode, encode]");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 21, "ops: [decode]");
  write_text(file("kiln-v2-f32"), text);

  std::string err;
  EXPECT_EQ(check(err), kExitFailures);
  EXPECT_NE(err.find("kiln-v2-f32: ops is [decode], derived is [decode, encode]"), std::string::npos)
      << err;
}

TEST_F(CasesCheck, ReportsAnExpectedRuleTheReferenceDoesNotReport) {
  std::string text = read_text(file("kiln-v2-high-nibble"));
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"rules: [TYPE-HIGH-NIBBLE]", "rules: [TYPE-BYTE-LENGTH]"},
        {"rule: TYPE-HIGH-NIBBLE", "rule: TYPE-BYTE-LENGTH"}}) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, from.size(), to);
  }
  write_text(file("kiln-v2-high-nibble"), text);

  std::string err;
  EXPECT_EQ(check(err), kExitFailures);
  EXPECT_NE(err.find("kiln-v2-high-nibble: decode: expected reject TYPE TYPE-BYTE-LENGTH, the "
                     "reference reports"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("TYPE-HIGH-NIBBLE"), std::string::npos) << err;
  EXPECT_NE(err.find("kiln-v2-high-nibble: encode: expected reject TYPE TYPE-BYTE-LENGTH"),
            std::string::npos)
      << err;
}

TEST_F(CasesCheck, ReportsACaseWithoutABlock) {
  // A new case, which regen has not written yet: it loads, so that regen can.
  write_text(file("kiln-v2-f32"), testing::seed_case_texts().at("kiln-v2-f32"));
  std::string err;
  EXPECT_EQ(check(err), kExitFailures);
  EXPECT_NE(err.find("kiln-v2-f32: has no block"), std::string::npos) << err;
}

// ---- coverage ----

TEST(CasesCoverage, ListsEveryRuleAndFailsWhileARuleHasNoBreakingCase) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::ostringstream out, err;
  EXPECT_EQ(cases_coverage(root, out, err), kExitFailures);

  std::map<std::string, std::string> row_of_rule;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    const auto space = line.find(' ');
    if (space != std::string::npos) row_of_rule[line.substr(0, space)] = line;
  }
  for (const RuleInfo& rule : all_rules()) {
    const std::string id(rule.id);
    ASSERT_TRUE(row_of_rule.count(id)) << id << " missing from\n" << out.str();
    const std::string& row = row_of_rule[id];
    if (id == "TYPE-HIGH-NIBBLE")
      EXPECT_NE(row.find("kiln-v2-high-nibble"), std::string::npos) << row;
    else if (id == "TYPE-BOOL-BYTE")
      EXPECT_NE(row.find("kiln-v2-bool-byte"), std::string::npos) << row;
    else if (id == "FRAME-LE-FLAG")
      EXPECT_NE(row.find("kiln-v2-le-clear"), std::string::npos) << row;
    else
      EXPECT_NE(row.find("NO CASE BREAKS THIS RULE"), std::string::npos) << row;
  }
  const std::size_t uncovered = all_rules().size() - 3;
  EXPECT_NE(out.str().find("6 cases, " + std::to_string(all_rules().size()) + " rules, " +
                           std::to_string(uncovered) + " rule(s) without a breaking case"),
            std::string::npos)
      << out.str();
}

// ---- export ----

TEST(CasesExport, WritesEachBlockAndAnIndexOfEveryCase) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::ostringstream out, err;
  ASSERT_EQ(cases_export(root, scratch / "export", out, err), kExitOk) << err.str();

  const auto index = nlohmann::json::parse(read_text(scratch / "export" / "index.json"));
  ASSERT_TRUE(index.contains("cases"));
  std::set<std::string> ids;
  for (const auto& entry : index["cases"]) {
    const std::string id = entry["id"];
    ids.insert(id);
    EXPECT_EQ(entry["file"], id + ".kiln");
  }
  std::set<std::string> expected_ids;
  for (const auto& [id, text] : testing::seed_case_texts()) expected_ids.insert(id);
  EXPECT_EQ(ids, expected_ids);

  // Every .kiln file holds exactly the case's block: the loader's bytes.
  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.cases.size(), 6u);
  for (const Case& c : set.cases) {
    ASSERT_TRUE(kiln_v2::body(c).block) << c.id;
    const std::string written = read_text(scratch / "export" / (c.id + ".kiln"));
    EXPECT_EQ(written, std::string(kiln_v2::body(c).block->begin(), kiln_v2::body(c).block->end())) << c.id;
  }
  EXPECT_EQ(read_text(scratch / "export" / "kiln-v2-u4.kiln"),
            [] {
              const auto bytes = bytes_of_hex(testing::kU4BlockHex);
              return std::string(bytes.begin(), bytes.end());
            }());

  const auto& high_nibble = *std::find_if(index["cases"].begin(), index["cases"].end(),
                                          [](const auto& e) { return e["id"] == "kiln-v2-high-nibble"; });
  EXPECT_EQ(high_nibble["expect"], nlohmann::json::parse(
                                       R"({"result":"reject","class":"TYPE","rule":"TYPE-HIGH-NIBBLE"})"));
  EXPECT_EQ(high_nibble["ops"], nlohmann::json::parse(R"(["decode","encode"])"));
  EXPECT_EQ(high_nibble["tensors"][0]["payload"], "2113");
}

}  // namespace
}  // namespace kiln::conformance
