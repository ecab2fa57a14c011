#include "kiln/conformance/report.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kiln::conformance {
namespace {

// XML 1.0 cannot carry most control characters even escaped: they become '?'.
std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') out += "?";
        else out += static_cast<char>(c);
    }
  }
  return out;
}

// Adapter output may be any bytes; JSON strings must be UTF-8.
std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) out += c < 0x80 ? static_cast<char>(c) : '?';
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : printable(text)) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

std::string adapter_name(const ReportContext& context) {
  if (!context.hello) return "unknown adapter";
  return context.hello->name + " " + context.hello->version;
}

}  // namespace

protocol::Json json_report(const ReportContext& context) {
  using protocol::Json;
  Json report;
  report["report"] = "kiln-conformance-run";
  report["report_version"] = kJsonReportVersion;
  report["suite_version"] = KILN_SUITE_VERSION;
  report["profile"] = "kiln-v2";
  report["case_set_sha256"] = context.case_set_sha256;
  report["case_count"] = context.case_count;
  report["started_at"] = context.started_at;
  report["duration_seconds"] = context.seconds;
  Json adapter;
  adapter["command"] = printable(context.options.adapter);
  adapter["mode"] = context.options.adapter.rfind("builtin:", 0) == 0
                        ? "in-process"
                        : (context.options.one_shot ? "one-shot" : "persistent");
  if (context.hello) {
    adapter["name"] = printable(context.hello->name);
    adapter["version"] = printable(context.hello->version);
    adapter["protocol"] = context.hello->protocol;
    adapter["ops"] = context.hello->ops;
    adapter["profiles"] = context.hello->profiles;
  }
  report["adapter"] = adapter;
  report["totals"] = {{"passed", context.totals.passed},
                      {"failed", context.totals.failed},
                      {"skipped", context.totals.skipped},
                      {"expected_failures", context.totals.expected_failures},
                      {"results", context.results.size()}};
  report["certificate"] = context.certificate;
  Json results = Json::array();
  for (const CaseResult& result : context.results) {
    Json item;
    item["case"] = result.case_id;
    item["topic"] = result.topic;
    item["op"] = std::string(to_string(result.op));
    item["status"] = std::string(to_string(result.status));
    item["unexpected"] = result.unexpected();
    item["listed"] = result.listed;
    if (result.listed) item["listed_reason"] = printable(result.listed_reason);
    item["rules"] = result.rules;
    item["expected"] = result.expected;
    item["got"] = printable(result.got);
    if (!result.detail.empty()) item["detail"] = printable(result.detail);
    if (result.first_difference) item["first_difference"] = *result.first_difference;
    if (!result.adapter_stderr.empty()) item["adapter_stderr"] = printable(result.adapter_stderr);
    item["seconds"] = result.seconds;
    results.push_back(std::move(item));
  }
  report["results"] = std::move(results);
  return report;
}

