// Isolation (cases/README.md, "Isolation"): `cases check` holds a reject case to
// breaking its listed rules (expect.rule and also_breaks) and nothing else, with
// the reference's lenient decode; cases whose read ends at a check the reference
// never waives are checked as far as they can be, as the README says.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/decode.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::write_text;

// A reject case on the u4 [3] worked example (values, or payload when given).
struct Spec {
  std::string id = "";
  std::string rules = "";        // "[A, B]"
  std::string expect_rule = "";  // its class is the prefix
  std::string payload = "";      // empty: the values 1, 2, 3
  std::string faults = "";       // lines of "  - {...}\n", or empty
  std::string also = "";         // "[A]", or empty
  std::string dtype = "u4";
};

std::string case_text(const Spec& spec) {
  std::string text = "id: " + spec.id + "\nsummary: a test case\nrules: " + spec.rules + "\n";
  if (!spec.also.empty()) text += "also_breaks: " + spec.also + "\n";
  text += "source: suite\nlevel: required\ntensors:\n  - name: \"x\"\n    dtype: " + spec.dtype +
          "\n    shape: [3]\n";
  text += spec.payload.empty() ? std::string("    values: [1, 2, 3]\n")
                                : "    payload: \"" + spec.payload + "\"\n";
  if (!spec.faults.empty()) text += "faults:\n" + spec.faults;
  const std::string error_class = spec.expect_rule.substr(0, spec.expect_rule.find('-'));
  text += "expect:\n  result: reject\n  class: " + error_class + "\n  rule: " +
          spec.expect_rule + "\n";
  return text;
}

struct Check {
  int code = -1;
  std::string out;
  std::string err;
};

// Writes the cases under root/topic, fills in their blocks with regen, and runs
// `cases check` on the folder.
Check check_cases(const std::filesystem::path& root, const std::vector<Spec>& specs) {
  testing::write_schema(root);
  for (const Spec& spec : specs) write_text(root / "topic" / (spec.id + ".yaml"), case_text(spec));
  std::ostringstream regen_out, regen_err;
  EXPECT_EQ(cases_regen(root, regen_out, regen_err), kExitOk) << regen_err.str();
  std::ostringstream out, err;
  const int code = cases_check(root, out, err);
  return {code, out.str(), err.str()};
}

// The case of that id, loaded, with check_isolation's verdict on its block.
IsolationResult isolation_of(const std::filesystem::path& root, const std::string& id) {
  const CaseSet set = load_case_set(root);
  for (const Case& c : set.cases)
    if (c.id == id && kiln_v2::body(c).block) return check_isolation(c, *kiln_v2::body(c).block);
  ADD_FAILURE() << "no case " << id << " with a block in " << root;
  return {};
}

const std::string kHighNibble = "2113";

TEST(Isolation, ACaseThatAlsoBreaksAnUnlistedRuleOfItsClassFailsNamingTheRuleAndFile) {
  ScratchDir scratch;
  // e2m1 [3] in one byte 22: short (its rule), and by accident the odd count's
  // high nibble is 2: a decoder that checks only the nibble rejects it too.
  const Check check = check_cases(
      scratch / "cases",
      {{"kiln-v2-e2m1-short", "[TYPE-BYTE-LENGTH]", "TYPE-BYTE-LENGTH", "22", "", "", "e2m1"}});
  EXPECT_EQ(check.code, kExitFailures);
  EXPECT_NE(check.err.find("topic/kiln-v2-e2m1-short.yaml: kiln-v2-e2m1-short: isolation: breaks "
                           "[TYPE-HIGH-NIBBLE] too, which the case does not list: with only "
                           "[TYPE-BYTE-LENGTH] waived the reference reports TYPE TYPE-HIGH-NIBBLE "
                           "at byte 128"),
            std::string::npos)
      << check.err;
  EXPECT_NE(check.out.find("0 passed, 1 failed"), std::string::npos) << check.out;
}

TEST(Isolation, TheSameCaseWithOnlyItsRuleBrokenPasses) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  const Check check = check_cases(
      root, {{"kiln-v2-e2m1-short", "[TYPE-BYTE-LENGTH]", "TYPE-BYTE-LENGTH", "02", "", "", "e2m1"}});
  EXPECT_EQ(check.code, kExitOk) << check.err;
  EXPECT_NE(check.out.find("isolation: 1 reject case(s) checked whole, 0 whole once"),
            std::string::npos)
      << check.out;
  const IsolationResult isolation = isolation_of(root, "kiln-v2-e2m1-short");
  EXPECT_TRUE(isolation.problems.empty());
  EXPECT_FALSE(isolation.exempt);
}

