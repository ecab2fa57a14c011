#include "fuzz/fuzz_engine.hpp"

#include <algorithm>
#include <ostream>
#include <random>
#include <thread>

#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/sha256.hpp"

namespace kiln::conformance::fuzzing {
namespace {

using protocol::Request;

Operation operation_of(const Request& request) {
  return protocol::op_of(request) == protocol::Op::kEncode ? Operation::kEncode : Operation::kDecode;
}

// What a request in the history costs to keep, as its input costs in a pool.
std::size_t request_bytes(const Request& request) {
  return std::visit(
      [](const auto& message) -> std::size_t {
        using T = std::decay_t<decltype(message)>;
        if constexpr (std::is_same_v<T, protocol::DecodeRequest>) return message.block.size() + 64;
        else if constexpr (std::is_same_v<T, protocol::EncodeRequest>) return description_bytes(message.description) + 64;
        else if constexpr (std::is_same_v<T, protocol::ElementsDecodeRequest>)
          return elements_bytes(message.data.size(), message.shape.size(), {});
        else if constexpr (std::is_same_v<T, protocol::ElementsEncodeRequest>)
          return elements_bytes(0, message.shape.size(), message.elements);
        else return 64;
      },
      request);
}

// Whether file is a regular file of exactly text (read no further than that):
// what an earlier run of the same phase wrote, to be reused rather than copied.
bool holds_exactly(const std::filesystem::path& file, const std::string& text) {
  const Checked<std::string> existing = read_regular_file(file, text.size() + 1, "");
  return existing && existing.value() == text;
}

// What a judged exchange shows, for a not-reproduced listing.
std::string what_it_did(const Judgement& judged) {
  if (!judged.fails) return "agrees with the reference (" + judged.verdict + ")";
  std::string text = "adapter " + judged.answer;
  if (!judged.detail.empty()) text += " (" + judged.detail + ")";
  return text;
}

}  // namespace

std::size_t description_bytes(const BlockDescription& description) {
  std::size_t total = 0;
  for (const auto& t : description.tensors)
    total += t.name.size() + t.layout.size() + t.payload.size() + 8 * t.shape.size() + 64;
  return total;
}

std::size_t elements_bytes(std::size_t data_bytes, std::size_t rank, const std::vector<std::string>& elements) {
  std::size_t size = data_bytes + 8 * rank + 64;
  for (const auto& element : elements) size += element.size() + 32;
  return size;
}

std::optional<std::string> failed_exchange(const Exchange& exchange) {
  switch (exchange.kind) {
    case Exchange::Kind::kCrash: return "crashes";
    case Exchange::Kind::kTimeout: return "hangs";
    case Exchange::Kind::kProtocol: return "breaks the protocol";
    case Exchange::Kind::kReply: break;
  }
  return std::nullopt;
}

std::string signature(Operation op, const std::string& reference_verdict, const std::string& answer) {
  return std::string(to_string(op)) + ": reference " + reference_verdict + ", adapter " + answer;
}

std::string cited_rule(const std::string& rule) {
  return protocol::printable(rule.substr(0, kMaxAdapterRuleBytes));
}

std::optional<Judgement> judge_failed_exchange(Operation op, const std::string& verdict,
                                               const std::string& rule, const Exchange& exchange) {
  auto failed = failed_exchange(exchange);
  if (!failed) return std::nullopt;
  Judgement judgement;
  judgement.verdict = verdict;
  judgement.reference_rule = rule;
  judgement.answer = std::move(*failed);
  CaseResult as_run;
  as_run.status = status_of(exchange.kind);
  as_run.got = std::string(to_string(as_run.status));
  as_run.detail = exchange.detail;
  disagrees(judgement, op, as_run);
  judgement.slow = exchange.kind != Exchange::Kind::kProtocol;
  return judgement;
}

void disagrees(Judgement& judgement, Operation op, const CaseResult& result) {
  judgement.fails = true;
  judgement.signature = signature(op, judgement.verdict, judgement.answer);
  judgement.status = result.status;
  judgement.got = protocol::printable(protocol::bounded_message(result.got, 512));
  judgement.detail = protocol::printable(protocol::bounded_message(result.detail, 512));
}

FuzzerBase::FuzzerBase(const FuzzOptions& options, Driver& driver, DriverFactory fresh_driver,
                       std::ostream& out, std::ostream& err)
    : options_(options),
      out_(out),
      err_(err),
      rng_(static_cast<mutate::Random::result_type>(options.seed % 2147483646 + 1)),
      driver_(driver),
      fresh_driver_(std::move(fresh_driver)),
      // A stream of its own, so that repeating a request leaves the inputs of a seed as they were.
      repeat_rng_(static_cast<mutate::Random::result_type>((options.seed ^ 0x5bd1e995u) % 2147483646 + 1)) {}

std::uint64_t FuzzerBase::run(const std::vector<Operation>& ops) {
  const auto start = Clock::now();
  auto last_progress = start;
  const std::optional<double> seconds =
      options_.runs ? options_.seconds : options_.seconds.value_or(kDefaultFuzzSeconds);
  if (seconds)
    budget_.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*seconds));
  std::uint64_t inputs = 0;
  while ((!options_.runs || inputs < *options_.runs) && !budget_.spent() && !adapter_lost_ && !stop_requested_) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (!options_.quiet_progress && now - last_progress >= std::chrono::seconds(1)) {
      last_progress = now;
      out_ << "fuzz: " << inputs << " inputs, " << static_cast<std::uint64_t>(inputs / elapsed)
           << "/s, " << findings_.size() << " findings" << std::endl;
    }
    const Operation op = ops.size() == 1 ? ops.front() : ops[below(ops.size())];
    if (op == Operation::kDecode ? fuzz_decode() : fuzz_encode()) inputs_ = ++inputs;
  }
  return inputs;
}

