// The case tools on the edges: regen refuses forms of ops and block it cannot
// rewrite safely (with file:line:column, writing nothing), keeps a file's line
// ends, and reports every write it could not make; every tool refuses a folder
// without case files.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::snapshot;
using testing::write_text;

// The u4 seed case (12 lines) without ops and block.
std::string u4_text() { return testing::seed_case_texts().at("kiln-v2-u4"); }

// The brief's block in the case-file form: "block: |" and 32 bytes a line.
std::string u4_block_key(const std::string& eol = "\n") {
  const std::string hex = testing::kU4BlockHex;
  std::string text = "block: |" + eol;
  for (std::size_t at = 0; at < hex.size(); at += 64) text += "  " + hex.substr(at, 64) + eol;
  return text;
}

struct Regen {
  int code;
  std::string out;
  std::string err;
};

Regen regen(const std::filesystem::path& root) {
  std::ostringstream out, err;
  const int code = cases_regen(root, out, err);
  return {code, out.str(), err.str()};
}

// ---- finding 17: forms regen cannot rewrite safely are refused ----

struct UnsafeForm {
  std::string what;
  std::string tail;     // appended to the u4 case
  std::string where;    // "line:column" in the file
  std::string message;  // a fragment of the refusal
};

void PrintTo(const UnsafeForm& form, std::ostream* out) { *out << form.what; }

const std::string kOpsForm = "cannot rewrite this form of 'ops' safely; write it as `ops: [decode, "
                             "encode]` on one line";
const std::string kBlockForm = "cannot rewrite this form of 'block' safely; write it as `block: |`";

std::vector<UnsafeForm> unsafe_forms() {
  const std::string hex = testing::kU4BlockHex;
  return {
      {"ops_block_sequence_in_column_1", "ops:\n- decode\n- encode\n", "13:1", kOpsForm},
      {"ops_block_sequence_indented", "ops:\n  - decode\n  - encode\n", "13:1", kOpsForm},
      {"ops_flow_sequence_over_two_lines", "ops: [decode,\n  encode]\n", "13:1", kOpsForm},
      {"ops_with_a_comment", "ops: [decode]  # by hand\n", "13:1", kOpsForm},
      {"ops_with_an_anchor", "ops: &o [decode]\n", "13:1", kOpsForm},
      {"ops_with_a_tag", "ops: !!seq [decode]\n", "13:1", kOpsForm},
      {"ops_double_quoted_key", "\"ops\": [decode]\n", "13:1", kOpsForm},
      {"ops_single_quoted_key", "'ops': [decode, encode]\n", "13:1", kOpsForm},
      {"ops_space_before_colon", "ops : [decode]\n", "13:1", kOpsForm},
      {"ops_tagged_key", "!!str ops: [decode]\n", "13:1", kOpsForm},
      {"ops_twice", "ops: [decode]\nops: [decode]\n", "14:1",
       "a second 'ops' key (the first is on line 13)"},
      {"ops_complex_key", "? ops\n: [decode]\n", "13:3", "a top-level key that does not start in column 1"},
      {"block_double_quoted_key", "\"block\": |\n  " + hex.substr(0, 64) + "\n", "13:1", kBlockForm},
      {"block_folded", "block: >\n  00ff\n", "13:1", kBlockForm},
      {"block_quoted_value", "block: \"00ff\"\n", "13:1", kBlockForm},
      {"block_with_a_comment", "block: |  # the bytes\n  00ff\n", "13:1", kBlockForm},
      {"block_keep_chomping", "block: |+\n  00ff\n", "13:1", kBlockForm},
      // After a document end marker an appended key would be in a second
      // document that no loader reads: caught by reading the result back.
      {"document_end_marker", "...\n", "1:1",
       "regen cannot rewrite this file safely: 'ops' would appear 0 times"},
  };
}

