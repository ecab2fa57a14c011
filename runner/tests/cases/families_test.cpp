// The sweep families (families.hpp, cases/README.md "Sweeps"): regen writes and
// prunes their files, check holds the files to them, and a family whose data
// the reference contradicts, or that names what does not exist, is refused.
#include <gtest/gtest.h>

#include <map>
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

// A small family can ask for a member larger than the loader reads: regen
// refuses the family, naming the member, and writes nothing, so the case set
// still loads.
TEST(Families, RegenRefusesAMemberTheLoaderWouldRefuse) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "big", R"(family: big
generator: name-unique
summary: one group of 1,000 tensors named a, aa, aaa, ...
params:
  groups:
    - counts: [1000]
      styles: [by-length]
      duplicates: [none]
)");
  const Outcome refused = regen(root);
  EXPECT_EQ(refused.code, kExitUsage) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("kiln-v2-sweep-big-1000-by-length-none: the generated case would be"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("more than a case file may be (" + std::to_string(kMaxCaseFileBytes) + ")"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("nothing written"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(root / kSweepFolder / "big"));
  // What is there still loads.
  EXPECT_TRUE(load_case_set(root).errors.empty());
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
      // hurray-elements: a wrong parameter makes the family's own expectation wrong,
      // and the reference (through check_case) refuses it.
      {"family: bools\ngenerator: hurray-remainders\nsummary: x\nparams:\n  types: [{type: bool, "
       "max_count: 3, rule: HURRAY-PAD-4BIT}]\n",
       "hurray-sweep-bools-bool-n1-pad-bit1: the family's expectation fails the check: decode also "
       "breaks HURRAY-PAD-BOOL"},
      {"family: bools\ngenerator: hurray-remainders\nsummary: x\nparams:\n  types: [{type: bool, "
       "max_count: 3, rule: HURRAY-PAD-4BIT}]\n",
       "the reference decodes to reject DATA HURRAY-PAD-BOOL, the case expects reject DATA "
       "HURRAY-PAD-4BIT"},
      {"family: bools\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0xfe, to: 0xff, "
       "never_valid: [0x00, 0xfe], modes: [strict]}\n",
       "the reference decodes to reject TAG HURRAY-TAG-UNRECOGNIZED, the case expects reject TAG "
       "HURRAY-TAG-ZERO-FF"},
      {"family: bools\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0x20, to: 0x20, "
       "never_valid: [0x20], modes: [permissive]}\n",
       "hurray-sweep-bools-20-bool-permissive: the family's expectation fails the check: decode "
       "does not break HURRAY-TAG-ZERO-FF, which the case lists; the reference decodes to accept, "
       "the case expects reject TAG HURRAY-TAG-ZERO-FF"},
      {"family: bools\ngenerator: hurray-remainders\nsummary: x\nparams:\n  types: [{type: uint8, "
       "max_count: 3, rule: HURRAY-PAD-BOOL}]\n",
       "types are sub-byte types (1, 2, 4 or 6 bits): uint8"},
      {"family: bools\ngenerator: hurray-sizes\nsummary: x\nparams: {types: [uint9], shapes: [[1]]}\n",
       "'uint9' is not a type name of reference/HURRAY.md 3.2"},
      {"family: bools\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0, to: 0x100, "
       "never_valid: [], modes: [strict]}\n",
       "to is above 255"},
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

// ---- profile hurray-elements ----

// The members of one family expanded in a root of its own, by id.
std::map<std::string, std::string> hurray_members(const std::string& text) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "hf", text);
  const FamilySet set = expand_families(root, testing::suite_schema());
  std::map<std::string, std::string> members;
  for (const auto& error : set.errors) ADD_FAILURE() << error.describe();
  if (set.families.size() != 1) return members;
  EXPECT_EQ(set.families[0].profile, "hurray-elements");
  for (const FamilyMember& member : set.families[0].members) {
    EXPECT_EQ(member.relative_path, "sweep/hf/" + member.id + ".yaml");
    members[member.id] = member.text;
  }
  return members;
}

