#include "kiln/conformance/run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"

namespace kiln::conformance {
namespace {

bool glob_matches(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

using protocol::bounded_message;

// Adapter text on one line, for the console and the expected-failures list: a
// newline or control character in a hello name or a message must not start a
// line of its own (a forged "CONFORMANT:" line, a new list entry).
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

// stderr's end is what explains a crash, so its bound keeps the tail; the
// driver's tail is bounded already, with room here for its own note.
std::string bounded_tail(std::string text) {
  constexpr std::size_t kLimit = protocol::kMaxMessageBytes + 1024;
  if (text.size() <= kLimit) return text;
  std::size_t start = text.size() - protocol::kMaxMessageBytes;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return "[" + std::to_string(start) + " earlier bytes cut]\n" + text.substr(start);
}

// Why op cannot be judged on c, or nothing. The loader refuses such cases; this
// keeps the runner from ever dereferencing what is not there if one slips by.
std::optional<std::string> unjudgeable(const Case& c, Operation op) {
  // decode sends the block; an accepted encode is compared with it. Only a
  // rejected encode (a description no block can exist for) does without.
  if (!c.block && (op == Operation::kDecode || c.expect.accept))
    return "it has no block, which " + std::string(op == Operation::kDecode ? "decode" : "an accepted encode") + " needs";
  if (!c.expect.accept && !c.expect.error_class) return "it expects a reject but names no class";
  return std::nullopt;
}

std::string expectation_text(const Expectation& expect, Operation op) {
  if (!expect.accept)
    return expect.error_class ? "reject " + std::string(to_string(*expect.error_class)) : "reject";
  return op == Operation::kDecode ? "accept" : "block";
}

// The reference's rule for a reject case, when the case names one (informative).
std::string reference_rule(const Expectation& expect) {
  return expect.rule ? " (the reference reports " + std::string(rule_info(*expect.rule).id) + ")"
                     : std::string();
}

// What came back, short: an error's message is kept here and nowhere else; a
// reject's message goes to detail, only when the case fails.
std::string outcome_text(const protocol::Outcome& outcome) {
  if (std::holds_alternative<protocol::Accept>(outcome)) return "accept";
  if (std::holds_alternative<protocol::EncodedBlock>(outcome)) return "block";
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    std::string text = "reject " + std::string(to_string(reject->error_class));
    if (reject->rule) text += " (" + bounded_message(*reject->rule, 256) + ")";
    return text;
  }
  return "error: " + bounded_message(std::get<protocol::ProtocolError>(outcome).message);
}

std::size_t first_difference(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

// The first way two decoded tensor lists differ, in reading order; empty when equal.
std::string describe_tensor_difference(const BlockDescription& expected,
                                       const BlockDescription& got,
                                       std::optional<std::uint64_t>& offset) {
  if (expected.tensors.size() != got.tensors.size())
    return "expected " + std::to_string(expected.tensors.size()) + " tensors, got " +
           std::to_string(got.tensors.size());
  for (std::size_t i = 0; i < expected.tensors.size(); ++i) {
    const auto& want = expected.tensors[i];
    const auto& have = got.tensors[i];
    const std::string which = "tensor " + std::to_string(i) + ": ";
    if (want.name != have.name) return which + "name differs";
    if (want.dtype != have.dtype)
      return which + "dtype " + std::to_string(have.dtype) + ", expected " + std::to_string(want.dtype);
    if (want.shape != have.shape) return which + "shape differs";
    if (want.layout != have.layout) return which + "layout name differs";
    if (want.block_size != have.block_size)
      return which + "block_size " + std::to_string(have.block_size) + ", expected " +
             std::to_string(want.block_size);
    if (want.payload != have.payload) {
      offset = first_difference(want.payload, have.payload);
      return which + "payload differs from byte " + std::to_string(*offset) + " (expected " +
             std::to_string(want.payload.size()) + " bytes, got " + std::to_string(have.payload.size()) + ")";
    }
  }
  return {};
}

Status status_of(Exchange::Kind kind) {
  switch (kind) {
    case Exchange::Kind::kCrash: return Status::kCrash;
    case Exchange::Kind::kTimeout: return Status::kTimeout;
    case Exchange::Kind::kProtocol: return Status::kProtocol;
    case Exchange::Kind::kReply: break;
  }
  return Status::kPass;
}

// Characters a shell word may hold unquoted.
bool shell_safe(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_@%+=:,./-", c) != nullptr;
  });
}

std::string shell_quote(const std::string& text) {
  if (shell_safe(text)) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A glob (fnmatch, backslash escapes) that matches exactly this id.
std::string id_glob(const std::string& id) {
  std::string glob;
  for (char c : id) {
    if (std::strchr("*?[]\\", c) != nullptr) glob += '\\';
    glob += c;
  }
  return glob;
}

std::string replay_command(const RunOptions& options, const CaseResult& result) {
  std::string command = shell_quote(options.program) + " run --adapter " + shell_quote(options.adapter);
  if (options.one_shot) command += " --one-shot";
  // Without it a hang replays with the default limit, or not at all.
  if (options.timeout_ms != RunOptions{}.timeout_ms)
    command += " --timeout-ms " + std::to_string(options.timeout_ms);
  command += " --cases " + shell_quote(options.cases_dir.string());
  command += " --filter " + shell_quote(id_glob(result.case_id)) + " --ops " +
             std::string(to_string(result.op)) + " --verbose";
  return command;
}

}  // namespace

void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result) {
  result.got = outcome_text(outcome);
  if (const auto why = unjudgeable(c, op)) {
    result.status = Status::kError;
    result.detail = "the case cannot be judged: " + *why + " (a broken case set, not the adapter)";
    return;
  }
  if (std::holds_alternative<protocol::ProtocolError>(outcome)) {
    result.status = Status::kProtocol;
    // The message is in got already: a second copy would double what is stored.
    result.detail = "the adapter answered with an error (shown under got), and an error is never a "
                    "rejection";
    return;
  }
  if (!c.expect.accept) {
    const auto* reject = std::get_if<protocol::Reject>(&outcome);
    if (!reject) {
      result.status = Status::kFail;
      result.detail = "expected a " + std::string(to_string(*c.expect.error_class)) + " rejection" +
                      reference_rule(c.expect);
      return;
    }
    if (reject->error_class != *c.expect.error_class) {
      result.status = Status::kFail;
      result.detail = "wrong class" + reference_rule(c.expect) +
                      "; adapter said: " + bounded_message(reject->message);
      return;
    }
    result.status = Status::kPass;
    return;
  }
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    result.status = Status::kFail;
    result.detail = "a valid " + std::string(op == Operation::kDecode ? "block" : "description") +
                    " was rejected: " + bounded_message(reject->message);
    return;
  }
  if (op == Operation::kDecode) {
    const auto& accepted = std::get<protocol::Accept>(outcome);
    result.detail = describe_tensor_difference(c.description, accepted.description, result.first_difference);
    result.status = result.detail.empty() ? Status::kPass : Status::kFail;
    return;
  }
  const auto& encoded = std::get<protocol::EncodedBlock>(outcome);
  if (encoded.bytes != *c.block) {
    result.first_difference = first_difference(*c.block, encoded.bytes);
    result.status = Status::kFail;
    result.detail = "encoded block differs from byte " + std::to_string(*result.first_difference) +
                    " (expected " + std::to_string(c.block->size()) + " bytes, got " +
                    std::to_string(encoded.bytes.size()) + ")";
    return;
  }
  result.status = Status::kPass;
}

