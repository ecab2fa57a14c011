// `kiln-conformance fuzz --profile hurray-elements` finds every Hurray mutant of
// the catalogue blind: no case is a seed (the case set is empty), a fixed seed
// and run count make each run reproducible, and each finding is written as a
// case that `cases check` accepts, that kills the mutant under `run` and that
// the control passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/mutants.hpp"
#include "mutant_runs.hpp"

namespace kiln::mutants {
namespace {

namespace fs = std::filesystem;
using test_support::mutant_command;

// Every mutant is found within 3,000 inputs for seeds 1 to 9 but one (seed 5
// needs more for hurray-pad-6bit-last-byte-only; measured again when the
// generator gained its schedule): 5,000 leaves a margin, and a change to the
// generator that needs more is a regression of its reach.
constexpr std::uint64_t kRuns = 5000;
constexpr std::uint64_t kSeed = 1;

std::vector<std::string> hurray_mutants() {
  std::vector<std::string> names;
  for (const Mutant& mutant : catalogue())
    if (mutant.family.starts_with("hurray-")) names.emplace_back(mutant.name);
  return names;
}

int run_cases(const fs::path& cases, const conformance::CaseSet& set, const std::string& arguments) {
  conformance::RunOptions options;
  options.cases_dir = cases;
  options.adapter = mutant_command(arguments);
  options.quiet_progress = true;
  std::ostringstream out, err;
  return conformance::run_suite(options, set, out, err).exit_code;
}

TEST(HurrayFuzz, CoversTheWholeHurrayCatalogue) {
  // If the catalogue grows, each new mutant is held to the same budget below.
  EXPECT_GE(hurray_mutants().size(), 38u);
}

class HurrayMutant : public ::testing::TestWithParam<std::string> {};

TEST_P(HurrayMutant, IsFoundWithoutSeedsAndItsCaseKillsIt) {
  const std::string& mutant = GetParam();
  const fs::path out_dir = fs::path(::testing::TempDir()) / ("kiln-hurray-fuzz-" + mutant);
  fs::remove_all(out_dir);
  conformance::FuzzOptions options;
  options.adapter = mutant_command("--mutant " + mutant);
  options.profile = std::string(protocol::kProfileHurrayElements);
  options.runs = kRuns;
  options.seed = kSeed;
  options.out_dir = out_dir;
  options.quiet_progress = true;
  std::ostringstream out, err;
  const conformance::CaseSet no_seeds;
  const auto summary = conformance::run_fuzz(options, no_seeds, out, err);
  EXPECT_EQ(summary.exit_code, conformance::kExitFailures) << out.str() << err.str();
  ASSERT_FALSE(summary.findings.empty()) << "not found in " << kRuns << " runs\n" << out.str();
  for (const auto& finding : summary.findings)
    for (const auto& problem : finding.check_problems) ADD_FAILURE() << finding.file << ": " << problem;

  const auto written = conformance::load_case_set(out_dir);
  ASSERT_TRUE(written.errors.empty()) << written.errors.front().describe();
  std::ostringstream check_out, check_err;
  EXPECT_EQ(conformance::cases_check(out_dir, check_out, check_err), conformance::kExitOk)
      << check_out.str() << check_err.str();
  EXPECT_EQ(run_cases(out_dir, written, "--mutant " + mutant), conformance::kExitFailures)
      << "the written cases do not kill " << mutant;
  EXPECT_EQ(run_cases(out_dir, written, "--control"), conformance::kExitOk)
      << "the control fails a written case: the case is wrong";
  fs::remove_all(out_dir);
}

INSTANTIATE_TEST_SUITE_P(All, HurrayMutant, ::testing::ValuesIn(hurray_mutants()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace kiln::mutants