std::size_t FuzzerBase::below(std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng_);
}

std::size_t FuzzerBase::pick_parent(std::size_t pool_size) {
  constexpr std::size_t kNewest = 32;
  if (pool_size > kNewest && below(2) == 0) return pool_size - 1 - below(kNewest);
  return below(pool_size);
}

bool FuzzerBase::novel(const std::vector<std::uint64_t>& seen) {
  bool any = false;
  for (std::uint64_t feature : seen)
    if (features_.size() < kMaxFeatures && features_.insert(feature).second) any = true;
  return any;
}

// ---- the run's adapter ----

bool FuzzerBase::wait_before_restart(std::size_t failures) {
  // 50 ms, doubling to 2 s: a loaded machine gets time, a dead adapter costs little.
  const auto delay = std::chrono::milliseconds(std::min<std::int64_t>(50ll << std::min<std::size_t>(failures - 1, 6), 2000));
  if (budget_.deadline) {
    if (Clock::now() + delay >= *budget_.deadline) return false;
  } else if (failures > 40) {  // --runs alone: about a minute of failed starts in a row
    return false;
  }
  std::this_thread::sleep_for(delay);
  return true;
}

std::optional<Exchange> FuzzerBase::exchange_main(const Request& request) {
  for (std::size_t failures = 1;; ++failures) {
    Exchange exchange = driver_.exchange(request);
    if (!exchange.not_started) {
      if (exchange.fresh) {
        history_.clear();
        history_bytes_ = 0;
        history_whole_ = true;
      }
      const std::size_t size = request_bytes(request);
      while (!history_.empty() &&
             (history_.size() >= kMaxHistoryRequests || history_bytes_ + size > kMaxHistoryBytes)) {
        history_bytes_ -= request_bytes(history_.front());
        history_.erase(history_.begin());
        history_whole_ = false;
      }
      history_.push_back(request);
      history_bytes_ += size;
      // A full history: the next request starts a fresh adapter, whose state the history covers.
      if (history_.size() >= kMaxHistoryRequests || history_bytes_ >= kMaxHistoryBytes) driver_.stop();
      return exchange;
    }
    // Adapter-blind (run's generated phase): the run's driver has its own limit
    // on failed starts, and the phase ends when it is reached. An abandoned
    // driver (a restart storm) sends nothing more: waiting would not help.
    if (options_.adapter_blind || !driver_.abandoned().empty() || !wait_before_restart(failures)) {
      adapter_lost_ = true;
      adapter_lost_reason_ = "the adapter could not be restarted (" + std::to_string(failures) +
                             " starts in a row failed; the last: " +
                             protocol::printable(protocol::bounded_message(exchange.detail, 512)) + ")";
      return std::nullopt;
    }
  }
}