namespace {

void print_result(std::ostream& out, const RunOptions& options, const CaseResult& result) {
  const std::string status =
      result.stale_listing() ? "PASS, but listed as an expected failure" : std::string(to_string(result.status));
  out << status << "  " << result.case_id << " " << to_string(result.op) << "\n";
  if (result.status == Status::kPass && !result.stale_listing()) return;
  if (result.status == Status::kSkip) {
    out << "    " << one_line(result.detail) << "\n";
    return;
  }
  std::string rules;
  for (const auto& rule : result.rules) rules += (rules.empty() ? "" : ", ") + rule;
  out << "    rules:    " << rules << "\n";
  out << "    expected: " << result.expected << "\n";
  out << "    got:      " << one_line(result.got) << "\n";
  if (!result.detail.empty()) out << "    detail:   " << one_line(result.detail) << "\n";
  if (result.listed) out << "    listed:   " << one_line(result.listed_reason) << "\n";
  if (!result.adapter_stderr.empty()) {
    std::istringstream lines(result.adapter_stderr);
    out << "    adapter stderr:\n";
    for (std::string line; std::getline(lines, line);) out << "      | " << one_line(line) << "\n";
  }
  out << "    replay:   " << replay_command(options, result) << "\n";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

std::unique_ptr<Driver> make_driver(const RunOptions& options, std::size_t largest_block,
                                    std::string& error) {
  if (options.adapter.rfind("builtin:", 0) == 0) {
    if (options.adapter != "builtin:reference") {
      error = "unknown builtin adapter '" + options.adapter + "' (builtin:reference is the one)";
      return nullptr;
    }
    return make_in_process_driver(std::make_unique<protocol::ReferenceAdapter>());
  }
  ProcessOptions process;
  process.command = options.adapter;
  process.one_shot = options.one_shot;
  process.timeout = std::chrono::milliseconds(options.timeout_ms);
  process.max_reply_bytes = protocol::max_reply_line_bytes(largest_block);
  return make_process_driver(process);
}

std::string topic_of(const Case& c) {
  // The loader knows the folder below the cases root, however the root was spelled.
  return c.topic.empty() ? std::string("(top)") : c.topic;
}

void add_to(Totals& totals, const CaseResult& result) {
  if (result.status == Status::kSkip) ++totals.skipped;
  else if (result.expected_failure()) ++totals.expected_failures;
  else if (result.unexpected()) ++totals.failed;
  else ++totals.passed;
}

bool selected(const RunOptions& options, const Case& c) {
  if (!options.filters.empty() &&
      std::none_of(options.filters.begin(), options.filters.end(),
                   [&](const std::string& glob) { return glob_matches(glob, c.id); }))
    return false;
  if (!options.rules.empty()) {
    bool hit = false;
    for (Rule rule : c.rules)
      hit |= std::find(options.rules.begin(), options.rules.end(), rule_info(rule).id) != options.rules.end();
    if (!hit) return false;
  }
  return true;
}

}  // namespace

std::vector<TopicTotals> totals_by_topic(const std::vector<CaseResult>& results) {
  std::vector<TopicTotals> topics;
  for (const CaseResult& result : results) {
    auto it = std::find_if(topics.begin(), topics.end(),
                           [&](const TopicTotals& t) { return t.topic == result.topic; });
    if (it == topics.end()) it = topics.insert(topics.end(), TopicTotals{result.topic, {}});
    add_to(it->totals, result);
  }
  std::sort(topics.begin(), topics.end(),
            [](const TopicTotals& a, const TopicTotals& b) { return a.topic < b.topic; });
  return topics;
}

std::string_view to_string(Status status) noexcept {
  switch (status) {
    case Status::kPass: return "PASS";
    case Status::kFail: return "FAIL";
    case Status::kCrash: return "CRASH";
    case Status::kTimeout: return "TIMEOUT";
    case Status::kProtocol: return "PROTOCOL";
    case Status::kSkip: return "SKIP";
    case Status::kError: return "ERROR";
  }
  return "?";
}

std::optional<std::vector<ExpectedFailure>> load_expected_failures(const std::filesystem::path& file,
                                                                   std::string& error) {
  std::ifstream stream(file);
  if (!stream) {
    error = file.string() + ": cannot open the expected-failures file";
    return std::nullopt;
  }
  std::vector<ExpectedFailure> list;
  int number = 0;
  for (std::string line; std::getline(stream, line);) {
    ++number;
    // A BOM would otherwise become part of the first pattern, which then matches
    // nothing. CRLF needs nothing: trim() drops the '\r'.
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    const auto space = line.find_first_of(" \t");
    ExpectedFailure entry;
    entry.pattern = line.substr(0, space);
    entry.reason = space == std::string::npos ? "" : trim(line.substr(space));
    entry.line = number;
    const auto colon = entry.pattern.find(':');
    if (colon != std::string::npos) {
      const std::string op = entry.pattern.substr(colon + 1);
      if (op != "decode" && op != "encode") {
        error = file.string() + ":" + std::to_string(number) + ":" + std::to_string(colon + 2) +
                ": the operation after ':' is decode or encode, not '" + op + "'";
        return std::nullopt;
      }
    }
    list.push_back(std::move(entry));
  }
  return list;
}

RunSummary run_suite(const RunOptions& options, std::ostream& out, std::ostream& err) {
  RunSummary summary;
  const auto started = Clock::now();
  const std::string started_at = utc_now();
  summary.exit_code = kExitUsage;

  const CaseSet set = load_case_set(options.cases_dir);
  if (!report_load_errors(set, err) || set.cases.empty()) {
    err << "run: the case set in " << options.cases_dir.string() << " is unusable"
        << (set.cases.empty() && set.errors.empty() ? " (no cases)" : "") << "\n";
    return summary;
  }
  for (const auto& rule : options.rules)
    if (!rule_from_id(rule)) {
      err << "run: --rules: '" << rule << "' is not a rule ID\n";
      return summary;
    }
  std::vector<ExpectedFailure> listed;
  if (options.expected_failures) {
    std::string error;
    auto loaded = load_expected_failures(*options.expected_failures, error);
    if (!loaded) {
      err << error << "\n";
      return summary;
    }
    listed = std::move(*loaded);
  }
  const std::string case_set_sha256 = case_set_hash(set);
  // Short, as a commit hash: enough to tell which case set a certificate is for.
  const std::string case_set_note = "; case set " + case_set_sha256.substr(0, 12);

  // The ops as a set: `--ops decode,decode` is a decode-only run, not both.
  const std::set<Operation> ops(options.ops.begin(), options.ops.end());
  auto wanted = [&](Operation op) { return ops.count(op) != 0; };
  std::vector<const Case*> chosen;
  std::size_t largest_block = 0;
  std::size_t planned = 0;      // the results this run will have
  std::size_t every_check = 0;  // the results a run of the whole case set has
  for (const Case& c : set.cases) {
    const auto case_ops = c.derived_ops();
    every_check += case_ops.size();
    if (!selected(options, c)) continue;
    const auto here = static_cast<std::size_t>(std::count_if(case_ops.begin(), case_ops.end(), wanted));
    if (here == 0) continue;
    chosen.push_back(&c);
    planned += here;
    if (c.block) largest_block = std::max(largest_block, c.block->size());
  }
  const bool filtered = !options.filters.empty() || !options.rules.empty() ||
                        !wanted(Operation::kDecode) || !wanted(Operation::kEncode);
  if (planned == 0) {
    // Exit 0 would read as success with nothing checked.
    err << "run: nothing selected: no case of " << options.cases_dir.string()
        << " matches --filter, --rules and --ops\n";
    summary.certificate = "NO CERTIFICATE: nothing selected" + case_set_note;
    out << summary.certificate << "\n";
    return summary;
  }

  std::string error;
  auto driver = make_driver(options, largest_block, error);
  if (!driver) {
    err << "run: " << error << "\n";
    return summary;
  }
  std::string hello_problem;
  std::optional<protocol::Hello> hello = driver->hello(hello_problem);
  // Replies of another protocol version cannot be read as version 1's: judging
  // them could pass what should fail, so nothing is sent.
  const bool other_protocol = hello && hello->protocol != protocol::kProtocolVersion;
  if (hello) {
    std::string line = hello->name + " " + hello->version + " (protocol " +
                       std::to_string(hello->protocol) + ", ops";
    for (const auto& op : hello->ops) line += " " + op;
    out << "adapter: " << one_line(bounded_message(line + ")", 1024)) << "\n";
  } else {
    hello_problem = bounded_message(hello_problem);
    out << "adapter: no usable hello (" << one_line(hello_problem) << "); every op is tried\n";
  }
  const std::string who = hello ? one_line(bounded_message(hello->name + " " + hello->version, 256))
                                : one_line(options.adapter);
  if (other_protocol) {
    err << "run: the adapter speaks protocol " << hello->protocol << "; this runner speaks protocol "
        << protocol::kProtocolVersion << " only: no case is sent\n";
    chosen.clear();
  }
  out << "cases: " << chosen.size() << " of " << set.cases.size() << " from "
      << options.cases_dir.string() << "\n";

  std::size_t done = 0;
  for (const Case* c : chosen) {
    for (Operation op : c->derived_ops()) {
      if (!wanted(op)) continue;
      CaseResult result;
      result.case_id = c->id;
      result.topic = topic_of(*c);
      result.op = op;
      for (Rule rule : c->rules) result.rules.emplace_back(rule_info(rule).id);
      result.expected = expectation_text(c->expect, op);
      const std::string with_op = c->id + ":" + std::string(to_string(op));
      for (auto& entry : listed)
        if (glob_matches(entry.pattern, entry.pattern.find(':') == std::string::npos ? c->id : with_op)) {
          result.listed = true;
          result.listed_reason = entry.reason;
          entry.used = true;
        }

      const protocol::Op wire_op = op == Operation::kDecode ? protocol::Op::kDecode : protocol::Op::kEncode;
      const auto case_started = Clock::now();
      if (const auto why = unjudgeable(*c, op)) {
        result.status = Status::kError;
        result.detail = "the case cannot be judged: " + *why + " (a broken case set, not the adapter)";
      } else if (hello && !hello->offers_op(wire_op)) {
        result.status = Status::kSkip;
        result.detail = "the adapter's hello does not offer " + std::string(to_string(op));
      } else if (hello && !hello->offers_profile(c->profile)) {
        result.status = Status::kSkip;
        result.detail = "the adapter's hello does not offer profile " + c->profile;
      } else {
        protocol::Request request;
        if (op == Operation::kDecode)
          request = protocol::DecodeRequest{c->id, c->profile, *c->block};
        else
          request = protocol::EncodeRequest{c->id, c->profile, c->description};
        Exchange exchange = driver->exchange(request);
        result.adapter_stderr = bounded_tail(std::move(exchange.adapter_stderr));
        if (exchange.kind == Exchange::Kind::kReply) {
          judge(*c, op, exchange.outcome, result);
        } else {
          result.status = status_of(exchange.kind);
          result.got = std::string(to_string(result.status));
          result.detail = bounded_message(exchange.detail);
        }
      }
      result.seconds = std::chrono::duration<double>(Clock::now() - case_started).count();
      ++done;
      if (options.verbose || result.unexpected()) print_result(out, options, result);
      if (!options.quiet_progress && done % 100 == 0)
        out << "... " << done << " of " << planned << " results\n";
      out.flush();
      summary.results.push_back(std::move(result));
    }
  }

  bool stale_patterns = false;
  for (const auto& entry : listed)
    if (!entry.used && !filtered && !other_protocol) {
      err << options.expected_failures->string() << ":" << entry.line << ": '" << entry.pattern
          << "' matches no case: remove it\n";
      stale_patterns = true;
    }

  Totals& totals = summary.totals;
  for (const CaseResult& result : summary.results) add_to(totals, result);
  if (stale_patterns) ++totals.failed;

  // The certificate and the exit status, the first reason that applies winning.
  // CONFORMANT needs every check of the whole case set run and passed: counted,
  // not inferred from the absence of failures.
  const std::size_t unjudged = static_cast<std::size_t>(std::count_if(
      summary.results.begin(), summary.results.end(),
      [](const CaseResult& r) { return r.status == Status::kError; }));
  const bool nothing_checked = totals.passed == 0 && totals.failed == 0 && totals.expected_failures == 0;
  const std::string failures = std::to_string(totals.failed) + " unexpected and " +
                               std::to_string(totals.expected_failures) + " expected failure(s)";
  int exit_code = totals.failed == 0 ? kExitOk : kExitFailures;
  std::string certificate;
  if (unjudged > 0) {
    certificate = "NO CERTIFICATE: " + std::to_string(unjudged) +
                  " result(s) could not be judged: the case set is broken";
    exit_code = kExitUsage;
  } else if (other_protocol) {
    certificate = "NO CERTIFICATE: " + who + " speaks adapter protocol " +
                  std::to_string(hello->protocol) + ", this runner protocol " +
                  std::to_string(protocol::kProtocolVersion);
    exit_code = kExitFailures;
  } else if (!hello) {
    // Even if every case passed after a restart: hello is part of the protocol.
    certificate = "NOT CONFORMANT: " + who + " failed its hello (" + one_line(hello_problem) +
                  "); " + failures;
    exit_code = kExitFailures;
  } else if (nothing_checked) {
    certificate = "NO CERTIFICATE: nothing was checked: " + who + " offers none of the " +
                  std::to_string(totals.skipped) + " selected checks";
    exit_code = kExitFailures;
  } else if (filtered) {
    certificate = "NO CERTIFICATE: a filtered run certifies nothing";
  } else if (totals.failed > 0 || totals.expected_failures > 0) {
    certificate = "NOT CONFORMANT: " + who + " has " + failures;
  } else if (totals.passed == every_check && summary.results.size() == every_check) {
    certificate = "CONFORMANT: " + who + " passes all " + std::to_string(totals.passed) +
                  " checks (decode and encode) of kiln-conformance " + KILN_SUITE_VERSION;
  } else if (totals.passed > 0 && totals.passed + totals.skipped == every_check &&
             summary.results.size() == every_check) {
    certificate = "CONFORMANT (partial): " + who + " passes every check it offers; " +
                  std::to_string(totals.skipped) + " skipped";
  } else {
    // Unreachable while the counts above add up; never a certificate if not.
    certificate = "NO CERTIFICATE: " + std::to_string(summary.results.size()) + " of " +
                  std::to_string(every_check) + " checks ran";
    exit_code = kExitFailures;
  }
  summary.certificate = certificate + case_set_note;

  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  ReportContext context{options,      hello,   case_set_sha256, set.cases.size(), summary.results,
                        totals,       summary.certificate, seconds, started_at};
  bool reports_ok = true;
  auto write = [&](const std::optional<std::filesystem::path>& file, const std::string& text) {
    if (!file) return;
    std::string problem;
    if (!write_text_file(*file, text, problem)) {
      err << "run: " << problem << "\n";
      reports_ok = false;
    }
  };
  write(options.json_report,
        json_report(context).dump(1, ' ', false, protocol::Json::error_handler_t::replace) + "\n");
  write(options.junit_report, junit_report(context));
  write(options.markdown_report, markdown_report(context));
  if (options.write_expected_failures) {
    // One line per entry, whatever the adapter wrote: the list must read back.
    std::string text = "# Expected failures of " + who + " (kiln-conformance " + KILN_SUITE_VERSION +
                       "). Remove a line once its case passes.\n";
    for (const CaseResult& result : summary.results)
      if (result.status != Status::kPass && result.status != Status::kSkip &&
          result.status != Status::kError)
        text += id_glob(result.case_id) + ":" + std::string(to_string(result.op)) + "  " +
                std::string(to_string(result.status)) + ": " +
                one_line(bounded_message(
                    result.listed && !result.listed_reason.empty() ? result.listed_reason : result.got,
                    200)) +
                "\n";
    write(options.write_expected_failures, text);
  }

  char row[160];
  std::snprintf(row, sizeof row, "\n%-16s %8s %8s %8s %9s\n", "topic", "passed", "failed", "skipped",
                "expected");
  out << row;
  for (const TopicTotals& topic : totals_by_topic(summary.results)) {
    std::snprintf(row, sizeof row, "%-16s %8zu %8zu %8zu %9zu\n", topic.topic.c_str(),
                  topic.totals.passed, topic.totals.failed, topic.totals.skipped,
                  topic.totals.expected_failures);
    out << row;
  }
  out << "\n" << summary.certificate << "\n";
  out << totals.passed << " passed, " << totals.failed << " failed, " << totals.skipped
      << " skipped, " << totals.expected_failures << " expected failures\n";
  summary.exit_code = reports_ok ? exit_code : kExitUsage;
  return summary;
}

}  // namespace kiln::conformance
