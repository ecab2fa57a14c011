#include "kiln/conformance/html_report.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/hex.hpp"
#include "kiln/utf8.hpp"

namespace kiln::conformance {

// runner/reports/html/, built in by runner/CMakeLists.txt.
std::string_view html_asset_page_css();
std::string_view html_asset_common_js();
std::string_view html_asset_run_js();
std::string_view html_asset_matrix_js();

namespace {

using protocol::Json;

// A report file larger than this is refused: a run of every case with every
// message at its bound stays far below it.
constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{512} << 20;
// The most JSON values (arrays, objects and scalars) a report may hold at once
// while it is read: in one result (a run writes a few dozen, a byte
// difference's window fields included), and in all its other fields together
// (totals, profiles, and the generated phases with a handful per finding).
// Beyond them a hostile file could make the reader hold many times its size.
constexpr std::size_t kMaxResultValues = std::size_t{1} << 16;
constexpr std::size_t kMaxFieldValues = std::size_t{1} << 20;

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t chunk = (std::uint32_t{bytes[i]} << 16) |
                                (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                                (i + 2 < bytes.size() ? std::uint32_t{bytes[i + 2]} : 0);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

// A CSP source that admits exactly this inline text.
std::string csp_hash(std::string_view text) {
  Sha256 sha;
  sha.update(text);
  return "'sha256-" + base64(from_hex(sha.hex_digest()).value_or(std::vector<std::uint8_t>{})) + "'";
}

const Json* member(const Json& object, const char* name, Json::value_t type) {
  const auto it = object.find(name);
  if (it == object.end()) return nullptr;
  // Integers of either sign count as numbers where a number is asked for.
  if (type == Json::value_t::number_unsigned ? !it->is_number() : it->type() != type) return nullptr;
  return &*it;
}

std::string string_member(const Json& object, const char* name, std::string fallback = {}) {
  const Json* value = member(object, name, Json::value_t::string);
  return value ? value->get<std::string>() : fallback;
}

// Totals counted from a report's results, by verdict, as run counts them.
struct CountedTotals {
  std::uint64_t passed = 0, failed = 0, skipped = 0, expected_failures = 0, stale_expected_failures = 0;
};

// Whether a run writes this verdict (a report before version 4 may hold a
// "recommended-failure", of a level since removed).
bool known_verdict(std::string_view verdict) {
  for (std::string_view known : {"pass", "skip", "expected-failure", "unexpected-failure", "changed-failure",
                                 "stale-listing", "unjudged"})
    if (verdict == known) return true;
  return false;
}

// The status a verdict can stand on: a verdict that its status contradicts
// ("pass" on a FAIL) is an edited or broken report.
bool verdict_fits_status(std::string_view verdict, std::string_view status) {
  const bool failing = status == "FAIL" || status == "CRASH" || status == "TIMEOUT" || status == "PROTOCOL";
  if (verdict == "pass" || verdict == "stale-listing") return status == "PASS";
  if (verdict == "skip") return status == "SKIP";
  if (verdict == "unjudged") return status == "ERROR";
  return failing;
}

// What a report's results say of it, against what it says of itself: its
// totals, each profile's counts and verdict, and its certificate must follow
// from its results (and its totals' stale expected failures from its unmatched
// list entries too), and no (case, op) may be listed twice. A reason when they
// do not, so that no page shows a certificate its results deny.
std::optional<std::string> contradiction(const Json& report, std::uint64_t version,
                                         const std::deque<LoadedResult>& results) {
  CountedTotals all;
  std::map<std::string, CountedTotals> by_profile;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const LoadedResult& item = results[i];
    const std::string &id = item.case_id, &op = item.op, &verdict = item.verdict, &status = item.status;
    if (!seen.emplace(id, op).second) return "result " + std::to_string(i) + " repeats " + id + " " + op;
    if (!known_verdict(verdict))
      return "result " + std::to_string(i) + " (" + id + " " + op + ") has verdict \"" + verdict +
             "\", which this runner does not know";
    if (!verdict_fits_status(verdict, status))
      return "result " + std::to_string(i) + " (" + id + " " + op + ") has verdict \"" + verdict +
             "\" on status \"" + status + "\"";
    CountedTotals& here = by_profile[item.profile.value_or(std::string(default_profile_name()))];
    for (CountedTotals* totals : {&all, &here}) {
      if (verdict == "pass") ++totals->passed;
      else if (verdict == "skip") ++totals->skipped;
      else if (verdict == "expected-failure") ++totals->expected_failures;
      else if (verdict == "stale-listing") ++totals->stale_expected_failures;
      else ++totals->failed;
    }
  }
  const auto count = [](const Json& object, const char* name) -> std::optional<std::uint64_t> {
    const Json* value = member(object, name, Json::value_t::number_unsigned);
    return value ? std::optional<std::uint64_t>(value->get<std::uint64_t>()) : std::nullopt;
  };
  const Json* unmatched_entries = member(report, "unmatched_expected_failures", Json::value_t::array);
  const std::uint64_t unmatched = unmatched_entries ? unmatched_entries->size() : 0;
  // Since version 4 a stale expected failure is counted apart from "failed" (a
  // missing count is 0), and the totals count each unmatched list entry as one.
  // Before, "failed" held the stale listings, and one more failure for any
  // entries that matched nothing.
  const bool stale_apart = version >= 4;
  const auto differs = [&](const Json& said, const CountedTotals& counted, std::uint64_t unmatched_here,
                           bool list_failure_allowed) {
    if (count(said, "passed").value_or(counted.passed) != counted.passed ||
        count(said, "skipped").value_or(counted.skipped) != counted.skipped ||
        count(said, "expected_failures").value_or(counted.expected_failures) != counted.expected_failures)
      return true;
    const auto failed = count(said, "failed");
    if (stale_apart)
      return count(said, "stale_expected_failures").value_or(0) != counted.stale_expected_failures + unmatched_here ||
             (failed && *failed != counted.failed);
    const std::uint64_t failing = counted.failed + counted.stale_expected_failures;
    return failed && (*failed < failing || *failed > failing + (list_failure_allowed ? 1 : 0));
  };
  const std::uint64_t all_stale = all.stale_expected_failures + (stale_apart ? unmatched : 0);
  const std::string counted_text =
      std::to_string(all.passed) + " passed, " + std::to_string(all.failed) + " failed, " +
      std::to_string(all.skipped) + " skipped, " + std::to_string(all.expected_failures) + " expected failures" +
      (all_stale > 0 ? ", " + std::to_string(all_stale) + " stale expected failures" : "");
  if (const Json* said = member(report, "totals", Json::value_t::object)) {
    if (differs(*said, all, unmatched, true)) return "its totals disagree with its results (" + counted_text + ")";
    if (const auto listed = count(*said, "results"); listed && *listed != results.size())
      return "its totals count " + std::to_string(*listed) + " results, it lists " + std::to_string(results.size());
  }
  if (const Json* profiles = member(report, "profiles", Json::value_t::array)) {
    for (const Json& profile : *profiles) {
      if (!profile.is_object()) return "a profile's verdict is not an object";
      const std::string name = string_member(profile, "profile");
      const CountedTotals counted = by_profile.count(name) ? by_profile[name] : CountedTotals{};
      if (differs(profile, counted, 0, false)) return "profile " + name + "'s counts disagree with its results";
      const std::uint64_t failing = counted.failed + counted.expected_failures + counted.stale_expected_failures;
      if (string_member(profile, "verdict") == "conformant" && failing > 0)
        return "profile " + name + " is called conformant, and " + std::to_string(failing) + " of its results fail";
    }
  }
  const Json* totals = member(report, "totals", Json::value_t::object);
  const std::uint64_t said_failing =
      totals ? count(*totals, "failed").value_or(0) + count(*totals, "stale_expected_failures").value_or(0) : 0;
  const std::string certificate = string_member(report, "certificate");
  if (certificate.starts_with("CONFORMANT") &&
      (all.failed > 0 || all.expected_failures > 0 || all_stale > 0 || said_failing > 0))
    return "its certificate says CONFORMANT, and its results hold " + counted_text;
  return std::nullopt;
}

// The page around its data: everything before the data's text and after it.
struct PageFrame {
  std::string head, tail;
};

PageFrame page_frame(std::string_view kind) {
  const std::string script = std::string(html_asset_common_js()) + "\n" +
                             std::string(kind == "matrix" ? html_asset_matrix_js() : html_asset_run_js());
  const std::string style(html_asset_page_css());
  PageFrame frame;
  frame.head += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  frame.head += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src " +
                csp_hash(style) + "; script-src " + csp_hash(script) +
                "; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'\">\n";
  frame.head += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  frame.head += kind == "matrix" ? "<title>Kiln conformance matrix</title>\n" : "<title>Kiln conformance</title>\n";
  frame.head += "<style>" + style + "</style>\n</head>\n<body>\n<div id=\"root\"></div>\n";
  // The profile of a result or a version 1 report that names none, for the script.
  frame.head += "<script type=\"application/json\" id=\"kiln-data\" data-default-profile=\"" +
                std::string(default_profile_name()) + "\">";
  frame.tail += "</script>\n";
  frame.tail += "<noscript>This report is drawn by its script; the data is in the kiln-data element.</noscript>\n";
  frame.tail += "<script>" + script + "</script>\n</body>\n</html>\n";
  return frame;
}

// A page written to a file with its data streamed by write_data, script-safe
// piece by piece; the error when a write fails.
Checked<void> write_page(std::string_view kind, const std::filesystem::path& file,
                         const std::function<bool(JsonObjectStream&)>& write_data) {
  TextFileWriter writer(file);
  const PageFrame frame = page_frame(kind);
  writer.write(frame.head);
  JsonObjectStream data([&](std::string_view text) { return writer.write(text); }, script_safe_json, false);
  write_data(data);
  writer.write(frame.tail);
  return writer.finish();
}

// A sink that gathers a stream's text: a matrix row, or the whole data for tests.
JsonObjectStream::Sink appending_to(std::string& text) {
  return [&text](std::string_view piece) {
    text += piece;
    return true;
  };
}

// What the parse callback refuses, after "FILE: "; it can stop a parse only by throwing.
struct Refusal {
  std::string message;
};

// Builds a LoadedReport while nlohmann parses: each item of "results" becomes
// a LoadedResult at its end and its Json is dropped, so that one result's Json
// exists at a time; the other top-level fields are kept as Json. Nesting and
// width are bounded by parse_line's scan before the parse; the callback bounds
// the values kept at once with kMaxResultValues and kMaxFieldValues.
class ReportReader {
 public:
  explicit ReportReader(std::deque<LoadedResult>& results) : results_(results) {}