std::optional<Judgement> FuzzerBase::send(const Request& request) {
  const auto draw_repeat = [this] {
    return std::uniform_int_distribution<std::uint64_t>(0, kRepeatOneIn - 1)(repeat_rng_) == 0;
  };
  // Adapter-blind: drawn for every input, so the same inputs are repeated for every adapter.
  const bool blind_repeat = options_.adapter_blind && draw_repeat();
  auto exchange = exchange_main(request);
  if (!exchange) return std::nullopt;
  Judgement judged = judge(request, *exchange);
  if (judged.fails) {
    const Confirmation confirmation = consider(request, judged);
    observe(request, judged, &confirmation);
    return judged;
  }
  // The same request again at once: an answer that depends on the request before
  // it (a cache, a buffer kept) shows here.
  if ((options_.adapter_blind ? blind_repeat : draw_repeat()) && !budget_.spent()) {
    if (auto again = exchange_main(request)) {
      Judgement second = judge(request, *again);
      if (second.fails) {
        second.detail = "sent twice in a row, the second answer: " + second.detail;
        const Confirmation confirmation = consider(request, second);
        observe(request, second, &confirmation);
        return judged;
      }
    }
  }
  observe(request, judged, nullptr);
  return judged;
}

// ---- confirmation ----

Checked<Judgement> FuzzerBase::judge_sequence(const std::vector<Request>& requests, Driver& driver) {
  std::optional<Judgement> last;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Exchange exchange = driver.exchange(requests[i]);
    if (exchange.not_started) return Failure(protocol::printable(protocol::bounded_message(exchange.detail, 512)));
    if (i + 1 == requests.size()) last = judge(requests[i], exchange);
  }
  if (!last) return Failure("no request to judge");
  return *last;
}

FuzzerBase::Replayed FuzzerBase::replay_fresh(const std::vector<Request>& requests,
                                              const std::string& signature) {
  Replayed result;
  const auto timeout = std::chrono::milliseconds(std::int64_t{options_.timeout_ms} * kConfirmTimeoutFactor);
  std::string problem;
  // A start that fails is tried again a few times: confirming must not hinge on one start.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    auto driver = fresh_driver_(timeout);
    result.calls += requests.size();
    auto judged = judge_sequence(requests, *driver);
    if (judged) {
      result.last = std::move(judged).value();
      result.reproduced = result.last.fails && result.last.signature == signature;
      return result;
    }
    problem = std::move(judged).error();
  }
  result.started = false;
  result.last.detail = problem;
  return result;
}

FuzzerBase::Confirmation FuzzerBase::consider(const Request& request, const Judgement& found) {
  if (const auto it = confirmed_.find(found.signature); it != confirmed_.end())
    return Confirmation{it->second, true, {}};
  std::size_t& tried = attempts_[found.signature];
  if (tried >= kMaxConfirmAttempts)
    return Confirmation{std::nullopt, false,
                        "not replayed: " + std::to_string(kMaxConfirmAttempts) +
                            " earlier inputs of this disagreement did not reproduce in a fresh adapter"};
  if (options_.max_confirmations && confirmations_ >= *options_.max_confirmations)
    return Confirmation{std::nullopt, false,
                        "not replayed: " + std::to_string(confirmations_) +
                            " other disagreements were replayed first, the most one run replays"};
  ++tried;
  ++confirmations_;
  // The requests this adapter process had before this one (the last in history).
  std::vector<Request> before;
  if (!history_.empty()) before.assign(history_.begin(), history_.end() - 1);
  return confirm_and_keep(request, found, std::move(before));
}

Request FuzzerBase::smaller_if_reproduced(const Request& request, const Judgement& found,
                                          const std::function<bool(const Request&)>& still_fails,
                                          std::string& note) {
  const Request smallest = minimize(request, still_fails, kMinimizeBudget);
  if (smallest == request) return request;
  const std::string before_size = size_of(request), after_size = size_of(smallest);
  note = before_size == after_size ? "simplified (still " + after_size + ")"
                                   : "minimized from " + before_size + " to " + after_size;
  if (!replay_fresh({smallest}, found.signature).reproduced) {
    note += ", which did not reproduce in a fresh adapter: the case keeps the input as found";
    return request;
  }
  note += " (reproduced in a fresh adapter)";
  return smallest;
}

