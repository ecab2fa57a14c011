#include "kiln/conformance/gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <utility>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/run.hpp"

namespace kiln::conformance::gtest {
namespace {

// What the registered tests share: the cases they point into, the list, and how
// many of them ran this iteration (--gtest_repeat runs them again).
struct Registry {
  AdapterFactory factory;
  CaseSet set;
  ExpectedFailures loaded;   // as read
  ExpectedFailures current;  // this iteration's: records which entries were used
  std::size_t registered = 0;
  std::size_t ran = 0;
  Options options;
  std::string case_set_sha256;
  std::vector<GeneratedPhase> phases;  // this iteration's
};

// Whatever fails a test, with the command that runs it again.
std::string replay_of_current_test() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!info) return {};
  // In a filter '-' starts the negative patterns: '?' matches it instead.
  std::string filter = std::string(info->test_suite_name()) + "." + info->name();
  std::replace(filter.begin(), filter.end(), '-', '?');
  return "this program with --gtest_filter='" + filter + "'";
}

// The list's entries that matched nothing fail the program, as they fail `run`,
// but only when every test ran: a filtered run cannot tell.
class UnusedEntriesCheck final : public ::testing::Environment {
 public:
  explicit UnusedEntriesCheck(std::shared_ptr<Registry> registry) : registry_(std::move(registry)) {}
  void SetUp() override {
    registry_->current = registry_->loaded;
    registry_->ran = 0;
    registry_->phases.clear();
  }
  void TearDown() override {
    if (registry_->ran != registry_->registered) return;
    std::ostringstream unused;
    // An entry of an op Options::ops leaves out names tests never registered:
    // outside the run, neither used nor stale.
    const auto& ops = registry_->options.ops;
    const auto outside = [&](const ExpectedFailures::Entry& entry) {
      if (outside_generated_selection(entry, registry_->phases)) return true;
      for (const Case& c : registry_->set.cases)
        for (Operation op : c.derived_ops())
          if (std::find(ops.begin(), ops.end(), op) == ops.end() && entry.matches(c.id, op)) return true;
      return false;
    };
    if (!registry_->current.report_unused(unused, outside).empty())
      ADD_FAILURE() << "the expected-failures list has entries that match no failure:\n" << unused.str();
  }

 private:
  std::shared_ptr<Registry> registry_;
};

// A test's adapter, started as `run` starts one, its hello read: a failed
// hello fails the test (a case still tries every op), another protocol version
// ends it (no reply could be judged). False: the test cannot go on.
bool start_adapter(const Registry& registry, std::unique_ptr<Driver>& driver,
                   std::optional<protocol::Hello>& hello) {
  std::unique_ptr<protocol::Adapter> adapter = registry.factory();
  if (!adapter) {
    ADD_FAILURE() << "the adapter factory returned no adapter";
    return false;
  }
  driver = make_in_process_driver(std::move(adapter));
  auto asked = driver->hello();
  hello.reset();
  if (asked) hello = std::move(asked).value();
  else ADD_FAILURE() << "the adapter has no usable hello: " << protocol::printable(asked.error());
  if (hello && hello->protocol != protocol::kProtocolVersion) {
    ADD_FAILURE() << "the adapter speaks adapter protocol " << hello->protocol << ", this suite protocol "
                  << protocol::kProtocolVersion << ": nothing was sent";
    return false;
  }
  return true;
}

class CaseTest final : public ::testing::Test {
 public:
  CaseTest(std::shared_ptr<Registry> registry, const Case* c, Operation op)
      : registry_(std::move(registry)), case_(c), op_(op) {}

  void TestBody() override {
    Registry& registry = *registry_;
    ++registry.ran;
    std::unique_ptr<Driver> driver;
    std::optional<protocol::Hello> hello;
    if (!start_adapter(registry, driver, hello)) return;

    CaseResult result = run_case(*case_, op_, *driver, hello);
    registry.current.record(result);
    ::testing::Test::RecordProperty("kiln_verdict", std::string(to_string(result.verdict)));
    if (result.verdict == Verdict::kSkip) GTEST_SKIP() << protocol::printable(result.detail);
    // At the case's file, which says what the case is, rather than here.
    if (result.unexpected()) ADD_FAILURE_AT(case_->origin.file.c_str(), case_->origin.line) << text_of(result);
  }

 private:
  std::string text_of(const CaseResult& result) const {
    std::ostringstream text;
    print_result(text, result, replay_of_current_test());
    return text.str();
  }

  std::shared_ptr<Registry> registry_;
  const Case* case_;  // into registry_->set, which the test keeps alive
  Operation op_;
};

// One profile's generated phase against a fresh adapter from the factory.
class GeneratedTest final : public ::testing::Test {
 public:
  GeneratedTest(std::shared_ptr<Registry> registry, std::string profile)
      : registry_(std::move(registry)), profile_(std::move(profile)) {}

