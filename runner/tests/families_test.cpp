// The sweep families (families.hpp, cases/README.md "Sweeps"): regen writes and
// prunes their files, check holds the files to them, and a family whose data
// the reference contradicts, or that names what does not exist, is refused.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/families.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::read_text;
using testing::ScratchDir;
using testing::write_text;

constexpr const char* kBoolFamily = R"(family: bools
generator: bool-bytes
summary: a bad bool byte at every offset of one word
params:
  length: 8
  values: [0x02]
  last_of_lengths: [3]
)";

struct Outcome {
  int code;
  std::string out, err;
};

Outcome regen(const std::filesystem::path& root) {
  std::ostringstream out, err;
  const int code = cases_regen(root, out, err);
  return {code, out.str(), err.str()};
}

Outcome check(const std::filesystem::path& root) {
  std::ostringstream out, err;
  const int code = cases_check(root, out, err);
  return {code, out.str(), err.str()};
}

// A cases root with the suite's schema, the seed cases and one family.
void make_root(const std::filesystem::path& root, const std::string& family_name,
               const std::string& family_text) {
  testing::write_seed_cases(root);
  std::filesystem::create_directories(root / kFamiliesFolder);
  write_text(root / kFamiliesFolder / (family_name + kFamilyExtension), family_text);
}

std::filesystem::path member_file(const std::filesystem::path& root, const std::string& suffix) {
  return root / kSweepFolder / "bools" / ("kiln-v2-sweep-bools-" + suffix + ".yaml");
}

TEST(Families, RegenWritesEveryMemberAndCheckAcceptsThem) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "bools", kBoolFamily);
  const Outcome written = regen(root);
  ASSERT_EQ(written.code, kExitOk) << written.err;
  EXPECT_NE(written.out.find("1 families, 9 cases, 9 file(s) written"), std::string::npos)
      << written.out;
  const std::string member = read_text(member_file(root, "len8-at5-02"));
  EXPECT_NE(member.find("source: family bools\n"), std::string::npos);
  EXPECT_NE(member.find("rules: [TYPE-BOOL-BYTE]"), std::string::npos);
  EXPECT_NE(member.find("payload: \"0001000100020001\""), std::string::npos) << member;
  EXPECT_NE(member.find("\nblock: |\n"), std::string::npos);
  const Outcome checked = check(root);
  EXPECT_EQ(checked.code, kExitOk) << checked.err;
  // A second regen changes nothing.
  EXPECT_NE(regen(root).out.find("0 file(s) written"), std::string::npos);
}

TEST(Families, CheckFailsAnEditedMissingOrForeignFile) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "bools", kBoolFamily);
  ASSERT_EQ(regen(root).code, kExitOk);

  const auto edited = member_file(root, "len8-at0-02");
  write_text(edited, read_text(edited) + "# a hand edit\n");
  Outcome checked = check(root);
  EXPECT_EQ(checked.code, kExitFailures);
  EXPECT_NE(checked.err.find("kiln-v2-sweep-bools-len8-at0-02: differs from what its family "
                             "generates"),
            std::string::npos)
      << checked.err;

  std::filesystem::remove(member_file(root, "len8-at1-02"));
  checked = check(root);
  EXPECT_NE(checked.err.find("kiln-v2-sweep-bools-len8-at1-02: missing"), std::string::npos)
      << checked.err;

  // A hand-written case in sweep/ is someone's work: check fails it and regen
  // refuses to delete it.
  std::filesystem::rename(root / "other" / "kiln-v2-u4.yaml",
                          root / kSweepFolder / "bools" / "kiln-v2-u4.yaml");
  checked = check(root);
  EXPECT_NE(checked.err.find("kiln-v2-u4.yaml: no family generates it"), std::string::npos)
      << checked.err;
  const Outcome refused = regen(root);
  EXPECT_EQ(refused.code, kExitUsage);
  EXPECT_NE(refused.err.find("not written by a family"), std::string::npos) << refused.err;
  EXPECT_EQ(read_text(edited).find("# a hand edit"), read_text(edited).size() - 14)
      << "regen wrote although it refused";

  std::filesystem::rename(root / kSweepFolder / "bools" / "kiln-v2-u4.yaml",
                          root / "other" / "kiln-v2-u4.yaml");
  ASSERT_EQ(regen(root).code, kExitOk);
  EXPECT_EQ(check(root).code, kExitOk);
}