FuzzerBase::Confirmation FuzzerBase::keep_minimized(const Request& request, const Judgement& found) {
  std::unique_ptr<Driver> minimizing = fresh_driver_(std::chrono::milliseconds(options_.timeout_ms));
  std::size_t slow_candidates = 0;
  const auto still_fails = [&](const Request& candidate) {
    if (slow_candidates >= kMinimizeBudgetSlow) return false;
    const Exchange exchange = minimizing->exchange(candidate);
    if (exchange.not_started) return false;
    const Judgement again = judge(candidate, exchange);
    if (again.slow) ++slow_candidates;
    return again.fails && again.signature == found.signature;
  };
  std::string shrunk;
  const Request kept = smaller_if_reproduced(request, found, still_fails, shrunk);
  minimizing.reset();
  FuzzFinding finding;
  finding.op = operation_of(kept);
  finding.signature = found.signature;
  if (!write_case(finding, finding_case(kept, finding_id(kept), found), false))
    return Confirmation{std::nullopt, false, "reproduced in a fresh adapter, but its case could not be written"};
  findings_.push_back(finding);
  confirmed_[found.signature] = findings_.size() - 1;
  report(findings_.back(), "confirmed in a fresh adapter" + (shrunk.empty() ? std::string() : "; " + shrunk));
  return Confirmation{findings_.size() - 1, false, {}};
}

FuzzerBase::Confirmation FuzzerBase::confirm_and_keep(const Request& request, const Judgement& found,
                                                      std::vector<Request> before) {
  const Replayed alone = replay_fresh({request}, found.signature);
  if (alone.reproduced) {
    if (options_.adapter_blind) return keep_minimized(request, found);
    FuzzFinding finding;
    finding.op = operation_of(request);
    finding.signature = found.signature;
    if (!write_case(finding, finding_case(request, finding_id(request), found), false))
      return Confirmation{std::nullopt, false, "reproduced in a fresh adapter, but its case could not be written"};
    const std::size_t index = findings_.size();
    findings_.push_back(finding);
    confirmed_[found.signature] = index;
    report(findings_[index], "confirmed in a fresh adapter");

    // Smaller, while the same disagreement persists and the budget lasts; a
    // candidate that hangs or crashes costs a timeout or a restart, so few of them.
    std::size_t slow_candidates = 0;
    const auto still_fails = [&](const Request& candidate) {
      if (budget_.spent() || slow_candidates >= kMinimizeBudgetSlow || adapter_lost_) return false;
      const auto exchange = exchange_main(candidate);
      if (!exchange) return false;
      const Judgement again = judge(candidate, *exchange);
      if (again.slow) ++slow_candidates;
      return again.fails && again.signature == found.signature;
    };
    std::string shrunk;
    const Request smallest = smaller_if_reproduced(request, found, still_fails, shrunk);
    if (smallest == request) {
      if (!shrunk.empty()) {
        out_ << "    " << shrunk << "\n";
        out_.flush();
      }
      return Confirmation{index, false, {}};
    }
    FuzzFinding& kept = findings_[index];
    if (write_case(kept, finding_case(smallest, kept.test_case.id, found), true)) {
      out_ << "    " << shrunk << ": " << kept.file.string() << " rewritten\n";
      for (const auto& problem : kept.check_problems)
        out_ << "    cases check: " << protocol::printable(problem) << "\n";
      out_.flush();
    }
    return Confirmation{index, false, {}};
  }
  std::string replayed = "alone in a fresh adapter: " +
                         (alone.started ? what_it_did(alone.last)
                                        : "no fresh adapter could be started (" + alone.last.detail + ")");
  if (alone.started && !before.empty()) {
    if (budget_.spent()) {
      replayed += "; the budget ended before the " + std::to_string(before.size()) +
                  " requests before it could be replayed";
    } else {
      std::vector<Request> sequence = before;
      sequence.push_back(request);
      const Replayed after = replay_fresh(sequence, found.signature);
      if (after.reproduced) {
        sequence = shortest_prefix(std::move(before), request, found.signature);
        sequence.push_back(request);
        return keep_state_dependent(sequence, found);
      }
      replayed += "; after the " + std::to_string(before.size()) + " requests before it" +
                  (history_whole_ ? "" : " (the last of more since the adapter started)") + ": " +
                  (after.started ? what_it_did(after.last) : "no fresh adapter could be started");
    }
  }
  return not_reproduced(found, replayed);
}

