// What the tests of `kiln-conformance run` share (runner_test.cpp and the files
// beside it): the seed case set's result counts, adapter commands (the fake
// adapter with misbehaviour flags, python3 proxies of the reference adapter)
// and the RunnerTest fixture. A named namespace, not an anonymous one: gtest
// wants one fixture type per suite, and RunnerTest's tests are in several files.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <sstream>
#include <string>

#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance::run_tests {

using testing::ScratchDir;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

// Every (case, op) of the seed case set; le-clear has faults, so decode only.
inline constexpr std::size_t kResultCount = 11;
inline constexpr std::size_t kEncodeResults = 5;

// `exec` so that the adapter is the shell's process itself: its own exit status
// and a stdout it closes reach the runner, not the waiting shell's.
inline std::string fake_adapter(const std::string& flags) {
  return "exec " + shell_quote(KILN_FAKE_ADAPTER) + (flags.empty() ? "" : " " + flags);
}

// A python3 adapter for behaviours the fake adapter lacks: the script defines
// hello(request) and answer(request), each returning the reply object, and calls
// serve(hello, answer). proxy(line) asks the reference adapter instead.
inline constexpr const char* kPythonPrelude = R"(import json, os, subprocess, sys
reference = None
def proxy(line):
    global reference
    if reference is None:
        reference = subprocess.Popen([REFERENCE], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    reference.stdin.write(line)
    reference.stdin.flush()
    return json.loads(reference.stdout.readline())
def serve(hello, answer):
    for line in sys.stdin.buffer:
        request = json.loads(line)
        reply = hello(request, line) if request.get("op") == "hello" else answer(request, line)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
)";

inline std::string python_adapter(const std::filesystem::path& script, const std::string& body) {
  write_text(script, "REFERENCE = " + nlohmann::json(std::string(KILN_REFERENCE_ADAPTER)).dump() +
                         "\n" + kPythonPrelude + body);
  return "exec python3 " + shell_quote(script.string());
}

// A proxy of the reference adapter that rejects every request about case_id as
// FRAME: a FAIL of that case (for a TYPE reject or an accept case), nothing else.
inline std::string failing_adapter(const std::filesystem::path& script, const std::string& case_id) {
  return python_adapter(script, "FAILING = " + nlohmann::json(case_id).dump() + R"(
def answer(request, line):
    if request.get("case") == FAILING:
        return {"result": "reject", "class": "FRAME", "message": "refused on purpose"}
    return proxy(line)
serve(lambda request, line: proxy(line), answer)
)");
}

inline std::size_t line_count(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(cases_));
    options_.cases_dir = cases_;
    options_.quiet_progress = true;
    options_.timeout_ms = 5000;
  }

  RunSummary run(const std::string& adapter) {
    options_.adapter = adapter;
    std::ostringstream out, err;
    RunSummary summary = run_suite(options_, out, err);
    out_ = out.str();
    err_ = err.str();
    return summary;
  }

  // The status of one (case, op); fails the test when there is no such result.
  static Status status_of(const RunSummary& summary, const std::string& id, Operation op) {
    for (const auto& result : summary.results)
      if (result.case_id == id && result.op == op) return result.status;
    ADD_FAILURE() << "no result for " << id << " " << to_string(op);
    return Status::kSkip;
  }

  // Every result of case `id` has `status`; every other result passes.
  static void expect_only_case(const RunSummary& summary, const std::string& id, Status status) {
    ASSERT_EQ(summary.results.size(), kResultCount);
    std::size_t hits = 0;
    for (const auto& result : summary.results) {
      if (result.case_id == id) {
        ++hits;
        EXPECT_EQ(to_string(result.status), to_string(status))
            << result.case_id << " " << to_string(result.op) << ": " << result.detail;
      } else {
        EXPECT_EQ(to_string(result.status), "PASS")
            << result.case_id << " " << to_string(result.op) << ": " << result.detail;
      }
    }
    EXPECT_GT(hits, 0u) << id;
  }

  ScratchDir scratch_;
  std::filesystem::path cases_ = scratch_ / "cases";
  RunOptions options_;
  std::string out_, err_;
};

}  // namespace kiln::conformance::run_tests
