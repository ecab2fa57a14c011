// `run`'s generated phase: the certificate names it, two runs agree, a failure
// is counted like a case's, confirmed and written as a case that fails alone,
// and the expected-failures list names generated checks by seed and number.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;

std::string fake(const std::string& flags) { return std::string("'") + KILN_FAKE_ADAPTER + "' " + flags; }

struct Fixture {
  ScratchDir scratch;
  std::filesystem::path cases = scratch / "cases";
  CaseSet set;

  Fixture() {
    testing::write_seed_cases(cases);
    set = load_case_set(cases);
  }

  RunOptions options(const std::string& adapter, std::size_t generated) const {
    RunOptions run;
    run.cases_dir = cases;
    run.adapter = adapter;
    run.generated = generated;
    run.generated_out = scratch / "generated-failures";
    run.quiet_progress = true;
    return run;
  }

  RunSummary run(const RunOptions& run_options, std::string* printed = nullptr) const {
    std::ostringstream out, err;
    RunSummary summary = run_suite(run_options, set, out, err);
    if (printed) *printed = out.str() + err.str();
    return summary;
  }

  std::uint64_t seed() const { return generated_seed(case_set_hash(set)); }
};

std::size_t generated_results(const RunSummary& summary) {
  return static_cast<std::size_t>(std::count_if(summary.results.begin(), summary.results.end(),
                                                [](const CaseResult& r) { return r.generated.has_value(); }));
}

TEST(GeneratedPhase, SeedAndIdsFollowTheCaseSet) {
  EXPECT_EQ(generated_seed("0c041ac0c2de0000"), 0x0c041ac0u);
  EXPECT_NE(generated_seed("0c041ac0"), generated_seed("0c041ac1"));
  const std::string id = generated_check_id("kiln-v2", 201595584, 42);
  EXPECT_EQ(id, "generated-kiln-v2-201595584-000042");
  const auto parsed = parse_generated_check_id(id);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->profile, "kiln-v2");
  EXPECT_EQ(parsed->seed, 201595584u);
  EXPECT_EQ(parsed->number, 42u);
  EXPECT_EQ(parse_generated_check_id("generated-hurray-elements-7-1234567")->profile, "hurray-elements");
  EXPECT_FALSE(parse_generated_check_id("kiln-v2-generated-decode-0c88ec9661a7"));
  EXPECT_FALSE(parse_generated_check_id("generated-kiln-v2-x-000001"));
  EXPECT_FALSE(parse_generated_check_id("generated-*"));
}

TEST(GeneratedPhase, TheCertificateNamesTheGeneratedChecksAndTheirSeed) {
  const Fixture fixture;
  const RunSummary summary = fixture.run(fixture.options("builtin:reference", 300));
  EXPECT_EQ(summary.exit_code, kExitOk) << summary.certificate;
  EXPECT_EQ(generated_results(summary), 300u);
  ASSERT_EQ(summary.generated.size(), 1u);  // the seed cases are kiln-v2's alone
  EXPECT_EQ(summary.generated[0].profile, "kiln-v2");
  EXPECT_EQ(summary.generated[0].ran, 300u);
  EXPECT_EQ(summary.totals.passed, summary.results.size());
  EXPECT_NE(summary.certificate.find("CONFORMANT: "), std::string::npos) << summary.certificate;
  EXPECT_NE(summary.certificate.find("checks (decode and encode) and 300 generated checks (seed " +
                                     std::to_string(fixture.seed()) + ") of kiln-conformance"),
            std::string::npos)
      << summary.certificate;
}

TEST(GeneratedPhase, WithoutItTheCertificateSaysCasesOnly) {
  const Fixture fixture;
  const RunSummary summary = fixture.run(fixture.options("builtin:reference", 0));
  EXPECT_EQ(summary.exit_code, kExitOk);
  EXPECT_EQ(generated_results(summary), 0u);
  EXPECT_NE(summary.certificate.find("checks (decode and encode), cases only, of kiln-conformance"),
            std::string::npos)
      << summary.certificate;
}

