// The expected-failures list of `kiln-conformance run` (adapters/README.md, "Runner
// options"), on the model of protobuf's conformance TestManager: it loads the
// list, says whether a (case, op) is expected to fail and how, records which
// entries a run used, gives each result its verdict, reports entries that match
// nothing, and writes a list back that reads as the same.
//
// A line: `<id-glob>[:decode|:encode] [STATUS:] [reason...]`, `#` to the end of
// the line a comment. STATUS is FAIL, CRASH, TIMEOUT or PROTOCOL, as the runner
// prints it; an entry without one (a list written before statuses were parsed)
// accepts any of them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/run.hpp"

namespace kiln::conformance {

// The statuses a list may record: the ways an adapter fails a case. (PASS is no
// failure, SKIP is no result, ERROR is the case set's fault.)
bool listable(Status status) noexcept;

class ExpectedFailures {
 public:
  struct Entry {
    std::string id_glob;              // fnmatch, backslash escapes
    std::optional<Operation> op;      // nullopt: both operations
    std::optional<Status> status;     // nullopt: any listable status
    std::string reason;
    int line = 0;                     // in the file, 1-based

    std::string pattern() const;      // `id_glob[:op]`, as written
    bool matches(std::string_view case_id, Operation result_op) const;
    bool accepts(Status result_status) const;  // the entry records this way of failing
  };

  ExpectedFailures() = default;  // the empty list: every failure is unexpected

  // Reads a list, or says why it cannot: errors name file:line:column. A
  // leading UTF-8 BOM is skipped and CRLF line ends are accepted (editors on
  // Windows write both). source names the list in messages.
  static Checked<ExpectedFailures> load(const std::filesystem::path& file);
  static Checked<ExpectedFailures> parse(std::string_view text, const std::string& source);

  const std::vector<Entry>& entries() const noexcept { return entries_; }

  // The entry that lists (case_id, op): of those that match, the first that
  // accepts status, else the last (whose status then says how the case was
  // expected to fail); nullptr when none matches. Records nothing.
  const Entry* find(std::string_view case_id, Operation op, Status status) const;

  // Gives a judged result its listing (listed, listed_status, listed_reason) and
  // its verdict, and records every entry that matches it as used:
  //   ERROR                                   -> unjudged, whatever the list says
  //   SKIP                                    -> skip
  //   listed, PASS                            -> stale listing
  //   listed, failing as the entry records    -> expected failure
  //   listed, failing another way             -> changed failure
  //   not listed, PASS                        -> pass
  //   not listed, failing                     -> unexpected failure
  void record(CaseResult& result);

  // Entries no recorded result matched, in file order.
  std::vector<const Entry*> unused() const;
  // Writes "<source>:<line>: '<pattern>' matches no case: remove it" for each
  // unused entry to err; returns them.
  std::vector<UnmatchedEntry> report_unused(std::ostream& err) const;
  // The same, leaving out the entries outside says the run did not select (they
  // can be neither used nor stale).
  std::vector<UnmatchedEntry> report_unused(std::ostream& err,
                                            const std::function<bool(const Entry&)>& outside) const;

  // A list of results' failures that parse() reads back with the same verdicts:
  // one `<id>:<op>  <STATUS>: <reason>` line per listable result, after a `#`
  // header line. The reason is an expected failure's listed reason, else what
  // came back, on one line.
  static std::string write(const std::vector<CaseResult>& results, std::string_view header);

 private:
  std::vector<Entry> entries_;
  std::vector<bool> used_;  // by index into entries_
  std::string source_;
};

}  // namespace kiln::conformance