constexpr const char* kHeader =
    "# Written by `kiln-conformance cases regen` from cases/families/hf.family (generator ";

TEST(HurrayFamilies, TagsWalkEveryTagInEachModeAndTheEncoder) {
  // 0x41..0x48: six Tier 2 types, float8_e8m0 (00 reserved), 0x47 (no type), int4;
  // 0xfe and 0xff: no type, never valid.
  const auto members = hurray_members(
      "family: hf\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0x41, to: 0x48, "
      "never_valid: [0x00, 0xff], modes: [strict, permissive], encode: true}\n");
  EXPECT_EQ(members.size(), 8u * 2 + 1);  // every tag in both modes, and 0x47's encode
  EXPECT_EQ(members.at("hurray-sweep-hf-47-permissive"),
            std::string(kHeader) +
                "hurray-tags): edit the family, not this file.\n"
                "id: hurray-sweep-hf-47-permissive\n"
                "summary: \"tag 0x47 [1] in permissive mode names no type: opaque (or a TAG reject)\"\n"
                "profile: hurray-elements\n"
                "rules: [HURRAY-TAG-UNRECOGNIZED]\n"
                "source: family hf\n"
                "level: required\n"
                "type: 0x47\n"
                "shape: [1]\n"
                "mode: permissive\n"
                "data: \"00\"\n"
                "expect:\n"
                "  result: opaque\n"
                "ops: [decode]\n");
  const std::string& e8m0 = members.at("hurray-sweep-hf-42-float8-e8m0-strict");
  EXPECT_NE(e8m0.find("\ntype: float8_e8m0\nshape: [1]\ndata: \"7f\"\nelements: [\"7f\"]\n"
                      "expect:\n  result: accept\nops: [decode, encode]\n"),
            std::string::npos)
      << e8m0;
  EXPECT_NE(e8m0.find("rules: [HURRAY-TAG-UNRECOGNIZED, HURRAY-E8M0-RESERVED]"), std::string::npos);
  // A type is named, never given by its tag; permissive mode has no encode.
  const std::string& int4 = members.at("hurray-sweep-hf-48-int4-permissive");
  EXPECT_NE(int4.find("\ntype: int4\nshape: [1]\nmode: permissive\ndata: \"00\"\nelements: [\"0\"]\n"),
            std::string::npos)
      << int4;
  EXPECT_NE(int4.find("\nops: [decode]\n"), std::string::npos);
  EXPECT_NE(members.at("hurray-sweep-hf-47-strict").find("  result: reject\n  class: TAG\n  rule: HURRAY-TAG-UNRECOGNIZED\n"),
            std::string::npos);
  const std::string& encode = members.at("hurray-sweep-hf-47-encode");
  EXPECT_NE(encode.find("\nelements: [\"00\"]\nexpect:\n  result: reject\n  class: TAG\n"
                        "  rule: HURRAY-TAG-UNRECOGNIZED\nops: [encode]\n"),
            std::string::npos)
      << encode;

  const auto ends = hurray_members(
      "family: hf\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0xfe, to: 0xff, "
      "never_valid: [0x00, 0xff], modes: [strict, permissive], encode: true}\n");
  EXPECT_EQ(ends.size(), 6u);
  EXPECT_NE(ends.at("hurray-sweep-hf-ff-permissive").find("\ntype: 0xff\nshape: [1]\nmode: permissive\n"
                                                          "data: \"00\"\nexpect:\n  result: reject\n"
                                                          "  class: TAG\n  rule: HURRAY-TAG-ZERO-FF\n"),
            std::string::npos);
  EXPECT_NE(ends.at("hurray-sweep-hf-fe-permissive").find("  result: opaque\n"), std::string::npos);
  EXPECT_NE(ends.at("hurray-sweep-hf-ff-encode").find("  rule: HURRAY-TAG-ZERO-FF\nops: [encode]\n"),
            std::string::npos);
}

