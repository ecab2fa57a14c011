// The golden cases' tools (issue 3 item 4): strict loading with file:line:column
// errors (case.schema.json applied, plain bounded YAML, a walk of the cases folder
// that reports every entry it cannot use), regen that writes nothing on any error
// and only ops/block otherwise, check, coverage, export, and typed values packed
// exactly to the bit.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <sstream>

#include "kiln/builder.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/conformance/run.hpp"
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

// The lines of a valid case, numbered as in the file, for tests that break one.
std::vector<std::string> valid_lines() {
  return {
      "id: kiln-v2-broken",                      // 1
      "summary: a case file with one mistake",   // 2
      "rules: [TYPE-BYTE-LENGTH]",               // 3
      "source: suite",                           // 4
      "level: required",                         // 5
      "tensors:",                                // 6
      "  - name: \"x\"",                         // 7
      "    dtype: u8",                           // 8
      "    shape: [2]",                          // 9
      "    payload: \"0102\"",                   // 10
      "expect:",                                 // 11
      "  result: accept",                        // 12
  };
}

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

struct BrokenFile {
  std::string what;
  std::string text;
  int line;
  int column;
  std::string message;  // a fragment of what is wrong
};

std::vector<std::string> with_line(int number, const std::string& replacement) {
  auto lines = valid_lines();
  lines.at(static_cast<std::size_t>(number - 1)) = replacement;
  return lines;
}

std::vector<std::string> rejecting(const std::string& error_class, const std::string& rule,
                                   std::vector<std::string> lines = valid_lines()) {
  lines.resize(11);
  lines.push_back("  result: reject");
  lines.push_back("  class: " + error_class);
  lines.push_back("  rule: " + rule);
  return lines;
}