  bool see(int signed_depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    const auto depth = static_cast<std::size_t>(signed_depth);
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (depth == 1 && event == Event::array_start && at_results_key_) {
          // A repeated key replaces the value before it, as in the parsed Json.
          in_results_ = true;
          results_.clear();
          results_seen_ = 0;
          result_problem_.reset();
        }
        return keep(depth, event == Event::object_start);
      case Event::key:
        if (depth == 1) at_results_key_ = parsed == "results";
        return true;
      case Event::value:
        return keep(depth, false);
      case Event::object_end:
        if (in_results_ && depth == 2) {
          take_result(parsed);
          return false;
        }
        return true;
      case Event::array_end:
        if (in_results_ && depth == 1) in_results_ = false;
        return true;
    }
    return true;
  }

  // The first result that is not an object or lacks a field.
  const std::optional<std::string>& result_problem() const { return result_problem_; }

 private:
  // Whether to build a value that starts at depth (an object, an array or a
  // scalar), counted against its bound.
  bool keep(std::size_t depth, bool object) {
    if (!in_results_ || depth < 2) {
      if (++field_values_ > kMaxFieldValues)
        throw Refusal{"its fields besides the results hold more than " + std::to_string(kMaxFieldValues) +
                      " JSON values, more than a run report's"};
      return true;
    }
    if (depth == 2) {
      const std::size_t index = results_seen_++;
      // After a bad result the rest of the text needs only to be JSON.
      if (result_problem_) return false;
      if (!object) {
        result_problem_ = "result " + std::to_string(index) + " is not an object";
        return false;
      }
      result_values_ = 0;
    } else if (result_problem_) {
      return false;
    }
    if (++result_values_ > kMaxResultValues)
      throw Refusal{"result " + std::to_string(results_seen_ - 1) + " holds more than " +
                    std::to_string(kMaxResultValues) + " JSON values, more than a run report's result"};
    return true;
  }

