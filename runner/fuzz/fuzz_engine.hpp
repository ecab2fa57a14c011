// What every profile's fuzzer of `kiln-conformance fuzz` shares (each is
// profiles/<profile>/fuzzer.cpp): the budget loop, the random
// choices, novelty, deduplication by signature, restarts with backoff, and a
// finding's way from first sight to a file: confirmed in a fresh adapter (alone,
// or after the requests that preceded it), written at once, minimized within the
// budget and improved in place. A profile's fuzzer supplies its inputs, its
// judge (the reference's answer against the adapter's), its minimizer and the
// case it writes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance::fuzzing {

// Bounds on what a run keeps: the inputs it mutates from, the features it has
// seen, and the adapter calls one minimization may make (a hang costs a
// timeout each, a crash a restart: few of those).
inline constexpr std::size_t kMaxPoolBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxPoolEntries = 100000;
inline constexpr std::size_t kMaxFeatures = std::size_t{1} << 20;
inline constexpr std::size_t kMinimizeBudget = 2000;
inline constexpr std::size_t kMinimizeBudgetSlow = 8;  // candidates that hang or crash
inline constexpr std::size_t kMaxAdapterRuleBytes = 64;
// A confirmation waits this many times --timeout-ms: a slow reply on a loaded
// machine is not a hang.
inline constexpr int kConfirmTimeoutFactor = 5;
// The requests remembered since the adapter's last start, for a finding that
// needs them (a reader that keeps state), and the adapter calls spent on
// shortening them.
// The run's adapter is restarted when its history is full, so that the history
// always holds everything a finding could depend on.
inline constexpr std::size_t kMaxHistoryRequests = 1024;
inline constexpr std::size_t kMaxHistoryBytes = std::size_t{16} << 20;
inline constexpr std::size_t kPrefixShrinkCalls = 4000;
// What fuzz writes, replay reads back.
static_assert(kMaxHistoryRequests < kMaxReplayRequests);
static_assert(2 * kMaxHistoryBytes + 64 * kMaxHistoryRequests < kMaxReplayFileBytes);
// A signature is confirmed at most this many times before it is let be.
inline constexpr std::size_t kMaxConfirmAttempts = 3;
// One in this many requests is sent twice in a row (a reader that keeps state).
inline constexpr std::uint64_t kRepeatOneIn = 16;

// A small integer's bit length: the bucket of a count or a length.
inline std::uint64_t bucket(std::uint64_t value) {
  return value == 0 ? 0 : 64 - static_cast<std::uint64_t>(__builtin_clzll(value));
}

inline std::uint64_t mix(std::uint64_t seed, std::uint64_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
  return seed;
}

// What the reference says of an input, what the adapter answered, and whether
// they disagree.
struct Judgement {
  bool fails = false;
  std::string verdict;    // the reference's: "accepts", "rejects TYPE (TYPE-BOOL-VALUE)"
  std::string reference_rule;  // the rule the reference's reject names; empty when it accepts
  std::string answer;     // the adapter's, when it fails: "accepts", "crashes", ...
  std::string signature;  // the dedup key, when it fails
  std::optional<std::string> adapter_rule;
  std::string detail;     // what went wrong in the exchange (a crash, a hang), for evidence
  bool slow = false;      // the exchange hung or crashed: it cost a timeout or a restart
  // As `run` records the exchange, when it fails: FAIL, CRASH, TIMEOUT or
  // PROTOCOL, and what came back ("reject FRAME (FRAME-MAGIC)", "CRASH").
  Status status = Status::kPass;
  std::string got;
};

// What an input costs to keep (the pools' and the history's bounds): its bytes,
// and a little per tensor, dimension and element.
std::size_t description_bytes(const BlockDescription& description);
std::size_t elements_bytes(std::size_t data_bytes, std::size_t rank, const std::vector<std::string>& elements);

// The answer of an exchange that brought no reply ("crashes", "hangs", "breaks
// the protocol"); nothing for a reply.
std::optional<std::string> failed_exchange(const Exchange& exchange);
// The dedup key: "<op>: reference <verdict>, adapter <answer>".
std::string signature(Operation op, const std::string& reference_verdict, const std::string& answer);
// The rule an adapter's reject cites, bounded and printable.
std::string cited_rule(const std::string& rule);
// Makes judgement (its verdict and answer set) a disagreement, as `run` judged
// the reply (result): fails, its signature, status, got and detail (why),
// bounded and printable.
void disagrees(Judgement& judgement, Operation op, const CaseResult& result);
// The judgement of an exchange that brought no reply, or nullopt for a reply;
// rule is the reference's (empty: it accepts).
std::optional<Judgement> judge_failed_exchange(Operation op, const std::string& verdict,
                                               const std::string& rule, const Exchange& exchange);

