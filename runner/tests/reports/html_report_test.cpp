// The HTML reports: the embedded data cannot end its element or open markup,
// the page carries its own style and script under a CSP, run reports are read
// strictly and within bounds, the matrix merges reports of one case set (and
// refuses others), and the streamed pages are the pages of the whole data.
// The browser test (browser_test.py) checks what a reader sees.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "kiln/conformance/html_report.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using protocol::Json;
using testing::ScratchDir;
using testing::read_text;
using testing::write_text;

const std::string kHostile = "</script><script>alert(1)</script><!-- \u2028 & <img src=x onerror=alert(2)>";

TEST(ScriptSafeJson, HasNoMarkupCharactersAndKeepsEveryValue) {
  const Json data = {{"text", kHostile}, {"bad", std::string("a\xff\xfe" "b")}, {"control", "\x01\x1b"}};
  const std::string safe = script_safe_json(data);
  EXPECT_EQ(safe.find_first_of("<>&"), std::string::npos) << safe;
  for (unsigned char c : safe) EXPECT_LT(c, 0x80) << safe;
  const Json back = Json::parse(safe);
  EXPECT_EQ(back["text"], kHostile);
  EXPECT_EQ(back["control"], "\x01\x1b");
  EXPECT_EQ(back["bad"], "a\uFFFD\uFFFDb");  // JSON cannot carry invalid UTF-8
}

TEST(HtmlPage, IsSelfContainedWithItsDataInertAndAPolicy) {
  const std::string page = html_page("run", Json{{"certificate", kHostile}, {"results", Json::array()}});
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(page.find("script-src 'sha256-"), std::string::npos);
  EXPECT_NE(page.find("connect-src 'none'"), std::string::npos);
  // No resource from anywhere else.
  for (const char* outside : {"src=\"http", "href=\"http", "@import", "url("})
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  // Two script elements: the inert data and the page's own script.
  std::size_t scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);
}

Json result_item(const std::string& id, const std::string& op, const std::string& status,
                 const std::string& verdict) {
  return {{"case", id}, {"topic", "seed"}, {"op", op}, {"status", status}, {"verdict", verdict},
          {"rules", Json::array({"FRAME-MAGIC"})}, {"expected", "accept"}, {"got", "accept"}};
}

// A version 1 report whose totals count its passes, as a run's do.
Json run_report(const std::string& name, const std::string& sha, std::vector<Json> results) {
  const auto passed = std::count_if(results.begin(), results.end(),
                                    [](const Json& r) { return r.is_object() && r.value("verdict", "") == "pass"; });
  return {{"report", "kiln-conformance-run"}, {"report_version", 1}, {"case_set_sha256", sha},
          {"adapter", {{"name", name}, {"version", "1.0"}, {"command", name}}},
          {"certificate", "CERT " + name}, {"totals", {{"passed", passed}}}, {"results", results}};
}

// A report read as `report` reads a file's text.
LoadedReport loaded(const std::string& file, const Json& report) {
  auto read = read_run_report(report.dump(), file);
  EXPECT_TRUE(read) << read.error();
  return read ? std::move(read).value() : LoadedReport{};
}

TEST(MatrixData, OneRowPerCaseAndOpWithACellPerImplementation) {
  const std::vector<LoadedReport> reports{
      loaded("a.json", run_report("alpha", "s1", {result_item("c1", "decode", "PASS", "pass"),
                                                  result_item("c2", "decode", "PASS", "pass")})),
      loaded("b.json", run_report("beta", "s1", {result_item("c1", "decode", "PASS", "pass"),
                                                 result_item("c2", "decode", "CRASH", "unexpected-failure")}))};
  const auto made = matrix_data(reports, false);
  ASSERT_TRUE(made) << made.error();
  const Json& data = made.value();
  ASSERT_EQ(data["implementations"].size(), 2u);
  EXPECT_EQ(data["implementations"][0]["label"], "alpha 1.0");
  EXPECT_EQ(data["implementations"][1]["certificate"], "CERT beta");
  ASSERT_EQ(data["rows"].size(), 2u);
  EXPECT_EQ(data["rows"][0]["case"], "c1");
  EXPECT_EQ(data["rows"][0]["profile"], "kiln-v2");  // absent: the one profile there is
  EXPECT_FALSE(data["rows"][0]["disagree"].get<bool>());
  EXPECT_TRUE(data["rows"][1]["disagree"].get<bool>());
  EXPECT_EQ(data["rows"][1]["cells"][1]["status"], "CRASH");
  EXPECT_EQ(data["rows"][1]["cells"][1]["got"], "accept");  // a failing cell keeps its details
  EXPECT_EQ(data["disagreements"], 1);
}

