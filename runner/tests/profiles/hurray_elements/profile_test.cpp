// The hurray-elements profile in the runner: what a passing answer is (opaque
// or a TAG reject, elements by value), Tier 2 types the hello does not claim,
// and the certificate that names the profile and its Tier 2 types.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kiln/adapter.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::write_text;

constexpr const char* kUint4Accept = R"(id: hurray-uint4-3
summary: uint4 [3] 5 c 3
profile: hurray-elements
rules: [HURRAY-PAD-4BIT]
source: suite
level: required
type: uint4
shape: [3]
data: "c503"
elements: ["5", "c", "3"]
expect:
  result: accept
ops: [decode, encode]
)";

constexpr const char* kBoolAccept = R"(id: hurray-bool-5
summary: bool [5] 1 0 1 1 0
profile: hurray-elements
rules: [HURRAY-PAD-BOOL]
source: suite
level: required
type: bool
shape: [5]
data: "0d"
elements: ["1", "0", "1", "1", "0"]
expect:
  result: accept
ops: [decode, encode]
)";

constexpr const char* kTag47Opaque = R"(id: hurray-tag-47-permissive
summary: 0x47 in permissive mode
profile: hurray-elements
rules: [HURRAY-TAG-UNRECOGNIZED]
source: suite
level: required
type: 0x47
shape: [1]
mode: permissive
data: "00"
expect:
  result: opaque
ops: [decode]
)";

constexpr const char* kE8m0Reject = R"(id: hurray-e8m0-00
summary: e8m0 00 is reserved
profile: hurray-elements
rules: [HURRAY-E8M0-RESERVED]
source: suite
level: required
type: float8_e8m0
shape: [1]
data: "00"
expect:
  result: reject
  class: DATA
  rule: HURRAY-E8M0-RESERVED
ops: [decode]
)";

// The reference, claiming only the Tier 2 types it is given, and answering as
// an implementation that supports only those would.
class Tier2Adapter final : public protocol::Adapter {
 public:
  explicit Tier2Adapter(std::vector<std::string> tier2) : tier2_(std::move(tier2)) {}
  protocol::Hello hello() override {
    protocol::Hello hello = reference_.hello();
    hello.hurray_tier2 = tier2_;
    return hello;
  }
  protocol::Outcome decode(std::span<const std::uint8_t> block) override { return reference_.decode(block); }
  protocol::Outcome encode(const BlockDescription& description) override { return reference_.encode(description); }
  protocol::Outcome decode_elements(const protocol::ElementsDecodeRequest& request) override {
    auto decoded = hurray::decode(request.tag, request.shape, request.mode, request.data,
                                  protocol::tier2_set(hello()));
    if (!decoded) return protocol::reject_from(decoded.error());
    if (decoded.value().opaque) return protocol::OpaqueAccept{};
    return reference_.decode_elements(request);
  }
  protocol::Outcome encode_elements(const protocol::ElementsEncodeRequest& request) override {
    ++encodes;
    return reference_.encode_elements(request);
  }
  int encodes = 0;

 private:
  protocol::ReferenceAdapter reference_;
  std::vector<std::string> tier2_;
};

class ElementsProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(cases_ / "hurray");
    write_text(cases_ / "hurray" / "hurray-uint4-3.yaml", kUint4Accept);
    write_text(cases_ / "hurray" / "hurray-bool-5.yaml", kBoolAccept);
    write_text(cases_ / "hurray" / "hurray-tag-47-permissive.yaml", kTag47Opaque);
    write_text(cases_ / "hurray" / "hurray-e8m0-00.yaml", kE8m0Reject);
    set_ = load_case_set(cases_);
    ASSERT_TRUE(set_.errors.empty()) << set_.errors.front().describe();
    ASSERT_EQ(set_.cases.size(), 4u);
  }

  const Case& find(const std::string& id) const {
    for (const Case& c : set_.cases)
      if (c.id == id) return c;
    throw std::runtime_error("no case " + id);
  }

  static CaseResult judged(const Case& c, Operation op, const protocol::Outcome& outcome,
                           const protocol::Hello* hello = nullptr) {
    CaseResult result;
    judge(c, op, outcome, result, hello);
    return result;
  }

  ScratchDir scratch_;
  std::filesystem::path cases_ = scratch_ / "cases";
  CaseSet set_;
};

