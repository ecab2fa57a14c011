// The generated phase in each report: the JSON carries each phase (seed, counts,
// findings, what did not reproduce, why it stopped) and each check's place, also
// streamed; the JUnit XML has a suite per phase with its seed and counts; the
// Markdown a generated section with each written file and its replay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/report.hpp"
#include "reports/report_checks.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using report_checks::XmlCheck;
using report_checks::XmlElement;
using report_checks::cell_count;
using report_checks::check_xml;
using testing::ScratchDir;
using testing::read_text;

constexpr std::uint64_t kSeed = 201595584;
// An adapter command with what each format must escape: a pipe, '<', '>', '&'.
const std::string kPhaseAdapter = "./impl --x 2>/dev/null | tee <log> & echo";
const std::string kWrittenFile = "out/generated-failures/kiln-v2-generated-decode-0a1b2c.yaml";
const std::string kWrittenReplay =
    "kiln-conformance run --cases out/generated-failures --filter kiln-v2-generated-decode-0a1b2c --adapter '" +
    kPhaseAdapter + "'";

class GeneratedReport : public ::testing::Test {
 protected:
  GeneratedReport() {
    options_.adapter = kPhaseAdapter;
    options_.cases_dir = "cases";
    hello_.name = "impl";
    hello_.version = "2.0";
    hello_.ops = {"decode", "encode"};
    hello_.profiles = {"kiln-v2", "hurray-elements"};
    ExpectedFailures no_list;
    CaseResult golden;
    golden.case_id = "kiln-v2-u8";
    golden.topic = "seed";
    golden.profile = "kiln-v2";
    golden.rules = {"TYPE-U8"};
    golden.expected = "accept";
    golden.got = "accept";
    results_.push_back(golden);
    // As generated.cpp gives them: every check the phase's replay command; a
    // failure confirmed and written, the file and its own replay.
    const auto check = [&](const std::string& profile, std::uint64_t number, Status status) {
      CaseResult result;
      result.case_id = generated_check_id(profile, kSeed, number);
      result.topic = std::string(kGeneratedTopic);
      result.profile = profile;
      result.expected = "reference accept";
      result.got = status == Status::kPass ? "accept" : "reject FRAME";
      result.status = status;
      result.generated = CaseResult::Generated{
          kSeed, number, {},
          "kiln-conformance run --adapter '" + kPhaseAdapter + "' --cases cases --profile " + profile +
              " --generated " + std::to_string(number) + " --generated-seed " + std::to_string(kSeed)};
      return result;
    };
    results_.push_back(check("kiln-v2", 1, Status::kPass));
    CaseResult written = check("kiln-v2", 2, Status::kFail);
    written.generated->file = kWrittenFile;
    written.generated->replay = kWrittenReplay;
    results_.push_back(written);
    results_.push_back(check("hurray-elements", 1, Status::kCrash));  // not reproduced: no file
    for (CaseResult& result : results_) no_list.record(result);
    totals_ = {2, 2, 0, 0};

    GeneratedPhase kiln;
    kiln.profile = "kiln-v2";
    kiln.seed = kSeed;
    kiln.planned = kiln.ran = 2;
    kiln.failed = 1;
    FuzzFinding finding;
    finding.signature = "decode: reference accept, adapter reject FRAME";
    finding.test_case.id = "kiln-v2-generated-decode-0a1b2c";
    finding.file = kWrittenFile;
    finding.replay = kWrittenReplay;
    kiln.findings.push_back(finding);
    GeneratedPhase hurray;
    hurray.profile = "hurray-elements";
    hurray.seed = kSeed;
    hurray.planned = 5;
    hurray.ran = 1;
    hurray.failed = 1;
    hurray.not_reproduced.push_back({"decode: reference accept, adapter CRASH", "CRASH: signal 11", "accept"});
    hurray.stopped = "the adapter could not be restarted";
    phases_ = {kiln, hurray};
  }
  ReportContext context() {
    return ReportContext{options_, hello_, std::string(64, 'a'), 1, results_, totals_,
                         "NOT CONFORMANT: impl 2.0 has 2 unexpected and 0 expected failure(s)", 2.0,
                         "2024-01-01T00:00:00Z", phases_};
  }
  RunOptions options_;
  protocol::Hello hello_;
  std::vector<CaseResult> results_;
  Totals totals_;
  std::vector<GeneratedPhase> phases_;
};

