#include "kiln/conformance/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "kiln/conformance/profile.hpp"
#include "kiln/hex.hpp"
#include "kiln/utf8.hpp"

namespace kiln::conformance {
namespace {

constexpr char32_t kReplacement = U'\uFFFD';

// Calls emit with each code point of text; every byte that does not start a
// well-formed UTF-8 sequence (overlong, surrogate, above U+10FFFF, cut short)
// becomes one U+FFFD. Adapter output and folder names may be any bytes.
template <class Emit>
void for_each_code_point(std::string_view text, Emit emit) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    char32_t code = 0;
    if (lead < 0x80) {
      emit(static_cast<char32_t>(lead));
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2, code = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3, code = lead & 0x0F;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;  // U+D800..U+DFFF are not characters
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4, code = lead & 0x07;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    }
    bool valid = length != 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const unsigned char next = byte(i + k);
      valid = k == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xBF;
      code = (code << 6) | (next & 0x3F);
    }
    if (valid) {
      emit(code);
      i += length;
    } else {
      emit(kReplacement);
      ++i;
    }
  }
}

// The one escape for JSON: nlohmann escapes quotes and controls itself, but
// throws on (or, with `replace`, mangles) bytes that are not UTF-8.
std::string json_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](char32_t code) { append_utf8(out, code); });
  return out;
}

std::vector<std::string> json_texts(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (const auto& text : texts) out.push_back(json_text(text));
  return out;
}

// The one escape for XML, for attribute values and text alike. XML 1.0 cannot
// carry C0 controls other than tab, LF and CR, nor U+FFFE and U+FFFF, even as
// character references: those become U+FFFD. Tab, LF and CR are written as
// references so that attribute-value and end-of-line normalisation keep them.
std::string xml_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](char32_t code) {
    switch (code) {
      case '&': out += "&amp;"; return;
      case '<': out += "&lt;"; return;
      case '>': out += "&gt;"; return;
      case '"': out += "&quot;"; return;
      case '\'': out += "&apos;"; return;
      case '\t': out += "&#9;"; return;
      case '\n': out += "&#10;"; return;
      case '\r': out += "&#13;"; return;
      default: break;
    }
    if (code < 0x20 || code == 0xFFFE || code == 0xFFFF) code = kReplacement;
    append_utf8(out, code);
  });
  return out;
}

// The one escape for Markdown, good for a GFM table cell and for running text:
// one line, no unescaped '|' (a backslash escapes itself, so '\' is doubled),
// no raw HTML, controls shown as \xNN or \uNNNN.
std::string markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool after_cr = false;
  for_each_code_point(text, [&](char32_t code) {
    const bool crlf = after_cr && code == '\n';
    after_cr = code == '\r';
    if (crlf) return;  // the <br> was written for the CR
    switch (code) {
      case '|': out += "\\|"; return;
      case '\\': out += "\\\\"; return;
      case '`': out += "\\`"; return;
      case '<': out += "&lt;"; return;
      case '>': out += "&gt;"; return;
      case '&': out += "&amp;"; return;
      case '\n':
      case '\r': out += "<br>"; return;
      case '\t': out += ' '; return;
      default: break;
    }
    if (code < 0x20 || (code >= 0x7F && code <= 0x9F)) {
      char escape[8];
      std::snprintf(escape, sizeof escape, code < 0x80 ? "\\x%02x" : "\\u%04x",
                    static_cast<unsigned>(code));
      out += escape;
      return;
    }
    append_utf8(out, code);
  });
  return out;
}