TEST_F(ElementsProfileTest, TheReferenceIsConformantForTheProfileAndItsTier2Types) {
  RunOptions options;
  options.cases_dir = cases_;
  options.adapter = "builtin:reference";
  options.quiet_progress = true;
  std::ostringstream out, err;
  const RunSummary summary = run_suite(options, set_, out, err);
  EXPECT_EQ(summary.exit_code, 0) << out.str() << err.str();
  EXPECT_EQ(summary.totals.passed, 6u);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("for hurray-elements (Tier 2: float8_e4m3, "), std::string::npos)
      << summary.certificate;
}

TEST_F(ElementsProfileTest, AnOpaqueCasePassesOpaqueOrATagRejectAndNothingElse) {
  const Case& c = find("hurray-tag-47-permissive");
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::OpaqueAccept{}).status, Status::kPass);
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::ElementsReject{hurray::ErrorClass::kTag, "no", {}, {}}).status,
            Status::kPass);
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::ElementsReject{hurray::ErrorClass::kData, "no", {}, {}}).status,
            Status::kFail);
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::ElementsAccept{{hurray::Element{}}, 8}).status, Status::kFail);
  // A Kiln answer does not answer a hurray-elements request.
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::Accept{}).status, Status::kProtocol);
}

TEST_F(ElementsProfileTest, ElementsAreComparedByValueAndTheFirstWrongOneIsNamed) {
  const Case& c = find("hurray-uint4-3");
  protocol::ElementsAccept right{{hurray::Element{5}, hurray::Element{12}, hurray::Element{3}}, 4};
  EXPECT_EQ(judged(c, Operation::kDecode, right).status, Status::kPass);
  protocol::ElementsAccept swapped{{hurray::Element{12}, hurray::Element{5}, hurray::Element{3}}, 4};
  const CaseResult wrong = judged(c, Operation::kDecode, swapped);
  EXPECT_EQ(wrong.status, Status::kFail);
  EXPECT_NE(wrong.detail.find("element 0 is c, expected 5"), std::string::npos) << wrong.detail;
  protocol::ElementsAccept short_list{{hurray::Element{5}}, 4};
  EXPECT_EQ(judged(c, Operation::kDecode, short_list).status, Status::kFail);
  // Opaque for a recognized type reads nothing: a failure.
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::OpaqueAccept{}).status, Status::kFail);
  // Encode: byte for byte, padding bits included.
  EXPECT_EQ(judged(c, Operation::kEncode, protocol::ElementData{{0xC5, 0x03}}).status, Status::kPass);
  EXPECT_EQ(judged(c, Operation::kEncode, protocol::ElementData{{0xC5, 0xF3}}).status, Status::kFail);
}

TEST_F(ElementsProfileTest, AWrongClassFailsAReject) {
  const Case& c = find("hurray-e8m0-00");
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::ElementsReject{hurray::ErrorClass::kData, "", {}, {}}).status,
            Status::kPass);
  EXPECT_EQ(judged(c, Operation::kDecode, protocol::ElementsReject{hurray::ErrorClass::kTag, "", {}, {}}).status,
            Status::kFail);
}

TEST_F(ElementsProfileTest, ATier2TypeTheHelloDoesNotClaimIsExpectedAsAnUnrecognizedTag) {
  auto adapter = std::make_unique<Tier2Adapter>(std::vector<std::string>{});
  Tier2Adapter& raw = *adapter;
  auto driver = make_in_process_driver(std::move(adapter));
  const auto asked = driver->hello();
  ASSERT_TRUE(asked) << asked.error();
  const std::optional<protocol::Hello> hello = asked.value();

  // uint4 is Tier 2: decode expects TAG, and the reference-without-uint4 gives it.
  const CaseResult decode = run_case(find("hurray-uint4-3"), Operation::kDecode, *driver, hello);
  EXPECT_EQ(decode.status, Status::kPass) << decode.detail;
  EXPECT_EQ(decode.expected, "reject TAG");
  // Its encode is not sent, and the skip is by declaration.
  const CaseResult encode = run_case(find("hurray-uint4-3"), Operation::kEncode, *driver, hello);
  EXPECT_EQ(encode.status, Status::kSkip);
  EXPECT_TRUE(encode.out_of_scope);
  EXPECT_EQ(raw.encodes, 0);
  // A Tier 1 type is held to the case whatever the hello claims.
  const CaseResult tier1 = run_case(find("hurray-bool-5"), Operation::kEncode, *driver, hello);
  EXPECT_EQ(tier1.status, Status::kPass) << tier1.detail;
  EXPECT_EQ(raw.encodes, 1);

  // An adapter that claims uint4 but answers TAG fails the decode.
  const protocol::Hello claims = protocol::ReferenceAdapter().hello();
  const CaseResult claimed = [&] {
    CaseResult result;
    judge(find("hurray-uint4-3"), Operation::kDecode,
          protocol::ElementsReject{hurray::ErrorClass::kTag, "", {}, {}}, result, &claims);
    return result;
  }();
  EXPECT_EQ(claimed.status, Status::kFail);
}