std::vector<BrokenFile> broken_files() {
  std::vector<BrokenFile> files;
  files.push_back({"bad_yaml_syntax", join(with_line(3, "rules: [TYPE-BYTE-LENGTH")), 0, 0,
                   ""});  // position filled in by the test from yaml-cpp's own report
  {
    auto lines = valid_lines();
    lines.insert(lines.begin() + 5, "colour: red");
    files.push_back({"unknown_top_level_key", join(lines), 6, 1,
                     "unknown key 'colour' in the case"});
  }
  files.push_back({"unknown_tensor_key", join(with_line(9, "    shapes: [2]")), 9, 5,
                   "unknown key 'shapes' in tensor 0"});
  // Hex errors point at the character (column 14 is the opening quote).
  files.push_back({"bad_hex_in_payload", join(with_line(10, "    payload: \"01zz\"")), 10, 17,
                   "payload: 'z' is not a hex digit at character 2"});
  files.push_back({"odd_hex_digits", join(with_line(10, "    payload: \"010\"")), 10, 17,
                   "payload: odd number of hex digits at character 2"});
  files.push_back({"unknown_rule_id", join(with_line(3, "rules: [TYPE-BYTE-LENGTH, TYPE-NO-SUCH]")),
                   3, 27, "'TYPE-NO-SUCH' is not a rule ID"});
  files.push_back({"rule_of_the_wrong_class",
                   join(rejecting("TYPE", "FRAME-MAGIC", with_line(3, "rules: [FRAME-MAGIC]"))), 14,
                   9, "rule FRAME-MAGIC is not of class TYPE"});
  // A hostile id of 200,000 characters once exhausted std::regex's recursion.
  files.push_back({"id_too_long_to_be_an_id",
                   join(with_line(1, "id: kiln-v2-" + std::string(200000, 'a'))), 1, 5,
                   "id is 200008 characters long, more than 256"});
  files.push_back({"source_too_long", join(with_line(4, "source: seed 000 kiln-v2-" +
                                                            std::string(200000, 'b'))),
                   4, 9, "source is 200017 characters long, more than 256"});
  {
    auto lines = valid_lines();
    lines[7] = "    dtype: f32";
    lines[8] = "    shape: [1]";
    lines[9] = "    values: [1e300]";
    files.push_back({"f32_value_beyond_float_range", join(lines), 10, 14,
                     "1e300 is not exactly representable as f32"});
  }
  files.push_back({"u8_value_out_of_range", join(with_line(10, "    values: [1, 256]")), 10, 17,
                   "256 is not an unsigned 8-bit integer for u8"});
  {
    auto lines = with_line(8, "    dtype: i4");
    lines[9] = "    values: [-8, -9]";
    files.push_back({"i4_value_out_of_range", join(lines), 10, 18,
                     "-9 is not a signed 4-bit integer for i4"});
  }
  {
    auto lines = with_line(8, "    dtype: f32");
    lines[8] = "    shape: [1]";
    lines[9] = "    values: [0.1]";
    files.push_back({"f32_value_not_exact", join(lines), 10, 14,
                     "0.1 is not exactly representable as f32"});
  }
  {
    auto lines = rejecting("FRAME", "FRAME-PAD-HEAP", with_line(3, "rules: [FRAME-PAD-HEAP]"));
    lines.insert(lines.begin() + 10, {"faults:", "  - {overwrite: \"nowhere+1\", bytes: \"01\"}"});
    files.push_back({"unknown_fault_anchor", join(lines), 12, 17, "unknown anchor 'nowhere'"});
  }
  {
    // 20 digits: more than any integer type holds, so parsing it must not throw.
    auto lines = rejecting("FRAME", "FRAME-TRUNCATED", with_line(3, "rules: [FRAME-TRUNCATED]"));
    lines.insert(lines.begin() + 10,
                 {"faults:", "  - {truncate: \"tensor[99999999999999999999].data\"}"});
    files.push_back({"anchor_with_a_huge_tensor_index", join(lines), 12, 16,
                     "anchor 'tensor[99999999999999999999].data' names a tensor the description "
                     "does not have"});
  }
  {
    auto lines = rejecting("FRAME", "FRAME-LE-FLAG", with_line(3, "rules: [FRAME-LE-FLAG]"));
    lines.insert(lines.begin() + 10, {"faults:", "  - {set: \"tensor[1].dtype\", value: 0}"});
    files.push_back({"set_names_a_missing_tensor", join(lines), 12, 11,
                     "tensor[1] does not exist"});
  }
  // ---- stricter than before: what case.schema.json and cases/README.md say ----
  {
    // yaml-cpp kept the first value and PyYAML the last: two readers, two cases.
    auto lines = valid_lines();
    lines.insert(lines.begin() + 5, "summary: a second summary");
    files.push_back({"duplicate_top_level_key", join(lines), 6, 1, "duplicate key 'summary'"});
  }
  {
    auto lines = valid_lines();
    lines.insert(lines.begin() + 8, "    dtype: u16");
    files.push_back({"duplicate_key_in_a_tensor", join(lines), 9, 5, "duplicate key 'dtype'"});
  }
  files.push_back({"duplicate_rule", join(with_line(3, "rules: [TYPE-BYTE-LENGTH, TYPE-BYTE-LENGTH]")),
                   3, 27, "rule TYPE-BYTE-LENGTH is listed twice"});
  files.push_back({"name_that_is_an_integer", join(with_line(7, "  - name: 123")), 7, 11,
                   "name must be a string, not an integer (quote it)"});
  files.push_back({"payload_with_a_space", join(with_line(10, "    payload: \"01 02\"")), 10, 17,
                   "payload: white space at character 2: hex is digits only"});
  files.push_back({"payload_in_upper_case", join(with_line(10, "    payload: \"0A02\"")), 10, 16,
                   "payload: upper-case hex digit 'A' at character 1: hex is lower case"});
  // valijson counts characters as UTF-8 and reads past its table on bad bytes.
  files.push_back({"summary_that_is_not_utf8",
                   join(with_line(2, "summary: a\x80\x80\x80\x80\x80\x80\x80" "b")), 2, 11,
                   "not UTF-8 at character 1"});
  files.push_back({"value_that_is_a_quoted_number", join(with_line(10, "    values: [\"1\", 2]")),
                   10, 14, "a value is a number, true or false, or a quoted \"0x...\" bit pattern, "
                           "not a string '1'"});
  {
    // The odd digit is on the block's second line, not at the key.
    auto lines = valid_lines();
    lines.insert(lines.end(), {"ops: [decode, encode]", "block: |", "  00ff", "  0"});
    files.push_back({"odd_hex_in_a_block", join(lines), 16, 3,
                     "block: odd number of hex digits at character 5"});
  }
  {
    auto lines = valid_lines();
    lines.insert(lines.end(), {"---", "id: kiln-v2-other"});
    files.push_back({"second_yaml_document", join(lines), 13, 1,
                     "a second YAML document: a case file holds exactly one"});
  }
  files.push_back({"empty_file", "", 1, 1, "no YAML document (the file is empty or only comments)"});
  files.push_back({"only_comments", "# a case to come\n\n", 1, 1, "no YAML document"});
  {
    // Aliases multiplied a 540 KB file into 4.2 GB: case files have none.
    auto lines = rejecting("FRAME", "FRAME-TRUNCATED", with_line(3, "rules: [FRAME-TRUNCATED]"));
    lines.insert(lines.begin() + 10,
                 {"faults:", "  - &cut {truncate: \"end-1\"}", "  - *cut"});
    files.push_back({"anchor_and_alias_in_faults", join(lines), 12, 5,
                     "an anchor '&cut': case files are plain YAML, without anchors or aliases"});
  }
  files.push_back({"a_tag", join(with_line(1, "id: !!str kiln-v2-broken")), 1, 5,
                   "a tag 'tag:yaml.org,2002:str': case files are plain YAML, without tags"});
  {
    // The root mapping, tensors and the tensor are 3 levels: the 30th [ is the 33rd.
    files.push_back({"nested_too_deep",
                     join(with_line(9, "    shape: " + std::string(40, '[') + std::string(40, ']'))),
                     9, 41, "nested more than 32 levels deep"});
  }
  {
    auto lines = rejecting("FRAME", "FRAME-PAD-HEAP", with_line(3, "rules: [FRAME-PAD-HEAP]"));
    lines.insert(lines.begin() + 10,
                 {"faults:", "  - {overwrite: \"end+18446744073709551615\", bytes: \"01\"}"});
    files.push_back({"anchor_offset_that_would_wrap", join(lines), 12, 17,
                     "anchor 'end+18446744073709551615' lies beyond 2^64 - 1"});
  }
  {
    // rank 65536 cannot be placed: no block can ever exist for this case.
    auto lines = with_line(9, "    shape: {rank: 65536, fill: 1}");
    lines.push_back("ops: [encode]");
    files.push_back({"accept_case_that_can_have_no_block", join(lines), 12, 11,
                     "an accept case must have a block, and its description cannot be placed in one"});
  }
  {
    auto lines = rejecting("FRAME", "FRAME-FIELD-RANGE",
                           with_line(3, "rules: [FRAME-FIELD-RANGE]"));
    lines[8] = "    shape: {rank: 65536, fill: 1}";
    lines.insert(lines.begin() + 10, {"faults:", "  - {append: \"00\"}"});
    files.push_back({"fault_case_that_can_have_no_block", join(lines), 12, 3,
                     "a case with faults is a decode test and must have a block, and its "
                     "description cannot be placed in one"});
  }
  return files;
}