TEST(MatrixData, RefusesDifferentCaseSetsUnlessAllowed) {
  const std::vector<LoadedReport> reports{
      loaded("a.json", run_report("alpha", "1111111111111111", {result_item("c1", "decode", "PASS", "pass")})),
      loaded("b.json", run_report("alpha", "2222222222222222", {result_item("c9", "encode", "PASS", "pass")}))};
  const auto refused = matrix_data(reports, false);
  ASSERT_FALSE(refused);
  const std::string& error = refused.error();
  EXPECT_NE(error.find("different case sets"), std::string::npos) << error;
  EXPECT_NE(error.find("--allow-different-case-sets"), std::string::npos) << error;
  const auto allowed = matrix_data(reports, true);
  ASSERT_TRUE(allowed) << allowed.error();
  const Json& data = allowed.value();
  EXPECT_EQ(data["case_sets"].size(), 2u);
  ASSERT_EQ(data["rows"].size(), 2u);
  EXPECT_TRUE(data["rows"][0]["cells"][1].is_null());
  EXPECT_TRUE(data["rows"][0]["disagree"].get<bool>());
  // Same adapter name twice: told apart by file name.
  EXPECT_EQ(data["implementations"][0]["label"], "a");
  EXPECT_EQ(data["implementations"][1]["label"], "b");
}

TEST(LoadRunReport, RefusesWhatIsNotARunReport) {
  ScratchDir scratch;
  const auto refused = [&](const std::string& text) {
    write_text(scratch / "r.json", text);
    const auto read = load_run_report(scratch / "r.json");
    return !read && !read.error().empty();
  };
  EXPECT_TRUE(refused("not json"));
  EXPECT_TRUE(refused("{\"report\": \"something else\"}"));
  EXPECT_TRUE(refused(std::string(100000, '[')));  // nesting bounded, no stack overflow
  EXPECT_TRUE(refused(run_report("x", "s", {Json{{"case", 1}}}).dump()));
  EXPECT_TRUE(refused(std::string("{\"report\": \"kiln-conformance-run\", \"x\": \"\xff\"}")));
  write_text(scratch / "r.json", run_report("x", "s", {result_item("c", "decode", "PASS", "pass")}).dump(1));
  const auto read = load_run_report(scratch / "r.json");
  EXPECT_TRUE(read) << read.error();
  EXPECT_FALSE(load_run_report(scratch / "missing.json"));
}

// A report written to a file and read back as `report` reads it.
struct ReportFile {
  ScratchDir scratch;
  LoadedReport report;
  std::string error;  // the last load's, when it failed
  bool loads(const Json& json) {
    write_text(scratch / "r.json", json.dump());
    return load();
  }
  // Reads r.json as `report` does.
  bool load() {
    error.clear();
    auto read = load_run_report(scratch / "r.json");
    if (!read) {
      error = read.error();
      return false;
    }
    report = std::move(read).value();
    return true;
  }
};