TEST_F(ElementsProfileTest, AHelloNamingANonTier2TypeIsMalformed) {
  auto parsed = protocol::hello_from_json(protocol::Json::parse(
      R"({"name":"x","version":"1","ops":["decode"],"profiles":["hurray-elements"],"hurray_tier2":["float32"]})"));
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().find("not a Tier 2 type"), std::string::npos) << parsed.error();
}

TEST(ElementsProfile, IsOneOfTheProfilesWithEveryRuleOfTheReference) {
  const Profile* profile = find_profile("hurray-elements");
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->rules().size(), hurray::all_rules().size());
  EXPECT_EQ(find_profile("kiln-v2")->rules().size(), all_rules().size());
  EXPECT_EQ(find_profile("nope"), nullptr);
}


// ---- the loader: the forms of cases/README.md, "Profile hurray-elements" ----

std::vector<std::string> valid_hurray_lines() {
  return {"id: hurray-uint4-3",          "summary: uint4 [3] 5 c 3", "profile: hurray-elements",
          "rules: [HURRAY-PAD-4BIT]",    "source: suite",            "level: required",
          "type: uint4",                 "shape: [3]",               "data: \"c503\"",
          "elements: [\"5\", \"c\", \"3\"]", "expect:",              "  result: accept",
          "ops: [decode, encode]"};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

struct BrokenElementsCase {
  std::string what;
  std::vector<std::string> lines;
  int line;             // where the loader must point
  std::string message;  // a fragment of what it says
};

std::vector<std::string> replaced(std::size_t number, const std::string& text,
                                  std::vector<std::string> lines = valid_hurray_lines()) {
  lines.at(number - 1) = text;
  return lines;
}

std::vector<std::string> without(std::size_t number, std::vector<std::string> lines = valid_hurray_lines()) {
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(number - 1));
  return lines;
}

std::vector<BrokenElementsCase> broken_elements_cases() {
  std::vector<BrokenElementsCase> cases;
  cases.push_back({"raw_tag_naming_a_type", replaced(7, "type: 0x49"), 7, "name it"});
  cases.push_back({"unknown_type", replaced(7, "type: uint5"), 7, "is not a type of reference/HURRAY.md"});
  cases.push_back({"kiln_rule", replaced(4, "rules: [TYPE-BYTE-LENGTH]"), 4,
                   "is not a rule ID of reference/HURRAY.md"});
  cases.push_back({"element_as_number", replaced(10, "elements: [5, \"c\", \"3\"]"), 10, "quoted hex string"});
  cases.push_back({"element_upper_case", replaced(10, "elements: [\"5\", \"C\", \"3\"]"), 10,
                   "lower-case hex digits"});
  // Form errors point at the expect mapping, whose result decides the form.
  cases.push_back({"accept_without_data", without(9), 11, "an accept case has both data and elements"});
  cases.push_back({"unknown_profile", replaced(3, "profile: hurray-v9"), 3, "profile is kiln-v2 or hurray-elements"});
  cases.push_back({"kiln_key", replaced(8, "tensors: []"), 8, "unknown key 'tensors'"});
  cases.push_back({"mode_unknown", replaced(13, "mode: lenient", valid_hurray_lines()), 13, "mode is strict or permissive"});
  {
    auto lines = valid_hurray_lines();
    lines[11] = "  result: reject";
    lines.insert(lines.begin() + 12, {"  class: DATA", "  rule: HURRAY-PAD-4BIT"});
    cases.push_back({"reject_with_data_and_elements", lines, 12, "not both"});
  }
  {
    auto lines = without(10);
    lines[10] = "  result: reject";
    lines.insert(lines.begin() + 11, {"  class: TAG", "  rule: HURRAY-PAD-4BIT"});
    cases.push_back({"rule_of_the_wrong_class", lines, 13, "is not of class TAG"});
  }
  {
    auto lines = without(10, replaced(4, "rules: [HURRAY-TAG-UNRECOGNIZED]"));
    lines.insert(lines.begin() + 8, "mode: permissive");
    lines[11] = "  result: opaque";
    cases.push_back({"opaque_of_a_named_type", lines, 12, "a raw tag"});
  }
  return cases;
}