// DriverFactory, a fresh driver with a timeout, is the registry's
// (kiln/conformance/profile_registry.hpp): a profile's fuzzer factory takes one.

// Either the budget's end, or none (--runs alone).
struct Budget {
  std::optional<Clock::time_point> deadline;
  bool spent() const { return deadline && Clock::now() >= *deadline; }
};

class FuzzerBase {
 public:
  FuzzerBase(const FuzzOptions& options, Driver& driver, DriverFactory fresh_driver,
             std::ostream& out, std::ostream& err);
  virtual ~FuzzerBase() = default;

  // Runs until the budget is spent; returns the number of inputs tried.
  std::uint64_t run(const std::vector<Operation>& ops);

  // The requests sent in order through driver, the last one judged (replay);
  // the problem when the adapter could not be started.
  Checked<Judgement> judge_sequence(const std::vector<protocol::Request>& requests, Driver& driver);

  // What became of a disagreement: the finding it is written as, or why none is.
  struct Confirmation {
    std::optional<std::size_t> finding;  // into findings()
    bool earlier = false;  // the finding was written for an earlier input of the same disagreement
    std::string note;      // why there is no finding (it did not reproduce, ...)
  };
  // Told of every input judged, in order (run's generated phase): the request,
  // its judgement (the repeat's when only the request sent again failed) and,
  // for a disagreement, what became of it.
  using CheckObserver =
      std::function<void(const protocol::Request&, const Judgement&, const Confirmation*)>;
  void observe_checks(CheckObserver observer) { observer_ = std::move(observer); }

  // Ends run() before its next input (an observer that has seen enough).
  void stop() { stop_requested_ = true; }
  // The inputs tried so far: the one being judged is number inputs() + 1.
  std::uint64_t inputs() const { return inputs_; }

  std::vector<FuzzFinding>& findings() { return findings_; }
  std::vector<NotReproduced>& not_reproduced() { return not_reproduced_; }
  bool write_failed() const { return write_failed_; }
  // The adapter stopped starting and stayed down until the budget ended.
  bool adapter_lost() const { return adapter_lost_; }
  const std::string& adapter_lost_reason() const { return adapter_lost_reason_; }

  // ---- what a profile supplies ----

  // The reference's verdict on the request and the adapter's exchange judged.
  virtual Judgement judge(const protocol::Request& request, const Exchange& exchange) = 0;

 protected:
  // One input of the op, tried (through send) and judged; false when none was tried.
  virtual bool fuzz_decode() = 0;
  virtual bool fuzz_encode() = 0;
  // The smallest request that still_fails holds for, within budget calls.
  virtual protocol::Request minimize(const protocol::Request& request,
                                     const std::function<bool(const protocol::Request&)>& still_fails,
                                     std::size_t budget) = 0;
  // The case a finding's request is written as, and the id it gets.
  virtual Case finding_case(const protocol::Request& request, const std::string& id,
                            const Judgement& found) = 0;
  virtual std::string finding_id(const protocol::Request& request) = 0;
  // "4608 bytes", "3 tensors": what minimization shrinks, for its report line.
  virtual std::string size_of(const protocol::Request& request) = 0;

  // ---- for the profile ----

  // Sends the request through the run's adapter and judges the reply; a
  // disagreement goes on to be confirmed, written and minimized. nullopt when
  // the adapter could not be started before the budget ended (nothing tried).
  std::optional<Judgement> send(const protocol::Request& request);

  std::size_t below(std::size_t bound);
  // The verdict an input's novelty is keyed by: the reference's, and (unless the
  // run is adapter-blind) whether the adapter failed it.
  std::string novelty_verdict(const Judgement& judged) const {
    return judged.verdict + (!options_.adapter_blind && judged.fails ? " x" : "");
  }
  // The line a written case's description holds: what found it, and how it failed.
  std::string summary_of(const Judgement& found) const {
    return std::string(options_.adapter_blind ? "found by the generated phase of kiln-conformance run: "
                                              : "found by kiln-conformance fuzz: ") +
           found.signature;
  }
  // Half the time one of the newest pool entries: what just opened a new
  // combination is built on while it is new, as a coverage fuzzer's queue does.
  std::size_t pick_parent(std::size_t pool_size);
  // Whether any feature is new (each is remembered).
  bool novel(const std::vector<std::uint64_t>& seen);