// A case as the loader gives it, for calling rewrite_generated_keys directly:
// only the file name and what derives ops (block, faults) matter to it.
Case u4_case() {
  Case c;
  c.id = "kiln-v2-u4";
  c.origin.file = "cases/kiln-v2-u4.yaml";
  return c;
}

std::vector<std::uint8_t> u4_block() {
  const std::string hex = testing::kU4BlockHex;
  std::vector<std::uint8_t> bytes;
  for (std::size_t at = 0; at < hex.size(); at += 2)
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(at, 2), nullptr, 16)));
  return bytes;
}

class RewriteRefuses : public ::testing::TestWithParam<UnsafeForm> {};

// Each form once stayed beside the rewritten keys, and the file then failed
// `check` for good. Called directly: the loader may refuse some forms itself,
// but the rewrite must be safe on its own.
TEST_P(RewriteRefuses, AFormItCannotRewriteSafelyWithFileLineColumn) {
  const UnsafeForm& form = GetParam();
  const auto rewritten = rewrite_generated_keys(u4_text() + form.tail, u4_case(), u4_block());
  ASSERT_FALSE(rewritten.ok()) << rewritten.value();
  const std::string error = rewritten.error().describe();
  EXPECT_EQ(error.rfind("cases/kiln-v2-u4.yaml:" + form.where + ": " + form.message, 0), 0u) << error;
}

INSTANTIATE_TEST_SUITE_P(CaseTools, RewriteRefuses, ::testing::ValuesIn(unsafe_forms()),
                         [](const auto& info) { return info.param.what; });

// End to end, the two forms of the finding: regen exits 2 naming file:line and
// writes nothing, not even the good case beside it.
TEST(CasesRegen, RefusesABlockSequenceOpsAndAQuotedBlockKeyWritingNothing) {
  for (const std::string& tail :
       {std::string("ops:\n- decode\n- encode\nblock: |\n  00ff\n"),
        "\"block\": |\n  " + std::string(testing::kU4BlockHex).substr(0, 64) + "\n"}) {
    ScratchDir scratch;
    const auto root = scratch / "cases";
    testing::write_schema(root);
    write_text(root / "seed" / "kiln-v2-u4.yaml", u4_text() + tail);
    write_text(root / "seed" / "kiln-v2-f32.yaml", testing::seed_case_texts().at("kiln-v2-f32"));
    const CaseSet set = load_case_set(root);
    ASSERT_TRUE(set.errors.empty()) << "the form must load: " << set.errors[0].describe();
    const auto before = snapshot(root);

    const Regen result = regen(root);
    EXPECT_EQ(result.code, kExitUsage) << result.out << result.err;
    EXPECT_NE(result.err.find("cases/seed/kiln-v2-u4.yaml:13:1: cannot rewrite this form of '"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("regen: nothing written: 1 file(s) cannot be rewritten safely"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(snapshot(root), before);
  }
}

// A line that looks like `ops:` inside a quoted scalar is text, not a key: it
// was once replaced, cutting the summary's closing quote away.
TEST(CasesRegen, LeavesAKeyLookalikeInsideAQuotedScalarAlone) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  std::string text = u4_text();
  const std::string summary = "summary: u4 [3] holds 1, 2, 3 as 21 03\n";
  text.replace(text.find(summary), summary.size(), "summary: \"u4 [3], see\nops: [decode]\"\n");
  write_text(root / "kiln-v2-u4.yaml", text);

  const Regen result = regen(root);
  ASSERT_EQ(result.code, kExitOk) << result.err;
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"), text + "ops: [decode, encode]\n" + u4_block_key());
  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.cases.size(), 1u);
  EXPECT_EQ(set.cases[0].summary, "u4 [3], see ops: [decode]");
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitOk) << err.str();
}

// The plain forms with other spacing, and a stale block followed by blank
// lines and a comment in column 1 (which end the block and stay).
TEST(CasesRegen, RewritesThePlainFormsWithOtherSpacing) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml",
             u4_text() + "ops:   [ decode ]   \nblock:   |  \n  00ff\n\n  ee\n\n# the end\n");
  const Regen result = regen(root);
  ASSERT_EQ(result.code, kExitOk) << result.err;
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"),
            u4_text() + "ops: [decode, encode]\n" + u4_block_key() + "\n# the end\n");
}

