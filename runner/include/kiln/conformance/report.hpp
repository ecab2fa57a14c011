// The run's reports: JSON (versioned schema), JUnit XML and Markdown. Text from
// outside (adapter hello, command, messages, stderr, folder names) may be any
// bytes; each format has one escape that every piece of text goes through, so
// the JSON is valid UTF-8, the XML well-formed and each Markdown row one row.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/run.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

// 2: "profiles", each profile's verdict; no top-level "profile" (each result has its own).
// 3: "generated", the generated phase of each profile (an empty array: none ran,
// where a version 2 report cannot tell), and "generated" on each of its results.
inline constexpr int kJsonReportVersion = 3;

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
};

protocol::Json json_report(const ReportContext& context);
std::string junit_report(const ReportContext& context);
std::string markdown_report(const ReportContext& context);

// Writes text to a file, in place; false with error set ("file: cannot write:
// No space left on device") when opening, writing, flushing or closing fails.
bool write_text_file(const std::filesystem::path& file, const std::string& text, std::string& error);

}  // namespace kiln::conformance