// A byte difference for the JSON report and the HTML pages drawn from it.
// Spans are clipped to the window: a span past a block's end has no end.
protocol::Json difference_json(const ByteDifference& difference) {
  using protocol::Json;
  const std::uint64_t window_end =
      difference.window_start + std::max(difference.expected_window.size(), difference.got_window.size());
  const auto clipped = [&](const ByteSpan& span) {
    const std::uint64_t end = span.length > window_end - std::min(window_end, span.start)
                                  ? std::max(window_end, span.start)
                                  : span.start + span.length;
    return end - span.start;
  };
  Json fields = Json::array();
  for (const ByteSpan& span : difference.window_fields)
    fields.push_back(Json::array({span.start, clipped(span), json_text(span.name)}));
  return {{"offset", difference.offset},
          {"field", json_text(difference.field.name)},
          {"field_start", difference.field.start},
          {"field_length", clipped(difference.field)},
          {"summary", json_text(difference.summary())},
          {"expected_size", difference.expected_size},
          {"got_size", difference.got_size},
          {"window_start", difference.window_start},
          {"expected_hex", to_hex(difference.expected_window)},
          {"got_hex", to_hex(difference.got_window)},
          {"window_fields", std::move(fields)}};
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

// Whether a result carries what it takes to run it again: anything but a pass or a skip.
bool shows_replay(const CaseResult& result) {
  return result.verdict != Verdict::kPass && result.verdict != Verdict::kSkip;
}

// A generated check is no case of the set, so a --filter of its id replays
// nothing: it replays through its written case, or through the phase itself.
std::string result_replay(const RunOptions& options, const CaseResult& result) {
  if (result.generated && !result.generated->replay.empty()) return result.generated->replay;
  return replay_command(options, result);
}

protocol::Json generated_phase_json(const GeneratedPhase& phase) {
  using protocol::Json;
  Json findings = Json::array();
  for (const FuzzFinding& finding : phase.findings) {
    Json item{{"case", json_text(finding.test_case.id)},
              {"op", std::string(to_string(finding.op))},
              {"file", json_text(finding.file.string())},
              {"replay", json_text(finding.replay)},
              {"signature", json_text(finding.signature)},
              {"state_dependent", finding.state_dependent}};
    if (finding.state_dependent) item["requests"] = finding.requests;
    if (!finding.check_problems.empty()) item["check_problems"] = json_texts(finding.check_problems);
    findings.push_back(std::move(item));
  }
  Json not_reproduced = Json::array();
  for (const NotReproduced& seen : phase.not_reproduced)
    not_reproduced.push_back({{"signature", json_text(seen.signature)},
                              {"seen", json_text(seen.seen)},
                              {"replayed", json_text(seen.replayed)}});
  return {{"profile", json_text(phase.profile)},
          {"seed", phase.seed},
          {"planned", phase.planned},
          {"ran", phase.ran},
          {"failed", phase.failed},
          {"stopped", json_text(phase.stopped)},
          {"write_failed", phase.write_failed},
          {"findings", std::move(findings)},
          {"not_reproduced", std::move(not_reproduced)}};
}

// The profiles with generated results or a phase, phases first: each is one
// JUnit test suite, even one whose results a caller left out.
std::vector<std::string> generated_profiles(const ReportContext& context) {
  std::vector<std::string> profiles;
  const auto add = [&](const std::string& profile) {
    if (std::find(profiles.begin(), profiles.end(), profile) == profiles.end()) profiles.push_back(profile);
  };
  for (const GeneratedPhase& phase : context.generated) add(phase.profile);
  for (const CaseResult& result : context.results)
    if (result.generated) add(result.profile.empty() ? std::string(default_profile_name()) : result.profile);
  return profiles;
}

// The report's fields before its results, in order.
protocol::Json report_head(const ReportContext& context) {
  using protocol::Json;
  Json report;
  report["report"] = "kiln-conformance-run";
  report["report_version"] = kJsonReportVersion;
  report["suite_version"] = KILN_SUITE_VERSION;
  report["case_set_sha256"] = json_text(context.case_set_sha256);
  report["case_count"] = context.case_count;
  report["started_at"] = json_text(context.started_at);
  report["duration_seconds"] = context.seconds;
  Json adapter;
  adapter["command"] = json_text(context.options.adapter);
  adapter["mode"] = context.options.adapter.rfind("builtin:", 0) == 0
                        ? "in-process"
                        : (context.options.one_shot ? "one-shot" : "persistent");
  if (context.hello) {
    adapter["name"] = json_text(context.hello->name);
    adapter["version"] = json_text(context.hello->version);
    adapter["protocol"] = context.hello->protocol;
    adapter["ops"] = json_texts(context.hello->ops);
    adapter["profiles"] = json_texts(context.hello->profiles);
  }
  report["adapter"] = adapter;
  report["totals"] = {{"passed", context.totals.passed},
                      {"failed", context.totals.failed},
                      {"skipped", context.totals.skipped},
                      {"expected_failures", context.totals.expected_failures},
                      {"stale_expected_failures", context.totals.stale_expected_failures},
                      {"results", context.results.size()}};
  report["certificate"] = json_text(context.certificate);
  // Each profile's own verdict; the certificate above is the run's.
  Json profiles = Json::array();
  for (const ProfileVerdict& verdict :
       verdicts_by_profile(context.results, context.hello, is_filtered(context.options))) {
    profiles.push_back({{"profile", verdict.profile},
                        {"verdict", verdict.verdict},
                        {"scope", json_text(verdict.scope)},
                        {"passed", verdict.totals.passed},
                        {"failed", verdict.totals.failed},
                        {"skipped", verdict.totals.skipped},
                        {"out_of_scope", verdict.out_of_scope},
                        {"expected_failures", verdict.totals.expected_failures},
                        {"stale_expected_failures", verdict.totals.stale_expected_failures}});
  }
  report["profiles"] = profiles;
  // Stale expected failures without a result: the totals count them, no profile does.
  Json unmatched = Json::array();
  for (const UnmatchedEntry& entry : context.unmatched_entries)
    unmatched.push_back({{"list", json_text(entry.list)}, {"line", entry.line}, {"pattern", json_text(entry.pattern)}});
  report["unmatched_expected_failures"] = std::move(unmatched);
  return report;
}

// One item of the report's "results".
protocol::Json result_json(const ReportContext& context, const CaseResult& result) {
  using protocol::Json;
  Json item;
  item["case"] = json_text(result.case_id);
  item["topic"] = json_text(result.topic);
  item["profile"] = json_text(result.profile.empty() ? std::string(default_profile_name()) : result.profile);
  item["op"] = std::string(to_string(result.op));
  item["status"] = std::string(to_string(result.status));
  item["verdict"] = std::string(to_string(result.verdict));
  item["unexpected"] = result.unexpected();
  item["listed"] = result.listed;
  if (result.listed_status) item["listed_status"] = std::string(to_string(*result.listed_status));
  if (result.listed) item["listed_reason"] = json_text(result.listed_reason);
  item["rules"] = json_texts(result.rules);
  item["expected"] = json_text(result.expected);
  item["got"] = json_text(result.got);
  if (!result.detail.empty()) item["detail"] = json_text(result.detail);
  if (result.first_difference) item["first_difference"] = *result.first_difference;
  if (result.difference) item["difference"] = difference_json(*result.difference);
  if (shows_replay(result)) item["replay"] = json_text(result_replay(context.options, result));
  if (!result.adapter_stderr.empty()) item["adapter_stderr"] = json_text(result.adapter_stderr);
  item["seconds"] = result.seconds;
  // A passing check carries only its place in the sequence, as a passing
  // case carries no replay: 20,000 of them stay small.
  if (result.generated) {
    Json generated{{"seed", result.generated->seed}, {"number", result.generated->number}};
    if (shows_replay(result)) {
      if (!result.generated->file.empty()) generated["file"] = json_text(result.generated->file);
      generated["replay"] = json_text(result_replay(context.options, result));
    }
    item["generated"] = std::move(generated);
  }
  return item;
}

// The one order of the report's members, for the whole value and the stream
// alike: the head, the results, then the generated phases.
template <class Out>
bool emit_json_report(const ReportContext& context, Out& out) {
  const protocol::Json head = report_head(context);
  for (const auto& [key, value] : head.items())
    if (!out.member(key, value)) return false;
  if (!out.open_array("results")) return false;
  for (const CaseResult& result : context.results)
    if (!out.item(result_json(context, result))) return false;
  if (!out.close_array()) return false;
  // Empty when no phase ran (--generated 0, a narrowed run): the certificate
  // then covers the cases only.
  protocol::Json generated = protocol::Json::array();
  for (const GeneratedPhase& phase : context.generated) generated.push_back(generated_phase_json(phase));
  return out.member("generated", generated) && out.close();
}

// emit_json_report's members gathered into one value.
struct JsonReportValue {
  protocol::Json report = protocol::Json::object();
  protocol::Json* array = nullptr;