// gtest prints a parameter by its name instead of its bytes.
void PrintTo(const BrokenFile& file, std::ostream* out) { *out << file.what; }

class BrokenCaseFile : public ::testing::TestWithParam<BrokenFile> {};

// A good case without ops and block sits beside the broken one: regen would
// write it if it wrote anything at all.
TEST_P(BrokenCaseFile, IsReportedAtFileLineColumnAndRegenWritesNothing) {
  const BrokenFile& broken = GetParam();
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "seed" / "kiln-v2-u4.yaml", testing::seed_case_texts().at("kiln-v2-u4"));
  write_text(root / "topic" / "kiln-v2-broken.yaml", broken.text);
  const auto before = snapshot(root);

  int line = broken.line;
  int column = broken.column;
  std::string message = broken.message;
  if (line == 0) {  // a syntax error: the position is wherever yaml-cpp reports it
    auto loaded =
        load_case_file(root / "topic" / "kiln-v2-broken.yaml", "x", testing::suite_schema());
    ASSERT_FALSE(loaded.ok());
    const CaseError& error = loaded.error();
    // The [ opened on line 3 is found unclosed where the next key starts.
    EXPECT_GE(error.where.line, 3) << error.describe();
    EXPECT_LE(error.where.line, 4) << error.describe();
    line = error.where.line;
    column = error.where.column;
    message = error.message;
    ASSERT_FALSE(message.empty());
  }

  std::ostringstream out, err;
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
  const std::string where = "cases/topic/kiln-v2-broken.yaml:" + std::to_string(line) + ":" +
                            std::to_string(column) + ": ";
  EXPECT_NE(err.str().find(where + message), std::string::npos)
      << "wanted " << where << "..." << message << "\ngot:\n" << err.str();
  EXPECT_NE(err.str().find("nothing written"), std::string::npos) << err.str();
  EXPECT_EQ(snapshot(root), before);

  std::ostringstream check_out, check_err;
  EXPECT_EQ(cases_check(root, check_out, check_err), kExitUsage);
  EXPECT_NE(check_err.str().find(where), std::string::npos) << check_err.str();
}

