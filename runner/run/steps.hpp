// The steps of run_suite (run.cpp) that live in files of their own: what the
// run plans, the adapter's session, and the certificate (certify.cpp) and the
// console's lines (console.cpp) made of them. Private to the runner.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/run.hpp"

namespace kiln::conformance::run_steps {

// What the run will do, and what a run of the whole case set would: the
// certificate compares the two.
struct Plan {
  ExpectedFailures expected;          // records, as the run goes, which entries it used
  std::set<Operation> ops;            // `--ops decode,decode` is a decode-only run
  std::vector<const Case*> chosen;    // into the case set, which outlives the plan
  std::size_t planned = 0;            // the results this run will have
  std::size_t every_case_check = 0;   // the results of the cases a whole run has
  std::size_t largest_block = 0;
  bool filtered = false;

  bool wanted(Operation op) const { return ops.count(op) != 0; }
};

// What the run keeps of the adapter's text in its results (got, detail,
// stderr): each in full up to the protocol's bound until the run has kept
// kKeptTextPerRun bytes (as reports write them) in all, then an excerpt. So
// neither the run's memory nor its reports grow with what an adapter writes.
class KeptText {
 public:
  void bound(CaseResult& result);

 private:
  std::size_t spent_ = 0;
};

// The adapter once it has said hello (or failed to).
struct Session {
  std::unique_ptr<Driver> driver;
  std::optional<protocol::Hello> hello;
  std::string hello_problem;    // why there is no hello
  bool other_protocol = false;  // its replies cannot be read as protocol 1's
  std::string who;              // name and version, one line, for the certificate
  std::string abandoned;        // why the driver stopped sending requests (empty: it did not)
  KeptText kept_text;
};

struct Certificate {
  std::string text;
  int exit_code = kExitFailures;
};

// Counts a result in the totals by its verdict.
void add_to(Totals& totals, const CaseResult& result);

// The certificate and the exit status, the first reason that applies winning.
Certificate certify(const Plan& plan, const Session& session, const std::vector<CaseResult>& results,
                    const Totals& totals, const std::vector<GeneratedPhase>& phases);

// One result as the console shows it, with its replay line.
void print_result(std::ostream& out, const RunOptions& options, const CaseResult& result);
// The topic table, the profile table, the phases, the certificate and the closing counts.
void print_closing(std::ostream& out, const RunSummary& summary);

}  // namespace kiln::conformance::run_steps