// A report is shown only as its results have it: an edited certificate or
// totals, a verdict its status denies, or a (case, op) listed twice is refused.
TEST(LoadRunReport, RefusesAReportThatContradictsItself) {
  ReportFile file;
  const std::string& error = file.error;
  const auto loads = [&](const Json& json) { return file.loads(json); };
  Json honest = run_report("x", "s", {result_item("c1", "decode", "PASS", "pass"),
                                      result_item("c2", "decode", "FAIL", "unexpected-failure")});
  honest["certificate"] = "NOT CONFORMANT: x has 1 unexpected and 0 expected failure(s)";
  honest["totals"] = {{"passed", 1}, {"failed", 1}, {"skipped", 0}, {"expected_failures", 0}, {"results", 2}};
  honest["profiles"] = Json::array({{{"profile", "kiln-v2"}, {"passed", 1}, {"failed", 1}, {"skipped", 0},
                                     {"expected_failures", 0}, {"verdict", "not conformant"}}});
  ASSERT_TRUE(loads(honest)) << error;

  Json green = honest;  // a certificate and totals edited to pass
  green["certificate"] = "CONFORMANT: x passes all 2 checks";
  green["totals"]["failed"] = 0;
  green["totals"]["passed"] = 2;
  EXPECT_FALSE(loads(green));
  EXPECT_NE(error.find("its totals disagree with its results (1 passed, 1 failed"), std::string::npos) << error;
  green["totals"] = honest["totals"];
  EXPECT_FALSE(loads(green));
  EXPECT_NE(error.find("its certificate says CONFORMANT"), std::string::npos) << error;

  Json conformant_profile = honest;
  conformant_profile["profiles"][0]["verdict"] = "conformant";
  EXPECT_FALSE(loads(conformant_profile));
  EXPECT_NE(error.find("profile kiln-v2 is called conformant"), std::string::npos) << error;

  Json repeated = honest;  // the same (case, op) twice, the first one passing
  repeated["results"][1]["case"] = "c1";
  EXPECT_FALSE(loads(repeated));
  EXPECT_NE(error.find("result 1 repeats c1 decode"), std::string::npos) << error;

  Json relabelled = honest;  // a failure's verdict edited to pass
  relabelled["results"][1]["verdict"] = "pass";
  EXPECT_FALSE(loads(relabelled));
  EXPECT_NE(error.find("has verdict \"pass\" on status \"FAIL\""), std::string::npos) << error;

  // A run before version 4 that found unused list entries counts one more
  // failure than its results.
  Json listed = honest;
  listed["totals"]["failed"] = 2;
  EXPECT_TRUE(loads(listed)) << error;
}