TEST_F(GeneratedReport, JsonCarriesEachPhaseAndEachChecksPlace) {
  const auto report = nlohmann::json::parse(json_report(context()).dump(1));
  EXPECT_EQ(report["report_version"], kJsonReportVersion);
  ASSERT_EQ(report["generated"].size(), 2u) << report["generated"].dump(1);
  const auto& kiln = report["generated"][0];
  EXPECT_EQ(kiln["profile"], "kiln-v2");
  EXPECT_EQ(kiln["seed"], kSeed);
  EXPECT_EQ(kiln["planned"], 2);
  EXPECT_EQ(kiln["ran"], 2);
  EXPECT_EQ(kiln["failed"], 1);
  EXPECT_EQ(kiln["stopped"], "");
  ASSERT_EQ(kiln["findings"].size(), 1u);
  EXPECT_EQ(kiln["findings"][0]["file"], kWrittenFile);
  EXPECT_EQ(kiln["findings"][0]["replay"], kWrittenReplay);
  EXPECT_EQ(kiln["findings"][0]["signature"], "decode: reference accept, adapter reject FRAME");
  EXPECT_EQ(kiln["findings"][0]["state_dependent"], false);
  EXPECT_EQ(kiln["findings"][0]["case"], "kiln-v2-generated-decode-0a1b2c");
  const auto& hurray = report["generated"][1];
  EXPECT_EQ(hurray["stopped"], "the adapter could not be restarted");
  ASSERT_EQ(hurray["not_reproduced"].size(), 1u);
  EXPECT_EQ(hurray["not_reproduced"][0]["seen"], "CRASH: signal 11");
  EXPECT_EQ(hurray["not_reproduced"][0]["replayed"], "accept");

  const auto& results = report["results"];
  ASSERT_EQ(results.size(), 4u);
  EXPECT_FALSE(results[0].contains("generated"));
  // A passing check carries what a passing case does, and its place: no replay.
  std::set<std::string> case_keys, check_keys;
  for (const auto& [key, value] : results[0].items()) case_keys.insert(key);
  for (const auto& [key, value] : results[1].items()) check_keys.insert(key);
  case_keys.insert("generated");
  EXPECT_EQ(check_keys, case_keys);
  EXPECT_EQ(results[1]["generated"], (nlohmann::json{{"seed", kSeed}, {"number", 1}}));
  EXPECT_EQ(results[1]["topic"], "(generated)");
  // A written failure: its file, and the replay of that file, not a --filter of
  // its id (which names no case of the set).
  EXPECT_EQ(results[2]["generated"]["file"], kWrittenFile);
  EXPECT_EQ(results[2]["generated"]["replay"], kWrittenReplay);
  EXPECT_EQ(results[2]["replay"], kWrittenReplay);
  // One that did not reproduce has no file; the phase replays it.
  EXPECT_FALSE(results[3]["generated"].contains("file"));
  EXPECT_EQ(results[3]["replay"], results_[3].generated->replay);
  EXPECT_NE(results[3]["replay"].get<std::string>().find("--generated 1 --generated-seed 201595584"),
            std::string::npos);

  // No phase: an empty array, which tells it from a report older than the phase.
  phases_.clear();
  EXPECT_EQ(json_report(context())["generated"], nlohmann::json::array());
}

TEST_F(GeneratedReport, StreamedJsonIsTheReport) {
  ScratchDir scratch;
  const auto written = write_json_report(context(), scratch / "report.json");
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(protocol::Json::parse(read_text(scratch / "report.json")), json_report(context()));
  phases_.clear();
  const auto rewritten = write_json_report(context(), scratch / "report.json");
  ASSERT_TRUE(rewritten) << rewritten.error();
  EXPECT_EQ(protocol::Json::parse(read_text(scratch / "report.json")), json_report(context()));
}

