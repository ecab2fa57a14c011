// The run's reports with hostile outside text (adapter hello, command, case
// results, stderr, topic folder names): the JSON is valid UTF-8, the JUnit XML
// well-formed XML 1.0 and each Markdown table row one row with its cells; the
// JSON report streamed as run writes it is the same report; and write_text_file
// and write_json_report say why a write failed. The generated phase in each
// report is generated_report_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/report.hpp"
#include "reports/report_checks.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using report_checks::XmlCheck;
using report_checks::XmlElement;
using report_checks::cell_count;
using report_checks::check_xml;
using report_checks::decode_utf8;
using testing::ScratchDir;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

TEST(XmlCheckItself, RejectsWhatIsNotWellFormed) {
  const std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  EXPECT_EQ(check_xml(head + "<a b=\"1\"><c/>x &amp; y</a>\n").problem, "");
  for (const std::string& bad :
       {head + "<a b=\"\xEF\xBF\xBE\"/>", head + "<a b=\"\xff\"/>", head + "<a>\x01</a>",
        head + "<a b=\"<\"/>", head + "<a>&</a>", head + "<a>&#1;</a>", head + "<a></b>",
        head + "<a>", head + "<a/><b/>", head + "<a b=\"1\" b=\"2\"/>", head + "<a>]]></a>",
        head + "<a>\xed\xa0\x80</a>"})
    EXPECT_NE(check_xml(bad).problem, "") << bad;
}

// ---- hostile report inputs ----

using namespace std::string_literals;

// U+FFFE and U+FFFF, markup, quotes, a byte that is not UTF-8, NUL and ESC.
const std::string kHostileName = "evil\xEF\xBF\xBE\xEF\xBF\xBF<&>\"' caf\xC3\xA9"s;
const std::string kHostileVersion = "1.0\0\x1b[31m\xff"s;
const std::string kHostileCommand = "./adapter --x=\"<y>\" & \xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 \x01"s;
const std::string kHostileText =
    "line one | pipe \\| escaped pipe\r\nline two\rline three\n<script>alert(1)</script> &amp; "
    "`tick` \0nul \x1b[0m esc \x7f del \xC2\x85 nel \xFF bad ]]> \t tab \xEF\xBF\xBF"s;

CaseResult hostile_result(Status status, const std::string& topic) {
  CaseResult result;
  result.case_id = "kiln-v2-a|b<c>`d\xFF";
  result.topic = topic;
  result.op = Operation::kDecode;
  result.rules = {"TYPE-A|B", "<b>FRAME</b>\n"};
  result.status = status;
  result.expected = "accept\r";
  result.got = kHostileText;
  result.detail = kHostileText;
  result.adapter_stderr = kHostileText;
  result.first_difference = 7;
  result.seconds = 0.25;
  return result;
}

class HostileReport : public ::testing::Test {
 protected:
  HostileReport() {
    options_.adapter = kHostileCommand;
    hello_.name = kHostileName;
    hello_.version = kHostileVersion;
    hello_.ops = {"decode", "en\xFF" "code"};
    hello_.profiles = {"kiln-v2", "\x1b[1m"};
    // Topic folders: a pipe, a line break, a byte that is not UTF-8, HTML.
    const std::vector<std::string> topics = {"top|ic", "two\r\nlines", "bad\xFFname", "<i>html</i>"};
    const std::vector<Status> statuses = {Status::kFail, Status::kCrash, Status::kTimeout,
                                          Status::kProtocol, Status::kSkip, Status::kPass};
    ExpectedFailures no_list;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      results_.push_back(hostile_result(statuses[i], topics[i % topics.size()]));
      no_list.record(results_.back());
    }
    // An expected failure, a stale listing and a changed failure, with hostile
    // reasons; and a case the runner could not judge.
    const auto listed_as = [&](Status status, Verdict verdict, std::optional<Status> listed_status) {
      CaseResult result = hostile_result(status, topics[results_.size() % topics.size()]);
      result.listed = true;
      result.listed_status = listed_status;
      result.listed_reason = kHostileText;
      result.verdict = verdict;
      results_.push_back(result);
    };
    listed_as(Status::kFail, Verdict::kExpectedFailure, std::nullopt);
    listed_as(Status::kPass, Verdict::kStaleListing, Status::kFail);
    listed_as(Status::kCrash, Verdict::kChangedFailure, Status::kFail);
    CaseResult unjudged = hostile_result(Status::kError, topics[3]);
    no_list.record(unjudged);
    EXPECT_EQ(unjudged.verdict, Verdict::kUnjudged);
    results_.push_back(unjudged);
    // An expected-failures entry that matched no case, from a list of hostile name.
    unmatched_ = {{"list|" + kHostileText, 7, "kiln-v2-`gone`|*\xFF"}};
    totals_ = {1, 6, 1, 1, 2};  // the stale listing and the unmatched entry
  }
  ReportContext context() {
    return ReportContext{options_, hello_, "ab\xFF" "cd", 8, results_, totals_,
                         "NOT CONFORMANT: " + kHostileName + " " + kHostileVersion, 1.5,
                         "2024-01-01T00:00:00Z\x01", {}, unmatched_};
  }
  RunOptions options_;
  protocol::Hello hello_;
  std::vector<CaseResult> results_;
  std::vector<UnmatchedEntry> unmatched_;
  Totals totals_;
};

