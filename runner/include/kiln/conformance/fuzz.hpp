// `kiln-conformance fuzz`: differential fuzzing of an implementation through its
// adapter, with the strict reference in process as the oracle. Profile kiln-v2
// (the default): inputs grow from the golden cases by the mutators of
// fuzz/mutate/ (structure-aware and byte-wise). Profile hurray-elements: inputs
// are generated over (tag, shape, mode, data) and (tag, shape, elements) and grow
// from what they find, no case needed (runner/src/fuzz_elements.cpp), judged by
// kiln::hurray with the Tier 2 types the hello claims. Each disagreement (accept
// vs reject, the class, the tensors or elements, the encoded bytes, or a crash,
// hang or malformed reply) is minimized, deduplicated and written as a
// ready-to-commit golden case (fuzz_case.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

// The largest block or description (payloads, names, layouts, dimensions) sent:
// small inputs find combination bugs as well as large ones, and make small cases.
inline constexpr std::size_t kMaxFuzzInputBytes = 16 * 1024;
// Default length of a run given neither --seconds nor --runs.
inline constexpr double kDefaultFuzzSeconds = 60;

struct FuzzOptions {
  std::string adapter;  // a command, or builtin:reference
  std::filesystem::path cases_dir;
  std::string profile{protocol::kProfileKilnV2};
  std::optional<double> seconds;       // stop after this long
  std::optional<std::uint64_t> runs;   // stop after this many inputs (reproducible)
  std::uint64_t seed = 1;
  std::vector<Operation> ops{Operation::kDecode, Operation::kEncode};
  std::filesystem::path out_dir = "fuzz-findings";
  int timeout_ms = 2000;
  bool quiet_progress = false;
  std::string program = "kiln-conformance";  // for replay commands
};

// One disagreement, minimized, as the case written for it.
struct FuzzFinding {
  Operation op = Operation::kDecode;
  // The dedup key: the op, the reference's verdict (its rule, or accept) and the
  // adapter's answer (accept, its class, a different block, a crash...).
  std::string signature;
  Case test_case;
  std::filesystem::path file;
  // What `cases check` would say of the written case (empty: it passes).
  std::vector<std::string> check_problems;
};

struct FuzzSummary {
  int exit_code = 0;  // ExitCode: 0 nothing found, 1 findings (or no usable adapter), 2 usage
  std::uint64_t inputs = 0;
  double seconds = 0;
  std::vector<FuzzFinding> findings;
};

// Loads options.cases_dir (an unusable case set exits 2) and fuzzes. Progress
// lines and findings go to out, problems to err.
FuzzSummary run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);
// The same from a case set already loaded.
FuzzSummary run_fuzz(const FuzzOptions& options, const CaseSet& set, std::ostream& out,
                     std::ostream& err);

}  // namespace kiln::conformance