std::vector<Request> FuzzerBase::shortest_prefix(std::vector<Request> prefix, const Request& last,
                                                 const std::string& signature) {
  std::size_t calls = 0;
  const auto reproduces = [&](const std::vector<Request>& candidate) {
    if (candidate.empty() || calls >= kPrefixShrinkCalls || budget_.spent()) return false;
    std::vector<Request> sequence = candidate;
    sequence.push_back(last);
    const Replayed replayed = replay_fresh(sequence, signature);
    calls += replayed.calls;
    return replayed.reproduced;
  };
  // The shortest tail first: what a reader keeps is most often from the last request or few.
  for (std::size_t k = 1; k < prefix.size(); k *= 2) {
    std::vector<Request> tail(prefix.end() - static_cast<std::ptrdiff_t>(k), prefix.end());
    if (reproduces(tail)) {
      prefix = std::move(tail);
      break;
    }
  }
  // Then runs of requests dropped, halving the run's length (delta debugging).
  for (std::size_t run = std::max<std::size_t>(prefix.size() / 2, 1); run >= 1 && prefix.size() > 1;) {
    bool dropped = false;
    for (std::size_t at = 0; at < prefix.size() && prefix.size() > 1;) {
      std::vector<Request> candidate = prefix;
      const auto from = candidate.begin() + static_cast<std::ptrdiff_t>(at);
      candidate.erase(from, from + static_cast<std::ptrdiff_t>(std::min(run, prefix.size() - at)));
      if (reproduces(candidate)) {
        prefix = std::move(candidate);
        dropped = true;
      } else {
        at += run;
      }
    }
    if (calls >= kPrefixShrinkCalls || budget_.spent()) break;
    if (!dropped) {
      if (run == 1) break;
      run /= 2;
    } else {
      run = std::min(run, std::max<std::size_t>(prefix.size() / 2, 1));
    }
  }
  return prefix;
}

namespace {

// " --profile NAME" for a command line, or nothing for the default profile.
std::string profile_option(const std::string& profile) {
  return profile == all_profiles().front()->name() ? std::string() : " --profile " + profile;
}

}  // namespace

// ---- the files ----

std::string FuzzerBase::found_by() const {
  // The phase says which run; the input's number says where in its sequence.
  if (!options_.found_by.empty()) return options_.found_by + ", input " + std::to_string(inputs_ + 1);
  const std::string profile = profile_option(options_.profile);
  return options_.program + " fuzz" + profile + " --adapter " + shell_quote(options_.adapter) +
         " --seed " + std::to_string(options_.seed) + " --timeout-ms " + std::to_string(options_.timeout_ms);
}

std::string FuzzerBase::replay_command(const FuzzFinding& finding, bool hangs) const {
  // A hang was confirmed at the longer limit: the replay waits as long, and no longer.
  const int timeout = hangs ? options_.timeout_ms * kConfirmTimeoutFactor : options_.timeout_ms;
  const std::string limit = " --timeout-ms " + std::to_string(timeout);
  if (finding.state_dependent)
    return options_.program + " replay --adapter " + shell_quote(options_.adapter) + limit + " " +
           shell_quote(finding.file.string());
  const std::string profile = profile_option(options_.profile);
  return options_.program + " run --cases " + shell_quote(options_.out_dir.string()) + " --filter " +
         finding.test_case.id + profile + " --adapter " + shell_quote(options_.adapter) + limit;
}

bool FuzzerBase::write_case(FuzzFinding& finding, const Case& test_case, bool improving) {
  Checked<void> written;  // the finding's file, or why it was not written
  const auto text_of = [this](const FuzzFinding& kept) {
    return case_yaml(kept.test_case, {"Found by: " + found_by(), "Replay: " + kept.replay});
  };
  if (!improving && options_.adapter_blind) {
    // The same run again finds the same case: a file that holds exactly it
    // already is the finding's, neither replaced nor written twice.
    FuzzFinding same = finding;
    same.test_case = test_case;
    same.file = options_.out_dir / (test_case.id + ".yaml");
    same.replay = replay_command(same, same.signature.ends_with("hangs"));
    if (holds_exactly(same.file, text_of(same))) {
      finding = std::move(same);
      finding.check_problems = check_case_file(finding.file);
      return true;
    }
  }
  if (!improving) {
    // A name of its own: nothing already in the folder is replaced, and the id follows the name.
    written = make_output_dir(options_.out_dir);
    std::string stem;
    if (written) {
      finding.file = free_name(options_.out_dir, test_case.id, ".yaml", stem);
      if (finding.file.empty()) written = Failure("no free name for " + test_case.id + " in " + options_.out_dir.string());
    }
    finding.test_case = test_case;
    finding.test_case.id = stem;
  } else {
    const std::string id = finding.test_case.id;
    finding.test_case = test_case;
    finding.test_case.id = id;
  }
  if (written) {
    finding.replay = replay_command(finding, finding.signature.ends_with("hangs"));
    const std::string text = text_of(finding);
    written = improving ? replace_own_file(finding.file, text) : create_new_file(finding.file, text);
  }
  if (!written) {
    err_ << "fuzz: the finding \"" << protocol::printable(finding.signature) << "\" was not written: "
         << protocol::printable(written.error()) << "\n";
    err_.flush();
    write_failed_ = true;
    return false;
  }
  finding.check_problems = check_case_file(finding.file);
  return true;
}

