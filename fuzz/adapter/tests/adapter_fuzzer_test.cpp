// The adapter fuzzer's parts against the reference and the mutant catalogue:
// the cases of any input load, pass `cases check` and the reference; a
// mutant's disagreement is found on the seeds and the case written from it
// fails that mutant and passes the reference.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "kiln/conformance/adapter_fuzzer.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/raw_input.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/hex.hpp"
#include "kiln/mutants.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;
using adapter_fuzzer::Harness;

class ScratchDir {
 public:
  ScratchDir() {
    path_ = fs::temp_directory_path() /
            ("kiln-adapter-fuzzer-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::vector<std::uint8_t> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The seed corpus of a profile, as `cases seeds` writes it from the suite's cases.
std::vector<std::vector<std::uint8_t>> seeds_of(std::string_view profile, const fs::path& dir) {
  std::ostringstream out, err;
  EXPECT_EQ(cases_seeds(KILN_CASES_DIR, profile, dir, out, err), kExitOk) << err.str();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::vector<std::uint8_t>> seeds;
  for (const fs::path& file : files) seeds.push_back(read_bytes(file));
  return seeds;
}

mutate::Random byte_rng;
std::size_t byte_mutator(std::uint8_t* data, std::size_t size, std::size_t max_size) {
  return mutate::mutate_bytes(data, size, max_size, byte_rng);
}

const RawInputFormat& format_of(std::string_view profile) {
  const ProfileModule* module = find_profile_module(profile);
  if (!module || !module->raw_input) throw std::logic_error("no raw input for " + std::string(profile));
  return *module->raw_input;
}

// Seeds and chains of structure-aware mutants of them, as the fuzzer makes.
std::vector<std::vector<std::uint8_t>> inputs_of(std::string_view profile, std::size_t count) {
  ScratchDir dir;
  const auto seeds = seeds_of(profile, dir.path() / "seeds");
  const RawInputFormat& format = format_of(profile);
  std::vector<std::vector<std::uint8_t>> inputs;
  byte_rng.seed(7);
  for (std::size_t i = 0; inputs.size() < count && !seeds.empty(); ++i) {
    std::vector<std::uint8_t> input = seeds[(i * 7919) % seeds.size()];
    for (unsigned step = 0; step < 1 + i % 4; ++step) {
      const std::size_t size = input.size();
      input.resize(std::max<std::size_t>(size + 256, 4096));
      input.resize(format.mutate(input.data(), size, input.size(), static_cast<unsigned>(i * 31 + step), byte_mutator));
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

std::unique_ptr<Harness> reference_harness(std::string_view profile) {
  std::ostringstream err;
  auto harness = Harness::start(profile, [] { return std::make_unique<protocol::ReferenceAdapter>(); }, err);
  EXPECT_TRUE(harness) << err.str();
  return harness;
}

class RawInputTest : public ::testing::TestWithParam<std::string> {};

// Any input's cases are what `cases check` accepts, and the reference passes them.
TEST_P(RawInputTest, CasesOfAnyInputPassCheckAndTheReference) {
  const std::string profile = GetParam();
  const RawInputFormat& format = format_of(profile);
  auto harness = reference_harness(profile);
  ASSERT_TRUE(harness);
  ScratchDir dir;
  std::size_t written = 0, rejects = 0;
  std::set<std::uint64_t> features;
  const auto observe = [&](std::uint64_t feature) { features.insert(feature); };
  for (const auto& input : inputs_of(profile, 250)) {
    ASSERT_EQ(harness->check(input, observe), std::nullopt) << "input " << to_hex(input);
    const std::vector<Case> cases = format.cases_of(input, "a test input");
    ASSERT_FALSE(cases.empty());
    for (const Case& c : cases) {
      EXPECT_EQ(c.profile.empty() ? default_profile_name() : std::string_view(c.profile), profile);
      const fs::path file = dir.path() / (c.id + ".yaml");
      if (fs::exists(file)) continue;  // the same input twice
      std::ofstream(file, std::ios::binary) << case_yaml(c, {"# a test"});
      const auto problems = check_case_file(file);
      EXPECT_TRUE(problems.empty()) << file.filename() << ": " << (problems.empty() ? "" : problems.front());
      ++written;
      rejects += c.expects_reject();
    }
  }
  // Both kinds, or the inputs prove little.
  EXPECT_GT(rejects, 10u);
  EXPECT_GT(written - rejects, 10u);
  // The verdict features tell inputs apart: far more than one per verdict.
  EXPECT_GT(features.size(), 200u);
}

// The seeds are the cases' own inputs: each stands for a case that expects
// what the golden case does.
TEST_P(RawInputTest, SeedsReadBackAsTheirCases) {
  const std::string profile = GetParam();
  const RawInputFormat& format = format_of(profile);
  const CaseSet set = load_case_set(KILN_CASES_DIR);
  std::size_t compared = 0;
  for (const Case& c : set.cases) {
    if (profile_of(c).name() != profile) continue;
    const auto input = format.input_of(c);
    if (!input) continue;
    const std::vector<Case> read = format.cases_of(*input, "a seed");
    ASSERT_FALSE(read.empty());
    EXPECT_EQ(read.front().expects_reject(), c.expects_reject()) << c.id;
    if (c.expects_reject() && read.front().expects_reject()) {
      EXPECT_EQ(read.front().expected_rule_id(), c.expected_rule_id()) << c.id;
    }
    ++compared;
  }
  EXPECT_GT(compared, 100u);
}

INSTANTIATE_TEST_SUITE_P(Profiles, RawInputTest, ::testing::Values("kiln-v2", "hurray-elements"));

struct MutantCase {
  std::string profile;
  std::string mutant;
};

class MutantFinding : public ::testing::TestWithParam<MutantCase> {};

// The harness finds the mutant on the seeds; from-input writes the input as
// cases that pass `cases check`, fail the mutant and pass the reference.
TEST_P(MutantFinding, FoundOnTheSeedsAndItsCaseKillsIt) {
  const MutantCase& param = GetParam();
  const mutants::Mutant* mutant = mutants::find_mutant(param.mutant);
  ASSERT_NE(mutant, nullptr);
  std::ostringstream err;
  auto harness = Harness::start(param.profile, [mutant] { return std::make_unique<mutants::MutantAdapter>(*mutant); },
                                err);
  ASSERT_TRUE(harness) << err.str();
  ScratchDir dir;
  std::optional<std::vector<std::uint8_t>> found;
  std::string text;
  for (const auto& seed : seeds_of(param.profile, dir.path() / "seeds"))
    if (auto disagreement = harness->check(seed)) {
      found = seed;
      text = *disagreement;
      break;
    }
  ASSERT_TRUE(found) << param.mutant << " was not found on the seeds";
  EXPECT_NE(text.find("disagrees with the reference"), std::string::npos) << text;
  EXPECT_NE(text.find("cases from-input"), std::string::npos) << text;

  const fs::path crash = dir.path() / "crash-input";
  std::ofstream(crash, std::ios::binary).write(reinterpret_cast<const char*>(found->data()),
                                               static_cast<std::streamsize>(found->size()));
  std::ostringstream out;
  ASSERT_EQ(cases_from_input(crash, param.profile, dir.path() / "cases", out, err), kExitOk) << err.str();
  // Again: the same files are there, and nothing is replaced.
  ASSERT_EQ(cases_from_input(crash, param.profile, dir.path() / "cases", out, err), kExitOk) << err.str();
  EXPECT_NE(out.str().find("already written"), std::string::npos) << out.str();

  const CaseSet set = load_case_set(dir.path() / "cases");
  ASSERT_TRUE(set.errors.empty());
  ASSERT_FALSE(set.cases.empty());
  std::size_t mutant_failures = 0;
  for (const Case& c : set.cases) {
    EXPECT_TRUE(check_case(c).empty()) << c.id;
    for (Operation op : c.ops) {
      auto reference = make_in_process_driver(std::make_unique<protocol::ReferenceAdapter>());
      auto reference_hello = reference->hello();
      ASSERT_TRUE(reference_hello);
      CaseResult passed = run_case(c, op, *reference, reference_hello.value());
      ExpectedFailures none;
      none.record(passed);
      EXPECT_FALSE(passed.unexpected()) << c.id;
      auto buggy = make_in_process_driver(std::make_unique<mutants::MutantAdapter>(*mutant));
      auto buggy_hello = buggy->hello();
      ASSERT_TRUE(buggy_hello);
      CaseResult failed = run_case(c, op, *buggy, buggy_hello.value());
      none.record(failed);
      mutant_failures += failed.unexpected();
    }
  }
  EXPECT_GT(mutant_failures, 0u) << "the written cases do not kill " << param.mutant;
}

INSTANTIATE_TEST_SUITE_P(Mutants, MutantFinding,
                         ::testing::Values(MutantCase{"kiln-v2", "magic-unchecked"},
                                           MutantCase{"kiln-v2", "name-unique-unchecked"},
                                           MutantCase{"hurray-elements", "hurray-nibble-high-first"}),
                         [](const auto& info) {
                           std::string name = info.param.mutant;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// An adapter that cannot be judged stops the fuzzer before any input, saying why.
TEST(AdapterFuzzerStart, RefusesWhatCannotBeJudged) {
  std::ostringstream err;
  EXPECT_FALSE(Harness::start("no-such-profile", [] { return std::make_unique<protocol::ReferenceAdapter>(); }, err));
  EXPECT_NE(err.str().find("has no raw fuzz input"), std::string::npos) << err.str();
  err.str("");
  EXPECT_FALSE(Harness::start("kiln-v2", [] { return std::unique_ptr<protocol::Adapter>(); }, err));
  EXPECT_NE(err.str().find("returned no adapter"), std::string::npos) << err.str();

  class KilnOnly final : public protocol::Adapter {
   public:
    protocol::Hello hello() override {
      protocol::Hello hello = reference_.hello();
      hello.profiles = {std::string(protocol::kProfileKilnV2)};
      return hello;
    }
    protocol::Outcome decode(std::span<const std::uint8_t> block) override { return reference_.decode(block); }
    protocol::Outcome encode(const BlockDescription& d) override { return reference_.encode(d); }

   private:
    protocol::ReferenceAdapter reference_;
  };
  err.str("");
  EXPECT_FALSE(Harness::start("hurray-elements", [] { return std::make_unique<KilnOnly>(); }, err));
  EXPECT_NE(err.str().find("does not offer profile hurray-elements"), std::string::npos) << err.str();
}

// from-input's refusals: an unknown profile, a missing file, a planted file.
TEST(CasesFromInput, RefusesWhatItCannotDo) {
  ScratchDir dir;
  std::ostringstream out, err;
  const fs::path input = dir.path() / "input";
  std::ofstream(input, std::ios::binary) << "KILN";
  EXPECT_EQ(cases_from_input(input, "no-such-profile", dir.path() / "out", out, err), kExitUsage);
  EXPECT_EQ(cases_from_input(dir.path() / "missing", "kiln-v2", dir.path() / "out", out, err), kExitUsage);
  EXPECT_NE(err.str().find("cannot open"), std::string::npos) << err.str();
  // A different file at a case's name is never replaced.
  const RawInputFormat& format = format_of("kiln-v2");
  const std::vector<std::uint8_t> bytes{'K', 'I', 'L', 'N'};
  const std::string id = format.cases_of(bytes, "x").front().id;
  fs::create_directories(dir.path() / "out");
  std::ofstream(dir.path() / "out" / (id + ".yaml")) << "planted\n";
  err.str("");
  EXPECT_EQ(cases_from_input(input, "kiln-v2", dir.path() / "out", out, err), kExitFailures);
  EXPECT_NE(err.str().find("not replaced"), std::string::npos) << err.str();
  std::ifstream planted(dir.path() / "out" / (id + ".yaml"));
  std::string kept((std::istreambuf_iterator<char>(planted)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "planted\n");
}

}  // namespace
}  // namespace kiln::conformance
