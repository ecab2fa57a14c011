// The conformance suite inside a C++ implementer's own GoogleTest program: one
// test per (case, op) against their in-process kiln::protocol::Adapter, judged
// as `kiln-conformance run` judges (run_case, the expected-failures list) and
// failing with the messages it prints. No protocol adapter process is needed.
//
//   int main(int argc, char** argv) {
//     testing::InitGoogleTest(&argc, argv);
//     kiln::conformance::gtest::Options options;
//     options.cases_dir = "/usr/share/kiln-conformance/cases";
//     if (!kiln::conformance::gtest::register_tests(
//             [] { return std::make_unique<MyAdapter>(); }, options))
//       return 2;
//     return RUN_ALL_TESTS();
//   }
//
// Tests are named <suite_prefix>/<topic>.<case id>/<op>, so --gtest_filter
// selects by topic, case or op (with '?' for each '-' of an id: in a filter a
// '-' starts the negative patterns). Each test makes its own adapter with the
// factory and asks its hello (whose ops and profiles decide skips, as in
// `run`). An unexpected failure, a changed failure or a stale listing fails
// the test; a listed failure passes; a case the adapter does not offer is
// skipped. When every registered test ran, list entries that matched
// nothing fail the program, as they fail `run`. The generated phase is one
// test per profile (Options::generated).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/adapter.hpp"
#include "kiln/conformance/case.hpp"
#include "kiln/conformance/fuzz.hpp"

namespace kiln::conformance::gtest {

using AdapterFactory = std::function<std::unique_ptr<protocol::Adapter>()>;

struct Options {
  std::filesystem::path cases_dir;  // the golden cases (installed: <prefix>/share/kiln-conformance/cases)
  // `kiln-conformance run --expected-failures`'s list, same format.
  std::optional<std::filesystem::path> expected_failures;
  std::vector<Operation> ops{Operation::kDecode, Operation::kEncode};
  std::string suite_prefix = "KilnConformance";
  // The generated phase of `run` (generated.hpp): one test per profile of the
  // case set, <suite_prefix>/generated.<profile>, sending this many checks (0:
  // no such test) from the seed of the case-set hash (or generated_seed); a
  // failure is confirmed in a fresh adapter from the factory, minimized, written
  // to generated_out as a case and shown in the test's failure.
  std::size_t generated = kDefaultGeneratedChecks;
  std::optional<std::uint64_t> generated_seed;
  std::filesystem::path generated_out = "generated-failures";
};

// Loads the case set and the list and registers the tests (call it after
// testing::InitGoogleTest and before RUN_ALL_TESTS, once). Returns how many
// tests it registered; nullopt, after writing why to err, when the case set or
// the list is unusable, or nothing is selected (then nothing is registered).
std::optional<std::size_t> register_tests(AdapterFactory factory, const Options& options,
                                          std::ostream& err);
std::optional<std::size_t> register_tests(AdapterFactory factory, const Options& options);

}  // namespace kiln::conformance::gtest