  void take_result(Json& item) {
    const std::string which = "result " + std::to_string(results_seen_ - 1);
    for (const char* field : {"case", "op", "status", "verdict"})
      if (!member(item, field, Json::value_t::string)) {
        result_problem_ = which + " has no string \"" + field + "\"";
        return;
      }
    LoadedResult result;
    result.case_id = item["case"].get<std::string>();
    result.op = item["op"].get<std::string>();
    result.status = item["status"].get<std::string>();
    result.verdict = item["verdict"].get<std::string>();
    if (const Json* profile = member(item, "profile", Json::value_t::string))
      result.profile = profile->get<std::string>();
    result.topic = string_member(item, "topic", result.topic);
    if (const Json* rules = member(item, "rules", Json::value_t::array)) result.rules = script_safe_json(*rules);
    // A passing cell needs only its status; any other keeps all it says but the
    // row's fields, and the "level" of a report before version 4, which was
    // always "required".
    if (result.verdict != "pass") {
      for (const char* shared : {"case", "op", "topic", "profile", "rules", "level"}) item.erase(shared);
      result.cell = script_safe_json(item);
    }
    results_.push_back(std::move(result));
  }

  std::deque<LoadedResult>& results_;
  bool at_results_key_ = false;  // the top-level member being read is "results"
  bool in_results_ = false;
  std::size_t results_seen_ = 0;  // items of "results" begun, objects or not
  std::size_t result_values_ = 0, field_values_ = 0;
  std::optional<std::string> result_problem_;
};

// A report's text parsed through reader, with protocol::parse_line's checks
// (UTF-8, control bytes, nesting and object width, scanned before anything is
// built). The problem, after "FILE: ", or nullopt.
std::optional<std::string> parse_report_text(std::string_view text, ReportReader& reader, Json& root) {
  try {
    auto parsed = protocol::parse_line(
        text, [&](int depth, Json::parse_event_t event, Json& value) { return reader.see(depth, event, value); });
    if (!parsed) return "not JSON: " + parsed.error();
    root = std::move(parsed).value();
  } catch (const Refusal& refusal) {
    return refusal.message;
  }
  return std::nullopt;
}

}  // namespace

