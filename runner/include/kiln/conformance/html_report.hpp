// The HTML reports: `run --html`, one run's JSON report as a page, and `report
// --html`, the matrix of several implementations' JSON reports. Each is one
// self-contained file (inline CSS and script, no network): the data is the JSON
// itself, embedded so that no text in it can close its element, and rendered by
// the script with textContent, so an adapter's text is shown and never runs.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/protocol.hpp"

namespace kiln::conformance {

struct ReportContext;
class JsonObjectStream;

// JSON that may sit inside a <script> element: ASCII only, and '<', '>', '&'
// (so "</script>" and "<!--") and U+2028/U+2029 written as \u escapes. The one
// escape of every page's data, whole or streamed piece by piece.
std::string script_safe_json(const protocol::Json& data);

// A whole page: kind "run" (data: a JSON report, json_report()) or "matrix"
// (data: matrix_data()). A Content-Security-Policy admits only the page's own
// style and script, by hash, and no connection.
std::string html_page(std::string_view kind, const protocol::Json& data);

// `run --html FILE`: the same page as html_page("run", json_report(context)),
// its data streamed a result at a time; the error (write_text_file's) when it
// cannot be written.
Checked<void> write_run_page(const ReportContext& context, const std::filesystem::path& file);

// One result of a run report, as the matrix keys, sorts and counts it.
struct LoadedResult {
  std::string case_id, op, status, verdict;
  std::optional<std::string> profile;  // absent (version 1) or not a string
  std::string topic = "(top)";
  std::string rules = "[]";  // its "rules" array, as script_safe_json gives it
  // Of a result that does not pass, its matrix cell (the result but the row's
  // fields) as script_safe_json gives it; empty for a pass, whose status and
  // verdict are its cell.
  std::string cell;
};

// A run report read from a file, with the name the matrix gives it: its
// top-level fields but "results" as JSON (small: totals, profiles, phases),
// and each result as the matrix uses it (a deque: growing it never holds two
// copies, nor room for twice the results).
struct LoadedReport {
  std::filesystem::path file;
  protocol::Json fields;
  std::deque<LoadedResult> results;
};

// Reads and checks a `run --json` report of any version up to
// kJsonReportVersion (bounded size, nesting, object width and values held at
// once; the fields the matrix reads, generated phases included; no
// contradiction between its results and what it says of them); the error, naming
// the file, when it is not one. The file's text is held once (safe_file.hpp's
// reader), each result's Json only while it is turned into a LoadedResult.
Checked<LoadedReport> load_run_report(const std::filesystem::path& file);
// The same checks on a report's text; `file` names it in errors and in the matrix.
Checked<LoadedReport> read_run_report(std::string_view text, const std::filesystem::path& file);

// The matrix's data: implementations (label, name, command, certificate,
// totals, and the report's generated phases: null for a report older than the
// phase), the case sets, and one row per (profile, topic, case, op) of any
// report, sorted, with a cell per implementation (null where a report lacks
// it) and `disagree` when the cells' statuses differ (a generated check missing
// from a report does not count: its phase did not run it). Planned over the
// loaded reports (which it refers to, so they must outlive it) and written
// row by row.
class Matrix {
 public:
  // The error when there is no report, or reports of different case sets are
  // given and not allowed (it says which).
  Checked<void> plan(const std::vector<LoadedReport>& reports, bool allow_different_case_sets);
  // The data as one JSON object, a row at a time; false when a write failed.
  bool write(JsonObjectStream& data) const;
  std::size_t rows() const { return row_starts_.size(); }
  std::size_t disagreements() const { return disagreements_; }

 private:
  struct CellRef {
    std::uint32_t report, result;
  };
  const LoadedResult& result(CellRef ref) const { return (*reports_)[ref.report].results[ref.result]; }
  const std::string& profile(CellRef ref) const;
  // Of the row cells_[start, end), each report's result, or nullptr where it has none.
  std::vector<const LoadedResult*> row_cells(std::size_t start, std::size_t end) const;
  std::string row_text(std::size_t row) const;

  const std::vector<LoadedReport>* reports_ = nullptr;
  protocol::Json implementations_, case_sets_;
  std::vector<std::string> report_profiles_;  // a version 1 report's one profile, else the default
  std::vector<CellRef> cells_;                // sorted by row, then report
  std::vector<std::size_t> row_starts_;       // each row's first cell in cells_
  std::vector<bool> row_disagrees_;
  std::size_t disagreements_ = 0;
};

// The matrix's data as one value, for tests: the page streams it instead.
Checked<protocol::Json> matrix_data(const std::vector<LoadedReport>& reports, bool allow_different_case_sets);

struct MatrixOptions {
  std::vector<std::filesystem::path> reports;
  std::filesystem::path html;
  bool allow_different_case_sets = false;
};

// `kiln-conformance report --html FILE REPORT.json...`: 0 written, 2 a report
// that cannot be read or used, or a page that cannot be written.
int report_matrix(const MatrixOptions& options, std::ostream& out, std::ostream& err);

}  // namespace kiln::conformance