INSTANTIATE_TEST_SUITE_P(CaseFiles, BrokenCaseFile, ::testing::ValuesIn(broken_files()),
                         [](const auto& info) { return info.param.what; });

TEST(CaseSet, DuplicateIdInTwoFilesIsAnErrorAndRegenWritesNothing) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  const std::string text = testing::seed_case_texts().at("kiln-v2-u4");
  testing::write_schema(root);
  write_text(root / "a" / "kiln-v2-u4.yaml", text);
  write_text(root / "b" / "kiln-v2-u4.yaml", text);
  const auto before = snapshot(root);

  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(set.errors[0].describe(),
            "cases/b/kiln-v2-u4.yaml:1:1: duplicate id 'kiln-v2-u4', first in cases/a/kiln-v2-u4.yaml");

  std::ostringstream out, err;
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
  EXPECT_EQ(snapshot(root), before);
}

TEST(CaseSet, IdDifferingFromTheFileNameIsAnErrorAndRegenWritesNothing) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml", testing::seed_case_texts().at("kiln-v2-u4"));
  write_text(root / "kiln-v2-other-name.yaml", testing::seed_case_texts().at("kiln-v2-f32"));
  const auto before = snapshot(root);

  std::ostringstream out, err;
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
  EXPECT_NE(err.str().find("cases/kiln-v2-other-name.yaml:1:1: id 'kiln-v2-f32' differs from the "
                           "file name"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(snapshot(root), before);
}

TEST(CaseSet, AMissingDirectoryIsAUsageError) {
  ScratchDir scratch;
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(scratch / "no-such-dir", out, err), kExitUsage);
  EXPECT_EQ(cases_regen(scratch / "no-such-dir", out, err), kExitUsage);
  EXPECT_FALSE(std::filesystem::exists(scratch / "no-such-dir"));
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

// ---- typed values ----

struct TypedValues {
  std::string dtype;
  std::string shape;
  std::string values;
  std::string payload_hex;
};

void PrintTo(const TypedValues& typed, std::ostream* out) {
  *out << typed.dtype << " " << typed.values << " -> " << typed.payload_hex;
}

class TypedValuesPack : public ::testing::TestWithParam<TypedValues> {};

TEST_P(TypedValuesPack, ToTheExactBits) {
  const TypedValues& typed = GetParam();
  ScratchDir scratch;
  write_text(scratch / "kiln-v2-typed.yaml",
             "id: kiln-v2-typed\n"
             "summary: typed values\n"
             "rules: [TYPE-BYTE-LENGTH]\n"
             "source: suite\n"
             "level: required\n"
             "tensors:\n"
             "  - name: x\n"
             "    dtype: " + typed.dtype + "\n"
             "    shape: " + typed.shape + "\n"
             "    values: " + typed.values + "\n"
             "expect:\n"
             "  result: accept\n");
  auto loaded = load_case_file(scratch / "kiln-v2-typed.yaml", "kiln-v2-typed.yaml",
                               testing::suite_schema());
  ASSERT_TRUE(loaded.ok()) << loaded.error().describe();
  const Case& c = loaded.value();
  ASSERT_EQ(kiln_v2::body(c).description.tensors.size(), 1u);
  EXPECT_EQ(to_hex(kiln_v2::body(c).description.tensors[0].payload), typed.payload_hex);
}

INSTANTIATE_TEST_SUITE_P(
    CaseFiles, TypedValuesPack,
    ::testing::Values(TypedValues{"f16", "[1]", "[1.0]", "003c"},
                      TypedValues{"bf16", "[1]", "[1.0]", "803f"},
                      TypedValues{"f32", "[1]", "[-0.0]", "00000080"},
                      TypedValues{"f64", "[1]", "[\"0x7ff8000000000001\"]", "010000000000f87f"},
                      TypedValues{"i4", "[3]", "[-8, 7, 1]", "7801"},
                      TypedValues{"u4", "[3]", "[1, 2, 3]", "2103"},
                      TypedValues{"bool", "[2]", "[true, false]", "0100"},
                      TypedValues{"f16", "[2]", "[-.inf, 65504.0]", "00fcff7b"},
                      TypedValues{"i8", "[2]", "[-128, 127]", "807f"},
                      TypedValues{"f8e4m3", "[2]", "[\"0x38\", 56]", "3838"}),
    [](const auto& info) { return "case_" + std::to_string(info.index); });


// ---- the cases folder ----

bool has_error(const CaseSet& set, const std::string& text) {
  return std::any_of(set.errors.begin(), set.errors.end(),
                     [&](const CaseError& e) { return e.describe() == text; });
}

std::string all_errors(const CaseSet& set) {
  std::string text;
  for (const auto& error : set.errors) text += error.describe() + "\n";
  return text;
}

TEST(CaseSet, ALinkThatLeadsNowhereIsALoadErrorNamingIt) {
  // A link to itself once made a throwing is_regular_file abort every subcommand.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_symlink("loop.yaml", root / "type" / "loop.yaml");
  std::filesystem::create_symlink("loop", root / "other" / "loop");
  std::filesystem::create_symlink("no-such-file.yaml", root / "other" / "gone.yaml");

  CaseSet set;
  ASSERT_NO_THROW(set = load_case_set(root));
  EXPECT_TRUE(has_error(set, "cases/type/loop.yaml: a link that leads nowhere: Too many levels of "
                             "symbolic links"))
      << all_errors(set);
  EXPECT_TRUE(has_error(set, "cases/other/loop: a link that leads nowhere: Too many levels of "
                             "symbolic links"))
      << all_errors(set);
  EXPECT_TRUE(has_error(set, "cases/other/gone.yaml: a link that leads nowhere: No such file or "
                             "directory"))
      << all_errors(set);
  EXPECT_EQ(set.errors.size(), 3u) << all_errors(set);

  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitUsage);
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
}