TEST(GeneratedPhase, TheSameRunTwiceGivesTheSameResults) {
  const Fixture fixture;
  const auto options = fixture.options(fake("--reject-repeats"), 200);
  const RunSummary first = fixture.run(options), second = fixture.run(options);
  ASSERT_EQ(first.results.size(), second.results.size());
  for (std::size_t i = 0; i < first.results.size(); ++i) {
    const CaseResult &a = first.results[i], &b = second.results[i];
    EXPECT_EQ(a.case_id, b.case_id);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.status, b.status) << a.case_id;
    EXPECT_EQ(a.expected, b.expected) << a.case_id;
    EXPECT_EQ(a.got, b.got) << a.case_id;
    EXPECT_EQ(a.detail, b.detail) << a.case_id;
  }
  EXPECT_EQ(first.certificate, second.certificate);
  // Another seed is another sequence.
  auto other = options;
  other.generated_seed = fixture.seed() + 1;
  const RunSummary third = fixture.run(other);
  std::size_t same_expectations = 0;
  for (std::size_t i = 0; i < third.results.size() && i < first.results.size(); ++i)
    same_expectations += third.results[i].generated && third.results[i].expected == first.results[i].expected &&
                         third.results[i].op == first.results[i].op;
  EXPECT_LT(same_expectations, 200u);
}

// What a report may differ in between two runs: when it ran and how long it took.
void drop_timing(nlohmann::json& report) {
  if (report.is_object()) {
    for (const char* key : {"started_at", "seconds", "duration_seconds"}) report.erase(key);
    for (auto& [key, value] : report.items()) drop_timing(value);
  } else if (report.is_array()) {
    for (auto& value : report) drop_timing(value);
  }
}

TEST(GeneratedPhase, TwoRunsOfOneAdapterWriteTheSameReport) {
  const Fixture fixture;
  auto options = fixture.options(fake("--reject-repeats"), 200);
  nlohmann::json reports[2];
  for (int run = 0; run < 2; ++run) {
    options.json_report = fixture.scratch / ("report-" + std::to_string(run) + ".json");
    fixture.run(options);
    reports[run] = nlohmann::json::parse(testing::read_text(*options.json_report));
    drop_timing(reports[run]);
  }
  ASSERT_FALSE(reports[0]["generated"].empty());
  EXPECT_FALSE(reports[0]["generated"][0]["findings"].empty());
  EXPECT_TRUE(reports[0] == reports[1]) << nlohmann::json::diff(reports[0], reports[1]).dump().substr(0, 2000);
}

TEST(GeneratedPhase, AFailureTheCasesMissIsConfirmedCountedAndKept) {
  // A reader that takes a request sent twice in a row for one it already read:
  // no golden case repeats a request, and the phase repeats one in sixteen.
  const Fixture fixture;
  const auto options = fixture.options(fake("--reject-repeats"), 400);
  std::string printed;
  const RunSummary summary = fixture.run(options, &printed);
  EXPECT_EQ(summary.exit_code, kExitFailures) << printed;
  EXPECT_NE(summary.certificate.find("NOT CONFORMANT"), std::string::npos) << summary.certificate;
  for (const CaseResult& result : summary.results)
    if (!result.generated) {
      EXPECT_EQ(result.status, Status::kPass) << result.case_id;
    }
  ASSERT_EQ(summary.generated.size(), 1u);
  const GeneratedPhase& phase = summary.generated[0];
  EXPECT_GT(phase.failed, 0u);
  ASSERT_FALSE(phase.findings.empty()) << printed;
  EXPECT_TRUE(phase.findings[0].state_dependent);
  EXPECT_TRUE(std::filesystem::exists(phase.findings[0].file));
  EXPECT_EQ(summary.totals.failed, phase.failed);
  const auto failing = std::find_if(summary.results.begin(), summary.results.end(),
                                    [](const CaseResult& r) { return r.generated && r.status != Status::kPass; });
  ASSERT_NE(failing, summary.results.end());
  EXPECT_EQ(failing->verdict, Verdict::kUnexpectedFailure);
  EXPECT_EQ(failing->generated->file, phase.findings[0].file.string());
  EXPECT_NE(printed.find("sent twice in a row"), std::string::npos) << printed;
  EXPECT_NE(printed.find("replay: "), std::string::npos);
}

