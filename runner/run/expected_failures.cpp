#include "kiln/conformance/expected_failures.hpp"

#include <fnmatch.h>

#include <array>
#include <fstream>
#include <ostream>
#include <sstream>

#include "kiln/protocol.hpp"

namespace kiln::conformance {
namespace {

constexpr std::array kListableStatuses{Status::kFail, Status::kCrash, Status::kTimeout,
                                       Status::kProtocol};

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The `STATUS:` that may start an entry's reason, and the reason after it. Only
// the listable statuses followed by ':' count, so an old reason ("aborts on a
// bad nibble", "TODO: fix") stays a reason.
std::optional<Status> take_status(std::string_view& rest) {
  for (const Status status : kListableStatuses) {
    const std::string prefix = std::string(to_string(status)) + ":";
    if (rest.substr(0, prefix.size()) == prefix) {
      rest = trim(rest.substr(prefix.size()));
      return status;
    }
  }
  return std::nullopt;
}

Verdict verdict_of(const CaseResult& result, const ExpectedFailures::Entry* entry) {
  if (result.status == Status::kError) return Verdict::kUnjudged;
  if (result.status == Status::kSkip) return Verdict::kSkip;
  if (entry == nullptr)
    return result.status == Status::kPass ? Verdict::kPass : Verdict::kUnexpectedFailure;
  if (result.status == Status::kPass) return Verdict::kStaleListing;
  return entry->accepts(result.status) ? Verdict::kExpectedFailure : Verdict::kChangedFailure;
}

}  // namespace

bool listable(Status status) noexcept {
  for (const Status each : kListableStatuses)
    if (each == status) return true;
  return false;
}

std::string ExpectedFailures::Entry::pattern() const {
  return op ? id_glob + ":" + std::string(to_string(*op)) : id_glob;
}

bool ExpectedFailures::Entry::matches(std::string_view case_id, Operation result_op) const {
  if (op && *op != result_op) return false;
  return fnmatch(id_glob.c_str(), std::string(case_id).c_str(), 0) == 0;
}

bool ExpectedFailures::Entry::accepts(Status result_status) const {
  return status ? *status == result_status : listable(result_status);
}

Checked<ExpectedFailures> ExpectedFailures::load(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return Failure(file.string() + ": cannot open the expected-failures file");
  std::ostringstream text;
  text << stream.rdbuf();
  if (stream.bad()) return Failure(file.string() + ": cannot read the expected-failures file");
  return parse(text.str(), file.string());
}

Checked<ExpectedFailures> ExpectedFailures::parse(std::string_view text, const std::string& source) {
  ExpectedFailures list;
  list.source_ = source;
  // A BOM would otherwise become part of the first pattern, which then matches
  // nothing. CRLF needs nothing: trim() drops the '\r'.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  int number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto space = line.find_first_of(" \t");
    const std::string_view pattern = line.substr(0, space);
    std::string_view rest = space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    Entry entry;
    entry.line = number;
    const auto colon = pattern.find(':');
    entry.id_glob = std::string(pattern.substr(0, colon));
    if (colon != std::string_view::npos) {
      const std::string_view op = pattern.substr(colon + 1);
      if (op != "decode" && op != "encode") {
        return Failure(source + ":" + std::to_string(number) + ":" + std::to_string(colon + 2) +
                       ": the operation after ':' is decode or encode, not '" + std::string(op) + "'");
      }
      entry.op = op == "decode" ? Operation::kDecode : Operation::kEncode;
    }
    entry.status = take_status(rest);
    entry.reason = std::string(rest);
    list.entries_.push_back(std::move(entry));
  }
  list.used_.assign(list.entries_.size(), false);
  return list;
}

const ExpectedFailures::Entry* ExpectedFailures::find(std::string_view case_id, Operation op,
                                                      Status status) const {
  const Entry* last = nullptr;
  for (const Entry& entry : entries_) {
    if (!entry.matches(case_id, op)) continue;
    if (entry.accepts(status)) return &entry;
    last = &entry;
  }
  return last;
}

void ExpectedFailures::record(CaseResult& result) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].matches(result.case_id, result.op)) used_[i] = true;
  const Entry* entry = find(result.case_id, result.op, result.status);
  result.listed = entry != nullptr;
  result.listed_status = entry ? entry->status : std::nullopt;
  result.listed_reason = entry ? entry->reason : std::string();
  result.verdict = verdict_of(result, entry);
}

std::vector<const ExpectedFailures::Entry*> ExpectedFailures::unused() const {
  std::vector<const Entry*> stale;
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (!used_[i]) stale.push_back(&entries_[i]);
  return stale;
}

std::vector<UnmatchedEntry> ExpectedFailures::report_unused(std::ostream& err) const {
  return report_unused(err, [](const Entry&) { return false; });
}

std::vector<UnmatchedEntry> ExpectedFailures::report_unused(
    std::ostream& err, const std::function<bool(const Entry&)>& outside) const {
  std::vector<UnmatchedEntry> stale;
  for (const Entry* entry : unused()) {
    if (outside(*entry)) continue;
    err << source_ << ":" << entry->line << ": '" << entry->pattern() << "' matches no case: remove it\n";
    stale.push_back({source_, entry->line, entry->pattern()});
  }
  return stale;
}

std::string ExpectedFailures::write(const std::vector<CaseResult>& results, std::string_view header) {
  // One line per entry, whatever the adapter wrote: the list must read back.
  std::string text = "# " + protocol::printable(header) + "\n";
  for (const CaseResult& result : results) {
    if (!listable(result.status)) continue;
    // A changed failure's reason described the old way of failing.
    const std::string& reason =
        result.expected_failure() && !result.listed_reason.empty() ? result.listed_reason : result.got;
    text += id_glob(result.case_id) + ":" + std::string(to_string(result.op)) + "  " +
            std::string(to_string(result.status)) + ": " +
            protocol::printable(protocol::bounded_message(reason, 200)) + "\n";
  }
  return text;
}

}  // namespace kiln::conformance