TEST(Families, RegenRemovesWhatNoFamilyGeneratesAnyMore) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "bools", kBoolFamily);
  ASSERT_EQ(regen(root).code, kExitOk);
  std::string smaller = kBoolFamily;
  smaller.replace(smaller.find("length: 8"), 9, "length: 4");
  write_text(root / kFamiliesFolder / "bools.family", smaller);
  const Outcome pruned = regen(root);
  ASSERT_EQ(pruned.code, kExitOk) << pruned.err;
  EXPECT_FALSE(std::filesystem::exists(member_file(root, "len8-at7-02")));
  EXPECT_TRUE(std::filesystem::exists(member_file(root, "len4-at3-02")));
  EXPECT_NE(pruned.out.find("removed "), std::string::npos);
  EXPECT_EQ(check(root).code, kExitOk);
}

// Each bad family is refused with its file and what is wrong; nothing is written.
TEST(Families, RefusesBadFamilies) {
  const struct {
    const char* text;
    const char* message;
  } bad[] = {
      {"family: bools\ngenerator: no-such\nsummary: x\nparams: {}\n", "no generator 'no-such'"},
      {"family: other\ngenerator: bool-bytes\nsummary: x\nparams: {}\n",
       "family is the file's name"},
      {"family: bools\ngenerator: bool-bytes\nsummary: x\nparams: {length: 2, values: [2], "
       "last_of_lengths: [], typo: 1}\n",
       "unknown parameter 'typo'"},
      {"family: bools\ngenerator: bool-bytes\nsummary: x\nparams: {length: 2, values: [256], "
       "last_of_lengths: []}\n",
       "values is above 255"},
      {"family: bools\ngenerator: bool-bytes\nsummary: x\nparams: {length: 0, values: [2], "
       "last_of_lengths: []}\n",
       "generates no case"},
      // The family's data against the reference: magic is a FRAME field.
      {"family: bools\ngenerator: field-bits\nsummary: x\nparams:\n  base: [{name: a, dtype: "
       "u8, shape: [1], values: [1]}]\n  bits: [7]\n  fields: {header.magic: TYPE}\n",
       "kiln-v2-sweep-bools-header-magic-bit7: the family expects class TYPE; the reference "
       "reports FRAME FRAME-MAGIC"},
      {"family: bools\ngenerator: utf8-sequences\nsummary: x\nparams:\n  where: name\n  "
       "sequences: [{label: a, hex: \"eda080\", valid: true, what: wrong}]\n",
       "the family expects accept; the reference reports FRAME FRAME-NAME-UTF8"},
      {"family: bools\ngenerator: padding-bytes\nsummary: x\nparams: {region: nowhere, value: 1}\n",
       "region is heap, payload, gap or entry-reserved"},
  };
  for (const auto& [text, message] : bad) {
    ScratchDir dir;
    const auto root = dir / "cases";
    make_root(root, "bools", text);
    const auto before = testing::snapshot(root);
    const Outcome refused = regen(root);
    EXPECT_EQ(refused.code, kExitUsage) << text;
    EXPECT_NE(refused.err.find("families/bools.family:"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(message), std::string::npos) << text << "\n" << refused.err;
    EXPECT_EQ(testing::snapshot(root), before) << "regen wrote although it refused: " << text;
    EXPECT_NE(check(root).code, kExitOk) << text;
  }
}

// Every generator is used by one of the suite's families (read from the files:
// expanding all of them is cases-check's work, and slow under sanitizers).
TEST(Families, TheSuitesFamiliesUseEveryGenerator) {
  const auto folder = testing::suite_schema_path().parent_path() / kFamiliesFolder;
  std::set<std::string> used;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != kFamilyExtension) continue;
    const std::string text = read_text(entry.path());
    const auto at = text.find("\ngenerator: ");
    ASSERT_NE(at, std::string::npos) << entry.path();
    used.insert(text.substr(at + 12, text.find('\n', at + 1) - at - 12));
  }
  for (const FamilyGenerator& generator : family_generators())
    EXPECT_TRUE(used.count(std::string(generator.name))) << generator.name << " is unused";
}

// regen is a function of the family files: two expansions give the same bytes.
TEST(Families, ExpandTheSameTwice) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "bools", kBoolFamily);
  const FamilySet first = expand_families(root, testing::suite_schema());
  const FamilySet second = expand_families(root, testing::suite_schema());
  ASSERT_TRUE(first.errors.empty()) << first.errors.front().describe();
  ASSERT_EQ(first.families.size(), 1u);
  ASSERT_EQ(second.families.size(), 1u);
  ASSERT_EQ(first.families[0].members.size(), 9u);
  for (std::size_t k = 0; k < first.families[0].members.size(); ++k)
    EXPECT_EQ(first.families[0].members[k].text, second.families[0].members[k].text);
}

}  // namespace
}  // namespace kiln::conformance