TEST(CaseSet, ALinkToAFolderIsALoadErrorAndALinkToAFileIsFollowed) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_symlink("..", root / "type" / "up");
  std::filesystem::rename(root / "other" / "kiln-v2-f32.yaml", scratch / "kiln-v2-f32.yaml");
  std::filesystem::create_symlink(scratch / "kiln-v2-f32.yaml", root / "other" / "kiln-v2-f32.yaml");

  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/type/up: a link to a folder: links to folders are not followed\n");
  EXPECT_EQ(set.cases.size(), 6u);
}

TEST(CaseSet, AYamlEntryThatIsNotAFileIsALoadErrorNotAHang) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  ASSERT_EQ(::mkfifo((root / "type" / "kiln-v2-pipe.yaml").c_str(), 0600), 0) << std::strerror(errno);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/type/kiln-v2-pipe.yaml: not a regular file\n");
  // load_case_file itself opens without blocking and refuses it.
  auto loaded = load_case_file(root / "type" / "kiln-v2-pipe.yaml", "pipe.yaml", testing::suite_schema());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().describe(), "pipe.yaml: not a regular file");
}

// Root reads any folder: CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH override its
// permissions. Capabilities belong to a thread, so this drops the two from the
// calling thread's effective set while it lives (the permitted set keeps them,
// and the destructor raises them again).
class WithoutPermissionOverride {
 public:
  WithoutPermissionOverride() {
    if (::geteuid() != 0) {
      works_ = true;
      return;
    }
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capget, &header, saved_) != 0) return;
    __user_cap_data_struct reduced[2];
    std::memcpy(reduced, saved_, sizeof reduced);
    for (unsigned cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
      reduced[cap / 32].effective &= ~(1u << (cap % 32));
    header = {_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capset, &header, reduced) != 0) return;
    dropped_ = works_ = true;
  }
  ~WithoutPermissionOverride() {
    if (!dropped_) return;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    ::syscall(SYS_capset, &header, saved_);
  }
  WithoutPermissionOverride(const WithoutPermissionOverride&) = delete;
  WithoutPermissionOverride& operator=(const WithoutPermissionOverride&) = delete;
  bool works() const { return works_; }

 private:
  __user_cap_data_struct saved_[2]{};
  bool dropped_ = false;
  bool works_ = false;
};