TEST(Isolation, NamesEveryFurtherRuleABlockBreaks) {
  ScratchDir scratch;
  // Flags 0x01 clears the little-endian bit (its rule) and sets a reserved one;
  // with a high nibble left over as well, both others are named.
  const Check check = check_cases(
      scratch / "cases", {{"kiln-v2-flags-01", "[FRAME-LE-FLAG]", "FRAME-LE-FLAG", kHighNibble,
                           "  - {set: \"header.flags\", value: 1}\n"}});
  EXPECT_EQ(check.code, kExitFailures);
  EXPECT_NE(check.err.find("isolation: breaks [FRAME-FLAGS-RESERVED, TYPE-HIGH-NIBBLE] too"),
            std::string::npos)
      << check.err;
}

TEST(Isolation, SeedCasesBreakTheirRuleAlone) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_seed_cases(root);
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitOk) << err.str();
  // high-nibble, bool-byte and le-clear; the others are accept cases.
  EXPECT_NE(out.str().find("isolation: 3 reject case(s) checked whole"), std::string::npos)
      << out.str();
  for (const char* id : {"kiln-v2-high-nibble", "kiln-v2-bool-byte", "kiln-v2-le-clear"}) {
    const IsolationResult isolation = isolation_of(root, id);
    EXPECT_TRUE(isolation.problems.empty()) << id;
    EXPECT_FALSE(isolation.exempt) << id;
  }
}

TEST(Isolation, ASecondRuleBrokenOnPurposeIsListedInAlsoBreaks) {
  ScratchDir scratch;
  Spec spec{"kiln-v2-frame-first", "[FRAME-LE-FLAG, TYPE-HIGH-NIBBLE]", "FRAME-LE-FLAG",
            kHighNibble, "  - {set: \"header.flags\", value: 0}\n"};
  const Check unlisted = check_cases(scratch / "unlisted", {spec});
  EXPECT_EQ(unlisted.code, kExitFailures);
  EXPECT_NE(unlisted.err.find("isolation: breaks [TYPE-HIGH-NIBBLE] too"), std::string::npos)
      << unlisted.err;

  spec.also = "[TYPE-HIGH-NIBBLE]";
  const Check listed = check_cases(scratch / "listed", {spec});
  EXPECT_EQ(listed.code, kExitOk) << listed.err;
  EXPECT_TRUE(isolation_of(scratch / "listed", spec.id).problems.empty());
}

TEST(Isolation, EveryRuleOfAlsoBreaksMustBeBroken) {
  ScratchDir scratch;
  // The worked example's nibbles are sound: also_breaks claims what is not so.
  const Check check = check_cases(
      scratch / "cases",
      {{"kiln-v2-claims-too-much", "[FRAME-LE-FLAG, TYPE-HIGH-NIBBLE]", "FRAME-LE-FLAG", "",
        "  - {set: \"header.flags\", value: 0}\n", "[TYPE-HIGH-NIBBLE]"}});
  EXPECT_EQ(check.code, kExitFailures);
  EXPECT_NE(check.err.find("topic/kiln-v2-claims-too-much.yaml: kiln-v2-claims-too-much: "
                           "isolation: also_breaks lists TYPE-HIGH-NIBBLE, but the case does not "
                           "break it"),
            std::string::npos)
      << check.err;
}

TEST(Isolation, TheLoaderHoldsAlsoBreaksToItsForm) {
  struct Bad {
    std::string text;
    std::string message;
  };
  Spec base{"kiln-v2-form", "[FRAME-LE-FLAG]", "FRAME-LE-FLAG", kHighNibble,
            "  - {set: \"header.flags\", value: 0}\n", "[TYPE-HIGH-NIBBLE]"};
  Spec same = base;
  same.rules = "[FRAME-LE-FLAG, TYPE-HIGH-NIBBLE]";
  same.also = "[FRAME-LE-FLAG]";
  const std::vector<Bad> bad = {
      {case_text(base), "also_breaks lists TYPE-HIGH-NIBBLE, which rules does not list"},
      {case_text(same), "also_breaks lists expect.rule FRAME-LE-FLAG"},
  };
  for (const Bad& item : bad) {
    ScratchDir scratch;
    const auto root = scratch / "cases";
    testing::write_schema(root);
    write_text(root / "topic" / "kiln-v2-form.yaml", item.text);
    const CaseSet set = load_case_set(root);
    ASSERT_EQ(set.errors.size(), 1u) << item.message;
    EXPECT_NE(set.errors[0].describe().find("kiln-v2-form.yaml:4:"), std::string::npos)
        << set.errors[0].describe();
    EXPECT_NE(set.errors[0].message.find(item.message), std::string::npos)
        << set.errors[0].message;
  }
  // An accept case breaks nothing.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  std::string accept = testing::seed_case_texts().at("kiln-v2-u4");
  accept.insert(accept.find("source:"), "also_breaks: [TYPE-HIGH-NIBBLE]\n");
  write_text(root / "topic" / "kiln-v2-u4.yaml", accept);
  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_NE(set.errors[0].describe().find("kiln-v2-u4.yaml:4:14: an accept case breaks no rule"),
            std::string::npos)
      << set.errors[0].describe();
}

