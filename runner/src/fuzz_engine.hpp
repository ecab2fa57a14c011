// What every profile's fuzzer of `kiln-conformance fuzz` shares (fuzz.cpp for
// kiln-v2, fuzz_elements.cpp for hurray-elements): the budget loop, the random
// choices, novelty, deduplication by signature, and writing each finding as a
// case file. A profile's fuzzer supplies its inputs, oracle and minimizer.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance::fuzzing {

// Bounds on what a run keeps: the inputs it mutates from, the features it has
// seen, and the adapter calls one minimization may make (a hang costs a
// timeout each, so it gets few).
inline constexpr std::size_t kMaxPoolBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxPoolEntries = 100000;
inline constexpr std::size_t kMaxFeatures = std::size_t{1} << 20;
inline constexpr std::size_t kMinimizeBudget = 2000;
inline constexpr std::size_t kMinimizeBudgetSlow = 8;  // crashes restart, hangs wait: few tries
inline constexpr std::size_t kMaxAdapterRuleBytes = 64;

// A small integer's bit length: the bucket of a count or a length.
inline std::uint64_t bucket(std::uint64_t value) {
  return value == 0 ? 0 : 64 - static_cast<std::uint64_t>(__builtin_clzll(value));
}

inline std::uint64_t mix(std::uint64_t seed, std::uint64_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
  return seed;
}

// What the adapter answered, and whether it disagrees with the reference.
struct Judgement {
  bool fails = false;
  std::string signature;
  std::optional<std::string> adapter_rule;
};

// The answer of an exchange that brought no reply ("crashes", "hangs", "breaks
// the protocol"); nothing for a reply.
std::optional<std::string> failed_exchange(const Exchange& exchange);
// The dedup key: "<op>: reference <verdict>, adapter <answer>".
std::string signature(Operation op, const std::string& reference_verdict, const std::string& answer);
// The rule an adapter's reject cites, bounded and printable.
std::string cited_rule(const std::string& rule);

class FuzzerBase {
 public:
  FuzzerBase(const FuzzOptions& options, Driver& driver, std::ostream& out, std::ostream& err);
  virtual ~FuzzerBase() = default;

  // Runs until the budget is spent; returns the number of inputs tried.
  std::uint64_t run(const std::vector<Operation>& ops);

  std::vector<FuzzFinding>& findings() { return findings_; }
  bool write_failed() const { return write_failed_; }

 protected:
  // One input of the op, tried and judged; false when none was tried.
  virtual bool fuzz_decode() = 0;
  virtual bool fuzz_encode() = 0;

  std::size_t below(std::size_t bound);
  // Half the time one of the newest pool entries: what just opened a new
  // combination is built on while it is new, as a coverage fuzzer's queue does.
  std::size_t pick_parent(std::size_t pool_size);
  // Whether any feature is new (each is remembered).
  bool novel(const std::vector<std::uint64_t>& seen);
  // The first finding of its signature: later ones are the same bug.
  bool first_of_its_kind(const std::string& found) { return seen_.insert(found).second; }

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

  static bool slow(const std::string& found) {
    return found.ends_with("crashes") || found.ends_with("hangs");
  }
  static std::size_t minimize_budget(const Judgement& found) {
    return slow(found.signature) ? kMinimizeBudgetSlow : kMinimizeBudget;
  }
  static std::string summary_of(const Judgement& found) {
    return "found by kiln-conformance fuzz: " + found.signature;
  }

  // Writes the finding's case to the output folder, checks it as `cases check`
  // would, and reports it.
  void record(Operation op, const Judgement& found, Case test_case, const std::string& shrunk);

  const FuzzOptions& options_;
  Driver& driver_;
  std::ostream& out_;
  std::ostream& err_;
  mutate::Random rng_;
  std::size_t pool_bytes_ = 0;

 private:
  std::unordered_set<std::uint64_t> features_;
  std::set<std::string> seen_;
  std::vector<FuzzFinding> findings_;
  bool write_failed_ = false;
};

// The hurray-elements fuzzer (fuzz_elements.cpp), seeded from the set's hurray
// cases if it has any; hello's Tier 2 types decide what the reference expects.
std::unique_ptr<FuzzerBase> make_elements_fuzzer(const FuzzOptions& options, Driver& driver,
                                                 const protocol::Hello& hello, const CaseSet& set,
                                                 std::ostream& out, std::ostream& err);

}  // namespace kiln::conformance::fuzzing