  template <class T>
  void add_to_pool(std::vector<T>& pool, T item, std::size_t size) {
    if (pool_bytes_ + size > kMaxPoolBytes || pool.size() >= kMaxPoolEntries) {
      T& replaced = pool[below(pool.size())];  // a random one gives way
      replaced = std::move(item);
      return;
    }
    pool_bytes_ += size;
    pool.push_back(std::move(item));
  }

  const FuzzOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  mutate::Random rng_;
  std::size_t pool_bytes_ = 0;

 private:
  struct Replayed {
    bool reproduced = false;
    bool started = true;  // false: no fresh adapter could be started
    Judgement last;       // the last request's judgement
    std::size_t calls = 0;
  };

  // One exchange with the run's adapter: a start that fails is retried with
  // backoff while the budget lasts; the request joins the history.
  std::optional<Exchange> exchange_main(const protocol::Request& request);
  // The requests in order to a fresh adapter; the last one judged.
  Replayed replay_fresh(const std::vector<protocol::Request>& requests, const std::string& signature);
  Confirmation consider(const protocol::Request& request, const Judgement& found);
  Confirmation confirm_and_keep(const protocol::Request& request, const Judgement& found,
                                std::vector<protocol::Request> history);
  // Adapter-blind: minimized in a fresh adapter of its own (the run's adapter
  // gets the sequence and nothing else), confirmed, then written once.
  Confirmation keep_minimized(const protocol::Request& request, const Judgement& found);
  // Minimizes through still_fails; the smaller request when it reproduces in a
  // fresh adapter too, else request; note says which.
  protocol::Request smaller_if_reproduced(const protocol::Request& request, const Judgement& found,
                                          const std::function<bool(const protocol::Request&)>& still_fails,
                                          std::string& note);
  std::vector<protocol::Request> shortest_prefix(std::vector<protocol::Request> prefix,
                                                 const protocol::Request& last,
                                                 const std::string& signature);
  // The files: a case (replaced in place when improved), or a request file.
  std::string replay_command(const FuzzFinding& finding, bool hangs) const;
  std::string found_by() const;
  bool write_case(FuzzFinding& finding, const Case& test_case, bool improving);
  void report(const FuzzFinding& finding, const std::string& note);
  Confirmation keep_state_dependent(const std::vector<protocol::Request>& requests, const Judgement& found);
  Confirmation not_reproduced(const Judgement& found, const std::string& replayed);
  void observe(const protocol::Request& request, const Judgement& judged, const Confirmation* confirmation) {
    if (observer_) observer_(request, judged, confirmation);
  }
  bool wait_before_restart(std::size_t failures);

  Driver& driver_;
  DriverFactory fresh_driver_;
  Budget budget_;
  mutate::Random repeat_rng_;
  std::vector<protocol::Request> history_;  // requests since the adapter's last start
  std::size_t history_bytes_ = 0;
  bool history_whole_ = true;  // false: requests since the start were dropped (an in-process adapter)
  std::unordered_set<std::uint64_t> features_;
  std::map<std::string, std::size_t> confirmed_;  // signatures with a finding, and its index
  std::uint64_t inputs_ = 0;                      // tried so far: the next one's number less one
  CheckObserver observer_;
  bool stop_requested_ = false;
  std::map<std::string, std::size_t> attempts_;   // confirmations tried per signature
  std::size_t confirmations_ = 0;                 // tried in all
  std::vector<FuzzFinding> findings_;
  std::vector<NotReproduced> not_reproduced_;
  bool write_failed_ = false;
  bool adapter_lost_ = false;
  std::string adapter_lost_reason_;
};

// The fuzzer of options.profile, as the profile registry makes it
// (profiles/registry.hpp); seeds: the case set, or nullptr. nullptr for a
// profile without a fuzzer (the callers refuse such a profile first).
std::unique_ptr<FuzzerBase> make_fuzzer(const FuzzOptions& options, Driver& driver, DriverFactory fresh,
                                        const protocol::Hello& hello, const CaseSet* seeds, std::ostream& out,
                                        std::ostream& err);

}  // namespace kiln::conformance::fuzzing