// Since version 4 a report counts its stale expected failures apart from
// failed: a stale listing put under failed, or a failure under stale, is
// refused; the list entries that matched no case are stale expected failures of
// the totals alone, one each.
TEST(LoadRunReport, CountsStaleExpectedFailuresApartFromFailed) {
  ReportFile file;
  const std::string& error = file.error;
  const auto loads = [&](const Json& json) { return file.loads(json); };
  Json honest = run_report("x", "s", {result_item("c1", "decode", "PASS", "pass"),
                                      result_item("c2", "decode", "FAIL", "unexpected-failure"),
                                      result_item("c3", "decode", "PASS", "stale-listing")});
  honest["report_version"] = kJsonReportVersion;
  honest["certificate"] =
      "NOT CONFORMANT: x has 1 unexpected and 0 expected failure(s) and 2 stale expected failure(s)";
  honest["totals"] = {{"passed", 1}, {"failed", 1}, {"skipped", 0}, {"expected_failures", 0},
                      {"stale_expected_failures", 2}, {"results", 3}};
  honest["profiles"] = Json::array({{{"profile", "kiln-v2"}, {"passed", 1}, {"failed", 1}, {"skipped", 0},
                                     {"expected_failures", 0}, {"stale_expected_failures", 1},
                                     {"verdict", "not conformant"}}});
  honest["unmatched_expected_failures"] =
      Json::array({{{"list", "expected.txt"}, {"line", 2}, {"pattern", "kiln-v2-gone"}}});
  ASSERT_TRUE(loads(honest)) << error;
  const std::string disagree = "its totals disagree with its results (1 passed, 1 failed, 0 skipped, "
                               "0 expected failures, 2 stale expected failures)";

  Json under_failed = honest;  // the stale listing counted as a wrong answer
  under_failed["totals"]["failed"] = 2;
  under_failed["totals"]["stale_expected_failures"] = 1;
  EXPECT_FALSE(loads(under_failed));
  EXPECT_NE(error.find(disagree), std::string::npos) << error;
  Json under_stale = honest;  // the wrong answer counted as stale
  under_stale["totals"]["failed"] = 0;
  under_stale["totals"]["stale_expected_failures"] = 3;
  EXPECT_FALSE(loads(under_stale));
  EXPECT_NE(error.find(disagree), std::string::npos) << error;
  // A missing count is 0, which these results deny.
  Json no_count = honest;
  no_count["totals"].erase("stale_expected_failures");
  EXPECT_FALSE(loads(no_count));
  EXPECT_NE(error.find(disagree), std::string::npos) << error;

  // The same in a profile's counts, which hold no unmatched entry.
  Json profile_under_failed = honest;
  profile_under_failed["profiles"][0]["failed"] = 2;
  profile_under_failed["profiles"][0]["stale_expected_failures"] = 0;
  EXPECT_FALSE(loads(profile_under_failed));
  EXPECT_NE(error.find("profile kiln-v2's counts disagree with its results"), std::string::npos) << error;
  Json profile_with_unmatched = honest;
  profile_with_unmatched["profiles"][0]["stale_expected_failures"] = 2;
  EXPECT_FALSE(loads(profile_with_unmatched));
  EXPECT_NE(error.find("profile kiln-v2's counts disagree with its results"), std::string::npos) << error;

  // Each unmatched entry is one, and only those listed count.
  Json unlisted = honest;
  unlisted.erase("unmatched_expected_failures");
  EXPECT_FALSE(loads(unlisted));
  EXPECT_NE(error.find("its totals disagree with its results (1 passed, 1 failed, 0 skipped, "
                       "0 expected failures, 1 stale expected failures)"),
            std::string::npos)
      << error;
  Json two_unmatched = honest;
  two_unmatched["unmatched_expected_failures"].push_back({{"list", "expected.txt"}, {"line", 3}, {"pattern", "b"}});
  EXPECT_FALSE(loads(two_unmatched));
  two_unmatched["totals"]["stale_expected_failures"] = 3;
  EXPECT_TRUE(loads(two_unmatched)) << error;
  Json malformed = honest;
  malformed["unmatched_expected_failures"] = Json::array({"kiln-v2-gone"});
  EXPECT_FALSE(loads(malformed));
  EXPECT_NE(error.find("unmatched expected failure 0 has no string \"pattern\""), std::string::npos) << error;

  // A stale expected failure denies CONFORMANT, for the run and for a profile.
  Json stale_only = run_report("x", "s", {result_item("c1", "decode", "PASS", "pass"),
                                          result_item("c3", "decode", "PASS", "stale-listing")});
  stale_only["report_version"] = kJsonReportVersion;
  stale_only["totals"] = {{"passed", 1}, {"failed", 0}, {"stale_expected_failures", 1}};
  stale_only["certificate"] = "CONFORMANT: x passes all 2 checks";
  EXPECT_FALSE(loads(stale_only));
  EXPECT_NE(error.find("its certificate says CONFORMANT, and its results hold 1 passed, 0 failed, 0 skipped, "
                       "0 expected failures, 1 stale expected failures"),
            std::string::npos)
      << error;
  stale_only["certificate"] =
      "NOT CONFORMANT: x has 0 unexpected and 0 expected failure(s) and 1 stale expected failure(s)";
  stale_only["profiles"] = Json::array({{{"profile", "kiln-v2"}, {"passed", 1}, {"failed", 0},
                                         {"stale_expected_failures", 1}, {"verdict", "conformant"}}});
  EXPECT_FALSE(loads(stale_only));
  EXPECT_NE(error.find("profile kiln-v2 is called conformant, and 1 of its results fail"), std::string::npos) << error;
  stale_only["profiles"][0]["verdict"] = "not conformant";
  EXPECT_TRUE(loads(stale_only)) << error;

  // Before version 4, failed held the stale listings and one more failure for
  // any entries that matched nothing: such a report still loads, read so.
  Json version_3 = honest;
  version_3["report_version"] = 3;
  version_3.erase("unmatched_expected_failures");
  version_3["totals"].erase("stale_expected_failures");
  version_3["profiles"][0].erase("stale_expected_failures");
  version_3["profiles"][0]["failed"] = 2;
  for (const int failed : {2, 3}) {
    version_3["totals"]["failed"] = failed;
    EXPECT_TRUE(loads(version_3)) << failed << ": " << error;
  }
  version_3["totals"]["failed"] = 1;  // the stale listing left out of failed
  EXPECT_FALSE(loads(version_3));
  EXPECT_NE(error.find("its totals disagree with its results"), std::string::npos) << error;
}