  bool member(std::string_view key, const protocol::Json& value) {
    report[std::string(key)] = value;
    return true;
  }
  bool open_array(std::string_view key) {
    array = &(report[std::string(key)] = protocol::Json::array());
    return true;
  }
  bool item(protocol::Json value) {
    array->push_back(std::move(value));
    return true;
  }
  bool close_array() { return true; }
  bool close() { return true; }
};

}  // namespace

protocol::Json json_report(const ReportContext& context) {
  JsonReportValue value;
  emit_json_report(context, value);
  return std::move(value.report);
}

bool stream_json_report(const ReportContext& context, JsonObjectStream& out) {
  return emit_json_report(context, out);
}

Checked<void> write_json_report(const ReportContext& context, const std::filesystem::path& file) {
  TextFileWriter writer(file);
  JsonObjectStream report([&](std::string_view text) { return writer.write(text); }, compact_json, true);
  stream_json_report(context, report);
  return writer.finish();
}

std::string junit_report(const ReportContext& context) {
  // JUnit has no expected failures: one is shown as skipped with its reason,
  // which CI marks without failing the build.
  struct Counts {
    std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    double seconds = 0;
  };
  const auto count = [](Counts& counts, const CaseResult& result) {
    ++counts.tests;
    counts.seconds += result.seconds;
    if (result.status == Status::kSkip || result.expected_failure()) ++counts.skipped;
    else if (result.stale_listing() || result.status == Status::kFail) ++counts.failures;
    else if (result.status != Status::kPass) ++counts.errors;
  };
  const auto profile_of = [](const CaseResult& result) {
    return result.profile.empty() ? std::string(default_profile_name()) : result.profile;
  };
  // The cases are one suite; each profile's generated phase is another, with
  // its seed and counts as properties.
  const std::vector<std::string> phase_profiles = generated_profiles(context);
  Counts all, cases;
  std::vector<Counts> phases(phase_profiles.size());
  for (const CaseResult& result : context.results) {
    count(all, result);
    if (!result.generated) {
      count(cases, result);
      continue;
    }
    const auto at = std::find(phase_profiles.begin(), phase_profiles.end(), profile_of(result));
    count(phases[static_cast<std::size_t>(at - phase_profiles.begin())], result);
  }
  // Every piece of text goes through xml_text, ours too, so that no path
  // around the escape exists.
  const auto x = [](std::string_view text) { return xml_text(text); };
  std::ostringstream xml;
  const auto suite_open = [&](const std::string& name, const Counts& counts, double seconds) {
    xml << "  <testsuite name=\"" << x(name) << "\" tests=\"" << counts.tests << "\" failures=\""
        << counts.failures << "\" errors=\"" << counts.errors << "\" skipped=\"" << counts.skipped
        << "\" time=\"" << seconds_text(seconds) << "\" timestamp=\"" << x(context.started_at) << "\">\n";
  };
  const auto property = [&](const std::string& name, const std::string& value) {
    xml << "      <property name=\"" << x(name) << "\" value=\"" << x(value) << "\"/>\n";
  };
  const auto testcase = [&](const CaseResult& result) {
    // A generated check is named as an expected-failures entry names it.
    const std::string classname = result.generated ? "generated." + profile_of(result)
                                                   : std::string(default_profile_name()) + "." + std::string(to_string(result.op));
    const std::string name =
        result.generated ? result.case_id + ":" + std::string(to_string(result.op)) : result.case_id;
    xml << "    <testcase classname=\"" << x(classname) << "\" name=\"" << x(name) << "\" time=\""
        << seconds_text(result.seconds) << "\"";
    // A changed failure says what its list entry recorded.
    const std::string changed =
        result.changed_failure() && result.listed_status
            ? "listed as an expected " + std::string(to_string(*result.listed_status)) + ", now " +
                  std::string(to_string(result.status)) + ": "
            : "";
    const std::string message = changed + "expected " + result.expected + ", got " + result.got;
    // A generated failure's body says where its case was written and how to replay it.
    std::string written;
    if (result.generated) {
      if (!result.generated->file.empty()) written += "\nwritten as: " + result.generated->file;
      written += "\nreplay: " + result_replay(context.options, result);
    }
    const std::string body =
        x(result.detail + written +
          (result.adapter_stderr.empty() ? "" : "\nadapter stderr:\n" + result.adapter_stderr));
    const std::string status(to_string(result.status));
    if (result.status == Status::kSkip) {
      xml << ">\n      <skipped message=\"" << x(result.detail) << "\"/>\n    </testcase>\n";
    } else if (result.expected_failure()) {
      xml << ">\n      <skipped message=\""
          << x("expected failure (" + status + "): " + result.listed_reason)
          << "\"/>\n    </testcase>\n";
    } else if (result.stale_listing()) {
      xml << ">\n      <failure type=\"STALE-EXPECTED-FAILURE\" message=\""
          << x("listed as an expected failure but passes; remove it from the list")
          << "\"/>\n    </testcase>\n";
    } else if (result.status == Status::kFail) {
      xml << ">\n      <failure type=\"FAIL\" message=\"" << x(message) << "\">" << body
          << "</failure>\n    </testcase>\n";
    } else if (result.status != Status::kPass) {
      xml << ">\n      <error type=\"" << x(status) << "\" message=\"" << x(changed + result.detail) << "\">"
          << body << "</error>\n    </testcase>\n";
    } else {
      xml << "/>\n";
    }
  };

  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml << "<testsuites name=\"kiln-conformance\" tests=\"" << all.tests << "\" failures=\"" << all.failures
      << "\" errors=\"" << all.errors << "\" skipped=\"" << all.skipped << "\" time=\""
      << seconds_text(context.seconds) << "\">\n";
  // Without a phase the cases' suite is the run, and takes its time.
  const bool any_phase = !phase_profiles.empty();
  suite_open(std::string(default_profile_name()) + " against " + adapter_name(context), cases, any_phase ? cases.seconds : context.seconds);
  xml << "    <properties>\n";
  property("suite_version", KILN_SUITE_VERSION);
  property("case_set_sha256", context.case_set_sha256);
  property("certificate", context.certificate);
  xml << "    </properties>\n";
  for (const CaseResult& result : context.results)
    if (!result.generated) testcase(result);
  xml << "  </testsuite>\n";
  for (std::size_t i = 0; i < phase_profiles.size(); ++i) {
    const std::string& profile = phase_profiles[i];
    const auto phase = std::find_if(context.generated.begin(), context.generated.end(),
                                    [&](const GeneratedPhase& p) { return p.profile == profile; });
    suite_open("generated " + profile + " against " + adapter_name(context), phases[i], phases[i].seconds);
    xml << "    <properties>\n";
    property("profile", profile);
    if (phase != context.generated.end()) {
      property("generated_seed", std::to_string(phase->seed));
      property("generated_planned", std::to_string(phase->planned));
      property("generated_ran", std::to_string(phase->ran));
      property("generated_failed", std::to_string(phase->failed));
      property("generated_confirmed", std::to_string(phase->findings.size()));
      property("generated_not_reproduced", std::to_string(phase->not_reproduced.size()));
      if (!phase->stopped.empty()) property("generated_stopped", phase->stopped);
      if (phase->write_failed) property("generated_write_failed", "true");
    }
    property("case_set_sha256", context.case_set_sha256);
    xml << "    </properties>\n";
    for (const CaseResult& result : context.results)
      if (result.generated && profile_of(result) == profile) testcase(result);
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  return xml.str();
}

std::string markdown_report(const ReportContext& context) {
  // Every piece of text goes through markdown_cell, so no cell can split a
  // row, end a table or open HTML.
  const auto m = [](std::string_view text) { return markdown_cell(text); };
  std::ostringstream md;
  md << "## Kiln conformance: " << m(adapter_name(context)) << "\n\n";
  md << "**" << m(context.certificate) << "**\n\n";
  // The stale column only when it has something to say, as on the console.
  const bool stale = context.totals.stale_expected_failures > 0;
  const auto counts = [&](const Totals& totals) {
    return std::to_string(totals.passed) + " | " + std::to_string(totals.failed) + " | " +
           std::to_string(totals.skipped) + " | " + std::to_string(totals.expected_failures) +
           (stale ? " | " + std::to_string(totals.stale_expected_failures) : "");
  };
  const std::string count_headers =
      std::string("passed | failed | skipped | expected failures") + (stale ? " | stale expected failures" : "");
  const std::string count_columns = stale ? "---:|---:|---:|---:|---:" : "---:|---:|---:|---:";
  md << "| " << count_headers << " | results | seconds |\n|" << count_columns << "|---:|---:|\n";
  md << "| " << counts(context.totals) << " | " << context.results.size() << " | "
     << seconds_text(context.seconds) << " |\n\n";
  md << "| profile | verdict | " << count_headers << " |\n|---|---|" << count_columns << "|\n";
  for (const ProfileVerdict& verdict :
       verdicts_by_profile(context.results, context.hello, is_filtered(context.options)))
    md << "| " << m(verdict.profile) << " | "
       << m(verdict.verdict + (verdict.scope.empty() ? "" : " (" + verdict.scope + ")")) << " | "
       << counts(verdict.totals) << " |\n";
  md << "\n";
  md << "| topic | " << count_headers << " |\n|---|" << count_columns << "|\n";
  for (const TopicTotals& topic : totals_by_topic(context.results))
    md << "| " << m(topic.topic) << " | " << counts(topic.totals) << " |\n";
  md << "\n";
  md << "Suite " << m(KILN_SUITE_VERSION) << ", " << context.case_count
     << " cases, case set sha256 `" << m(context.case_set_sha256) << "`.\n\n";
  md << "### Generated checks\n\n";
  if (context.generated.empty()) {
    md << "No generated checks ran.\n\n";
  } else {
    md << "| profile | seed | checks | failed | confirmed and written | not reproduced |\n"
          "|---|---:|---:|---:|---:|---:|\n";
    for (const GeneratedPhase& phase : context.generated)
      md << "| " << m(phase.profile) << " | " << phase.seed << " | " << phase.ran << " of " << phase.planned
         << " | " << phase.failed << " | " << phase.findings.size() << " | " << phase.not_reproduced.size()
         << " |\n";
    md << "\n";
    bool listed = false;  // notes under the table, ended by a blank line
    for (const GeneratedPhase& phase : context.generated) {
      listed |= !phase.stopped.empty() || phase.write_failed;
      if (!phase.stopped.empty())
        md << "- " << m(phase.profile) << " stopped after " << phase.ran << " of " << phase.planned
           << " checks: " << m(phase.stopped) << "\n";
      if (phase.write_failed) md << "- " << m(phase.profile) << ": a confirmed failure could not be written\n";
    }
    if (listed) md << "\n";
    bool any_finding = false, any_not_reproduced = false;
    for (const GeneratedPhase& phase : context.generated) {
      any_finding |= !phase.findings.empty();
      any_not_reproduced |= !phase.not_reproduced.empty();
    }
    // Plain cells, not code spans: a code span would show the escapes of an
    // adapter command's '<' or '&' literally.
    if (any_finding) {
      md << "Confirmed failures, each written as a case (a request file when it needs the "
            "requests before it):\n\n| profile | op | written | replay |\n|---|---|---|---|\n";
      for (const GeneratedPhase& phase : context.generated)
        for (const FuzzFinding& finding : phase.findings)
          md << "| " << m(phase.profile) << " | " << m(to_string(finding.op)) << " | "
             << m(finding.file.string() + (finding.state_dependent ? " (after " + std::to_string(finding.requests) +
                                                                        " requests)"
                                                                  : ""))
             << " | " << m(finding.replay) << " |\n";
      md << "\n";
    }
    if (any_not_reproduced) {
      md << "Failures a fresh adapter did not repeat:\n\n| profile | seen | replayed |\n|---|---|---|\n";
      for (const GeneratedPhase& phase : context.generated)
        for (const NotReproduced& seen : phase.not_reproduced)
          md << "| " << m(phase.profile) << " | " << m(seen.seen) << " | " << m(seen.replayed) << " |\n";
      md << "\n";
    }
  }
  bool any_unexpected = false;
  for (const CaseResult& result : context.results) any_unexpected |= result.unexpected();
  if (any_unexpected) {
    md << "### Unexpected results\n\n| case | op | status | rules | expected | got |\n"
          "|---|---|---|---|---|---|\n";
    for (const CaseResult& result : context.results) {
      if (!result.unexpected()) continue;
      std::string rules;
      for (const auto& rule : result.rules) rules += (rules.empty() ? "" : " ") + rule;
      std::string status(to_string(result.status));
      if (result.stale_listing()) status = "PASS (a stale expected failure)";
      if (result.changed_failure() && result.listed_status)
        status += " (listed as " + std::string(to_string(*result.listed_status)) + ")";
      md << "| `" << m(result.case_id) << "` | " << m(to_string(result.op)) << " | " << m(status)
         << " | " << m(rules) << " | " << m(result.expected) << " | " << m(result.got) << " |\n";
    }
    md << "\n";
  }
  if (!context.unmatched_entries.empty()) {
    md << "### Expected-failures entries that match no case\n\nStale: remove them from the list.\n\n"
          "| list | line | entry |\n|---|---:|---|\n";
    for (const UnmatchedEntry& entry : context.unmatched_entries)
      md << "| " << m(entry.list) << " | " << entry.line << " | `" << m(entry.pattern) << "` |\n";
    md << "\n";
  }
  if (context.totals.expected_failures) {
    md << "<details><summary>Expected failures (" << context.totals.expected_failures
       << ")</summary>\n\n| case | op | status | reason |\n|---|---|---|---|\n";
    for (const CaseResult& result : context.results)
      if (result.expected_failure())
        md << "| `" << m(result.case_id) << "` | " << m(to_string(result.op)) << " | "
           << m(to_string(result.status)) << " | " << m(result.listed_reason) << " |\n";
    md << "\n</details>\n";
  }
  return md.str();
}

}  // namespace kiln::conformance