std::string script_safe_json(const Json& data) {
  // ensure_ascii writes every non-ASCII character (U+2028 and U+2029 among
  // them) as \u escapes; invalid UTF-8, which JSON cannot carry, is replaced.
  const std::string text = data.dump(-1, ' ', true, Json::error_handler_t::replace);
  // Outside strings JSON has none of these characters, so escaping them
  // everywhere changes no value.
  const auto markup = [](char c) { return c == '<' || c == '>' || c == '&'; };
  std::string out;
  // Exactly: a loaded report keeps each failing cell's text.
  out.reserve(text.size() + 5 * static_cast<std::size_t>(std::count_if(text.begin(), text.end(), markup)));
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_page(std::string_view kind, const Json& data) {
  const PageFrame frame = page_frame(kind);
  return frame.head + script_safe_json(data) + frame.tail;
}

Checked<void> write_run_page(const ReportContext& context, const std::filesystem::path& file) {
  return write_page("run", file, [&](JsonObjectStream& data) { return stream_json_report(context, data); });
}

Checked<LoadedReport> load_run_report(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code code;
  const auto size = std::filesystem::file_size(file, code);
  if (code) return Failure(name + ": cannot read: " + code.message());
  if (size > kMaxReportBytes)
    return Failure(name + ": " + std::to_string(size) + " bytes, more than a run report may have (" +
                   std::to_string(kMaxReportBytes) + ")");
  const Checked<std::string> text = read_regular_file(file, kMaxReportBytes);
  if (!text) return Failure(name + ": " + text.error());
  return read_run_report(text.value(), file);
}

Checked<LoadedReport> read_run_report(std::string_view text, const std::filesystem::path& file) {
  const std::string name = file.string();
  if (text.size() > kMaxReportBytes)
    return Failure(name + ": " + std::to_string(text.size()) + " bytes, more than a run report may have (" +
                   std::to_string(kMaxReportBytes) + ")");
  std::deque<LoadedResult> results;
  ReportReader reader(results);
  Json report;
  if (const auto problem = parse_report_text(text, reader, report)) return Failure(name + ": " + *problem);
  const auto refuse = [&](const std::string& why) {
    return Failure(name + ": not a kiln-conformance run report (" + why + "); write one with `run --json FILE`");
  };
  if (!report.is_object() || string_member(report, "report") != "kiln-conformance-run")
    return refuse("its \"report\" is not \"kiln-conformance-run\"");
  const Json* version = member(report, "report_version", Json::value_t::number_unsigned);
  // Version 1 had one top-level profile (the default) and no per-profile verdicts,
  // version 2 no generated phase, version 3 a "level" that was always "required";
  // their results read the same.
  if (!version || *version < 1 || *version > kJsonReportVersion)
    return refuse("report_version is not 1 to " + std::to_string(kJsonReportVersion));
  if (!member(report, "case_set_sha256", Json::value_t::string)) return refuse("no case_set_sha256");
  if (!member(report, "results", Json::value_t::array)) return refuse("no results array");
  if (reader.result_problem()) return refuse(*reader.result_problem());
  report.erase("results");  // left empty: each item became a LoadedResult
  // The generated phases, which the matrix counts (absent before version 3).
  if (report.contains("generated")) {
    const Json* phases = member(report, "generated", Json::value_t::array);
    if (!phases) return refuse("\"generated\" is not an array");
    for (std::size_t i = 0; i < phases->size(); ++i) {
      const Json& phase = (*phases)[i];
      const std::string which = "generated phase " + std::to_string(i);
      if (!phase.is_object() || !member(phase, "profile", Json::value_t::string))
        return refuse(which + " has no string \"profile\"");
      for (const char* field : {"seed", "planned", "ran", "failed"})
        if (!member(phase, field, Json::value_t::number_unsigned))
          return refuse(which + " has no number \"" + field + "\"");
      for (const char* list : {"findings", "not_reproduced"}) {
        if (!phase.contains(list)) continue;
        const Json* items = member(phase, list, Json::value_t::array);
        if (!items || !std::all_of(items->begin(), items->end(), [](const Json& j) { return j.is_object(); }))
          return refuse(which + "'s \"" + list + "\" is not an array of objects");
      }
    }
  }
  // The list entries that matched no case, which the page lists (absent before version 4).
  if (report.contains("unmatched_expected_failures")) {
    const Json* entries = member(report, "unmatched_expected_failures", Json::value_t::array);
    if (!entries) return refuse("\"unmatched_expected_failures\" is not an array");
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const Json& entry = (*entries)[i];
      if (!entry.is_object() || !member(entry, "pattern", Json::value_t::string) ||
          !member(entry, "line", Json::value_t::number_unsigned))
        return refuse("unmatched expected failure " + std::to_string(i) +
                      " has no string \"pattern\" and number \"line\"");
    }
  }
  if (const auto why = contradiction(report, version->get<std::uint64_t>(), results))
    return Failure(name + ": a run report that contradicts itself: " + *why +
                   "; it was edited or is broken, and is not shown");
  LoadedReport loaded;
  loaded.file = file;
  loaded.fields = std::move(report);
  loaded.results = std::move(results);
  return loaded;
}

