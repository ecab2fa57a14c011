// The HTML reports: `run --html`, one run's JSON report as a page, and `report
// --html`, the matrix of several implementations' JSON reports. Each is one
// self-contained file (inline CSS and script, no network): the data is the JSON
// itself, embedded so that no text in it can close its element, and rendered by
// the script with textContent, so an adapter's text is shown and never runs.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/protocol.hpp"

namespace kiln::conformance {

// JSON that may sit inside a <script> element: ASCII only, and '<', '>', '&'
// (so "</script>" and "<!--") and U+2028/U+2029 written as \u escapes.
std::string script_safe_json(const protocol::Json& data);

// A whole page: kind "run" (data: a JSON report, json_report()) or "matrix"
// (data: matrix_data()). A Content-Security-Policy admits only the page's own
// style and script, by hash, and no connection.
std::string html_page(std::string_view kind, const protocol::Json& data);

// A run report read from a file, with the name the matrix gives it.
struct LoadedReport {
  std::filesystem::path file;
  protocol::Json report;
};

// Reads and checks a `run --json` report of any version up to
// kJsonReportVersion (bounded size and nesting, the fields the matrix reads,
// generated phases included); false with error set when it is not one.
bool load_run_report(const std::filesystem::path& file, LoadedReport& loaded, std::string& error);

// The matrix's data: implementations (label, name, command, certificate,
// totals, and the report's generated phases: null for a report older than the
// phase), the case sets, and one row per (profile, topic, case, op) of any
// report, sorted, with a cell per implementation (null where a report lacks
// it) and `disagree` when the cells' statuses differ (a generated check missing
// from a report does not count: its phase did not run it). Reports of different
// case sets are refused (false, error says which) unless allowed.
bool matrix_data(const std::vector<LoadedReport>& reports, bool allow_different_case_sets,
                 protocol::Json& data, std::string& error);

struct MatrixOptions {
  std::vector<std::filesystem::path> reports;
  std::filesystem::path html;
  bool allow_different_case_sets = false;
};

// `kiln-conformance report --html FILE REPORT.json...`: 0 written, 2 a report
// that cannot be read or used, or a page that cannot be written.
int report_matrix(const MatrixOptions& options, std::ostream& out, std::ostream& err);

}  // namespace kiln::conformance
