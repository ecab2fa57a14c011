// Every golden case, decode and encode, as a GoogleTest test of ExampleAdapter:
//   kiln_gtest_example [gtest flags] [--expected-failures FILE]
// Exit status: GoogleTest's (0 all passed, 1 a test failed); 2 when the cases
// or the list cannot be used.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string_view>

#include "example_adapter.hpp"
#include "kiln/conformance/gtest.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);  // takes the --gtest_* flags out of argv
  kiln::conformance::gtest::Options options;
  options.cases_dir = KILN_CASES_DIR;  // KilnConformance_CASES_DIR, from CMakeLists.txt
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--expected-failures" && i + 1 < argc) {
      options.expected_failures = argv[++i];
    } else {
      std::cerr << "usage: " << argv[0] << " [gtest flags] [--expected-failures FILE]\n";
      return 2;
    }
  }
  const auto registered = kiln::conformance::gtest::register_tests(
      [] { return std::make_unique<ExampleAdapter>(); }, options);
  if (!registered) return 2;
  return RUN_ALL_TESTS();
}
