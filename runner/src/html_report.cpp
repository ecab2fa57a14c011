#include "kiln/conformance/html_report.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/hex.hpp"

namespace kiln::conformance {

// runner/html/, built in by runner/CMakeLists.txt.
std::string_view html_asset_page_css();
std::string_view html_asset_common_js();
std::string_view html_asset_run_js();
std::string_view html_asset_matrix_js();

namespace {

using protocol::Json;

// A report file larger than this is refused: a run of every case with every
// message at its bound stays far below it.
constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{512} << 20;

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

// What a matrix row is keyed and sorted by.
using RowKey = std::tuple<std::string, std::string, std::string, std::string>;  // profile, topic, case, op

// Totals counted from a report's results, by verdict, as run counts them.
struct CountedTotals {
  std::uint64_t passed = 0, failed = 0, skipped = 0, expected_failures = 0, recommended_failures = 0;
};

// The status a verdict can stand on: a verdict that its status contradicts
// ("pass" on a FAIL) is an edited or broken report.
bool verdict_fits_status(std::string_view verdict, std::string_view status) {
  const bool failing = status == "FAIL" || status == "CRASH" || status == "TIMEOUT" || status == "PROTOCOL";
  if (verdict == "pass" || verdict == "stale-listing") return status == "PASS";
  if (verdict == "skip") return status == "SKIP";
  if (verdict == "unjudged") return status == "ERROR";
  if (verdict == "expected-failure" || verdict == "unexpected-failure" || verdict == "changed-failure" ||
      verdict == "recommended-failure")
    return failing;
  return false;
}

// What a report's results say of it, against what it says of itself: its
// totals, each profile's counts and verdict, and its certificate must follow
// from its results, and no (case, op) may be listed twice. A reason when they
// do not, so that no page shows a certificate its results deny.
std::optional<std::string> contradiction(const Json& report) {
  const Json& results = report["results"];
  CountedTotals all;
  std::map<std::string, CountedTotals> by_profile;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Json& item = results[i];
    const std::string id = item["case"].get<std::string>(), op = item["op"].get<std::string>();
    const std::string verdict = item["verdict"].get<std::string>(), status = item["status"].get<std::string>();
    if (!seen.emplace(id, op).second) return "result " + std::to_string(i) + " repeats " + id + " " + op;
    if (!verdict_fits_status(verdict, status))
      return "result " + std::to_string(i) + " (" + id + " " + op + ") has verdict \"" + verdict +
             "\" on status \"" + status + "\"";
    CountedTotals& here = by_profile[string_member(item, "profile", "kiln-v2")];
    for (CountedTotals* totals : {&all, &here}) {
      if (verdict == "pass") ++totals->passed;
      else if (verdict == "skip") ++totals->skipped;
      else if (verdict == "expected-failure") ++totals->expected_failures;
      else if (verdict == "recommended-failure") ++totals->recommended_failures;
      else ++totals->failed;
    }
  }
  const auto count = [](const Json& object, const char* name) -> std::optional<std::uint64_t> {
    const Json* value = member(object, name, Json::value_t::number_unsigned);
    return value ? std::optional<std::uint64_t>(value->get<std::uint64_t>()) : std::nullopt;
  };
  // A run adds one failure for an expected-failures list with entries that match nothing.
  const auto differs = [&](const Json& said, const CountedTotals& counted, bool list_failure_allowed) {
    const auto failed = count(said, "failed");
    return count(said, "passed").value_or(counted.passed) != counted.passed ||
           count(said, "skipped").value_or(counted.skipped) != counted.skipped ||
           count(said, "expected_failures").value_or(counted.expected_failures) != counted.expected_failures ||
           count(said, "recommended_failures").value_or(counted.recommended_failures) != counted.recommended_failures ||
           (failed && (*failed < counted.failed || *failed > counted.failed + (list_failure_allowed ? 1 : 0)));
  };
  const std::string counted_text = std::to_string(all.passed) + " passed, " + std::to_string(all.failed) +
                                   " failed, " + std::to_string(all.skipped) + " skipped, " +
                                   std::to_string(all.expected_failures) + " expected failures";
  if (const Json* said = member(report, "totals", Json::value_t::object)) {
    if (differs(*said, all, true)) return "its totals disagree with its results (" + counted_text + ")";
    if (const auto listed = count(*said, "results"); listed && *listed != results.size())
      return "its totals count " + std::to_string(*listed) + " results, it lists " + std::to_string(results.size());
  }
  if (const Json* profiles = member(report, "profiles", Json::value_t::array)) {
    for (const Json& profile : *profiles) {
      if (!profile.is_object()) return "a profile's verdict is not an object";
      const std::string name = string_member(profile, "profile");
      const CountedTotals counted = by_profile.count(name) ? by_profile[name] : CountedTotals{};
      if (differs(profile, counted, false)) return "profile " + name + "'s counts disagree with its results";
      if (string_member(profile, "verdict") == "conformant" && (counted.failed > 0 || counted.expected_failures > 0))
        return "profile " + name + " is called conformant, and " + std::to_string(counted.failed) + " of its results fail";
    }
  }
  const Json* totals = member(report, "totals", Json::value_t::object);
  const std::uint64_t said_failed = totals ? count(*totals, "failed").value_or(0) : 0;
  const std::string certificate = string_member(report, "certificate");
  if (certificate.starts_with("CONFORMANT") && (all.failed > 0 || all.expected_failures > 0 || said_failed > 0))
    return "its certificate says CONFORMANT, and its results hold " + counted_text;
  return std::nullopt;
}

}  // namespace