TEST(CaseSet, AnUnreadableFolderMakesTheSetUnusable) {
  // It once shortened the case set silently: check and run exited 0.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::permissions(root / "type", std::filesystem::perms::none);
  struct Restore {
    std::filesystem::path folder;
    ~Restore() { std::filesystem::permissions(folder, std::filesystem::perms::owner_all); }
  } restore{root / "type"};

  CaseSet set;
  std::string check_err;
  int check_code = -1;
  {
    WithoutPermissionOverride unprivileged;
    if (!unprivileged.works())
      GTEST_SKIP() << "running as root and cannot drop CAP_DAC_OVERRIDE from this thread, so no "
                      "folder is unreadable; AFolderWalkErrorMakesTheSetUnusable covers the path";
    set = load_case_set(root);
    std::ostringstream out, err;
    check_code = cases_check(root, out, err);
    check_err = err.str();
  }
  EXPECT_EQ(all_errors(set), "cases/type: cannot read the folder: Permission denied\n");
  EXPECT_EQ(check_code, kExitUsage);
  EXPECT_NE(check_err.find("cases/type: cannot read the folder"), std::string::npos) << check_err;
}

TEST(CaseSet, AFolderWalkErrorMakesTheSetUnusable) {
  // Whoever runs the tests: folders nested past the bound stop the walk there,
  // and the set is unusable rather than shorter.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::path deep = root;
  std::string shown = "cases";
  for (int i = 0; i <= kMaxFolderDepth; ++i) {
    deep /= "d";
    shown += "/d";
  }
  std::filesystem::create_directories(deep);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), shown + ": folders nest more than 32 deep below the cases root\n");

  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitUsage);
  EXPECT_EQ(cases_check(root / "other" / "kiln-v2-f32.yaml", out, err), kExitUsage)
      << "a file where the cases folder is expected";
}

TEST(CaseSet, AFolderWithoutASchemaIsCheckedWithTheBuiltInOne) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::remove(root / kCaseSchemaFile);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "");
  EXPECT_EQ(set.cases.size(), 6u);
  // The built-in schema is the suite's file as it is now.
  EXPECT_EQ(builtin_case_schema_text(), read_text(testing::suite_schema_path()));
}

TEST(CaseSet, ASchemaThatCannotBeReadMakesTheSetUnusable) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::remove(root / kCaseSchemaFile);
  std::filesystem::create_symlink("nowhere.json", root / kCaseSchemaFile);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/case.schema.json: cannot open: No such file or directory\n");
  EXPECT_TRUE(set.cases.empty());
}

TEST(CaseSet, ASchemaThatIsNotJsonIsReportedAtItsLineAndColumn) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  write_text(root / kCaseSchemaFile, "{\n  \"type\": \"object\",\n  oops\n}\n");
  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(set.errors[0].where.describe(), "cases/case.schema.json:3:3") << all_errors(set);
  EXPECT_NE(set.errors[0].message.find("not JSON"), std::string::npos) << all_errors(set);
}