Checked<void> Matrix::plan(const std::vector<LoadedReport>& reports, bool allow_different_case_sets) {
  if (reports.empty()) return Failure("no reports to merge");
  std::vector<std::string> case_sets;
  for (const LoadedReport& loaded : reports) {
    const std::string sha = string_member(loaded.fields, "case_set_sha256");
    if (std::find(case_sets.begin(), case_sets.end(), sha) == case_sets.end()) case_sets.push_back(sha);
    if (case_sets.size() > 1 && !allow_different_case_sets) {
      const std::string first = string_member(reports.front().fields, "case_set_sha256");
      return Failure(reports.front().file.string() + " (case set " + first.substr(0, 12) + ") and " +
                     loaded.file.string() + " (case set " + sha.substr(0, 12) +
                     ") are reports of different case sets, so their results do not compare case for case; "
                     "run both on one case set, or pass --allow-different-case-sets");
    }
  }
  // Labels: the adapter's name and version, the file's stem when two agree.
  std::vector<std::string> labels;
  std::map<std::string, int> uses;
  for (const LoadedReport& loaded : reports) {
    const Json* adapter = member(loaded.fields, "adapter", Json::value_t::object);
    std::string label = adapter ? string_member(*adapter, "name") : std::string();
    if (label.empty()) label = adapter ? string_member(*adapter, "command", "unknown") : "unknown";
    else if (adapter) label += " " + string_member(*adapter, "version");
    labels.push_back(label);
    ++uses[label];
  }
  std::set<std::string> taken;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::string label = uses[labels[i]] > 1 ? reports[i].file.stem().string() : labels[i];
    for (int n = 2; taken.count(label); ++n) label = labels[i] + " #" + std::to_string(n);
    taken.insert(label);
    labels[i] = label;
  }

  reports_ = &reports;
  implementations_ = Json::array();
  report_profiles_.clear();
  cells_.clear();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Json& report = reports[i].fields;
    const Json* adapter = member(report, "adapter", Json::value_t::object);
    Json impl;
    impl["label"] = labels[i];
    impl["file"] = reports[i].file.filename().string();
    impl["name"] = adapter ? string_member(*adapter, "name") : "";
    impl["version"] = adapter ? string_member(*adapter, "version") : "";
    impl["command"] = adapter ? string_member(*adapter, "command") : "";
    impl["certificate"] = string_member(report, "certificate");
    impl["case_set_sha256"] = string_member(report, "case_set_sha256");
    impl["suite_version"] = string_member(report, "suite_version");
    const Json* totals = member(report, "totals", Json::value_t::object);
    impl["totals"] = totals ? *totals : Json::object();
    // null: a report older than the generated phase, which cannot say whether one ran.
    const Json* generated = member(report, "generated", Json::value_t::array);
    impl["generated"] = generated ? *generated : Json(nullptr);
    implementations_.push_back(std::move(impl));
    report_profiles_.push_back(string_member(report, "profile", std::string(default_profile_name())));
    for (std::size_t j = 0; j < reports[i].results.size(); ++j)
      cells_.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
  }
  case_sets_ = case_sets;

  // One row per (profile, topic, case, op), sorted; within it the cells by
  // report, and a report's first result for the row first.
  const auto row_key = [&](CellRef ref) {
    const LoadedResult& item = result(ref);
    return std::tie(profile(ref), item.topic, item.case_id, item.op);
  };
  std::sort(cells_.begin(), cells_.end(), [&](CellRef a, CellRef b) {
    return std::tuple_cat(row_key(a), std::tie(a.report, a.result)) <
           std::tuple_cat(row_key(b), std::tie(b.report, b.result));
  });
  row_starts_.clear();
  row_disagrees_.clear();
  disagreements_ = 0;
  for (std::size_t at = 0; at < cells_.size();) {
    std::size_t end = at + 1;
    while (end < cells_.size() && row_key(cells_[end]) == row_key(cells_[at])) ++end;
    // A generated check missing from a report is one its phase did not run
    // (none, or one stopped early), not a different answer: only the checks
    // that ran compare.
    const bool generated = result(cells_[at]).topic == kGeneratedTopic;
    std::set<std::string_view> statuses;
    for (const LoadedResult* cell : row_cells(at, end)) {
      if (cell) statuses.insert(cell->status);
      else if (!generated) statuses.insert("");
    }
    row_starts_.push_back(at);
    row_disagrees_.push_back(statuses.size() > 1);
    disagreements_ += statuses.size() > 1;
    at = end;
  }
  return {};
}

