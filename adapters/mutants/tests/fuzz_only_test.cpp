// The fuzz-only mutants (kFamilyFuzzOnly): every golden case lets each through,
// and `kiln-conformance fuzz` finds each within a fixed budget and writes a case
// that kills it under `run` (and that the control passes, so the case is right).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/mutants.hpp"
#include "mutant_runs.hpp"

namespace kiln::mutants {
namespace {

namespace fs = std::filesystem;
using test_support::mutant_command;
using test_support::suite_case_set;

conformance::RunSummary run_cases(const fs::path& cases, const conformance::CaseSet& set,
                                  const std::string& arguments) {
  conformance::RunOptions options;
  options.cases_dir = cases;
  options.adapter = mutant_command(arguments);
  options.quiet_progress = true;
  std::ostringstream out, err;
  return conformance::run_suite(options, set, out, err);
}

// The budget each mutant is found within: fixed runs and seed, so a run is
// reproducible (same seed, same runs, same findings). The golden cases are the
// fuzzer's seeds and kiln::mutate draws every choice from the one stream, so a
// change to cases/ or to the mutators changes every run: a budget that then
// fails needs a new seed or more runs. A re-tuned budget is the seed (of 1 to 8)
// that finds the mutant soonest, with runs the next of 1, 2, 5 x 10^k at or above
// its first finding (`kiln_blind_reach --fuzz --ladder --runs 20000 --seeds 1-8`
// prints it per seed). Re-tuned when kiln::mutate gained generation by
// construction (generate.hpp: every other kiln-v2 input, every third hurray one),
// and again for six mutants when the cases gained the name and layout-name
// combinations (kiln-v2-multi-*-layout-utf8). At 20,000 runs every seed of 1 to 8
// finds every mutant here but the kept bool verdict (found only by a request sent
// twice), which seed 3 misses; the slowest other seeds need 5,000 (bf16 names,
// layout UTF-8 cached, opaque block 16) or 20,000 (rank 5). The four
// kiln-v2 mutants the generator reaches by construction (names in NFC, trailing
// spaces, u32 byte order, TYPE before FRAME across pages) are found within 100 to
// 200 runs at every seed, the hurray bool word and int16 lane paths within 2,000
// and 500.
struct Budget {
  std::string_view mutant;
  std::uint64_t runs;
  std::uint64_t seed;
};
constexpr Budget kBudgets[] = {
    {"fuzz-nibble-after-opaque", 500, 3},      {"fuzz-rank5-empty-odd-name", 1000, 4},
    {"fuzz-long-names-last-byte", 100, 1},     {"fuzz-late-bf16-name-utf8", 500, 1},
    {"fuzz-u4-after-byte-dtype", 1000, 1},      {"fuzz-wide-running-product", 200, 1},
    {"fuzz-opaque-long-layout-block-16", 500, 1}, {"fuzz-f16-flush-not-vector", 100, 3},
    {"fuzz-layout-utf8-cached", 200, 2},       {"fuzz-names-window-8", 200, 2},
    {"fuzz-strips-trailing-newline", 100, 3},
    {"fuzz-closed-verdict-per-content", 100, 3}, {"fuzz-bool-verdict-kept", 2000, 1},
    {"fuzz-names-nfc-large-directory", 100, 1}, {"fuzz-names-trailing-spaces-trimmed", 100, 1},
    {"fuzz-u32-elements-big-endian", 100, 1},  {"fuzz-types-checked-per-page", 100, 1},
    {"fuzz-hurray-bool-words-big-endian", 100, 7}, {"fuzz-hurray-int16-lanes-swapped", 100, 3},
};

TEST(FuzzOnlyMutants, AreASeparateFamilyOfTenOrMore) {
  EXPECT_GE(fuzz_only_mutants().size(), 10u);
  std::set<std::string_view> names;
  for (const Mutant& mutant : fuzz_only_mutants()) {
    EXPECT_EQ(mutant.family, kFamilyFuzzOnly) << mutant.name;
    EXPECT_TRUE(names.insert(mutant.name).second) << mutant.name;
    EXPECT_EQ(find_mutant(mutant.name), &mutant);
    EXPECT_TRUE(std::none_of(catalogue().begin(), catalogue().end(),
                             [&](const Mutant& m) { return m.name == mutant.name; }));
    EXPECT_TRUE(std::any_of(std::begin(kBudgets), std::end(kBudgets),
                            [&](const Budget& b) { return b.mutant == mutant.name; }))
        << mutant.name << " has no fuzz budget below";
  }
  EXPECT_EQ(std::find(kFamilies.begin(), kFamilies.end(), kFamilyFuzzOnly), kFamilies.end());
}

class FuzzOnlyMutant : public ::testing::TestWithParam<Budget> {};

TEST_P(FuzzOnlyMutant, PassesEveryGoldenCase) {
  ASSERT_TRUE(suite_case_set().errors.empty()) << suite_case_set().errors.front().describe();
  const auto summary =
      run_cases(KILN_CASES_DIR, suite_case_set(), "--mutant " + std::string(GetParam().mutant));
  for (const auto& result : summary.results)
    EXPECT_TRUE(result.status == conformance::Status::kPass) << result.case_id << ": " << result.detail;
  EXPECT_EQ(summary.exit_code, 0);
}

TEST_P(FuzzOnlyMutant, IsFoundByTheFuzzerAndItsCaseKillsIt) {
  ASSERT_TRUE(suite_case_set().errors.empty()) << suite_case_set().errors.front().describe();
  const fs::path out_dir = fs::path(::testing::TempDir()) /
                           ("kiln-fuzz-only-" + std::string(GetParam().mutant));
  fs::remove_all(out_dir);
  conformance::FuzzOptions options;
  options.adapter = mutant_command("--mutant " + std::string(GetParam().mutant));
  options.cases_dir = KILN_CASES_DIR;
  // The hurray-elements members are fuzzed in their profile, which takes no seed case.
  const bool hurray = GetParam().mutant.starts_with("fuzz-hurray-");
  if (hurray) options.profile = std::string(protocol::kProfileHurrayElements);
  options.runs = GetParam().runs;
  options.seed = GetParam().seed;
  options.out_dir = out_dir;
  options.quiet_progress = true;
  std::ostringstream out, err;
  const conformance::CaseSet no_seeds;
  const auto summary = conformance::run_fuzz(options, hurray ? no_seeds : suite_case_set(), out, err);
  EXPECT_EQ(summary.exit_code, conformance::kExitFailures) << out.str() << err.str();
  ASSERT_FALSE(summary.findings.empty()) << "not found in " << GetParam().runs << " runs\n" << out.str();
  for (const auto& finding : summary.findings)
    for (const auto& problem : finding.check_problems)
      ADD_FAILURE() << finding.file << ": " << problem;

  // A state-dependent finding is a request file: `replay` reproduces it against
  // the mutant, and the control agrees with the reference on it.
  bool any_case = false;
  for (const auto& finding : summary.findings) {
    if (!finding.state_dependent) {
      any_case = true;
      continue;
    }
    conformance::ReplayOptions replay;
    replay.file = finding.file;
    replay.adapter = mutant_command("--mutant " + std::string(GetParam().mutant));
    std::ostringstream replay_out, replay_err;
    EXPECT_EQ(conformance::run_replay(replay, replay_out, replay_err), conformance::kExitFailures)
        << finding.file << "\n" << replay_out.str() << replay_err.str();
    replay.adapter = mutant_command("--control");
    EXPECT_EQ(conformance::run_replay(replay, replay_out, replay_err), conformance::kExitOk)
        << "the control fails " << finding.file << ": the finding is wrong\n" << replay_out.str();
  }
  if (!any_case) {
    fs::remove_all(out_dir);
    return;
  }
  const auto written = conformance::load_case_set(out_dir);
  ASSERT_TRUE(written.errors.empty()) << written.errors.front().describe();
  std::ostringstream check_out, check_err;
  EXPECT_EQ(conformance::cases_check(out_dir, check_out, check_err), conformance::kExitOk)
      << check_out.str() << check_err.str();
  EXPECT_EQ(run_cases(out_dir, written, "--mutant " + std::string(GetParam().mutant)).exit_code, 1)
      << "the written cases do not kill " << GetParam().mutant;
  EXPECT_EQ(run_cases(out_dir, written, "--control").exit_code, 0)
      << "the control fails a written case: the case is wrong";
  fs::remove_all(out_dir);
}

INSTANTIATE_TEST_SUITE_P(All, FuzzOnlyMutant, ::testing::ValuesIn(kBudgets),
                         [](const auto& info) {
                           std::string name(info.param.mutant);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace kiln::mutants