std::string junit_report(const ReportContext& context) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const CaseResult& result : context.results) {
    if (result.status == Status::kSkip || result.expected_failure()) ++skipped;
    else if (result.stale_listing() || result.status == Status::kFail) ++failures;
    else if (result.status != Status::kPass) ++errors;
  }
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml << "<testsuites name=\"kiln-conformance\" tests=\"" << context.results.size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped
      << "\" time=\"" << seconds_text(context.seconds) << "\">\n";
  xml << "  <testsuite name=\"kiln-v2 against " << xml_escape(printable(adapter_name(context)))
      << "\" tests=\"" << context.results.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\""
      << seconds_text(context.seconds) << "\" timestamp=\"" << context.started_at << "\">\n";
  xml << "    <properties>\n"
      << "      <property name=\"suite_version\" value=\"" << KILN_SUITE_VERSION << "\"/>\n"
      << "      <property name=\"case_set_sha256\" value=\"" << context.case_set_sha256 << "\"/>\n"
      << "      <property name=\"certificate\" value=\"" << xml_escape(context.certificate) << "\"/>\n"
      << "    </properties>\n";
  for (const CaseResult& result : context.results) {
    xml << "    <testcase classname=\"kiln-v2." << to_string(result.op) << "\" name=\""
        << xml_escape(result.case_id) << "\" time=\"" << seconds_text(result.seconds) << "\"";
    const std::string message = "expected " + result.expected + ", got " + result.got;
    const std::string body = xml_escape(printable(result.detail + (result.adapter_stderr.empty()
                                                                       ? ""
                                                                       : "\nadapter stderr:\n" +
                                                                             result.adapter_stderr)));
    if (result.status == Status::kSkip) {
      xml << ">\n      <skipped message=\"" << xml_escape(printable(result.detail)) << "\"/>\n    </testcase>\n";
    } else if (result.expected_failure()) {
      xml << ">\n      <skipped message=\"expected failure (" << to_string(result.status)
          << "): " << xml_escape(printable(result.listed_reason)) << "\"/>\n    </testcase>\n";
    } else if (result.stale_listing()) {
      xml << ">\n      <failure type=\"STALE-EXPECTED-FAILURE\" message=\"listed as an expected "
             "failure but passes; remove it from the list\"/>\n    </testcase>\n";
    } else if (result.status == Status::kFail) {
      xml << ">\n      <failure type=\"FAIL\" message=\"" << xml_escape(printable(message)) << "\">"
          << body << "</failure>\n    </testcase>\n";
    } else if (result.status != Status::kPass) {
      xml << ">\n      <error type=\"" << to_string(result.status) << "\" message=\""
          << xml_escape(printable(result.detail)) << "\">" << body << "</error>\n    </testcase>\n";
    } else {
      xml << "/>\n";
    }
  }
  xml << "  </testsuite>\n</testsuites>\n";
  return xml.str();
}

std::string markdown_report(const ReportContext& context) {
  std::ostringstream md;
  md << "## Kiln v2 conformance: " << markdown_cell(adapter_name(context)) << "\n\n";
  md << "**" << markdown_cell(context.certificate) << "**\n\n";
  md << "| passed | failed | skipped | expected failures | results | seconds |\n";
  md << "|---:|---:|---:|---:|---:|---:|\n";
  md << "| " << context.totals.passed << " | " << context.totals.failed << " | "
     << context.totals.skipped << " | " << context.totals.expected_failures << " | "
     << context.results.size() << " | " << seconds_text(context.seconds) << " |\n\n";
  md << "| topic | passed | failed | skipped | expected failures |\n|---|---:|---:|---:|---:|\n";
  for (const TopicTotals& topic : totals_by_topic(context.results))
    md << "| " << topic.topic << " | " << topic.totals.passed << " | " << topic.totals.failed
       << " | " << topic.totals.skipped << " | " << topic.totals.expected_failures << " |\n";
  md << "\n";
  md << "Suite " << KILN_SUITE_VERSION << ", " << context.case_count << " cases, case set sha256 `"
     << context.case_set_sha256 << "`.\n\n";
  bool any_unexpected = false;
  for (const CaseResult& result : context.results) any_unexpected |= result.unexpected();
  if (any_unexpected) {
    md << "### Unexpected results\n\n| case | op | status | rules | expected | got |\n"
          "|---|---|---|---|---|---|\n";
    for (const CaseResult& result : context.results) {
      if (!result.unexpected()) continue;
      std::string rules;
      for (const auto& rule : result.rules) rules += (rules.empty() ? "" : " ") + rule;
      md << "| `" << result.case_id << "` | " << to_string(result.op) << " | "
         << (result.stale_listing() ? "PASS (listed)" : std::string(to_string(result.status)))
         << " | " << rules << " | " << markdown_cell(result.expected) << " | "
         << markdown_cell(result.got) << " |\n";
    }
    md << "\n";
  }
  if (context.totals.expected_failures) {
    md << "<details><summary>Expected failures (" << context.totals.expected_failures
       << ")</summary>\n\n| case | op | status | reason |\n|---|---|---|---|\n";
    for (const CaseResult& result : context.results)
      if (result.expected_failure())
        md << "| `" << result.case_id << "` | " << to_string(result.op) << " | "
           << to_string(result.status) << " | " << markdown_cell(result.listed_reason) << " |\n";
    md << "\n</details>\n";
  }
  return md.str();
}

bool write_text_file(const std::filesystem::path& file, const std::string& text, std::string& error) {
  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  stream << text;
  stream.close();
  if (!stream) {
    error = file.string() + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace kiln::conformance