// Finding 14: the certificate, name, command and stderr once reached the XML
// with U+FFFE, U+FFFF and bytes that are not UTF-8.
TEST_F(HostileReport, JunitIsWellFormedXml) {
  const std::string xml = junit_report(context());
  const XmlCheck check = check_xml(xml);
  ASSERT_EQ(check.problem, "") << xml;

  std::size_t testcases = 0;
  const XmlElement* suite = nullptr;
  std::map<std::string, std::string> properties;
  for (const XmlElement& element : check.elements) {
    testcases += element.name == "testcase";
    if (element.name == "testsuite") suite = &element;
    if (element.name == "property") properties[element.attributes.at("name")] = element.attributes.at("value");
  }
  EXPECT_EQ(testcases, results_.size());
  ASSERT_NE(suite, nullptr);
  // Markup and quotes come back as they were; what XML cannot hold is U+FFFD.
  const std::string replacement = "\xEF\xBF\xBD";
  const std::string name = "evil" + replacement + replacement + "<&>\"' caf\xC3\xA9";
  EXPECT_EQ(suite->attributes.at("name"),
            "kiln-v2 against " + name + " 1.0" + replacement + replacement + "[31m" + replacement);
  EXPECT_EQ(properties.at("certificate"),
            "NOT CONFORMANT: " + name + " 1.0" + replacement + replacement + "[31m" + replacement);
  // Line ends survive in attributes as references rather than being normalised away.
  bool multi_line_message = false;
  for (const XmlElement& element : check.elements)
    if (element.name == "error" && element.attributes.at("message").find("\r\nline two\rline three\n") !=
                                       std::string::npos)
      multi_line_message = true;
  EXPECT_TRUE(multi_line_message) << xml;
  // A changed failure says what was listed; a stale listing is a failure of its own type.
  std::size_t changed = 0, stale = 0;
  for (const XmlElement& element : check.elements) {
    const auto message = element.attributes.find("message");
    if (message == element.attributes.end()) continue;
    changed += element.name == "error" &&
               message->second.rfind("listed as an expected FAIL, now CRASH: ", 0) == 0;
    const auto type = element.attributes.find("type");
    stale += element.name == "failure" && type != element.attributes.end() &&
             type->second == "STALE-EXPECTED-FAILURE";
  }
  EXPECT_EQ(changed, 1u) << xml;
  EXPECT_EQ(stale, 1u) << xml;

  // A second, independent parser where there is one.
  if (std::system("python3 -c 'import xml.dom.minidom' >/dev/null 2>&1") == 0) {
    ScratchDir scratch;
    write_text(scratch / "report.xml", xml);
    EXPECT_EQ(std::system(("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " +
                           shell_quote((scratch / "report.xml").string()))
                              .c_str()),
              0);
  }
}

