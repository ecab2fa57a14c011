// The suite against every mutant, over the process protocol: each must fail at
// least one case (be killed), and the control (the same pipeline with no bug)
// must pass every one. Prints the kill table to the test output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/conformance/run.hpp"
#include "kiln/mutants.hpp"
#include "program_run.hpp"

namespace kiln::mutants {
namespace {

using conformance::CaseResult;
using conformance::Status;

// Loaded once for every mutant: reading and validating the case files is most
// of a run's time, and 160 runs of it dominate the sanitizer build's CI time.
const conformance::CaseSet& case_set() {
  static const conformance::CaseSet set = conformance::load_case_set(KILN_CASES_DIR);
  return set;
}

// A mutant is killed by its first failing result; the table shows three, so a
// run stops there rather than go through every case (the control runs whole).
constexpr std::size_t kFailuresShown = 3;

conformance::RunSummary run_against(const std::string& arguments, std::size_t max_failures = 0) {
  conformance::RunOptions options;
  options.max_failures = max_failures;
  options.cases_dir = KILN_CASES_DIR;
  options.adapter = std::string("'") + KILN_MUTANT_ADAPTER + "' " + arguments;
  options.quiet_progress = true;
  std::ostringstream out, err;
  auto summary = conformance::run_suite(options, case_set(), out, err);
  if (!err.str().empty()) ADD_FAILURE() << arguments << ": " << err.str();
  return summary;
}

std::vector<const CaseResult*> failures(const conformance::RunSummary& summary) {
  std::vector<const CaseResult*> failed;
  for (const CaseResult& result : summary.results)
    if (result.status != Status::kPass && result.status != Status::kSkip) failed.push_back(&result);
  return failed;
}

using Program = kiln::testing::ProgramRun;

Program run_program(const std::string& arguments) {
  return kiln::testing::run_shell_command(std::string("'") + KILN_MUTANT_ADAPTER + "' " +
                                          arguments + " < /dev/null 2>/dev/null");
}

TEST(MutantCatalogue, HoldsTheDocumentedMutantsUniquelyNamed) {
  std::set<std::string_view> names;
  for (const Mutant& mutant : catalogue()) {
    EXPECT_TRUE(names.insert(mutant.name).second) << "duplicate mutant " << mutant.name;
    EXPECT_FALSE(mutant.description.empty()) << mutant.name;
    EXPECT_EQ(find_mutant(mutant.name), &mutant);
  }
  // The catalogue the README's kill table lists; a mutant lost by accident fails here.
  EXPECT_EQ(catalogue().size(), 160u);
  EXPECT_EQ(find_mutant("no-such-mutant"), nullptr);
}

std::size_t family_size(std::string_view family) {
  return static_cast<std::size_t>(std::count_if(
      catalogue().begin(), catalogue().end(),
      [family](const Mutant& mutant) { return mutant.family == family; }));
}

TEST(MutantCatalogue, EveryFamilyIsNamedAndNonEmpty) {
  const std::set<std::string_view> named(kFamilies.begin(), kFamilies.end());
  EXPECT_EQ(named.size(), kFamilies.size()) << "a family is named twice in kFamilies";
  EXPECT_FALSE(named.count(kFamilyControl)) << "the control is not a family of bugs";
  for (std::string_view family : kFamilies)
    EXPECT_GT(family_size(family), 0u) << "no mutant in family " << family;
  for (const Mutant& mutant : catalogue())
    EXPECT_TRUE(named.count(mutant.family))
        << mutant.name << " is in family '" << mutant.family << "', which kFamilies lacks";
  EXPECT_EQ(control().family, kFamilyControl);
}

// The catalogue is its families one after the other, in the order of kFamilies.
TEST(MutantCatalogue, ListsTheFamiliesInTurn) {
  std::size_t at = 0;
  for (std::string_view family : kFamilies)
    while (at < catalogue().size() && catalogue()[at].family == family) ++at;
  ASSERT_EQ(at, catalogue().size())
      << catalogue()[at].name << " (" << catalogue()[at].family << ") is out of family order";
}

TEST(MutantAdapterProgram, ListsEveryMutantAndRefusesUnknownNames) {
  const Program list = run_program("--list");
  EXPECT_EQ(list.exit_code, 0);
  std::istringstream lines(list.out);
  std::vector<std::string> listed;
  for (std::string line; std::getline(lines, line);) listed.push_back(line.substr(0, line.find(' ')));
  ASSERT_EQ(listed.size(), catalogue().size()) << list.out;
  for (std::size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(listed[i], catalogue()[i].name);

  EXPECT_EQ(run_program("--mutant no-such-mutant").exit_code, 2);
  EXPECT_EQ(run_program("--mutant").exit_code, 2);
  EXPECT_EQ(run_program("").exit_code, 2);
  EXPECT_EQ(run_program("--bogus").exit_code, 2);
}

// Without this, a broken pipeline would "kill" every mutant.
TEST(MutantKills, TheControlPassesEveryCase) {
  const auto summary = run_against("--control");
  ASSERT_FALSE(summary.results.empty());
  for (const CaseResult* failed : failures(summary))
    ADD_FAILURE() << failed->case_id << " " << conformance::to_string(failed->status) << ": "
                  << failed->detail;
  EXPECT_EQ(summary.exit_code, 0);
}

// KILN_KILL_SHARD="i/n": this process runs the catalogue's mutants whose index
// is i modulo n, so ctest can spread the kill test over the cores (the
// sanitizer build's longest test). Unset: every mutant.
struct Shard {
  std::size_t index = 0, count = 1;
};

Shard kill_shard() {
  Shard shard;
  const char* text = std::getenv("KILN_KILL_SHARD");
  if (text == nullptr) return shard;
  unsigned index = 0, count = 0;
  char extra = 0;
  if (std::sscanf(text, "%u/%u%c", &index, &count, &extra) != 2 || count == 0 || index >= count ||
      count > 64) {
    ADD_FAILURE() << "KILN_KILL_SHARD is i/n with i < n <= 64, not '" << text << "'";
    return shard;
  }
  return {index, count};
}

// The kill table, family by family, with a count per family.
TEST(MutantKills, EveryMutantFailsACase) {
  const Shard shard = kill_shard();
  std::ostringstream table, per_family;
  table << "family | mutant | killed? | failing results (up to " << kFailuresShown
        << ") | first failing cases\n"
        << "---|---|---|---|---\n";
  std::size_t killed = 0, run = 0, in_shard = 0;
  for (std::size_t i = 0; i < catalogue().size(); ++i) in_shard += i % shard.count == shard.index;
  for (std::string_view family : kFamilies) {
    std::size_t family_killed = 0, family_run = 0;
    for (std::size_t index = 0; index < catalogue().size(); ++index) {
      const Mutant& mutant = catalogue()[index];
      if (mutant.family != family || index % shard.count != shard.index) continue;
      ++family_run;
      const auto summary = run_against("--mutant " + std::string(mutant.name), kFailuresShown);
      const auto failed = failures(summary);
      std::string first;
      for (std::size_t i = 0; i < failed.size() && i < kFailuresShown; ++i)
        first += (i ? ", " : "") + failed[i]->case_id + ":" +
                 std::string(conformance::to_string(failed[i]->op));
      table << family << " | " << mutant.name << " | " << (failed.empty() ? "SURVIVED" : "killed")
            << " | " << failed.size() << " | " << first << "\n";
      ++run;
      family_killed += !failed.empty();
      EXPECT_FALSE(failed.empty()) << "mutant " << mutant.name << " survives the suite: "
                                   << mutant.description << " (add a case that kills it)";
      // A kill is a wrong answer, not a crash, hang or garbled reply of the pipeline.
      for (const CaseResult* result : failed)
        EXPECT_EQ(result->status, Status::kFail)
            << mutant.name << " on " << result->case_id << ": " << result->detail;
    }
    per_family << (family == kFamilies.front() ? "" : ", ") << family << " " << family_killed << "/"
               << family_run;
    killed += family_killed;
  }
  table << "killed " << killed << " of " << run << " mutants (" << per_family.str() << ")";
  if (shard.count > 1) table << " in shard " << shard.index << "/" << shard.count;
  std::cout << table.str() << "\n";
  EXPECT_EQ(run, in_shard) << "a mutant outside kFamilies was not run";
}

}  // namespace
}  // namespace kiln::mutants
