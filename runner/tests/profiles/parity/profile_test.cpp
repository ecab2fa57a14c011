// The seam of issue 26 proved: profile parity (profile.hpp), which lives in this
// folder alone, is registered from the test, its cases load, a run takes them
// through an in-process adapter, and the verdicts and the JSON report name it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

#include "kiln/adapter.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/run.hpp"
#include "profiles/parity/profile.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::read_text;
using testing::ScratchDir;
using testing::write_text;

constexpr const char* kEven = R"(id: parity-even
summary: Three bytes whose XOR is 0
profile: parity
rules: [PARITY-XOR]
source: suite
level: required
bytes: "010203"
expect: accept
ops: [decode]
)";

constexpr const char* kOdd = R"(id: parity-odd
summary: Two bytes whose XOR is 2
profile: parity
rules: [PARITY-XOR]
source: suite
level: required
bytes: "0103"
expect: reject
ops: [decode]
)";

// The parity rule behind the adapter interface; `accepts_all` is an adapter
// with a bug, which fails the reject case. The hello must offer the profile,
// or run skips its cases.
class ParityAdapter final : public protocol::Adapter {
 public:
  explicit ParityAdapter(bool accepts_all) : accepts_all_(accepts_all) {}
  protocol::Hello hello() override {
    protocol::Hello hello;
    hello.name = accepts_all_ ? "parity-accepts-all" : "parity-adapter";
    hello.version = "1";
    hello.ops = {std::string(protocol::kOpDecode)};
    hello.profiles = {std::string(parity::kName)};
    return hello;
  }
  protocol::Outcome decode(std::span<const std::uint8_t> bytes) override {
    if (accepts_all_ || parity::even(bytes)) return protocol::Accept{};
    return protocol::Reject{ErrorClass::kFrame, "the bytes' XOR is not 0", std::string(parity::kRule), {}};
  }
  protocol::Outcome encode(const BlockDescription&) override {
    return protocol::ProtocolError{"profile parity has no encode"};
  }

 private:
  bool accepts_all_;
};

ProfileModule parity_module() { return {parity::profile(), nullptr, false, "none: no fuzzer", nullptr}; }

class ParityProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(cases_ / "parity" / "parity-even.yaml", kEven);
    write_text(cases_ / "parity" / "parity-odd.yaml", kOdd);
  }

  RunSummary run(bool accepts_all) {
    RunOptions options;
    options.cases_dir = cases_;
    options.adapter = accepts_all ? "parity-accepts-all" : "parity-adapter";
    options.in_process_adapter = [accepts_all] { return std::make_unique<ParityAdapter>(accepts_all); };
    options.json_report = scratch_ / "report.json";
    options.quiet_progress = true;
    const CaseSet set = load_case_set(cases_);
    EXPECT_TRUE(set.errors.empty()) << (set.errors.empty() ? "" : set.errors.front().describe());
    std::ostringstream out, err;
    RunSummary summary = run_suite(options, set, out, err);
    EXPECT_TRUE(err.str().empty()) << err.str();
    return summary;
  }

  const ProfileVerdict& verdict_of(const RunSummary& summary) {
    for (const ProfileVerdict& verdict : summary.profiles)
      if (verdict.profile == parity::kName) return verdict;
    throw std::runtime_error("no parity verdict");
  }

  static nlohmann::json profile_entry(const nlohmann::json& report) {
    for (const auto& entry : report.at("profiles"))
      if (entry.at("profile") == "parity") return entry;
    return nullptr;
  }

  ScratchDir scratch_;
  std::filesystem::path cases_ = scratch_ / "cases";
};

TEST_F(ParityProfileTest, IsAProfileOnlyWhileItsRegistrationLives) {
  EXPECT_EQ(find_profile("parity"), nullptr);
  const CaseSet before = load_case_set(cases_);
  ASSERT_EQ(before.errors.size(), 2u);
  EXPECT_NE(before.errors.front().message.find("profile is kiln-v2 or hurray-elements, not 'parity'"),
            std::string::npos)
      << before.errors.front().describe();
  {
    const ProfileRegistration registration(parity_module());
    EXPECT_EQ(find_profile("parity"), &parity::profile());
    ASSERT_NE(find_profile_module("parity"), nullptr);
    EXPECT_EQ(all_profiles().back(), &parity::profile());
    EXPECT_EQ(default_profile_name(), "kiln-v2");  // the built-in first
    EXPECT_EQ(profile_names(" or "), "kiln-v2, hurray-elements or parity");
    EXPECT_EQ(fuzzable_profile_names(" or "), "kiln-v2 or hurray-elements");
    // A name is one profile's.
    EXPECT_THROW(ProfileRegistration{parity_module()}, std::invalid_argument);
    EXPECT_THROW((ProfileRegistration{{*find_profile("kiln-v2"), nullptr, false, "", nullptr}}), std::invalid_argument);

    const CaseSet set = load_case_set(cases_);
    ASSERT_TRUE(set.errors.empty()) << set.errors.front().describe();
    ASSERT_EQ(set.cases.size(), 2u);
    EXPECT_EQ(set.cases[0].id, "parity-even");
    EXPECT_EQ(set.cases[0].profile, "parity");
    EXPECT_TRUE(parity::body(set.cases[0]).accept);
    EXPECT_EQ(set.cases[1].expected_rule_id(), "PARITY-XOR");
  }
  EXPECT_EQ(find_profile("parity"), nullptr);
  EXPECT_EQ(all_profiles().size(), 2u);
}

