// The run's reports: JSON (versioned schema), JUnit XML and Markdown. Text from
// outside (adapter hello, command, messages, stderr, folder names) may be any
// bytes; each format has one escape that every piece of text goes through, so
// the JSON is valid UTF-8, the XML well-formed and each Markdown row one row.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/run.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

// 2: "profiles", each profile's verdict; no top-level "profile" (each result has its own).
// 3: "generated", the generated phase of each profile (an empty array: none ran,
// where a version 2 report cannot tell), and "generated" on each of its results.
// 4: no "recommended_failures" count and no "level" on each result: every case
// is required (cases/README.md, level); "stale_expected_failures" in the totals
// and each profile's counts, no longer part of "failed", and
// "unmatched_expected_failures", the list's entries that match no case (each a
// stale expected failure of the totals).
inline constexpr int kJsonReportVersion = 4;

struct ReportContext {
  const RunOptions& options;
  std::optional<protocol::Hello> hello;
  std::string case_set_sha256;
  std::size_t case_count = 0;
  const std::vector<CaseResult>& results;
  Totals totals;
  std::string certificate;
  double seconds = 0;
  std::string started_at;  // UTC, ISO 8601
  std::vector<GeneratedPhase> generated{};  // the phase of each profile that had one
  std::vector<UnmatchedEntry> unmatched_entries{};  // of the expected-failures list
};

// A file written in place, piece by piece; every step is checked, and after the
// first failure nothing more is written. The error names the file and the
// reason: "file: cannot write: No space left on device".
class TextFileWriter {
 public:
  explicit TextFileWriter(const std::filesystem::path& file);
  TextFileWriter(const TextFileWriter&) = delete;
  TextFileWriter& operator=(const TextFileWriter&) = delete;
  ~TextFileWriter();

  // False once any step has failed.
  bool write(std::string_view text);
  // Flushes and closes: success when every step succeeded, else the first failure's error.
  Checked<void> finish();

 private:
  bool fail(const char* step, int code);

  std::filesystem::path file_;
  std::FILE* stream_ = nullptr;
  std::string error_;
};

// Writes text to a file, in place; the error ("file: cannot write: No space left
// on device") when opening, writing, flushing or closing fails.
Checked<void> write_text_file(const std::filesystem::path& file, const std::string& text);

// A JSON object written member by member, each value encoded on its own, so
// that a document of any length is never held whole. `encode` gives a value's
// text (compact_json for a file, script_safe_json for a page); one_per_line
// puts each member, and each item of an array member, on a line of its own.
// Each call is false once a write has failed.
class JsonObjectStream {
 public:
  using Sink = std::function<bool(std::string_view)>;
  using Encode = std::string (*)(const protocol::Json&);
  JsonObjectStream(Sink sink, Encode encode, bool one_per_line);

  bool member(std::string_view key, const protocol::Json& value);
  // A value already encoded as `encode` would.
  bool encoded_member(std::string_view key, std::string_view text);
  // An array member, written item by item until close_array.
  bool open_array(std::string_view key);
  bool item(const protocol::Json& value);
  bool encoded_item(std::string_view text);
  bool close_array();
  // The object's end; true when every write succeeded.
  bool close();

 private:
  bool write(std::string_view text);
  bool start_member(std::string_view key);

  Sink sink_;
  Encode encode_;
  bool one_per_line_;
  bool ok_ = true;
  std::size_t members_ = 0;
  std::size_t items_ = 0;
};

// JSON as the report file holds it: compact, with any byte that is not UTF-8 replaced.
std::string compact_json(const protocol::Json& value);

// The whole JSON report as one value: what write_json_report writes. A run
// streams it instead: this holds every result at once.
protocol::Json json_report(const ReportContext& context);
// The JSON report's members, in order, into `out`, then its end: one result's
// Json exists at a time. False when a write failed.
bool stream_json_report(const ReportContext& context, JsonObjectStream& out);
// `run --json FILE`: the report streamed to a file, a field or a result per
// line; the error (write_text_file's) when it cannot be written.
Checked<void> write_json_report(const ReportContext& context, const std::filesystem::path& file);

std::string junit_report(const ReportContext& context);
std::string markdown_report(const ReportContext& context);

}  // namespace kiln::conformance