// ---- finding 30: the file's line ends are kept ----

std::string crlf(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

// A CRLF file once came back with LF lines beside its CRLF ones.
TEST(CasesRegen, KeepsCrlfLineEnds) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml", crlf(u4_text() + "ops: [decode]\n# after\nblock: |\n  00ff\n"));
  const Regen result = regen(root);
  ASSERT_EQ(result.code, kExitOk) << result.err;
  const std::string text = read_text(root / "kiln-v2-u4.yaml");
  EXPECT_EQ(text, crlf(u4_text() + "ops: [decode, encode]\n# after\n" + u4_block_key()));

  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitOk) << err.str();
  const Regen again = regen(root);
  EXPECT_EQ(again.code, kExitOk) << again.err;
  EXPECT_NE(again.out.find("0 file(s) rewritten"), std::string::npos) << again.out;
  // A stale CRLF block is replaced by a CRLF block.
  std::string stale = text;
  stale.replace(stale.find("2103\r\n"), 6, "2104\r\n");
  write_text(root / "kiln-v2-u4.yaml", stale);
  ASSERT_EQ(regen(root).code, kExitOk);
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"), text);
}

TEST(CasesRegen, AppendsAfterALastLineWithoutALineEnd) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  std::string text = crlf(u4_text());
  text.resize(text.size() - 2);  // no CRLF after "  result: accept"
  write_text(root / "kiln-v2-u4.yaml", text);
  ASSERT_EQ(regen(root).code, kExitOk);
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"),
            crlf(u4_text() + "ops: [decode, encode]\n") + u4_block_key("\r\n"));
}

// yaml-cpp counts only LF as a line end, other parsers a lone CR too: with one,
// lines cannot be matched to keys.
TEST(RewriteGeneratedKeys, RefusesALoneCarriageReturn) {
  const auto rewritten =
      rewrite_generated_keys(u4_text() + "# a\rops: [decode]\n", u4_case(), u4_block());
  ASSERT_FALSE(rewritten.ok());
  EXPECT_EQ(rewritten.error().describe(),
            "cases/kiln-v2-u4.yaml:13:4: a carriage return that does not end a line: regen "
            "rewrites only files with LF or CRLF line ends");
}

// ---- finding 19: every write is checked ----

// Lowers this process's file-size limit for a scope: a write past it fails with
// EFBIG for every user, root included (SIGXFSZ is ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ok_ = ::getrlimit(RLIMIT_FSIZE, &saved_) == 0;
    previous_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    ok_ = ok_ && ::setrlimit(RLIMIT_FSIZE, &lower) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, previous_);
  }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  void (*previous_)(int) = nullptr;
  bool ok_ = false;
};