TEST_F(GeneratedReport, JunitHasASuitePerPhaseWithItsSeedAndCounts) {
  const std::string xml = junit_report(context());
  const XmlCheck check = check_xml(xml);
  ASSERT_EQ(check.problem, "") << xml;
  // Elements in document order: a property or testcase belongs to the suite before it.
  std::vector<std::string> suites;
  std::map<std::string, std::map<std::string, std::string>> properties;
  std::map<std::string, const XmlElement*> suite_elements, testcases;
  std::map<std::string, std::string> suite_of, failure_text;
  std::string last_testcase;
  for (const XmlElement& element : check.elements) {
    if (element.name == "testsuite") {
      suites.push_back(element.attributes.at("name"));
      suite_elements[suites.back()] = &element;
    }
    if (element.name == "property")
      properties[suites.back()][element.attributes.at("name")] = element.attributes.at("value");
    if (element.name == "testcase") {
      last_testcase = element.attributes.at("classname") + " " + element.attributes.at("name");
      testcases[last_testcase] = &element;
      suite_of[last_testcase] = suites.back();
    }
    if (element.name == "failure" || element.name == "error") failure_text[last_testcase] = element.text;
  }
  ASSERT_EQ(suites, (std::vector<std::string>{"kiln-v2 against impl 2.0", "generated kiln-v2 against impl 2.0",
                                              "generated hurray-elements against impl 2.0"}));
  EXPECT_EQ(testcases.size(), results_.size());
  const auto& kiln = properties["generated kiln-v2 against impl 2.0"];
  EXPECT_EQ(kiln.at("generated_seed"), "201595584");
  EXPECT_EQ(kiln.at("generated_planned"), "2");
  EXPECT_EQ(kiln.at("generated_ran"), "2");
  EXPECT_EQ(kiln.at("generated_failed"), "1");
  EXPECT_EQ(kiln.at("generated_confirmed"), "1");
  const auto& hurray = properties["generated hurray-elements against impl 2.0"];
  EXPECT_EQ(hurray.at("generated_ran"), "1");
  EXPECT_EQ(hurray.at("generated_planned"), "5");
  EXPECT_EQ(hurray.at("generated_stopped"), "the adapter could not be restarted");
  EXPECT_EQ(hurray.at("generated_not_reproduced"), "1");
  // Each suite counts its own testcases.
  const XmlElement& kiln_suite = *suite_elements["generated kiln-v2 against impl 2.0"];
  EXPECT_EQ(kiln_suite.attributes.at("tests"), "2");
  EXPECT_EQ(kiln_suite.attributes.at("failures"), "1");
  EXPECT_EQ(suite_elements["kiln-v2 against impl 2.0"]->attributes.at("tests"), "1");
  EXPECT_EQ(suite_elements["generated hurray-elements against impl 2.0"]->attributes.at("errors"), "1");

  const std::string failing = "generated.kiln-v2 generated-kiln-v2-201595584-000002:decode";
  ASSERT_TRUE(testcases.count(failing)) << xml;
  EXPECT_EQ(suite_of[failing], "generated kiln-v2 against impl 2.0");
  EXPECT_NE(failure_text[failing].find("written as: " + kWrittenFile), std::string::npos) << xml;
  EXPECT_NE(failure_text[failing].find("replay: " + kWrittenReplay), std::string::npos) << xml;
  EXPECT_TRUE(testcases.count("generated.kiln-v2 generated-kiln-v2-201595584-000001:decode")) << xml;
  EXPECT_TRUE(testcases.count("kiln-v2.decode kiln-v2-u8")) << xml;
  const std::string crashed = "generated.hurray-elements generated-hurray-elements-201595584-000001:decode";
  EXPECT_NE(failure_text[crashed].find("--generated-seed 201595584"), std::string::npos) << xml;
}

TEST_F(GeneratedReport, MarkdownHasAGeneratedSectionWithEachWrittenFile) {
  const std::string md = markdown_report(context());
  const auto section = md.find("### Generated checks\n");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("| kiln-v2 | 201595584 | 2 of 2 | 1 | 1 | 0 |\n", section), std::string::npos) << md;
  EXPECT_NE(md.find("| hurray-elements | 201595584 | 1 of 5 | 1 | 0 | 1 |\n", section), std::string::npos) << md;
  EXPECT_NE(md.find("- hurray-elements stopped after 1 of 5 checks: the adapter could not be restarted\n"),
            std::string::npos)
      << md;
  // The written file and its replay, the adapter command escaped as every cell is.
  const std::string row = "| kiln-v2 | decode | " + kWrittenFile + " | " +
                          "kiln-conformance run --cases out/generated-failures --filter "
                          "kiln-v2-generated-decode-0a1b2c --adapter './impl --x 2&gt;/dev/null \\| tee "
                          "&lt;log&gt; &amp; echo' |\n";
  EXPECT_NE(md.find(row), std::string::npos) << md;
  EXPECT_NE(md.find("| hurray-elements | CRASH: signal 11 | accept |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| (generated) | 1 | 2 | 0 | 0 |\n"), std::string::npos) << md;
  // Every table row keeps its header's cells.
  std::istringstream lines(md);
  std::size_t columns = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    if (columns == 0) columns = cell_count(line);
    EXPECT_EQ(cell_count(line), columns) << line;
  }

  phases_.clear();
  EXPECT_NE(markdown_report(context()).find("### Generated checks\n\nNo generated checks ran.\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::conformance
