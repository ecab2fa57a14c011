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
};

// The list's entries that matched nothing fail the program, as they fail `run`,
// but only when every test ran: a filtered run cannot tell.
class UnusedEntriesCheck final : public ::testing::Environment {
 public:
  explicit UnusedEntriesCheck(std::shared_ptr<Registry> registry) : registry_(std::move(registry)) {}
  void SetUp() override {
    registry_->current = registry_->loaded;
    registry_->ran = 0;
  }
  void TearDown() override {
    if (registry_->ran != registry_->registered) return;
    std::ostringstream unused;
    if (registry_->current.report_unused(unused) > 0)
      ADD_FAILURE() << "the expected-failures list has entries that match no failure:\n" << unused.str();
  }

 private:
  std::shared_ptr<Registry> registry_;
};

class CaseTest final : public ::testing::Test {
 public:
  CaseTest(std::shared_ptr<Registry> registry, const Case* c, Operation op)
      : registry_(std::move(registry)), case_(c), op_(op) {}

  void TestBody() override {
    Registry& registry = *registry_;
    ++registry.ran;
    std::unique_ptr<protocol::Adapter> adapter = registry.factory();
    ASSERT_TRUE(adapter != nullptr) << "the adapter factory returned no adapter";
    std::unique_ptr<Driver> driver = make_in_process_driver(std::move(adapter));
    std::string hello_problem;
    const std::optional<protocol::Hello> hello = driver->hello(hello_problem);
    // As `run`: a failed hello denies the certificate, and every op is tried.
    if (!hello) ADD_FAILURE() << "the adapter has no usable hello: " << protocol::printable(hello_problem);
    // Replies of another protocol version cannot be judged as version 1's.
    if (hello && hello->protocol != protocol::kProtocolVersion)
      FAIL() << "the adapter speaks adapter protocol " << hello->protocol << ", this suite protocol "
             << protocol::kProtocolVersion << ": nothing was sent";

    CaseResult result = run_case(*case_, op_, *driver, hello);
    registry.current.record(result);
    ::testing::Test::RecordProperty("kiln_verdict", std::string(to_string(result.verdict)));
    if (result.verdict == Verdict::kSkip) GTEST_SKIP() << protocol::printable(result.detail);
    if (result.unexpected()) {
      // At the case's file, which says what the case is, rather than here.
      ADD_FAILURE_AT(case_->origin.file.c_str(), case_->origin.line) << text_of(result);
    } else if (result.recommended_failure()) {
      std::cout << text_of(result);  // reported, not failed: as `run` prints it
    }
  }

 private:
  std::string text_of(const CaseResult& result) const {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string replay;
    if (info) {
      // In a filter '-' starts the negative patterns: '?' matches it instead.
      std::string filter = std::string(info->test_suite_name()) + "." + info->name();
      std::replace(filter.begin(), filter.end(), '-', '?');
      replay = "this program with --gtest_filter='" + filter + "'";
    }
    std::ostringstream text;
    print_result(text, result, replay);
    return text.str();
  }

  std::shared_ptr<Registry> registry_;
  const Case* case_;  // into registry_->set, which the test keeps alive
  Operation op_;
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
    std::string error;
    auto loaded = ExpectedFailures::load(*options.expected_failures, error);
    if (!loaded) {
      err << error << "\n";
      return std::nullopt;
    }
    registry->loaded = std::move(*loaded);
  }
  registry->current = registry->loaded;

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
