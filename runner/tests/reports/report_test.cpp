// The run's reports with hostile outside text (adapter hello, command, case
// results, stderr, topic folder names): the JSON is valid UTF-8, the JUnit XML
// well-formed XML 1.0 and each Markdown table row one row with its cells; the
// JSON report streamed as run writes it is the same report; and write_text_file
// and write_json_report say why a write failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/utf8.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

// Strict UTF-8 decoding, written apart from the report's own: the code points,
// or nullopt at the first byte that does not start a well-formed sequence.
std::optional<std::u32string> decode_utf8(std::string_view text, std::size_t* bad_at = nullptr) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char lead = b(0);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3
                                       : lead >= 0xF0 && lead < 0xF5    ? 4
                                                                        : 0;
    bool ok = length != 0 && i + length <= text.size();
    char32_t code = length == 1 ? lead : length == 2 ? lead & 0x1F : length == 3 ? lead & 0x0F : lead & 0x07;
    for (std::size_t k = 1; ok && k < length; ++k) {
      ok = (b(k) & 0xC0) == 0x80;
      code = (code << 6) | (b(k) & 0x3F);
    }
    // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
    if (ok && ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10FFFF ||
               (code >= 0xD800 && code <= 0xDFFF)))
      ok = false;
    if (!ok) {
      if (bad_at) *bad_at = i;
      return std::nullopt;
    }
    out += code;
    i += length;
  }
  return out;
}

bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

std::string utf8(char32_t code) {
  std::string out;
  append_utf8(out, code);
  return out;
}

// A strict well-formedness check of the XML subset junit_report writes (an XML
// declaration, elements, attributes, text, entity and character references):
// anything else, a forbidden character, an unbalanced tag or a stray & or < is
// a problem. Collects each element's attributes, references resolved.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // character data directly inside, references resolved
};

struct XmlCheck {
  std::string problem;  // empty: well formed
  std::vector<XmlElement> elements;
};

XmlCheck check_xml(const std::string& xml) {
  XmlCheck check;
  std::size_t bad_at = 0;
  const auto code_points = decode_utf8(xml, &bad_at);
  if (!code_points) {
    check.problem = "not UTF-8 at byte " + std::to_string(bad_at);
    return check;
  }
  for (char32_t c : *code_points)
    if (!xml_char(c)) {
      check.problem = "U+" + std::to_string(static_cast<unsigned>(c)) + " is not an XML 1.0 Char";
      return check;
    }
  std::size_t at = 0;
  const auto fail = [&](const std::string& what) {
    if (check.problem.empty()) check.problem = what + " at byte " + std::to_string(at);
  };
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
  };
  const auto read_name = [&]() {
    const std::size_t start = at;
    while (at < xml.size() && name_char(xml[at])) ++at;
    return xml.substr(start, at - start);
  };
  // A reference at xml[at] == '&', appended resolved to out.
  const auto reference = [&](std::string& out) {
    const auto end = xml.find(';', at);
    if (end == std::string::npos) return fail("an unterminated reference"), false;
    const std::string name = xml.substr(at + 1, end - at - 1);
    static const std::map<std::string, std::string> kEntities = {
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
    if (auto it = kEntities.find(name); it != kEntities.end()) {
      out += it->second;
    } else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x';
      const std::string digits = name.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8 ||
          digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        return fail("a bad character reference &" + name + ";"), false;
      const auto code = static_cast<char32_t>(std::stoul(digits, nullptr, hex ? 16 : 10));
      if (!xml_char(code)) return fail("a reference to a character XML forbids"), false;
      out += utf8(code);
    } else {
      return fail("an unknown entity &" + name + ";"), false;
    }
    at = end + 1;
    return true;
  };
  const auto space = [&]() {
    while (at < xml.size() && (xml[at] == ' ' || xml[at] == '\n' || xml[at] == '\t' || xml[at] == '\r')) ++at;
  };

  if (xml.rfind("<?xml ", 0) != 0) return fail("no XML declaration"), check;
  at = xml.find("?>");
  if (at == std::string::npos) return fail("an unterminated XML declaration"), check;
  at += 2;
  std::vector<std::size_t> open;  // indices into check.elements
  bool had_root = false;
  while (at < xml.size() && check.problem.empty()) {
    if (xml[at] == '<') {
      ++at;
      if (at < xml.size() && xml[at] == '/') {
        ++at;
        const std::string name = read_name();
        space();
        if (open.empty() || check.elements[open.back()].name != name)
          return fail("a stray end tag </" + name + ">"), check;
        if (at >= xml.size() || xml[at] != '>') return fail("an unterminated end tag"), check;
        ++at;
        open.pop_back();
        continue;
      }
      if (open.empty() && had_root) return fail("a second root element"), check;
      XmlElement element;
      element.name = read_name();
      if (element.name.empty()) return fail("'<' that starts no element"), check;
      while (true) {
        const std::size_t before = at;
        space();
        if (at >= xml.size()) return fail("an unterminated start tag"), check;
        if (xml.compare(at, 2, "/>") == 0 || xml[at] == '>') break;
        if (at == before) return fail("no space before an attribute"), check;
        const std::string key = read_name();
        if (key.empty() || at >= xml.size() || xml[at] != '=') return fail("a bad attribute"), check;
        ++at;
        if (at >= xml.size() || (xml[at] != '"' && xml[at] != '\'')) return fail("an unquoted value"), check;
        const char quote = xml[at++];
        std::string value;
        while (at < xml.size() && xml[at] != quote) {
          if (xml[at] == '<') return fail("'<' in an attribute value"), check;
          if (xml[at] == '&') {
            if (!reference(value)) return check;
          } else {
            value += xml[at++];
          }
        }
        if (at >= xml.size()) return fail("an unterminated attribute value"), check;
        ++at;
        if (!element.attributes.emplace(key, value).second) return fail("a repeated attribute"), check;
      }
      had_root = true;
      check.elements.push_back(element);
      if (xml[at] == '>') {
        open.push_back(check.elements.size() - 1);
        ++at;
      } else {
        at += 2;
      }
    } else if (xml[at] == '&') {
      std::string text;
      if (!reference(text)) return check;
      if (open.empty()) return fail("a reference outside the root"), check;
      check.elements[open.back()].text += text;
    } else {
      if (xml.compare(at, 3, "]]>") == 0) return fail("]]> in text"), check;
      const char c = xml[at];
      if (open.empty() && c != ' ' && c != '\n' && c != '\t' && c != '\r')
        return fail("text outside the root"), check;
      if (!open.empty()) check.elements[open.back()].text += c;
      ++at;
    }
  }
  if (check.problem.empty() && !open.empty()) fail("unclosed <" + check.elements[open.back()].name + ">");
  if (check.problem.empty() && !had_root) fail("no root element");
  return check;
}

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
    // reasons; and a recommended failure.
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
    CaseResult recommended = hostile_result(Status::kFail, topics[3]);
    recommended.level = Level::kRecommended;
    no_list.record(recommended);
    EXPECT_TRUE(recommended.recommended_failure());
    results_.push_back(recommended);
    totals_ = {1, 6, 1, 1, 1};
  }
  ReportContext context() {
    return ReportContext{options_, hello_, "ab\xFF" "cd", 8, results_, totals_,
                         "NOT CONFORMANT: " + kHostileName + " " + kHostileVersion, 1.5,
                         "2024-01-01T00:00:00Z\x01"};
  }
  RunOptions options_;
  protocol::Hello hello_;
  std::vector<CaseResult> results_;
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
  // A changed failure says what was listed; a recommended failure is skipped, with why.
  std::size_t changed = 0, recommended = 0;
  for (const XmlElement& element : check.elements) {
    const auto message = element.attributes.find("message");
    if (message == element.attributes.end()) continue;
    changed += element.name == "error" &&
               message->second.rfind("listed as an expected FAIL, now CRASH: ", 0) == 0;
    recommended += element.name == "skipped" &&
                   message->second.rfind("recommended check fails (the format leaves a choice", 0) == 0;
  }
  EXPECT_EQ(changed, 1u) << xml;
  EXPECT_EQ(recommended, 1u) << xml;

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