TEST(CaseSet, TheSchemaBesideTheCasesIsTheOneApplied) {
  // One source of truth: a rule only the schema states is enforced, at the node.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  auto schema = nlohmann::json::parse(read_text(root / kCaseSchemaFile));
  schema["properties"]["summary"]["maxLength"] = 20;
  write_text(root / kCaseSchemaFile, schema.dump(2));

  const CaseSet set = load_case_set(root);
  // The u4 case's summary, "u4 [3] holds 1, 2, 3 as 21 03", is longer.
  EXPECT_TRUE(has_error(set, "cases/other/kiln-v2-u4.yaml:2:10: summary (a string) does not satisfy "
                             "cases/case.schema.json: String should be no more than 20 characters "
                             "in length"))
      << all_errors(set);
}

TEST(CaseSet, EveryCaseOfTheSuiteSatisfiesTheSchema) {
  const auto cases = testing::suite_schema_path().parent_path();
  const CaseSet set = load_case_set(cases);
  EXPECT_EQ(all_errors(set), "");
  EXPECT_GE(set.cases.size(), 558u);
}

TEST(CaseSet, TheTopicIsTheFolderBelowTheRootHoweverTheRootIsSpelled) {
  // `--cases cases/` once put every case in "(top)".
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_directories(root / "a" / "b");
  std::filesystem::rename(root / "other" / "kiln-v2-f32.yaml", root / "a" / "b" / "kiln-v2-f32.yaml");
  std::filesystem::rename(root / "other" / "kiln-v2-u4.yaml", root / "kiln-v2-u4.yaml");

  for (const std::string& spelling :
       {root.string(), root.string() + "/", (root / ".").string(), root.string() + "//"}) {
    const CaseSet set = load_case_set(spelling);
    ASSERT_EQ(all_errors(set), "") << spelling;
    std::map<std::string, std::string> topic_of_id;
    for (const Case& c : set.cases) topic_of_id[c.id] = c.topic;
    EXPECT_EQ(topic_of_id["kiln-v2-f32"], "a/b") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-u4"], "") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-bool-byte"], "type") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-le-clear"], "other") << spelling;

    RunOptions options;
    options.cases_dir = spelling;
    options.adapter = "builtin:reference";
    options.quiet_progress = true;
    std::ostringstream out, err;
    const RunSummary summary = run_suite(options, out, err);
    ASSERT_EQ(summary.exit_code, kExitOk) << err.str();
    std::set<std::string> topics;
    for (const auto& result : summary.results) topics.insert(result.topic);
    EXPECT_EQ(topics, (std::set<std::string>{"(top)", "a/b", "other", "type"})) << spelling;
  }
}

// ---- the case model ----

TEST(CaseModel, ACaseWithFaultsIsNeverAnEncodeTest) {
  Case c;
  kiln_v2::body(c).faults.push_back(Append{{0}});
  // Once [encode], for want of a block; a decode test, which run reports as
  // unjudgeable until regen has written the block.
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kDecode});
  kiln_v2::body(c).block = std::vector<std::uint8_t>{1, 2};
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kDecode});
  kiln_v2::body(c).faults.clear();
  EXPECT_EQ(c.derived_ops(), (std::vector<Operation>{Operation::kDecode, Operation::kEncode}));
  kiln_v2::body(c).block.reset();
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kEncode});
}

TEST(CaseModel, AnAcceptCaseWithoutABlockMakesTheSetUnusableForRun) {
  // judge() once compared an encoder's bytes with the empty optional.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-wide.yaml",
             "id: kiln-v2-wide\n"
             "summary: an accept case that can have no block\n"
             "rules: [FRAME-FIELD-RANGE]\n"
             "source: suite\n"
             "level: required\n"
             "tensors:\n"
             "  - {name: x, dtype: u8, shape: {rank: 65536, fill: 1}, payload: \"00\"}\n"
             "expect: {result: accept}\n"
             "ops: [encode]\n");
  RunOptions options;
  options.cases_dir = root;
  options.adapter = "builtin:reference";
  options.quiet_progress = true;
  std::ostringstream out, err;
  EXPECT_EQ(run_suite(options, out, err).exit_code, kExitUsage);
  EXPECT_NE(err.str().find("cases/kiln-v2-wide.yaml:8:18: an accept case must have a block"),
            std::string::npos)
      << err.str();
}