// A run with a generated phase: one passing check and one failure written as
// a case, with a hostile adapter's text and bytes that are not UTF-8.
struct GeneratedRun {
  RunOptions options;
  std::vector<CaseResult> results = std::vector<CaseResult>(2);
  GeneratedPhase phase;

  GeneratedRun() {
    options.adapter = "./impl";
    options.cases_dir = "cases";
    for (std::size_t i = 0; i < results.size(); ++i) {
      results[i].case_id = "generated-kiln-v2-7-00000" + std::to_string(i + 1);
      results[i].topic = "(generated)";
      results[i].profile = "kiln-v2";
      results[i].expected = "reference accept";
      results[i].generated =
          CaseResult::Generated{7, i + 1, {}, "kiln-conformance run --generated " + std::to_string(i + 1)};
    }
    CaseResult& failure = results[1];
    failure.status = Status::kFail;
    failure.verdict = Verdict::kUnexpectedFailure;
    failure.got = kHostile;
    failure.adapter_stderr = "\xff\xfe" + kHostile;
    failure.generated->file = "out/generated-failures/kiln-v2-generated-decode-ab.yaml";
    failure.generated->replay =
        "kiln-conformance run --cases out/generated-failures --filter kiln-v2-generated-decode-ab";
    phase.profile = "kiln-v2";
    phase.seed = 7;
    phase.planned = phase.ran = 2;
    phase.failed = 1;
    FuzzFinding finding;
    finding.file = failure.generated->file;
    finding.replay = failure.generated->replay;
    finding.signature = "decode: reference accept, adapter reject FRAME";
    phase.findings.push_back(finding);
  }
  ReportContext context() const {
    return ReportContext{options, std::nullopt, "s1", 0, results, Totals{1, 1, 0, 0},
                         "NOT CONFORMANT", 1, "2024-01-01T00:00:00Z", {phase}};
  }
};

// As json_report writes it.
Json generated_run_report() {
  static const GeneratedRun run;
  return json_report(run.context());
}

// The report as written reads back, and the matrix carries each implementation's
// phases (null for a report older than them) beside its totals.
TEST(MatrixData, CarriesEachImplementationsGeneratedPhase) {
  ScratchDir scratch;
  write_text(scratch / "new.json", generated_run_report().dump(1));
  const auto with_phase = load_run_report(scratch / "new.json");
  ASSERT_TRUE(with_phase) << with_phase.error();
  Json older = run_report("older", "s1", {result_item("c1", "decode", "PASS", "pass")});
  older["report_version"] = 2;
  const std::vector<LoadedReport> reports{with_phase.value(), loaded("older.json", older)};
  const auto made = matrix_data(reports, false);
  ASSERT_TRUE(made) << made.error();
  const Json& data = made.value();
  const Json& phases = data["implementations"][0]["generated"];
  ASSERT_EQ(phases.size(), 1u) << data["implementations"].dump(1);
  EXPECT_EQ(phases[0]["seed"], 7);
  EXPECT_EQ(phases[0]["ran"], 2);
  EXPECT_EQ(phases[0]["failed"], 1);
  EXPECT_EQ(phases[0]["findings"][0]["file"], "out/generated-failures/kiln-v2-generated-decode-ab.yaml");
  EXPECT_TRUE(data["implementations"][1]["generated"].is_null());
  // The checks are rows of their own topic; a failing cell keeps its written file.
  std::size_t generated_rows = 0;
  for (const Json& row : data["rows"]) {
    if (row["topic"] != "(generated)") continue;
    ++generated_rows;
    if (row["case"] == "generated-kiln-v2-7-000002") {
      EXPECT_EQ(row["cells"][0]["generated"]["file"], "out/generated-failures/kiln-v2-generated-decode-ab.yaml");
    }
  }
  EXPECT_EQ(generated_rows, 2u);
  // The older report has no generated cells: its phase did not run, which
  // differs from no answer; the case it lacks does.
  for (const Json& row : data["rows"])
    EXPECT_EQ(row["disagree"].get<bool>(), row["topic"] != "(generated)") << row.dump();
  // The matrix page holds the phases for its column.
  const std::string page = html_page("matrix", data);
  EXPECT_NE(page.find("kiln-v2-generated-decode-ab.yaml"), std::string::npos);
  EXPECT_NE(page.find("generated checks"), std::string::npos);  // the column's header, in matrix.js
}