// GFM table cells: a '|' not escaped by a backslash ends a cell; a backslash
// escapes the character after it. The row's own leading '|' opens the first.
std::size_t cell_count(const std::string& row) {
  std::size_t cells = 0;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\') ++i;
    else if (row[i] == '|') ++cells;
  }
  return cells;
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
  // totals, profiles, topics, unexpected, recommended failures, expected failures
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
  std::size_t unexpected = 0, recommended = 0, listed = 0;
  for (const CaseResult& result : results_) {
    unexpected += result.unexpected();
    recommended += result.recommended_failure();
    listed += result.expected_failure();
  }
  EXPECT_EQ(tables[3].size(), 2 + unexpected) << md;
  EXPECT_EQ(tables[4].size(), 2 + recommended) << md;
  EXPECT_EQ(tables[5].size(), 2 + listed) << md;
  // With a recommended failure, the count tables have its column.
  EXPECT_EQ(cell_count(tables[0][0]), 7u) << tables[0][0];
  EXPECT_EQ(cell_count(tables[1][0]), 7u) << tables[1][0];  // profile, verdict and the counts
  EXPECT_EQ(cell_count(tables[2][0]), 6u) << tables[2][0];
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
  EXPECT_EQ(parsed["totals"]["recommended_failures"], 1);
  std::map<std::string, std::size_t> verdicts;
  for (const auto& item : parsed["results"]) {
    ++verdicts[item["verdict"].get<std::string>()];
    if (item["verdict"] == "changed-failure") {
      EXPECT_EQ(item["status"], "CRASH");
      EXPECT_EQ(item["listed_status"], "FAIL");
    }
    EXPECT_EQ(item["level"], item["verdict"] == "recommended-failure" ? "recommended" : "required");
  }
  EXPECT_EQ(verdicts, (std::map<std::string, std::size_t>{{"unexpected-failure", 4},
                                                          {"skip", 1},
                                                          {"pass", 1},
                                                          {"expected-failure", 1},
                                                          {"stale-listing", 1},
                                                          {"changed-failure", 1},
                                                          {"recommended-failure", 1}}));
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

// ---- the generated phase in each report ----

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
    totals_ = {2, 2, 0, 0, 0};

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
  EXPECT_EQ(report["report_version"], 3);
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