// regen once said "rewrote" and exited 0 with nothing written; a failed write
// now leaves the file as it was (a temporary file and a rename), named with why.
TEST(CasesRegen, ReportsAWriteThatFailsAndLeavesTheFileWhole) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml", u4_text());
  const auto before = snapshot(root);
  Regen result;
  {
    FileSizeLimit limit(64);
    ASSERT_TRUE(limit.ok());
    result = regen(root);
  }
  EXPECT_EQ(result.code, kExitFailures) << result.out << result.err;
  EXPECT_NE(result.err.find("regen: " + (root / "kiln-v2-u4.yaml").string() + ": cannot write "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find(": File too large"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("regen: 1 file(s) could not be written"), std::string::npos) << result.err;
  EXPECT_EQ(result.out.find("rewrote"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("0 file(s) rewritten"), std::string::npos) << result.out;
  EXPECT_EQ(snapshot(root), before);  // no temporary file left behind either
}

// Permissions bind only a user other than root.
TEST(CasesRegen, RefusesAReadOnlyFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes read-only files";
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-u4.yaml", u4_text());
  std::filesystem::permissions(root / "kiln-v2-u4.yaml", std::filesystem::perms::owner_read);
  const Regen result = regen(root);
  EXPECT_EQ(result.code, kExitFailures) << result.out;
  EXPECT_NE(result.err.find("kiln-v2-u4.yaml: cannot write: Permission denied"), std::string::npos)
      << result.err;
  EXPECT_EQ(read_text(root / "kiln-v2-u4.yaml"), u4_text());
}

// The rename goes to the link's target: the link stays a link.
TEST(CasesRegen, RewritesThroughASymbolicLink) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(scratch / "elsewhere" / "kiln-v2-u4.yaml", u4_text());
  std::filesystem::create_directories(root);
  std::filesystem::create_symlink(scratch / "elsewhere" / "kiln-v2-u4.yaml", root / "kiln-v2-u4.yaml");
  ASSERT_EQ(regen(root).code, kExitOk);
  EXPECT_TRUE(std::filesystem::is_symlink(root / "kiln-v2-u4.yaml"));
  EXPECT_EQ(read_text(scratch / "elsewhere" / "kiln-v2-u4.yaml"),
            u4_text() + "ops: [decode, encode]\n" + u4_block_key());
}

// export once said "export: 6 cases" and exited 0 without its index.
TEST(CasesExport, ReportsAnIndexItCannotWrite) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_directories(scratch / "export" / "index.json");  // a folder, even for root
  std::ostringstream out, err;
  EXPECT_EQ(cases_export(root, scratch / "export", out, err), kExitFailures) << out.str();
  EXPECT_EQ(err.str(), "export: " + (scratch / "export" / "index.json").string() +
                           ": cannot open for writing: Is a directory\n");
  EXPECT_EQ(out.str(), "");
}

TEST(CasesExport, ReportsABlockFileItCannotWrite) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_directories(scratch / "export" / "kiln-v2-f32.kiln");
  std::ostringstream out, err;
  EXPECT_EQ(cases_export(root, scratch / "export", out, err), kExitFailures) << out.str();
  EXPECT_EQ(err.str(), "export: " + (scratch / "export" / "kiln-v2-f32.kiln").string() +
                           ": cannot open for writing: Is a directory\n");
  EXPECT_FALSE(std::filesystem::exists(scratch / "export" / "index.json"));
}

// A symbolic link loop where the export folder should be is reported, not thrown.
TEST(CasesExport, ReportsADestinationThatIsASymlinkLoop) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_symlink(scratch / "loop", scratch / "loop");
  std::ostringstream out, err;
  EXPECT_EQ(cases_export(root, scratch / "loop", out, err), kExitUsage);
  EXPECT_NE(err.str().find((scratch / "loop").string() + ": cannot create: "), std::string::npos)
      << err.str();
}

// ---- finding 27: a folder without case files is an error ----

// The tools once exited 0 (coverage 1) on an empty folder with nothing checked.
TEST(CaseTools, RefuseAFolderWithoutCaseFiles) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "README.md", "no cases here\n");
  write_text(root / "topic" / "notes.yml", "id: kiln-v2-u4\n");  // .yml is not a case file
  const auto before = snapshot(root);
  const std::string where = root.string() + ": nothing done\n";
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitUsage);
  EXPECT_EQ(cases_coverage(root, out, err), kExitUsage);
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
  EXPECT_EQ(cases_export(root, scratch / "export", out, err), kExitUsage);
  EXPECT_EQ(err.str(), "check: no case files (*.yaml) in " + where +
                           "coverage: no case files (*.yaml) in " + where +
                           "regen: no case files (*.yaml) in " + where +
                           "export: no case files (*.yaml) in " + where);
  EXPECT_EQ(out.str(), "");
  EXPECT_FALSE(std::filesystem::exists(scratch / "export"));
  EXPECT_EQ(snapshot(root), before);
}

}  // namespace
}  // namespace kiln::conformance