TEST(GeneratedPhase, AWrittenFailureIsACaseThatFailsAloneAndTheReferencePasses) {
  const Fixture fixture;
  const auto options = fixture.options(fake("--reject-everything"), 100);
  const RunSummary summary = fixture.run(options);
  ASSERT_EQ(summary.generated.size(), 1u);
  const GeneratedPhase& phase = summary.generated[0];
  ASSERT_FALSE(phase.findings.empty());
  for (const FuzzFinding& finding : phase.findings) {
    EXPECT_FALSE(finding.state_dependent) << finding.signature;
    EXPECT_TRUE(finding.check_problems.empty()) << finding.file;
  }
  // The folder of written cases is a case set of its own: it kills the adapter
  // and the reference passes it.
  RunOptions written = options;
  written.cases_dir = *options.generated_out;
  written.generated = 0;
  std::ostringstream out, err;
  EXPECT_EQ(run_suite(written, out, err).exit_code, kExitFailures) << err.str();
  written.adapter = "builtin:reference";
  const RunSummary reference = run_suite(written, out, err);
  EXPECT_EQ(reference.exit_code, kExitOk) << err.str() << reference.certificate;
  // A second run finds the same files and writes nothing new.
  const auto before = testing::snapshot(*options.generated_out);
  fixture.run(options);
  EXPECT_EQ(testing::snapshot(*options.generated_out), before);
}

TEST(GeneratedPhase, TheExpectedFailuresListNamesGeneratedChecksBySeedAndNumber) {
  const Fixture fixture;
  auto options = fixture.options(fake("--reject-repeats"), 200);
  options.write_expected_failures = fixture.scratch / "list.txt";
  const RunSummary first = fixture.run(options);
  ASSERT_EQ(first.exit_code, kExitFailures);
  const std::string list = testing::read_text(*options.write_expected_failures);
  EXPECT_NE(list.find(generated_check_id("kiln-v2", fixture.seed(), 1).substr(0, 20)), std::string::npos) << list;

  options.write_expected_failures.reset();
  options.expected_failures = fixture.scratch / "list.txt";
  const RunSummary listed = fixture.run(options);
  EXPECT_EQ(listed.exit_code, kExitOk) << listed.certificate;
  EXPECT_EQ(listed.totals.failed, 0u);
  EXPECT_GT(listed.totals.expected_failures, 0u);
  EXPECT_NE(listed.certificate.find("NOT CONFORMANT"), std::string::npos);

  // Fewer checks, or none, leave the entries past them outside the run: not stale.
  options.generated = 0;
  EXPECT_EQ(fixture.run(options).totals.failed, 0u);

  // Another seed (the case set changed): every entry is stale.
  options.generated = 200;
  options.generated_seed = fixture.seed() + 1;
  std::string printed;
  const RunSummary stale = fixture.run(options, &printed);
  EXPECT_EQ(stale.exit_code, kExitFailures);
  EXPECT_NE(printed.find("matches no case: remove it"), std::string::npos) << printed;
  // Each such entry is a stale expected failure, not a wrong answer.
  EXPECT_FALSE(stale.unmatched_entries.empty());
  EXPECT_EQ(stale.totals.stale_expected_failures, stale.unmatched_entries.size());
}

TEST(GeneratedPhase, AnAdapterThatFailsEverythingHasItsFirstDisagreementsKeptAndTheRestCounted) {
  const Fixture fixture;
  // The bound itself is the engine's (FuzzTrust.MaxConfirmationsBoundsTheReplays).
  const auto options = fixture.options(fake("--reject-everything"), 500);
  const RunSummary summary = fixture.run(options);
  ASSERT_EQ(summary.generated.size(), 1u);
  const GeneratedPhase& phase = summary.generated[0];
  EXPECT_EQ(phase.ran, 500u);
  EXPECT_LE(phase.findings.size() + phase.not_reproduced.size(), kMaxGeneratedConfirmations);
  EXPECT_GT(phase.failed, phase.findings.size());
  const auto cases_failed = std::count_if(summary.results.begin(), summary.results.end(),
                                          [](const CaseResult& r) { return !r.generated && r.unexpected(); });
  EXPECT_EQ(summary.totals.failed, phase.failed + static_cast<std::size_t>(cases_failed));
}