TEST(Materialize, AnAnchorOffsetThatWouldWrapIsAnError) {
  // end+18446744073709551615 once wrote at end-1.
  Placement placement{16, 8, 64, 2, 66, {}};
  auto resolved = resolve_anchor(Anchor{"end+18446744073709551615"}, placement);
  ASSERT_FALSE(resolved.ok()) << resolved.value();
  EXPECT_EQ(resolved.error(), "anchor 'end+18446744073709551615' lies beyond 2^64 - 1");
  EXPECT_EQ(resolve_anchor(Anchor{"end+2"}, placement).value(), 68u);

  Placement huge_heap{~std::uint64_t{0}, 1, 0, 0, 0, {}};
  auto heap_end = resolve_anchor(Anchor{"heap_end"}, huge_heap);
  ASSERT_FALSE(heap_end.ok());
  EXPECT_EQ(heap_end.error(), "the heap's end lies beyond 2^64 - 1");
}

// ---- bounds ----

std::string u8_case_with_values(std::size_t count) {
  std::string text =
      "id: kiln-v2-many\n"
      "summary: many values\n"
      "rules: [TYPE-BYTE-LENGTH]\n"
      "source: suite\n"
      "level: required\n"
      "tensors:\n"
      "  - name: x\n"
      "    dtype: u8\n"
      "    shape: [" + std::to_string(count) + "]\n"
      "    values: [";
  for (std::size_t i = 0; i < count; ++i) text += i ? ",0" : "0";
  return text + "]\nexpect:\n  result: accept\n";
}

TEST(CaseBounds, MoreNodesThanTheLimitAreRefusedAtTheNodePastIt) {
  ScratchDir scratch;
  write_text(scratch / "ok.yaml", u8_case_with_values(1000));
  auto ok = load_case_file(scratch / "ok.yaml", "ok.yaml", testing::suite_schema());
  ASSERT_TRUE(ok.ok()) << ok.error().describe();

  write_text(scratch / "many.yaml", u8_case_with_values(kMaxCaseNodes));
  auto many = load_case_file(scratch / "many.yaml", "many.yaml", testing::suite_schema());
  ASSERT_FALSE(many.ok());
  const CaseError& error = many.error();
  EXPECT_EQ(error.message, "more than 131072 YAML nodes: larger than any case (cases/README.md, Limits)");
  EXPECT_EQ(error.where.line, 10);
  EXPECT_GT(error.where.column, 200000);  // in the values, where the count passed the limit
}

TEST(CaseBounds, AFileLargerThanTheLimitIsRefused) {
  ScratchDir scratch;
  std::string text = testing::seed_case_texts().at("kiln-v2-u4");
  text += "# " + std::string(kMaxCaseFileBytes, 'x') + "\n";
  write_text(scratch / "kiln-v2-u4.yaml", text);
  auto loaded = load_case_file(scratch / "kiln-v2-u4.yaml", "big.yaml", testing::suite_schema());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().describe(),
            "big.yaml: larger than 1048576 bytes (cases/README.md, Limits)");
}

TEST(CaseBounds, AliasesThatWouldExpandToGigabytesAreRefusedAtOnce) {
  // The 540 KB file that took 4.2 GB: one fault's bytes, used again and again.
  ScratchDir scratch;
  std::string text =
      "id: kiln-v2-aliases\n"
      "summary: aliases\n"
      "rules: [FRAME-TRUNCATED]\n"
      "source: suite\n"
      "level: required\n"
      "tensors:\n"
      "  - {name: x, dtype: u8, shape: [1], payload: \"00\"}\n"
      "faults:\n"
      "  - &big {overwrite: 0, bytes: \"" + std::string(200000, '0') + "\"}\n";
  for (int i = 0; i < 20000; ++i) text += "  - *big\n";
  text += "expect: {result: reject, class: FRAME, rule: FRAME-TRUNCATED}\n";
  write_text(scratch / "kiln-v2-aliases.yaml", text);
  const auto started = std::chrono::steady_clock::now();
  auto loaded = load_case_file(scratch / "kiln-v2-aliases.yaml", "aliases.yaml", testing::suite_schema());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().describe(),
            "aliases.yaml:9:5: an anchor '&big': case files are plain YAML, without anchors or aliases");
}

}  // namespace
}  // namespace kiln::conformance
