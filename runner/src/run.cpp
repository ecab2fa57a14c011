#include "kiln/conformance/run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
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

std::string expectation_text(const Expectation& expect, Operation op) {
  if (!expect.accept) return "reject " + std::string(to_string(*expect.error_class));
  return op == Operation::kDecode ? "accept" : "block";
}

std::string outcome_text(const protocol::Outcome& outcome) {
  if (std::holds_alternative<protocol::Accept>(outcome)) return "accept";
  if (std::holds_alternative<protocol::EncodedBlock>(outcome)) return "block";
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    std::string text = "reject " + std::string(to_string(reject->error_class));
    if (reject->rule) text += " (" + *reject->rule + ")";
    return text;
  }
  return "error: " + std::get<protocol::ProtocolError>(outcome).message;
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

void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result) {
  result.got = outcome_text(outcome);
  if (std::holds_alternative<protocol::ProtocolError>(outcome)) {
    result.status = Status::kProtocol;
    result.detail = "the adapter answered with an error: " + std::get<protocol::ProtocolError>(outcome).message;
    return;
  }
  if (!c.expect.accept) {
    const auto* reject = std::get_if<protocol::Reject>(&outcome);
    if (!reject) {
      result.status = Status::kFail;
      result.detail = "expected a " + std::string(to_string(*c.expect.error_class)) +
                      " rejection (the reference reports " + std::string(rule_info(*c.expect.rule).id) +
                      ")";
      return;
    }
    if (reject->error_class != *c.expect.error_class) {
      result.status = Status::kFail;
      result.detail = "wrong class: the reference reports " + std::string(rule_info(*c.expect.rule).id) +
                      "; adapter said: " + reject->message;
      return;
    }
    result.status = Status::kPass;
    return;
  }
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    result.status = Status::kFail;
    result.detail = "a valid " + std::string(op == Operation::kDecode ? "block" : "description") +
                    " was rejected: " + reject->message;
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

Status status_of(Exchange::Kind kind) {
  switch (kind) {
    case Exchange::Kind::kCrash: return Status::kCrash;
    case Exchange::Kind::kTimeout: return Status::kTimeout;
    case Exchange::Kind::kProtocol: return Status::kProtocol;
    case Exchange::Kind::kReply: break;
  }
  return Status::kPass;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string replay_command(const RunOptions& options, const CaseResult& result) {
  std::string command = options.program + " run --adapter " + shell_quote(options.adapter);
  if (options.one_shot) command += " --one-shot";
  command += " --cases " + shell_quote(options.cases_dir.string());
  command += " --filter " + result.case_id + " --ops " + std::string(to_string(result.op)) + " --verbose";
  return command;
}

void print_result(std::ostream& out, const RunOptions& options, const CaseResult& result) {
  const std::string status =
      result.stale_listing() ? "PASS, but listed as an expected failure" : std::string(to_string(result.status));
  out << status << "  " << result.case_id << " " << to_string(result.op) << "\n";
  if (result.status == Status::kPass && !result.stale_listing()) return;
  if (result.status == Status::kSkip) {
    out << "    " << result.detail << "\n";
    return;
  }
  std::string rules;
  for (const auto& rule : result.rules) rules += (rules.empty() ? "" : ", ") + rule;
  out << "    rules:    " << rules << "\n";
  out << "    expected: " << result.expected << "\n";
  out << "    got:      " << result.got << "\n";
  if (!result.detail.empty()) out << "    detail:   " << result.detail << "\n";
  if (result.listed) out << "    listed:   " << result.listed_reason << "\n";
  if (!result.adapter_stderr.empty()) {
    std::istringstream lines(result.adapter_stderr);
    out << "    adapter stderr:\n";
    for (std::string line; std::getline(lines, line);) out << "      | " << line << "\n";
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
  // origin.file is "<cases dir name>/<topic>/<id>.yaml"; a case at the top has no topic.
  const std::filesystem::path file(c.origin.file);
  const auto parent = file.parent_path();
  return parent.has_parent_path() ? parent.filename().string() : std::string("(top)");
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

  std::vector<const Case*> chosen;
  std::size_t largest_block = 0;
  for (const Case& c : set.cases) {
    if (!selected(options, c)) continue;
    chosen.push_back(&c);
    if (c.block) largest_block = std::max(largest_block, c.block->size());
  }
  const bool filtered = !options.filters.empty() || !options.rules.empty() || options.ops.size() < 2;

  std::string error;
  auto driver = make_driver(options, largest_block, error);
  if (!driver) {
    err << "run: " << error << "\n";
    return summary;
  }
  std::string hello_problem;
  std::optional<protocol::Hello> hello = driver->hello(hello_problem);
  if (hello) {
    out << "adapter: " << hello->name << " " << hello->version << " (protocol " << hello->protocol
        << ", ops";
    for (const auto& op : hello->ops) out << " " << op;
    out << ")\n";
  } else {
    out << "adapter: no usable hello (" << hello_problem << "); every op is tried\n";
  }
  out << "cases: " << chosen.size() << " of " << set.cases.size() << " from "
      << options.cases_dir.string() << "\n";

  std::size_t planned = 0;
  for (const Case* c : chosen) planned += c->derived_ops().size();
  std::size_t done = 0;
  for (const Case* c : chosen) {
    for (Operation op : c->derived_ops()) {
      if (std::find(options.ops.begin(), options.ops.end(), op) == options.ops.end()) continue;
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
      if (hello && !hello->offers_op(wire_op)) {
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
        result.adapter_stderr = std::move(exchange.adapter_stderr);
        if (exchange.kind == Exchange::Kind::kReply) {
          judge(*c, op, exchange.outcome, result);
        } else {
          result.status = status_of(exchange.kind);
          result.got = std::string(to_string(result.status));
          result.detail = exchange.detail;
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
    if (!entry.used && !filtered) {
      err << options.expected_failures->string() << ":" << entry.line << ": '" << entry.pattern
          << "' matches no case: remove it\n";
      stale_patterns = true;
    }

  Totals& totals = summary.totals;
  for (const CaseResult& result : summary.results) add_to(totals, result);
  if (stale_patterns) ++totals.failed;

  const bool any_skip = totals.skipped > 0;
  const std::string who = hello ? hello->name + " " + hello->version : options.adapter;
  if (filtered) {
    summary.certificate = "NO CERTIFICATE: a filtered run certifies nothing";
  } else if (totals.failed == 0 && totals.expected_failures == 0 && !any_skip) {
    summary.certificate = "CONFORMANT: " + who + " passes all " + std::to_string(totals.passed) +
                          " checks (decode and encode) of kiln-conformance " + KILN_SUITE_VERSION;
  } else if (totals.failed == 0 && totals.expected_failures == 0) {
    summary.certificate = "CONFORMANT (partial): " + who + " passes every check it offers; " +
                          std::to_string(totals.skipped) + " skipped";
  } else {
    summary.certificate = "NOT CONFORMANT: " + who + " has " + std::to_string(totals.failed) +
                          " unexpected and " + std::to_string(totals.expected_failures) +
                          " expected failure(s)";
  }

  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  ReportContext context{options,      hello,   case_set_hash(set), set.cases.size(), summary.results,
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
    std::string text = "# Expected failures of " + who + " (kiln-conformance " + KILN_SUITE_VERSION +
                       "). Remove a line once its case passes.\n";
    for (const CaseResult& result : summary.results)
      if (result.status != Status::kPass && result.status != Status::kSkip)
        text += result.case_id + ":" + std::string(to_string(result.op)) + "  " +
                std::string(to_string(result.status)) + ": " +
                (result.listed && !result.listed_reason.empty() ? result.listed_reason : result.got) + "\n";
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
  if (!reports_ok) summary.exit_code = kExitUsage;
  else summary.exit_code = totals.failed == 0 ? kExitOk : kExitFailures;
  return summary;
}

}  // namespace kiln::conformance