// Finding 15: \r, '|' in topic folder names, NUL, ESC and HTML in messages, and
// folder names that are not UTF-8 once broke the tables and the file's UTF-8.
TEST_F(HostileReport, MarkdownIsUtf8AndEveryTableRowHasItsCells) {
  const std::string md = markdown_report(context());
  std::size_t bad_at = 0;
  ASSERT_TRUE(decode_utf8(md, &bad_at)) << "not UTF-8 at byte " << bad_at << ":\n" << md;
  for (char c : md) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte >= 0x20 || c == '\n') << "raw control byte " << static_cast<int>(byte) << " in\n" << md;
    if (byte < 0x20 && c != '\n') break;
  }
  EXPECT_EQ(md.find("\xC2\x85"), std::string::npos) << "a raw NEL";
  // The only HTML is the report's own.
  for (auto at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
    const std::string tag = md.substr(at, md.find('>', at) - at + 1);
    EXPECT_TRUE(tag == "<br>" || tag == "<details>" || tag == "</details>" || tag == "<summary>" ||
                tag == "</summary>")
        << tag;
  }
  EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos) << md;

  // Each table: the header row's cell count holds for the delimiter and every row.
  std::vector<std::vector<std::string>> tables;
  bool in_table = false;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    const bool row = !line.empty() && line[0] == '|';
    if (row && !in_table) tables.emplace_back();
    if (row) tables.back().push_back(line);
    in_table = row;
  }
  // totals, profiles, topics, unexpected, unmatched entries, expected failures
  ASSERT_EQ(tables.size(), 6u) << md;
  for (const auto& table : tables) {
    const std::size_t columns = cell_count(table[0]);
    for (const auto& row : table) {
      EXPECT_EQ(cell_count(row), columns) << row << "\nin\n" << md;
      EXPECT_EQ(row.back(), '|') << row;
    }
  }
  EXPECT_EQ(tables[1].size(), 2 + verdicts_by_profile(results_, hello_, false).size()) << md;
  EXPECT_EQ(tables[2].size(), 2 + totals_by_topic(results_).size()) << md;
  std::size_t unexpected = 0, listed = 0;
  for (const CaseResult& result : results_) {
    unexpected += result.unexpected();
    listed += result.expected_failure();
  }
  EXPECT_EQ(tables[3].size(), 2 + unexpected) << md;
  EXPECT_EQ(tables[4].size(), 2 + unmatched_.size()) << md;
  EXPECT_EQ(tables[5].size(), 2 + listed) << md;
  // With a stale expected failure, the count tables have its column.
  EXPECT_EQ(cell_count(tables[0][0]), 7u) << tables[0][0];
  EXPECT_EQ(cell_count(tables[1][0]), 7u) << tables[1][0];  // profile, verdict and the counts
  EXPECT_EQ(cell_count(tables[2][0]), 6u) << tables[2][0];
  EXPECT_NE(tables[0][2].find(" | 2 | " + std::to_string(results_.size()) + " | "), std::string::npos)
      << tables[0][2];  // stale, then results
  EXPECT_NE(md.find("| CRASH (listed as FAIL) |"), std::string::npos) << md;
}

TEST(MarkdownCells, ShowControlsAndKeepText) {
  RunOptions options;
  std::vector<CaseResult> results(1);
  results[0].case_id = "kiln-v2-x";
  results[0].status = Status::kFail;
  results[0].verdict = Verdict::kUnexpectedFailure;
  results[0].expected = "a|b";
  results[0].got = "\x1b\x00\xC2\x9F" "caf\xC3\xA9\\"s;
  ReportContext context{options, std::nullopt, "", 1, results, Totals{0, 1, 0, 0}, "", 0, ""};
  const std::string md = markdown_report(context);
  EXPECT_NE(md.find("| a\\|b | \\x1b\\x00\\u009fcaf\xC3\xA9\\\\ |"), std::string::npos) << md;
}

// The JSON once carried a topic folder name that is not UTF-8, which a strict
// dump refuses; every string is valid UTF-8 now, and valid text is kept as is.
TEST_F(HostileReport, JsonIsValidUtf8AndKeepsValidText) {
  const protocol::Json report = json_report(context());
  std::string text;
  ASSERT_NO_THROW(text = report.dump(1));  // strict: throws on invalid UTF-8
  std::size_t bad_at = 0;
  ASSERT_TRUE(decode_utf8(text, &bad_at)) << bad_at;
  const auto parsed = nlohmann::json::parse(text);
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(parsed["adapter"]["name"], kHostileName);  // U+FFFE/U+FFFF are valid in JSON
  EXPECT_EQ(parsed["adapter"]["version"], "1.0\0\x1b[31m"s + replacement);
  EXPECT_EQ(parsed["adapter"]["ops"][1], "en" + replacement + "code");
  EXPECT_EQ(parsed["results"][2]["topic"], "bad" + replacement + "name");
  EXPECT_EQ(parsed["case_set_sha256"], "ab" + replacement + "cd");
  EXPECT_FALSE(parsed["totals"].contains("recommended_failures"));
  EXPECT_EQ(parsed["totals"]["stale_expected_failures"], 2);
  ASSERT_EQ(parsed["unmatched_expected_failures"].size(), 1u);
  EXPECT_EQ(parsed["unmatched_expected_failures"][0]["line"], 7);
  EXPECT_EQ(parsed["unmatched_expected_failures"][0]["pattern"], "kiln-v2-`gone`|*" + replacement);
  std::map<std::string, std::size_t> verdicts;
  for (const auto& item : parsed["results"]) {
    ++verdicts[item["verdict"].get<std::string>()];
    if (item["verdict"] == "changed-failure") {
      EXPECT_EQ(item["status"], "CRASH");
      EXPECT_EQ(item["listed_status"], "FAIL");
    }
    EXPECT_FALSE(item.contains("level"));  // every case is required (cases/README.md, level)
  }
  EXPECT_EQ(verdicts, (std::map<std::string, std::size_t>{{"unexpected-failure", 4},
                                                          {"skip", 1},
                                                          {"pass", 1},
                                                          {"expected-failure", 1},
                                                          {"stale-listing", 1},
                                                          {"changed-failure", 1},
                                                          {"unjudged", 1}}));
}