TEST(GeneratedPhase, MaxFailuresStopsThePhaseAndDeniesTheCertificate) {
  const Fixture fixture;
  auto options = fixture.options(fake("--reject-repeats"), 2000);
  options.max_failures = 1;
  std::string printed;
  const RunSummary summary = fixture.run(options, &printed);
  EXPECT_EQ(summary.exit_code, kExitFailures);
  ASSERT_EQ(summary.generated.size(), 1u);
  EXPECT_LT(summary.generated[0].ran, 2000u);
  EXPECT_NE(printed.find("generated checks of kiln-v2 not run"), std::string::npos) << printed;
}

TEST(GeneratedPhase, AnAdapterWithoutTheProfileOrOpGetsNoPhaseOfIt) {
  const Fixture fixture;
  const RunSummary summary = fixture.run(fixture.options(fake("--no-encode"), 200));
  ASSERT_EQ(summary.generated.size(), 1u);
  for (const CaseResult& result : summary.results)
    if (result.generated) {
      EXPECT_EQ(result.op, Operation::kDecode);
    }
  EXPECT_EQ(generated_results(summary), 200u);
  EXPECT_NE(summary.certificate.find("CONFORMANT (partial)"), std::string::npos) << summary.certificate;
  EXPECT_NE(summary.certificate.find("200 generated checks"), std::string::npos) << summary.certificate;
}

TEST(GeneratedPhase, TheCommandLineRunsItByDefaultAndNotForANarrowedRun) {
  const Fixture fixture;
  const auto whole = testing::run_program(KILN_CONFORMANCE_CLI,
                                          {"run", "--adapter", "builtin:reference", "--cases", fixture.cases.string(),
                                           "--generated-out", (fixture.scratch / "out").string(), "--no-progress"},
                                          fixture.scratch);
  EXPECT_EQ(whole.exit_code, kExitOk) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("and " + std::to_string(kDefaultGeneratedChecks) + " generated checks (seed " +
                           std::to_string(fixture.seed()) + ")"),
            std::string::npos)
      << whole.out;
  const auto narrowed = testing::run_program(
      KILN_CONFORMANCE_CLI,
      {"run", "--adapter", "builtin:reference", "--cases", fixture.cases.string(), "--ops", "decode", "--no-progress"},
      fixture.scratch);
  EXPECT_EQ(narrowed.out.find("generated"), std::string::npos) << narrowed.out;
  const auto asked = testing::run_program(KILN_CONFORMANCE_CLI,
                                          {"run", "--adapter", "builtin:reference", "--cases", fixture.cases.string(),
                                           "--ops", "decode", "--generated", "50", "--no-progress"},
                                          fixture.scratch);
  EXPECT_NE(asked.out.find("generated: 50 checks of kiln-v2"), std::string::npos) << asked.out;
  const auto too_many = testing::run_program(
      KILN_CONFORMANCE_CLI,
      {"run", "--adapter", "builtin:reference", "--cases", fixture.cases.string(), "--generated",
       std::to_string(kMaxGeneratedChecks + 1)},
      fixture.scratch);
  EXPECT_EQ(too_many.exit_code, kExitUsage) << too_many.out << too_many.err;
  const auto wide_seed = testing::run_program(
      KILN_CONFORMANCE_CLI,
      {"run", "--adapter", "builtin:reference", "--cases", fixture.cases.string(), "--generated-seed", "4294967296"},
      fixture.scratch);
  EXPECT_EQ(wide_seed.exit_code, kExitUsage) << wide_seed.out << wide_seed.err;
}

}  // namespace
}  // namespace kiln::conformance