TEST(HurrayFamilies, RemaindersSetEveryPaddingBitAlone) {
  const auto members = hurray_members(
      "family: hf\ngenerator: hurray-remainders\nsummary: x\nparams:\n  types:\n"
      "    - {type: bool, max_count: 17, rule: HURRAY-PAD-BOOL}\n"
      "    - {type: float6_e3m2, max_count: 9, rule: HURRAY-PAD-6BIT}\n");
  // bool: 18 counts, and 8 - r bits for each r = n mod 8 > 0 (28 + 28 + 7);
  // 6-bit: 10 counts, and 24 - 6r bits of the group for each r > 0 (36 + 36 + 18).
  std::size_t bools = 0, sixes = 0;
  for (const auto& [id, text] : members) (id.find("-bool-") != std::string::npos ? bools : sixes)++;
  EXPECT_EQ(bools, 18u + 63);
  EXPECT_EQ(sixes, 10u + 90);
  const std::string& n9 = members.at("hurray-sweep-hf-bool-n9");
  EXPECT_NE(n9.find("\nrules: [HURRAY-PAD-BOOL]\n"), std::string::npos) << n9;
  EXPECT_NE(n9.find("\ntype: bool\nshape: [9]\ndata: \"ff01\"\nelements: [\"1\", \"1\", \"1\", \"1\", "
                    "\"1\", \"1\", \"1\", \"1\", \"1\"]\nexpect:\n  result: accept\nops: [decode, encode]\n"),
            std::string::npos)
      << n9;
  EXPECT_NE(members.at("hurray-sweep-hf-bool-n9-pad-bit1").find("\ndata: \"ff03\"\nexpect:\n  result: reject\n"
                                                                "  class: DATA\n  rule: HURRAY-PAD-BOOL\n"
                                                                "ops: [decode]\n"),
            std::string::npos);
  EXPECT_EQ(members.count("hurray-sweep-hf-bool-n9-pad-bit0"), 0u);  // bit 0 holds element 8
  EXPECT_EQ(members.count("hurray-sweep-hf-bool-n16-pad-bit7"), 0u);  // no padding
  EXPECT_NE(members.at("hurray-sweep-hf-bool-n0").find("\nshape: [0]\ndata: \"\"\nelements: []\n"),
            std::string::npos);
  // Five 6-bit elements 3f: one full group ff ff ff, then 3f 00 00; the unused bits
  // of the final group are 6..23, in every one of its bytes.
  EXPECT_NE(members.at("hurray-sweep-hf-float6-e3m2-n5").find("\ndata: \"ffffff3f0000\"\n"), std::string::npos);
  EXPECT_NE(members.at("hurray-sweep-hf-float6-e3m2-n5-pad-bit6").find("\ndata: \"ffffff7f0000\"\n"),
            std::string::npos);
  EXPECT_NE(members.at("hurray-sweep-hf-float6-e3m2-n5-pad-bit15").find("\ndata: \"ffffff3f8000\"\n"),
            std::string::npos);
  EXPECT_NE(members.at("hurray-sweep-hf-float6-e3m2-n5-pad-bit23").find("\ndata: \"ffffff3f0080\"\n"),
            std::string::npos);
  EXPECT_EQ(members.count("hurray-sweep-hf-float6-e3m2-n7-pad-bit17"), 0u);  // bit 17 holds element 6
  EXPECT_EQ(members.count("hurray-sweep-hf-float6-e3m2-n7-pad-bit18"), 1u);
}