void PrintTo(const BrokenElementsCase& broken, std::ostream* out) { *out << broken.what; }

class BrokenElementsCaseFile : public ::testing::TestWithParam<BrokenElementsCase> {};

TEST_P(BrokenElementsCaseFile, IsRefusedAtItsLine) {
  const BrokenElementsCase& broken = GetParam();
  const auto& schema = CaseSchema::builtin();
  auto loaded = load_case_text(joined(broken.lines), "x.yaml", schema);
  ASSERT_FALSE(loaded.ok()) << joined(broken.lines);
  const CaseError& error = loaded.error();
  EXPECT_EQ(error.where.line, broken.line) << error.describe();
  EXPECT_NE(error.message.find(broken.message), std::string::npos) << error.describe();
}

INSTANTIATE_TEST_SUITE_P(ElementsCases, BrokenElementsCaseFile, ::testing::ValuesIn(broken_elements_cases()),
                         [](const auto& info) { return info.param.what; });

TEST(ElementsCases, TheValidFormLoadsWithItsTagFromTheTable) {
  const auto& schema = CaseSchema::builtin();
  auto loaded = load_case_text(joined(valid_hurray_lines()), "x.yaml", schema);
  ASSERT_TRUE(loaded.ok()) << loaded.error().describe();
  const Case& c = loaded.value();
  ASSERT_TRUE(c.body_as<ElementsCase>());
  EXPECT_EQ(c.body_as<ElementsCase>()->tag, hurray::type_by_name("uint4")->tag);
  EXPECT_EQ(c.derived_ops(), (std::vector<Operation>{Operation::kDecode, Operation::kEncode}));
  EXPECT_TRUE(check_case(c).empty());
  EXPECT_EQ(c.profile, "hurray-elements");
}

TEST_F(ElementsProfileTest, ExportWritesTheDataAndTheTagBesideTheName) {
  const auto destination = scratch_ / "export";
  std::ostringstream out, err;
  ASSERT_EQ(cases_export(cases_, destination, out, err), kExitOk) << err.str();
  EXPECT_EQ(testing::read_text(destination / "hurray-uint4-3.data"), std::string("\xc5\x03", 2));
  const auto index = nlohmann::json::parse(testing::read_text(destination / "index.json"));
  const auto entry = std::find_if(index["cases"].begin(), index["cases"].end(),
                                  [](const auto& e) { return e["id"] == "hurray-uint4-3"; });
  ASSERT_NE(entry, index["cases"].end());
  EXPECT_EQ((*entry)["profile"], "hurray-elements");
  EXPECT_EQ((*entry)["type"], "uint4");
  EXPECT_EQ((*entry)["tag"], hurray::type_by_name("uint4")->tag);
  EXPECT_EQ((*entry)["elements"], nlohmann::json::parse(R"(["5","c","3"])"));
  // An opaque case has no elements and a null type: its tag names none.
  const auto opaque = std::find_if(index["cases"].begin(), index["cases"].end(),
                                   [](const auto& e) { return e["id"] == "hurray-tag-47-permissive"; });
  ASSERT_NE(opaque, index["cases"].end());
  EXPECT_TRUE((*opaque)["type"].is_null());
  EXPECT_EQ((*opaque)["expect"]["result"], "opaque");
}

}  // namespace
}  // namespace kiln::conformance