// ---- exemptions ----

TEST(Isolation, ACutBlockIsCheckedWholeWithItsTruncateFaultsLeftOut) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  const Check check = check_cases(
      root, {{"kiln-v2-cut-3", "[FRAME-TRUNCATED]", "FRAME-TRUNCATED", "", "  - {truncate: 3}\n"}});
  EXPECT_EQ(check.code, kExitOk) << check.err;
  EXPECT_NE(check.out.find("0 reject case(s) checked whole, 1 whole once their truncate faults "
                           "are left out"),
            std::string::npos)
      << check.out;
  const IsolationResult isolation = isolation_of(root, "kiln-v2-cut-3");
  EXPECT_EQ(isolation.exempt, Rule::kFrameTruncated);
  EXPECT_TRUE(isolation.restored);
}

TEST(Isolation, ACutBlockThatBreaksAnotherRuleInItsKeptBytesMustListIt) {
  ScratchDir scratch;
  // 00 49 4c: too short for the magic, and no magic could start that way.
  Spec spec{"kiln-v2-cut-3-bad-magic", "[FRAME-TRUNCATED]", "FRAME-TRUNCATED", "",
            "  - {overwrite: 0, bytes: \"00\"}\n  - {truncate: 3}\n"};
  const Check unlisted = check_cases(scratch / "unlisted", {spec});
  EXPECT_EQ(unlisted.code, kExitFailures);
  EXPECT_NE(unlisted.err.find("kiln-v2-cut-3-bad-magic.yaml: kiln-v2-cut-3-bad-magic: isolation: "
                              "breaks [FRAME-MAGIC] too with its truncate faults left out"),
            std::string::npos)
      << unlisted.err;

  spec.rules = "[FRAME-TRUNCATED, FRAME-MAGIC]";
  spec.also = "[FRAME-MAGIC]";
  const Check listed = check_cases(scratch / "listed", {spec});
  EXPECT_EQ(listed.code, kExitOk) << listed.err;
}

TEST(Isolation, ACaseStoppedByABoundIsExemptAndNamedByCheck) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  // name_length 9: the segment runs to 24, past heap_length 16.
  const Check check = check_cases(
      root, {{"kiln-v2-name-9", "[FRAME-HEAP-LENGTH]", "FRAME-HEAP-LENGTH", "",
              "  - {set: \"tensor[0].name_length\", value: 9}\n"}});
  EXPECT_EQ(check.code, kExitOk) << check.err;
  EXPECT_NE(check.out.find("only up to an unwaivable check: 0 at FRAME-TRUNCATED, 1 at "
                           "FRAME-HEAP-LENGTH, 0 at FRAME-PAYLOAD-LENGTH\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("  at FRAME-HEAP-LENGTH, its bound: a heap segment that runs past "
                           "heap_length (the segment's name and layout bytes would be read outside "
                           "the heap): kiln-v2-name-9\n"),
            std::string::npos)
      << check.out;
  const IsolationResult isolation = isolation_of(root, "kiln-v2-name-9");
  EXPECT_EQ(isolation.exempt, Rule::kFrameHeapLength);
  EXPECT_FALSE(isolation.restored);
}

TEST(Isolation, AnExemptCaseStillFailsOnARuleCheckedBeforeTheBound) {
  ScratchDir scratch;
  // payload_length 1: trailing bytes (its rule), then the payload runs past the
  // region (listed; the bound ends the read). A nonzero heap padding byte sits
  // between the two in check order.
  Spec spec{"kiln-v2-short-region", "[FRAME-TRAILING, FRAME-PAYLOAD-LENGTH]", "FRAME-TRAILING", "",
            "  - {set: \"header.payload_length\", value: 1}\n", "[FRAME-PAYLOAD-LENGTH]"};
  const Check clean = check_cases(scratch / "clean", {spec});
  EXPECT_EQ(clean.code, kExitOk) << clean.err;
  EXPECT_EQ(isolation_of(scratch / "clean", spec.id).exempt, Rule::kFramePayloadLength);

  spec.faults += "  - {overwrite: \"tensor[0].name+1\", bytes: \"01\"}\n";
  const Check padded = check_cases(scratch / "padded", {spec});
  EXPECT_EQ(padded.code, kExitFailures);
  EXPECT_NE(padded.err.find("isolation: breaks [FRAME-PAD-HEAP] too"), std::string::npos)
      << padded.err;
}