TEST(HurrayFamilies, SizesComputeTheirOwnOverflows) {
  const auto members = hurray_members(
      "family: hf\ngenerator: hurray-sizes\nsummary: x\nparams:\n  types: [float6_e2m3, uint16, complex128]\n"
      "  encode: true\n  shapes:\n    - [9223372036854775808]\n    - [4294967296, 4294967296]\n"
      "    - [4294967297, 4294967295]\n    - [0, 18446744073709551615]\n");
  // Each shape and type in decode, and in encode but for N = 0 (the accept encodes).
  EXPECT_EQ(members.size(), 4u * 3 + 3 * 3);
  const auto expect_rule = [&](const std::string& id, const std::string& rule) {
    EXPECT_NE(members.at(id).find("  class: DATA\n  rule: " + rule + "\n"), std::string::npos)
        << id << " expects " << rule << ":\n" << members.at(id);
  };
  // 2^63 elements: 2^64 bytes of uint16, 2^67 of complex128; 3 x 2^61 of a 6-bit type.
  expect_rule("hurray-sweep-hf-s0-uint16", "HURRAY-SIZE-OVERFLOW");
  expect_rule("hurray-sweep-hf-s0-complex128", "HURRAY-SIZE-OVERFLOW");
  expect_rule("hurray-sweep-hf-s0-float6-e2m3", "HURRAY-DATA-SHORT");
  expect_rule("hurray-sweep-hf-s1-float6-e2m3", "HURRAY-COUNT-OVERFLOW");
  expect_rule("hurray-sweep-hf-s1-uint16-encode", "HURRAY-COUNT-OVERFLOW");
  // 2^64 - 1 elements fit; their 2-byte elements do not.
  expect_rule("hurray-sweep-hf-s2-uint16", "HURRAY-SIZE-OVERFLOW");
  expect_rule("hurray-sweep-hf-s2-float6-e2m3", "HURRAY-DATA-SHORT");
  expect_rule("hurray-sweep-hf-s2-float6-e2m3-encode", "HURRAY-ENC-COUNT");
  const std::string& s0 = members.at("hurray-sweep-hf-s0-uint16");
  EXPECT_NE(s0.find("\ntype: uint16\nshape: [9223372036854775808]\ndata: \"00\"\n"), std::string::npos) << s0;
  EXPECT_NE(s0.find("S = 18446744073709551616 bytes exceeds 2^64 - 1"), std::string::npos) << s0;
  // Encode checks the size before the count: both are broken, the size reported.
  const std::string& encode = members.at("hurray-sweep-hf-s0-uint16-encode");
  EXPECT_NE(encode.find("\nalso_breaks: [HURRAY-ENC-COUNT]\n"), std::string::npos) << encode;
  EXPECT_NE(encode.find("\nelements: []\nexpect:\n  result: reject\n  class: DATA\n"
                        "  rule: HURRAY-SIZE-OVERFLOW\nops: [encode]\n"),
            std::string::npos)
      << encode;
  const std::string& zero = members.at("hurray-sweep-hf-s3-complex128");
  EXPECT_NE(zero.find("\ndata: \"\"\nelements: []\nexpect:\n  result: accept\nops: [decode, encode]\n"),
            std::string::npos)
      << zero;
  EXPECT_EQ(members.count("hurray-sweep-hf-s3-complex128-encode"), 0u);
}

TEST(HurrayFamilies, RegenWritesThemAndCheckAcceptsThem) {
  ScratchDir dir;
  const auto root = dir / "cases";
  make_root(root, "hf",
            "family: hf\ngenerator: hurray-tags\nsummary: x\nparams: {from: 0x46, to: 0x48, "
            "never_valid: [0x00, 0xff], modes: [strict, permissive], encode: true}\n");
  const Outcome written = regen(root);
  ASSERT_EQ(written.code, kExitOk) << written.err;
  EXPECT_NE(written.out.find("1 families, 7 cases, 7 file(s) written"), std::string::npos) << written.out;
  EXPECT_TRUE(std::filesystem::exists(root / kSweepFolder / "hf" / "hurray-sweep-hf-47-encode.yaml"));
  const Outcome checked = check(root);
  EXPECT_EQ(checked.code, kExitOk) << checked.err;
  const auto edited = root / kSweepFolder / "hf" / "hurray-sweep-hf-46-float128-strict.yaml";
  write_text(edited, read_text(edited) + "# a hand edit\n");
  EXPECT_NE(check(root).err.find("hurray-sweep-hf-46-float128-strict: differs from what its family generates"),
            std::string::npos);
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