TEST(LoadRunReport, ReadsEveryVersionAndChecksTheGeneratedPhases) {
  ReportFile file;
  const std::string& error = file.error;
  const auto loads = [&](const Json& json) { return file.loads(json); };
  Json current = generated_run_report();
  EXPECT_TRUE(loads(current)) << error;
  for (int version = 1; version <= kJsonReportVersion; ++version) {
    Json older = run_report("x", "s", {result_item("c", "decode", "PASS", "pass")});
    older["report_version"] = version;
    EXPECT_TRUE(loads(older)) << version << ": " << error;
  }
  // Before version 4 each result had a "level", always "required", and the
  // totals a "recommended_failures" count, always 0: read, and left off the matrix.
  Json version_3 = run_report("x", "s", {result_item("c", "decode", "PASS", "pass"),
                                         result_item("d", "decode", "FAIL", "unexpected-failure")});
  version_3["report_version"] = 3;
  version_3["totals"] = {{"passed", 1}, {"failed", 1}, {"recommended_failures", 0}};
  for (Json& item : version_3["results"]) item["level"] = "required";
  ASSERT_TRUE(loads(version_3)) << error;
  const auto matrix = matrix_data({file.report}, false);
  ASSERT_TRUE(matrix) << matrix.error();
  for (const Json& row : matrix.value()["rows"]) {
    EXPECT_FALSE(row.contains("level")) << row.dump();
    for (const Json& cell : row["cells"]) EXPECT_FALSE(cell.contains("level")) << cell.dump();
  }
  // A verdict of the removed level is none a run writes.
  version_3["results"][1]["verdict"] = "recommended-failure";
  EXPECT_FALSE(loads(version_3));
  EXPECT_NE(error.find("has verdict \"recommended-failure\", which this runner does not know"), std::string::npos)
      << error;
  current["report_version"] = kJsonReportVersion + 1;
  EXPECT_FALSE(loads(current));
  current["report_version"] = kJsonReportVersion;
  Json broken = current;
  broken["generated"] = "none";
  EXPECT_FALSE(loads(broken));
  EXPECT_NE(error.find("\"generated\" is not an array"), std::string::npos) << error;
  broken = current;
  broken["generated"][0].erase("seed");
  EXPECT_FALSE(loads(broken));
  EXPECT_NE(error.find("generated phase 0 has no number \"seed\""), std::string::npos) << error;
  broken = current;
  broken["generated"][0]["findings"] = Json::array({"a file"});
  EXPECT_FALSE(loads(broken));
}

// The text of a page's kiln-data element.
std::string page_data(const std::string& page) {
  const auto tag = page.find("<script type=\"application/json\" id=\"kiln-data\"");
  if (tag == std::string::npos) return {};
  const auto start = page.find('>', tag) + 1;
  const auto end = page.find("</script>", start);
  return page.substr(start, end - start);
}

// The run page as `run --html` writes it: streamed a result at a time, and the
// very page html_page makes of the whole report, its data script-safe and its
// policy's hashes the same.
TEST(WriteRunPage, IsThePageOfTheWholeReport) {
  ScratchDir scratch;
  const GeneratedRun run;
  const auto written = write_run_page(run.context(), scratch / "run.html");
  ASSERT_TRUE(written) << written.error();
  const std::string page = read_text(scratch / "run.html");
  const Json report = json_report(run.context());
  EXPECT_EQ(page, html_page("run", report));
  EXPECT_EQ(page_data(page), script_safe_json(report));
  EXPECT_EQ(Json::parse(page_data(page)), Json::parse(report.dump(-1, ' ', false, Json::error_handler_t::replace)));
  EXPECT_EQ(page.find("<img"), std::string::npos);
  if (std::filesystem::exists("/dev/full")) {
    const auto full = write_run_page(run.context(), "/dev/full");
    ASSERT_FALSE(full);
    EXPECT_EQ(full.error(), "/dev/full: cannot write: No space left on device");
  }
}