TEST_F(ParityProfileTest, ACaseTheRuleContradictsDoesNotLoad) {
  const ProfileRegistration registration(parity_module());
  std::string wrong = kOdd;
  wrong.replace(wrong.find("expect: reject"), 14, "expect: accept");
  write_text(cases_ / "parity" / "parity-odd.yaml", wrong);
  const CaseSet set = load_case_set(cases_);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_NE(set.errors[0].message.find("expect is reject for these bytes (PARITY-XOR)"), std::string::npos)
      << set.errors[0].describe();
}

// The folder has no case.schema.json: the profile's own schema checks its cases.
TEST_F(ParityProfileTest, ItsOwnSchemaChecksItsCases) {
  const ProfileRegistration registration(parity_module());
  std::string wordy = kEven;
  wordy.replace(wordy.find("Three bytes"), 11, std::string(70, 'x'));
  write_text(cases_ / "parity" / "parity-even.yaml", wordy);
  const CaseSet set = load_case_set(cases_);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(set.errors[0].where.line, 2) << set.errors[0].describe();
  EXPECT_NE(set.errors[0].message.find("summary (a string) does not satisfy the built-in case schema of "
                                       "profile parity"),
            std::string::npos)
      << set.errors[0].describe();
}

TEST_F(ParityProfileTest, ARunThroughAnInProcessAdapterCertifiesItAndTheReportNamesIt) {
  const ProfileRegistration registration(parity_module());
  const RunSummary summary = run(false);
  EXPECT_EQ(summary.exit_code, 0) << summary.certificate;
  ASSERT_EQ(summary.results.size(), 2u);
  for (const CaseResult& result : summary.results) {
    EXPECT_EQ(result.status, Status::kPass) << result.case_id << ": " << result.detail;
    EXPECT_EQ(result.profile, "parity");
  }
  EXPECT_EQ(summary.totals.passed, 2u);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: parity-adapter ", 0), 0u) << summary.certificate;
  const ProfileVerdict& verdict = verdict_of(summary);
  EXPECT_EQ(verdict.verdict, "conformant");
  EXPECT_EQ(verdict.totals.passed, 2u);

  const auto report = nlohmann::json::parse(read_text(scratch_ / "report.json"));
  const auto entry = profile_entry(report);
  ASSERT_TRUE(entry.is_object()) << report.dump();
  EXPECT_EQ(entry["verdict"], "conformant");
  EXPECT_EQ(entry["passed"], 2);
  EXPECT_EQ(entry["failed"], 0);
  ASSERT_EQ(report["results"].size(), 2u);
  for (const auto& result : report["results"]) EXPECT_EQ(result["profile"], "parity") << result.dump();
}

TEST_F(ParityProfileTest, AnAdapterThatAcceptsOddBytesFailsTheRejectCase) {
  const ProfileRegistration registration(parity_module());
  const RunSummary summary = run(true);
  EXPECT_EQ(summary.exit_code, kExitFailures);
  ASSERT_EQ(summary.results.size(), 2u);
  EXPECT_EQ(summary.results[0].status, Status::kPass);
  EXPECT_EQ(summary.results[1].case_id, "parity-odd");
  EXPECT_EQ(summary.results[1].status, Status::kFail);
  EXPECT_EQ(summary.results[1].expected, "reject (PARITY-XOR)");
  EXPECT_EQ(summary.results[1].got, "accept");
  EXPECT_EQ(summary.totals.failed, 1u);
  EXPECT_EQ(verdict_of(summary).verdict, "not conformant");

  const auto entry = profile_entry(nlohmann::json::parse(read_text(scratch_ / "report.json")));
  ASSERT_TRUE(entry.is_object());
  EXPECT_EQ(entry["verdict"], "not conformant");
  EXPECT_EQ(entry["passed"], 1);
  EXPECT_EQ(entry["failed"], 1);
}

TEST_F(ParityProfileTest, FuzzRefusesAProfileWithoutAFuzzer) {
  const ProfileRegistration registration(parity_module());
  FuzzOptions options;
  options.profile = "parity";
  options.adapter = "builtin:reference";
  options.runs = 1;
  options.out_dir = scratch_ / "findings";
  std::ostringstream out, err;
  const FuzzSummary summary = run_fuzz(options, CaseSet{}, out, err);
  EXPECT_EQ(summary.exit_code, kExitUsage);
  EXPECT_NE(err.str().find("not parity (a profile without a fuzzer)"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace kiln::conformance