// ---- the JSON report as run writes it: streamed ----

// What json_report() holds, a field or a result per line, valid UTF-8.
TEST_F(HostileReport, StreamedJsonIsTheReportAResultPerLine) {
  ScratchDir scratch;
  const auto written = write_json_report(context(), scratch / "report.json");
  ASSERT_TRUE(written) << written.error();
  const std::string text = read_text(scratch / "report.json");
  std::size_t bad_at = 0;
  ASSERT_TRUE(decode_utf8(text, &bad_at)) << bad_at;
  // Ordered: the same members in the same order, each with the same value.
  EXPECT_EQ(protocol::Json::parse(text), json_report(context()));
  std::size_t result_lines = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) result_lines += line.rfind("  {\"case\":", 0) == 0;
  EXPECT_EQ(result_lines, results_.size()) << text;
  EXPECT_EQ(text.back(), '\n');
}

// Each write is one member or one result: the report never exists whole.
TEST_F(HostileReport, StreamedJsonIsWrittenAResultAtATime) {
  std::string text;
  std::size_t largest_piece = 0;
  JsonObjectStream out(
      [&](std::string_view piece) {
        text += piece;
        largest_piece = std::max(largest_piece, piece.size());
        return true;
      },
      compact_json, true);
  ASSERT_TRUE(stream_json_report(context(), out));
  const protocol::Json whole = json_report(context());
  std::size_t largest_part = 0;
  for (const auto& [key, value] : whole.items())
    if (key != "results") largest_part = std::max(largest_part, compact_json(value).size());
  for (const auto& item : whole["results"]) largest_part = std::max(largest_part, compact_json(item).size());
  EXPECT_LE(largest_piece, largest_part);
  EXPECT_LT(largest_piece, text.size() / 4);
  EXPECT_EQ(protocol::Json::parse(text), whole);
}

TEST(WriteJsonReport, SaysWhyAReportCannotBeWritten) {
  RunOptions options;
  std::vector<CaseResult> results(20000);
  for (std::size_t i = 0; i < results.size(); ++i) results[i].case_id = "kiln-v2-case-" + std::to_string(i);
  const ReportContext context{options, std::nullopt, "", results.size(), results, Totals{results.size()}, "", 0, ""};
  ScratchDir scratch;
  const auto missing = write_json_report(context, scratch / "missing" / "report.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), (scratch / "missing" / "report.json").string() +
                                 ": cannot open for writing: No such file or directory");
  // A full disk, seen while the results stream out.
  if (std::filesystem::exists("/dev/full")) {
    const auto full = write_json_report(context, "/dev/full");
    ASSERT_FALSE(full);
    EXPECT_EQ(full.error(), "/dev/full: cannot write: No space left on device");
  }
}

// ---- write_text_file ----

TEST(WriteTextFile, WritesTheText) {
  ScratchDir scratch;
  const auto written = write_text_file(scratch / "a.txt", "hello\n");
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(read_text(scratch / "a.txt"), "hello\n");
  const auto emptied = write_text_file(scratch / "a.txt", "");
  ASSERT_TRUE(emptied) << emptied.error();
  EXPECT_EQ(read_text(scratch / "a.txt"), "");
}

// Each failure names the file and the reason, whoever runs the test (root too).
TEST(WriteTextFile, ReportsWhyAWriteFailed) {
  ScratchDir scratch;
  write_text(scratch / "plain-file", "x");
  std::filesystem::create_directories(scratch / "a-directory");
  struct Failing {
    std::filesystem::path file;
    std::string reason;
  };
  const std::vector<Failing> failing = {
      {scratch / "plain-file" / "report.json", "cannot open for writing: Not a directory"},
      {scratch / "a-directory", "cannot open for writing: Is a directory"},
      {scratch / "missing" / "report.json", "cannot open for writing: No such file or directory"},
  };
  for (const Failing& f : failing) {
    const auto written = write_text_file(f.file, "text");
    ASSERT_FALSE(written) << f.file;
    EXPECT_EQ(written.error(), f.file.string() + ": " + f.reason);
  }
  // A full disk shows only when the buffered text is flushed.
  if (std::filesystem::exists("/dev/full")) {
    const auto small = write_text_file("/dev/full", "text");
    ASSERT_FALSE(small);
    EXPECT_EQ(small.error(), "/dev/full: cannot write: No space left on device");
    const auto large = write_text_file("/dev/full", std::string(1 << 20, 'x'));
    ASSERT_FALSE(large);
    EXPECT_EQ(large.error(), "/dev/full: cannot write: No space left on device");
  }
}

}  // namespace
}  // namespace kiln::conformance