std::string script_safe_json(const Json& data) {
  // ensure_ascii writes every non-ASCII character (U+2028 and U+2029 among
  // them) as \u escapes; invalid UTF-8, which JSON cannot carry, is replaced.
  const std::string text = data.dump(-1, ' ', true, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  // Outside strings JSON has none of these characters, so escaping them
  // everywhere changes no value.
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
  const std::string script = std::string(html_asset_common_js()) + "\n" +
                             std::string(kind == "matrix" ? html_asset_matrix_js() : html_asset_run_js());
  const std::string style(html_asset_page_css());
  std::string page;
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src " +
          csp_hash(style) + "; script-src " + csp_hash(script) +
          "; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += kind == "matrix" ? "<title>Kiln conformance matrix</title>\n" : "<title>Kiln conformance</title>\n";
  page += "<style>" + style + "</style>\n</head>\n<body>\n<div id=\"root\"></div>\n";
  page += "<script type=\"application/json\" id=\"kiln-data\">" + script_safe_json(data) + "</script>\n";
  page += "<noscript>This report is drawn by its script; the data is in the kiln-data element.</noscript>\n";
  page += "<script>" + script + "</script>\n</body>\n</html>\n";
  return page;
}

bool load_run_report(const std::filesystem::path& file, LoadedReport& loaded, std::string& error) {
  const std::string name = file.string();
  std::error_code code;
  const auto size = std::filesystem::file_size(file, code);
  if (code) {
    error = name + ": cannot read: " + code.message();
    return false;
  }
  if (size > kMaxReportBytes) {
    error = name + ": " + std::to_string(size) + " bytes, more than a run report may have (" +
            std::to_string(kMaxReportBytes) + ")";
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    error = name + ": cannot read";
    return false;
  }
  // The protocol's parser: UTF-8 checked, nesting and object width bounded.
  auto parsed = protocol::parse_line(text);
  if (!parsed) {
    error = name + ": not JSON: " + parsed.error();
    return false;
  }
  Json report = std::move(parsed).value();
  const auto refuse = [&](const std::string& why) {
    error = name + ": not a kiln-conformance run report (" + why + "); write one with `run --json FILE`";
    return false;
  };
  if (!report.is_object() || string_member(report, "report") != "kiln-conformance-run")
    return refuse("its \"report\" is not \"kiln-conformance-run\"");
  const Json* version = member(report, "report_version", Json::value_t::number_unsigned);
  // Version 1 had one top-level profile (kiln-v2) and no per-profile verdicts,
  // version 2 no generated phase; their results read the same.
  if (!version || *version < 1 || *version > kJsonReportVersion)
    return refuse("report_version is not 1 to " + std::to_string(kJsonReportVersion));
  if (!member(report, "case_set_sha256", Json::value_t::string)) return refuse("no case_set_sha256");
  const Json* results = member(report, "results", Json::value_t::array);
  if (!results) return refuse("no results array");
  for (std::size_t i = 0; i < results->size(); ++i) {
    const Json& item = (*results)[i];
    if (!item.is_object()) return refuse("result " + std::to_string(i) + " is not an object");
    for (const char* field : {"case", "op", "status", "verdict"})
      if (!member(item, field, Json::value_t::string))
        return refuse("result " + std::to_string(i) + " has no string \"" + field + "\"");
  }
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
  if (const auto why = contradiction(report)) {
    error = name + ": a run report that contradicts itself: " + *why +
            "; it was edited or is broken, and is not shown";
    return false;
  }
  loaded.file = file;
  loaded.report = std::move(report);
  return true;
}

bool matrix_data(const std::vector<LoadedReport>& reports, bool allow_different_case_sets, Json& data,
                 std::string& error) {
  if (reports.empty()) {
    error = "no reports to merge";
    return false;
  }
  std::vector<std::string> case_sets;
  for (const LoadedReport& loaded : reports) {
    const std::string sha = string_member(loaded.report, "case_set_sha256");
    if (std::find(case_sets.begin(), case_sets.end(), sha) == case_sets.end()) case_sets.push_back(sha);
    if (case_sets.size() > 1 && !allow_different_case_sets) {
      const std::string first = string_member(reports.front().report, "case_set_sha256");
      error = reports.front().file.string() + " (case set " + first.substr(0, 12) + ") and " +
              loaded.file.string() + " (case set " + sha.substr(0, 12) +
              ") are reports of different case sets, so their results do not compare case for case; "
              "run both on one case set, or pass --allow-different-case-sets";
      return false;
    }
  }
  // Labels: the adapter's name and version, the file's stem when two agree.
  std::vector<std::string> labels;
  std::map<std::string, int> uses;
  for (const LoadedReport& loaded : reports) {
    const Json* adapter = member(loaded.report, "adapter", Json::value_t::object);
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

  Json implementations = Json::array();
  std::map<RowKey, Json> rows;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Json& report = reports[i].report;
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
    implementations.push_back(std::move(impl));

    const std::string report_profile = string_member(report, "profile", "kiln-v2");
    for (const Json& item : report["results"]) {
      const RowKey key{string_member(item, "profile", report_profile), string_member(item, "topic", "(top)"),
                       item["case"].get<std::string>(), item["op"].get<std::string>()};
      auto [it, fresh] = rows.try_emplace(key);
      Json& row = it->second;
      if (fresh) {
        row["profile"] = std::get<0>(key);
        row["topic"] = std::get<1>(key);
        row["case"] = std::get<2>(key);
        row["op"] = std::get<3>(key);
        row["level"] = string_member(item, "level", "required");
        const Json* rules = member(item, "rules", Json::value_t::array);
        row["rules"] = rules ? *rules : Json::array();
        row["cells"] = Json::array();
      }
      Json& cells = row["cells"];
      while (cells.size() < i) cells.push_back(nullptr);
      if (cells.size() > i) continue;  // a report that names one (case, op) twice: the first counts
      // A passing cell needs only its status; any other keeps all it says.
      Json cell;
      if (item["verdict"] == "pass") {
        cell = {{"status", item["status"]}, {"verdict", item["verdict"]}};
      } else {
        cell = item;
        for (const char* shared : {"case", "op", "topic", "profile", "rules", "level"}) cell.erase(shared);
      }
      cells.push_back(std::move(cell));
    }
  }
  data = Json::object();
  data["implementations"] = std::move(implementations);
  data["case_sets"] = case_sets;
  Json ordered = Json::array();
  std::size_t disagreements = 0;
  for (auto& [key, row] : rows) {
    Json& cells = row["cells"];
    while (cells.size() < reports.size()) cells.push_back(nullptr);
    // A generated check missing from a report is one its phase did not run (none,
    // or one stopped early), not a different answer: only the checks that ran compare.
    const bool generated = std::get<1>(key) == kGeneratedTopic;
    std::set<std::string> statuses;
    for (const Json& cell : cells) {
      if (!cell.is_null()) statuses.insert(cell["status"].get<std::string>());
      else if (!generated) statuses.insert("");
    }
    row["disagree"] = statuses.size() > 1;
    disagreements += statuses.size() > 1;
    ordered.push_back(std::move(row));
  }
  data["rows"] = std::move(ordered);
  data["disagreements"] = disagreements;
  return true;
}

int report_matrix(const MatrixOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<LoadedReport> reports;
  std::string error;
  for (const auto& file : options.reports) {
    LoadedReport loaded;
    if (!load_run_report(file, loaded, error)) {
      err << "report: " << error << "\n";
      return kExitUsage;
    }
    reports.push_back(std::move(loaded));
  }
  Json data;
  if (!matrix_data(reports, options.allow_different_case_sets, data, error)) {
    err << "report: " << error << "\n";
    return kExitUsage;
  }
  if (!write_text_file(options.html, html_page("matrix", data), error)) {
    err << "report: " << error << "\n";
    return kExitUsage;
  }
  out << "report: wrote " << options.html.string() << ": " << reports.size() << " implementations, "
      << data["rows"].size() << " results each, " << data["disagreements"].get<std::size_t>()
      << " where they disagree\n";
  return kExitOk;
}

}  // namespace kiln::conformance
