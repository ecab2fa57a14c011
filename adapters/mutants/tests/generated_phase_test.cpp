// The generated phase of `run` earns its place in the certificate: a mutant
// every golden case lets through is NOT CONFORMANT under a plain `run` (cases
// and generated checks, the seed from the case-set hash), and what the phase
// wrote kills it alone while the control passes it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
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
using test_support::suite_case_set;

class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name)
      : path_(fs::temp_directory_path() / ("kiln-generated-phase-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
  }
  ~ScratchFolder() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

conformance::RunSummary plain_run(const std::string& adapter, std::size_t generated, const fs::path& out) {
  conformance::RunOptions options;
  options.cases_dir = KILN_CASES_DIR;
  options.adapter = adapter;
  options.generated = generated;
  options.generated_out = out;
  options.quiet_progress = true;
  std::ostringstream console, err;
  return conformance::run_suite(options, suite_case_set(), console, err);
}

// Every fuzz-only mutant: each is the reference with one bug no golden case
// reaches, and the phase reaches each by what it generates (fuzz/README.md,
// "Generation by construction"; kiln_blind_reach measures it seed by seed). A
// mutant that a new case set's seed no longer finds is a loss of reach.
std::vector<std::string> fuzz_only_names() {
  std::vector<std::string> names;
  for (const Mutant& mutant : fuzz_only_mutants()) names.emplace_back(mutant.name);
  return names;
}

class GeneratedPhaseFinds : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedPhaseFinds, AMutantTheCasesMissIsNotConformantAndItsWrittenCaseKillsIt) {
  const std::string mutant = GetParam();
  ASSERT_NE(find_mutant(mutant), nullptr) << mutant;
  const ScratchFolder out(mutant);
  const std::string adapter = mutant_command("--mutant " + mutant);

  const conformance::RunSummary cases_only = plain_run(adapter, 0, out.path() / "unused");
  EXPECT_EQ(cases_only.exit_code, conformance::kExitOk) << mutant << ": " << cases_only.certificate;

  const conformance::RunSummary plain = plain_run(adapter, conformance::kDefaultGeneratedChecks, out.path());
  EXPECT_EQ(plain.exit_code, conformance::kExitFailures) << plain.certificate;
  EXPECT_EQ(plain.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << plain.certificate;
  std::size_t findings = 0, state_dependent = 0;
  for (const auto& phase : plain.generated) {
    for (const auto& finding : phase.findings) {
      ++findings;
      if (finding.state_dependent) {
        ++state_dependent;
        conformance::ReplayOptions replay;
        replay.adapter = adapter;
        replay.file = finding.file;
        std::ostringstream console, err;
        EXPECT_EQ(conformance::run_replay(replay, console, err), conformance::kExitFailures)
            << finding.file << ": " << console.str() << err.str();
        replay.adapter = mutant_command("--control");
        EXPECT_EQ(conformance::run_replay(replay, console, err), conformance::kExitOk) << finding.file;
      }
    }
  }
  ASSERT_GT(findings, 0u) << mutant << ": the phase failed it but confirmed nothing";
  if (state_dependent == findings) return;

  // The written cases are a case set of their own.
  conformance::RunOptions written;
  written.cases_dir = out.path();
  written.adapter = adapter;
  written.quiet_progress = true;
  std::ostringstream console, err;
  EXPECT_EQ(conformance::run_suite(written, console, err).exit_code, conformance::kExitFailures)
      << console.str() << err.str();
  written.adapter = mutant_command("--control");
  const conformance::RunSummary control = conformance::run_suite(written, console, err);
  EXPECT_EQ(control.exit_code, conformance::kExitOk) << control.certificate << err.str();
}

INSTANTIATE_TEST_SUITE_P(FuzzOnly, GeneratedPhaseFinds, ::testing::ValuesIn(fuzz_only_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

TEST(GeneratedPhaseControl, TheControlIsConformantWithTheGeneratedChecks) {
  const ScratchFolder out("control");
  const conformance::RunSummary control =
      plain_run(mutant_command("--control"), conformance::kDefaultGeneratedChecks, out.path());
  EXPECT_EQ(control.exit_code, conformance::kExitOk) << control.certificate;
  EXPECT_NE(control.certificate.find(" generated checks (seed "), std::string::npos) << control.certificate;
  EXPECT_FALSE(fs::exists(out.path())) << "nothing failed, so nothing is written";
}

}  // namespace
}  // namespace kiln::mutants
