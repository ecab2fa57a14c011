// Loading a golden case file (issue 3 item 4): strict, with file:line:column
// errors (case.schema.json applied, plain bounded YAML), so that regen and check
// write nothing on any error; ids unique and matching the file name; typed
// values packed exactly to the bit. The cases folder, the case tools and the
// case model have files of their own beside this one.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/hex.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::snapshot;
using testing::write_text;

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