  void TestBody() override {
    Registry& registry = *registry_;
    ++registry.ran;
    std::unique_ptr<Driver> driver;
    std::optional<protocol::Hello> hello;
    // The phase's inputs follow what the hello offers: none without one.
    if (!start_adapter(registry, driver, hello) || !hello) return;
    if (!hello->offers_profile(profile_)) GTEST_SKIP() << "the adapter's hello does not offer profile " << profile_;

    GeneratedPhaseOptions phase;
    phase.profile = profile_;
    phase.seed = registry.options.generated_seed.value_or(generated_seed(registry.case_set_sha256));
    phase.checks = registry.options.generated;
    phase.ops = generated_ops(*hello, registry.options.ops);
    if (phase.ops.empty()) GTEST_SKIP() << "the adapter's hello offers none of the selected ops";
    phase.out_dir = registry.options.generated_out;
    // An in-process adapter has no command: the written case's replay line names the placeholder.
    phase.adapter = "<your adapter command>";
    phase.cases_dir = registry.options.cases_dir.string();
    const auto fresh = [factory = registry.factory](std::chrono::milliseconds) {
      return make_in_process_driver(factory());
    };
    std::vector<CaseResult> failing;
    std::size_t failures = 0;
    const auto on_result = [&](CaseResult&& result) {
      registry.current.record(result);
      if (result.unexpected() && ++failures <= kShownFailures) failing.push_back(std::move(result));
      return true;
    };
    std::ostringstream log;
    registry.phases.push_back(
        run_generated_phase(phase, *driver, fresh, *hello, registry.set, on_result, log, log));
    const GeneratedPhase& ran = registry.phases.back();
    ::testing::Test::RecordProperty("kiln_generated_checks", std::to_string(ran.ran));
    ::testing::Test::RecordProperty("kiln_generated_seed", std::to_string(ran.seed));
    if (!ran.stopped.empty()) ADD_FAILURE() << "the phase stopped after " << ran.ran << " of " << ran.planned
                                            << " checks: " << protocol::printable(ran.stopped);
    for (const CaseResult& result : failing) {
      std::ostringstream text;
      print_result(text, result, replay_of_current_test());
      // The minimized case itself: what to commit, and what fails alone.
      if (result.generated && !result.generated->file.empty()) {
        const Checked<std::string> written = read_regular_file(result.generated->file, kMaxShownCaseBytes, "");
        if (written) text << "    the case (" << result.generated->file << "):\n" << written.value();
      }
      ADD_FAILURE() << text.str();
    }
    if (failures > failing.size())
      ADD_FAILURE() << failures - failing.size() << " more generated check(s) of " << profile_ << " failed";
  }

 private:
  static constexpr std::size_t kShownFailures = 10;
  static constexpr std::uintmax_t kMaxShownCaseBytes = 64 * 1024;
  std::shared_ptr<Registry> registry_;
  std::string profile_;
};

}  // namespace

std::optional<std::size_t> register_tests(AdapterFactory factory, const Options& options,
                                          std::ostream& err) {
  if (!factory) {
    err << "kiln-conformance gtest: no adapter factory\n";
    return std::nullopt;
  }
  auto registry = std::make_shared<Registry>();
  registry->factory = std::move(factory);
  registry->set = load_case_set(options.cases_dir);
  if (!report_load_errors(registry->set, err) || registry->set.cases.empty()) {
    err << "kiln-conformance gtest: the case set in " << options.cases_dir.string() << " is unusable"
        << (registry->set.cases.empty() && registry->set.errors.empty() ? " (no cases)" : "") << "\n";
    return std::nullopt;
  }
  if (options.expected_failures) {
    auto loaded = ExpectedFailures::load(*options.expected_failures);
    if (!loaded) {
      err << loaded.error() << "\n";
      return std::nullopt;
    }
    registry->loaded = std::move(loaded).value();
  }
  registry->current = registry->loaded;
  registry->options = options;
  registry->case_set_sha256 = case_set_hash(registry->set);

  for (const Case& c : registry->set.cases) {
    for (Operation op : c.derived_ops()) {
      if (std::find(options.ops.begin(), options.ops.end(), op) == options.ops.end()) continue;
      const std::string suite = options.suite_prefix + "/" + (c.topic.empty() ? "top" : c.topic);
      const std::string name = c.id + "/" + std::string(to_string(op));
      const Case* case_pointer = &c;
      ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr,
                              c.origin.file.c_str(), c.origin.line,
                              [registry, case_pointer, op]() -> ::testing::Test* {
                                return new CaseTest(registry, case_pointer, op);
                              });
      ++registry->registered;
    }
  }
  if (options.generated > 0) {
    for (const ProfileModule& module : profile_modules()) {
      const std::string name(module.profile.name());
      if (!module.make_fuzzer) continue;  // no generated checks without a fuzzer
      if (std::none_of(registry->set.cases.begin(), registry->set.cases.end(),
                       [&](const Case& c) { return c.profile == name; }))
        continue;
      const std::string suite = options.suite_prefix + "/generated";
      ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [registry, name]() -> ::testing::Test* { return new GeneratedTest(registry, name); });
      ++registry->registered;
    }
  }
  if (registry->registered == 0) {
    err << "kiln-conformance gtest: nothing selected: no case of " << options.cases_dir.string()
        << " has the selected ops\n";
    return std::nullopt;
  }
  ::testing::AddGlobalTestEnvironment(new UnusedEntriesCheck(registry));
  return registry->registered;
}

std::optional<std::size_t> register_tests(AdapterFactory factory, const Options& options) {
  return register_tests(std::move(factory), options, std::cerr);
}

}  // namespace kiln::conformance::gtest