std::vector<const LoadedResult*> Matrix::row_cells(std::size_t start, std::size_t end) const {
  std::vector<const LoadedResult*> row(reports_->size(), nullptr);
  // Sorted by report, then by place: a report that names one (case, op) twice
  // gives its first.
  for (std::size_t at = end; at-- > start;) row[cells_[at].report] = &result(cells_[at]);
  return row;
}

const std::string& Matrix::profile(CellRef ref) const {
  const LoadedResult& item = result(ref);
  return item.profile ? *item.profile : report_profiles_[ref.report];
}

std::string Matrix::row_text(std::size_t row) const {
  const std::size_t start = row_starts_[row];
  const std::size_t end = row + 1 < row_starts_.size() ? row_starts_[row + 1] : cells_.size();
  const LoadedResult& first = result(cells_[start]);
  std::string text;
  JsonObjectStream out(appending_to(text), script_safe_json, false);
  out.member("profile", profile(cells_[start]));
  out.member("topic", first.topic);
  out.member("case", first.case_id);
  out.member("op", first.op);
  out.encoded_member("rules", first.rules);
  out.open_array("cells");
  for (const LoadedResult* cell : row_cells(start, end)) {
    if (!cell) out.encoded_item("null");  // this report lacks the row
    else if (cell->verdict == "pass") out.item({{"status", cell->status}, {"verdict", cell->verdict}});
    else out.encoded_item(cell->cell);
  }
  out.close_array();
  out.member("disagree", static_cast<bool>(row_disagrees_[row]));
  out.close();
  return text;
}