// write_json_report, read back as `report` reads it, drawn as the matrix page:
// each result is its row, its cell all it said (a pass: its status), and the
// page's data is the matrix of the report as one value.
TEST(ReportRoundTrip, AStreamedReportIsTheMatrixOfItsResults) {
  ScratchDir scratch;
  const GeneratedRun run;
  const auto written = write_json_report(run.context(), scratch / "run.json");
  ASSERT_TRUE(written) << written.error();
  MatrixOptions options;
  options.reports = {scratch / "run.json"};
  options.html = scratch / "matrix.html";
  std::ostringstream out, err;
  ASSERT_EQ(report_matrix(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("1 implementations, 2 results each, 0 where they disagree"), std::string::npos) << out.str();
  const std::string page = read_text(options.html);
  const Json data = Json::parse(page_data(page));
  EXPECT_EQ(page_data(page).find_first_of("<>&"), std::string::npos);

  const Json report = json_report(run.context());
  const auto whole = matrix_data({loaded("run.json", report)}, false);
  ASSERT_TRUE(whole) << whole.error();
  EXPECT_EQ(data, whole.value());
  ASSERT_EQ(data["rows"].size(), report["results"].size());
  for (const Json& item : report["results"]) {
    const auto row = std::find_if(data["rows"].begin(), data["rows"].end(),
                                  [&](const Json& r) { return r["case"] == item["case"] && r["op"] == item["op"]; });
    ASSERT_NE(row, data["rows"].end()) << item.dump();
    for (const char* field : {"profile", "topic", "rules"}) EXPECT_EQ((*row)[field], item[field]) << field;
    EXPECT_FALSE(row->contains("level")) << row->dump();
    Json cell = item;
    if (item["verdict"] == "pass") {
      cell = {{"status", item["status"]}, {"verdict", item["verdict"]}};
    } else {
      for (const char* shared : {"case", "op", "topic", "profile", "rules"}) cell.erase(shared);
    }
    EXPECT_EQ((*row)["cells"], Json::array({cell}));
    EXPECT_FALSE((*row)["disagree"].get<bool>());
  }
  EXPECT_EQ(data["implementations"][0]["generated"], report["generated"]);
  EXPECT_EQ(data["implementations"][0]["totals"], report["totals"]);

  if (std::filesystem::exists("/dev/full")) {
    options.html = "/dev/full";
    EXPECT_EQ(report_matrix(options, out, err), 2);
    EXPECT_NE(err.str().find("report: /dev/full: cannot write: No space left on device"), std::string::npos)
        << err.str();
  }
}

// A hostile report file is refused before it makes the reader hold much more
// than the file: nesting and object width bounded as a protocol line's, and
// the values one result or the other fields hold.
TEST(LoadRunReport, BoundsWhatAHostileFileMakesItHold) {
  ReportFile file;
  const std::string& error = file.error;
  const auto loads = [&](const Json& json) { return file.loads(json); };
  const auto with_result_field = [](const Json& value) {
    Json item = result_item("c", "decode", "FAIL", "unexpected-failure");
    item["x"] = value;
    return run_report("x", "s", {result_item("c0", "decode", "PASS", "pass"), item});
  };
  Json deep = 1;
  for (int i = 0; i < 70; ++i) deep = Json::array({deep});
  EXPECT_FALSE(loads(with_result_field(deep)));
  EXPECT_NE(error.find("not JSON: the line nests arrays and objects more than 64 levels deep"), std::string::npos)
      << error;
  Json wide = Json::object();
  for (int i = 0; i < 65; ++i) wide["k" + std::to_string(i)] = i;
  EXPECT_FALSE(loads(with_result_field(wide)));
  EXPECT_NE(error.find("not JSON: the line has an object with more than 64 members"), std::string::npos) << error;
  EXPECT_FALSE(loads(with_result_field(Json(std::vector<int>(70000, 0)))));
  EXPECT_NE(error.find("result 1 holds more than 65536 JSON values"), std::string::npos) << error;
  Json padded = run_report("x", "s", {result_item("c", "decode", "PASS", "pass")});
  padded["padding"] = std::vector<int>(1100000, 0);
  EXPECT_FALSE(loads(padded));
  EXPECT_NE(error.find("its fields besides the results hold more than 1048576 JSON values"), std::string::npos)
      << error;
  // The checks of parse_line's, with its words.
  write_text(file.scratch / "r.json", "{\"report\": \"a\xff\"}");
  EXPECT_FALSE(file.load());
  EXPECT_EQ(error, (file.scratch / "r.json").string() + ": not JSON: the line is not valid UTF-8 at byte 13");
  // A result is named by its place, after good ones too.
  EXPECT_FALSE(loads(run_report("x", "s", {result_item("c", "decode", "PASS", "pass"), Json(5)})));
  EXPECT_NE(error.find("result 1 is not an object"), std::string::npos) << error;
  // A key given twice: the last value counts, as for any JSON reader that keeps one.
  write_text(file.scratch / "r.json",
             "{\"report\": \"kiln-conformance-run\", \"report_version\": 1, \"case_set_sha256\": \"s\", "
             "\"results\": [7], \"results\": [" + result_item("c", "decode", "PASS", "pass").dump() + "]}");
  ASSERT_TRUE(file.load()) << error;
  EXPECT_EQ(file.report.results.size(), 1u);
  EXPECT_TRUE(loads(Json::array()) == false);
  EXPECT_NE(error.find("its \"report\" is not \"kiln-conformance-run\""), std::string::npos) << error;
}

// End to end through the CLI: a hostile adapter's run as a page and a matrix;
// its text is in the data, escaped, and nowhere as markup.
TEST(HtmlReportCli, RunAndMatrixPagesCarryHostileTextInertly) {
  ScratchDir scratch;
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(scratch / "cases"));
  const std::string cli = KILN_CONFORMANCE_CLI;
  const auto run = [&](const std::string& adapter, const std::string& name) {
    // A few generated checks: the hostile adapter's text reaches their rows and findings too.
    return testing::run_program(cli, {"run", "--no-progress", "--cases", (scratch / "cases").string(), "--adapter",
                                      adapter, "--json", (scratch / (name + ".json")).string(), "--html",
                                      (scratch / (name + ".html")).string(), "--generated", "40",
                                      "--generated-out", (scratch / (name + "-generated")).string()},
                                scratch);
  };
  EXPECT_EQ(run(KILN_REFERENCE_ADAPTER, "reference").exit_code, 0);
  EXPECT_EQ(run(std::string(KILN_FAKE_ADAPTER) + " --hostile-text", "hostile").exit_code, 1);
  const std::string page = read_text(scratch / "hostile.html");
  EXPECT_NE(page.find("window.kilnPwned"), std::string::npos);  // the text is there...
  EXPECT_EQ(page.find("<script>window.kilnPwned"), std::string::npos);  // ...never as markup
  EXPECT_EQ(page.find("<img"), std::string::npos);

  const auto matrix = testing::run_program(
      cli, {"report", "--html", (scratch / "matrix.html").string(), (scratch / "reference.json").string(),
            (scratch / "hostile.json").string()},
      scratch);
  EXPECT_EQ(matrix.exit_code, 0) << matrix.err;
  EXPECT_NE(matrix.out.find("2 implementations"), std::string::npos) << matrix.out;
  EXPECT_EQ(read_text(scratch / "matrix.html").find("<img"), std::string::npos);

  write_text(scratch / "broken.json", "{");
  const auto broken = testing::run_program(
      cli, {"report", "--html", (scratch / "m2.html").string(), (scratch / "broken.json").string()}, scratch);
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("broken.json"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace kiln::conformance