// Check order: a TYPE defect in the description, and faults that make a payload
// run past payload_length (a bound, never waived). The TYPE rule is checked in
// the description's own block; listed but absent there, it fails.
TEST(Isolation, ABoundMadeByFaultsLetsAlsoBreaksBeCheckedInTheDescription) {
  ScratchDir scratch;
  const std::string runs_past = "  - {set: \"tensor[0].byte_length\", value: 66}\n";
  const Check check = check_cases(
      scratch.path(),
      {{"kiln-v2-nibble-then-runs-past", "[FRAME-PAYLOAD-LENGTH, TYPE-HIGH-NIBBLE]",
        "FRAME-PAYLOAD-LENGTH", kHighNibble, runs_past, "[TYPE-HIGH-NIBBLE]"},
       {"kiln-v2-no-nibble-then-runs-past", "[FRAME-PAYLOAD-LENGTH, TYPE-HIGH-NIBBLE]",
        "FRAME-PAYLOAD-LENGTH", "", runs_past, "[TYPE-HIGH-NIBBLE]"}});
  EXPECT_EQ(check.code, kExitFailures);
  EXPECT_EQ(check.err.find("kiln-v2-nibble-then-runs-past:"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("kiln-v2-no-nibble-then-runs-past: isolation: also_breaks lists "
                           "TYPE-HIGH-NIBBLE, which cannot be checked"),
            std::string::npos)
      << check.err;
}

TEST(Isolation, EveryCheckTheDecoderNeverWaivesIsAnExemption) {
  std::set<Rule> exempt;
  for (const UnwaivableCheck& check : unwaivable_checks()) exempt.insert(check.rule);
  // FRAME-FIELD-RANGE is never waived either, but no decoder reports it.
  for (const RuleInfo& info : all_rules()) {
    if (!is_waivable(info.rule) && info.rule != Rule::kFrameFieldRange) {
      EXPECT_TRUE(exempt.count(info.rule)) << info.id;
    }
  }
  // The two rules whose bounds alone are never waived.
  EXPECT_TRUE(exempt.count(Rule::kFrameHeapLength));
  EXPECT_TRUE(exempt.count(Rule::kFramePayloadLength));
}

TEST(Isolation, TheReadmeListsTheExemptionsOfTheCode) {
  const std::string readme = read_text(testing::suite_schema_path().parent_path() / "README.md");
  const auto section = readme.find("### Exemptions");
  ASSERT_NE(section, std::string::npos);
  // Rows "| `RULE` | what | why |" of the section's table.
  std::map<std::string, std::string> listed;
  static const std::regex kRow(R"(\n\| `([A-Z0-9-]+)` \| [^|\n]+ \| ([^|\n]+) \|)");
  const std::string rest = readme.substr(section, readme.find("\n#", section + 1) - section);
  for (std::sregex_iterator it(rest.begin(), rest.end(), kRow), end; it != end; ++it)
    listed[(*it)[1]] = (*it)[2];
  std::map<std::string, std::string> code;
  for (const UnwaivableCheck& check : unwaivable_checks())
    code[std::string(rule_info(check.rule).id)] = std::string(check.reason);
  EXPECT_EQ(listed, code);
}

TEST(Isolation, CoverageCountsTheCasesThatBreakARuleAlone) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  const Check check = check_cases(
      root, {{"kiln-v2-nibble", "[TYPE-HIGH-NIBBLE]", "TYPE-HIGH-NIBBLE", kHighNibble, ""},
             {"kiln-v2-frame-first", "[FRAME-LE-FLAG, TYPE-HIGH-NIBBLE]", "FRAME-LE-FLAG",
              kHighNibble, "  - {set: \"header.flags\", value: 0}\n", "[TYPE-HIGH-NIBBLE]"}});
  ASSERT_EQ(check.code, kExitOk) << check.err;
  std::ostringstream out, err;
  cases_coverage(root, out, err);
  // rule, breaking, alone, exercising, swept (no family here)
  const std::string table = out.str();
  EXPECT_TRUE(std::regex_search(table, std::regex("\nFRAME-LE-FLAG +1 +0 +1 +0  kiln-v2-frame-first\n")))
      << table;
  EXPECT_TRUE(std::regex_search(table, std::regex("\nTYPE-HIGH-NIBBLE +1 +1 +2 +0  kiln-v2-nibble\n")))
      << table;
}

}  // namespace
}  // namespace kiln::conformance