bool Matrix::write(JsonObjectStream& data) const {
  if (!data.member("implementations", implementations_) || !data.member("case_sets", case_sets_) ||
      !data.open_array("rows"))
    return false;
  for (std::size_t row = 0; row < rows(); ++row)
    if (!data.encoded_item(row_text(row))) return false;
  return data.close_array() && data.member("disagreements", disagreements_) && data.close();
}

Checked<Json> matrix_data(const std::vector<LoadedReport>& reports, bool allow_different_case_sets) {
  Matrix matrix;
  if (auto planned = matrix.plan(reports, allow_different_case_sets); !planned)
    return Failure(std::move(planned).error());
  std::string text;
  JsonObjectStream out(appending_to(text), script_safe_json, false);
  matrix.write(out);
  return Json::parse(text);
}

int report_matrix(const MatrixOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<LoadedReport> reports;
  for (const auto& file : options.reports) {
    auto loaded = load_run_report(file);
    if (!loaded) {
      err << "report: " << loaded.error() << "\n";
      return kExitUsage;
    }
    reports.push_back(std::move(loaded).value());
  }
  Matrix matrix;
  if (const auto planned = matrix.plan(reports, options.allow_different_case_sets); !planned) {
    err << "report: " << planned.error() << "\n";
    return kExitUsage;
  }
  if (const auto written =
          write_page("matrix", options.html, [&](JsonObjectStream& data) { return matrix.write(data); });
      !written) {
    err << "report: " << written.error() << "\n";
    return kExitUsage;
  }
  out << "report: wrote " << options.html.string() << ": " << reports.size() << " implementations, "
      << matrix.rows() << " results each, " << matrix.disagreements() << " where they disagree\n";
  return kExitOk;
}

}  // namespace kiln::conformance
