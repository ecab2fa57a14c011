// Checks kiln_conformance_gtest from outside its tests: registers the cases
// against a chosen adapter, runs them, and exits 0 only when GoogleTest's
// outcome is the one expected and, for a failing run, a failure says TEXT.
//   kiln_gtest_bridge_check reference|accepts-all pass|fail [--expected-failures FILE]
//                           [--message TEXT] [--generated N] [--generated-out DIR]
//                           [--ops decode|encode] [gtest flags]
// accepts-all: the reference, except that it accepts every block it should reject.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "kiln/conformance/gtest.hpp"

namespace {

class AcceptsAll final : public kiln::protocol::Adapter {
 public:
  kiln::protocol::Hello hello() override { return reference_.hello(); }
  kiln::protocol::Outcome decode(std::span<const std::uint8_t> block) override {
    auto outcome = reference_.decode(block);
    if (std::holds_alternative<kiln::protocol::Reject>(outcome)) return kiln::protocol::Accept{};
    return outcome;
  }
  kiln::protocol::Outcome encode(const kiln::BlockDescription& description) override {
    return reference_.encode(description);
  }

 private:
  kiln::protocol::ReferenceAdapter reference_;
};

// Every failure message of the run, for the --message check.
class FailureText final : public testing::EmptyTestEventListener {
 public:
  explicit FailureText(std::string& text) : text_(text) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (result.failed()) text_ += std::string(result.message()) + "\n";
  }

 private:
  std::string& text_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " reference|accepts-all pass|fail [--expected-failures FILE] "
                 "[--message TEXT]\n";
    return 2;
  }
  const std::string_view adapter = argv[1], expect = argv[2];
  kiln::conformance::gtest::Options options;
  options.cases_dir = KILN_CASES_DIR;
  std::string message;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--expected-failures") options.expected_failures = argv[i + 1];
    else if (flag == "--message") message = argv[i + 1];
    else if (flag == "--generated") options.generated = std::stoul(argv[i + 1]);
    else if (flag == "--generated-out") options.generated_out = argv[i + 1];
    else if (flag == "--ops" && std::string_view(argv[i + 1]) == "decode") options.ops = {kiln::conformance::Operation::kDecode};
    else if (flag == "--ops" && std::string_view(argv[i + 1]) == "encode") options.ops = {kiln::conformance::Operation::kEncode};
    else return 2;
  }
  kiln::conformance::gtest::AdapterFactory factory;
  if (adapter == "reference") factory = [] { return std::make_unique<kiln::protocol::ReferenceAdapter>(); };
  else if (adapter == "accepts-all") factory = [] { return std::make_unique<AcceptsAll>(); };
  else return 2;
  if (!kiln::conformance::gtest::register_tests(factory, options)) return 2;

  std::string failures;
  testing::UnitTest::GetInstance()->listeners().Append(new FailureText(failures));
  const bool passed = RUN_ALL_TESTS() == 0;
  if (testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::cerr << "CHECK: no test ran\n";
    return 1;
  }
  if (passed != (expect == "pass")) {
    std::cerr << "CHECK: the run " << (passed ? "passed" : "failed") << ", expected to " << expect << "\n";
    return 1;
  }
  if (!message.empty() && failures.find(message) == std::string::npos) {
    std::cerr << "CHECK: no failure message says: " << message << "\n";
    return 1;
  }
  std::cout << "CHECK: as expected\n";
  return 0;
}