void FuzzerBase::report(const FuzzFinding& finding, const std::string& note) {
  out_ << "FINDING " << findings_.size() << ": " << protocol::printable(finding.signature)
       << (finding.state_dependent ? " (state-dependent)" : "") << "\n"
       << "    " << (finding.state_dependent ? "requests: " : "case:   ") << finding.file.string() << " ("
       << note << ")\n"
       << "    replay: " << protocol::printable(finding.replay) << "\n";
  for (const auto& problem : finding.check_problems)
    out_ << "    cases check: " << protocol::printable(problem) << "\n";
  out_.flush();
}

FuzzerBase::Confirmation FuzzerBase::keep_state_dependent(const std::vector<Request>& requests,
                                                          const Judgement& found) {
  FuzzFinding finding;
  finding.op = operation_of(requests.back());
  finding.signature = found.signature;
  finding.state_dependent = true;
  finding.requests = requests.size();
  finding.test_case = finding_case(requests.back(), finding_id(requests.back()), found);
  const std::string name = finding.test_case.id + "-after-" + std::to_string(requests.size() - 1);
  // One header line that says what the file is and how to replay it, then the
  // requests exactly as they were sent.
  const auto text_of = [&](const FuzzFinding& kept) {
    protocol::Json header;
    header["kiln_conformance_requests"] = 1;
    header["profile"] = options_.profile;
    header["signature"] = found.signature;
    header["found_by"] = found_by();
    header["replay"] = kept.replay;
    std::string text = header.dump() + "\n";
    // Numbers, whatever the adapter's hello said: replay reads either form and
    // sends the requests in the form its own adapter asks for.
    for (const Request& request : requests) text += protocol::request_to_json(request).dump() + "\n";
    return text;
  };
  Checked<void> written = make_output_dir(options_.out_dir);  // or why the file was not written
  bool reused = false;
  if (written && options_.adapter_blind) {
    // As for a case: the same run again reuses the file that holds exactly this.
    FuzzFinding same = finding;
    same.file = options_.out_dir / (name + ".requests.jsonl");
    same.replay = replay_command(same, found.signature.ends_with("hangs"));
    if (holds_exactly(same.file, text_of(same))) {
      finding = std::move(same);
      reused = true;
    }
  }
  std::string stem;
  if (written && !reused) {
    finding.file = free_name(options_.out_dir, name, ".requests.jsonl", stem);
    if (finding.file.empty()) written = Failure("no free name in " + options_.out_dir.string());
  }
  if (written && !reused) {
    finding.replay = replay_command(finding, found.signature.ends_with("hangs"));
    written = create_new_file(finding.file, text_of(finding));
  }
  if (!written) {
    err_ << "fuzz: the finding \"" << protocol::printable(found.signature) << "\" was not written: "
         << protocol::printable(written.error()) << "\n";
    write_failed_ = true;
    return Confirmation{std::nullopt, false, "reproduced in a fresh adapter after the requests before it, "
                                             "but its request file could not be written"};
  }
  findings_.push_back(finding);
  confirmed_[found.signature] = findings_.size() - 1;
  report(findings_.back(), "reproduced in a fresh adapter only after the " +
                               std::to_string(requests.size() - 1) + " request(s) before it, kept shortened");
  return Confirmation{findings_.size() - 1, false, {}};
}

FuzzerBase::Confirmation FuzzerBase::not_reproduced(const Judgement& found, const std::string& replayed) {
  NotReproduced listed{found.signature, "adapter " + found.answer + (found.detail.empty() ? "" : " (" + found.detail + ")"),
                       replayed};
  out_ << "NOT REPRODUCED: " << protocol::printable(listed.signature) << "\n"
       << "    seen:     " << protocol::printable(listed.seen) << "\n"
       << "    replayed: " << protocol::printable(listed.replayed) << "\n";
  out_.flush();
  not_reproduced_.push_back(std::move(listed));
  return Confirmation{std::nullopt, false, "did not reproduce: " + replayed};
}

}  // namespace kiln::conformance::fuzzing
