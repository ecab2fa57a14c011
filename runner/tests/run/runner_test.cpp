// `kiln-conformance run` against the reference and fake adapters (issue 4 item
// 4): a clean run passes everything and is certified, in persistent and one-shot
// mode; what the certificate may claim (judge(), repeated ops, hello problems)
// and what a run stores of an adapter's messages. The misbehaviours, levels,
// expected failures and the CLI have files of their own beside this one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/first_difference.hpp"
#include "run/runner_fixture.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using run_tests::fake_adapter;
using run_tests::kEncodeResults;
using run_tests::kResultCount;
using run_tests::line_count;
using run_tests::python_adapter;
using testing::shell_quote;

TEST_F(RunnerTest, FakeAdapterWithoutMisbehaviourPassesEverything) {
  const auto summary = run(fake_adapter("--count-starts " + shell_quote((scratch_ / "starts").string())));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.results.size(), kResultCount);
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-fake ", 0), 0u) << summary.certificate;
  EXPECT_EQ(line_count(scratch_ / "starts"), 1u) << "a persistent adapter is started once";
}

TEST_F(RunnerTest, BuiltinReferencePassesEverythingAndIsConformant) {
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.totals.failed + summary.totals.skipped + summary.totals.expected_failures, 0u);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
}

TEST_F(RunnerTest, OneShotModeWithTheReferenceAdapterPassesEverything) {
  options_.one_shot = true;
  const auto summary = run(shell_quote(KILN_REFERENCE_ADAPTER));
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount);
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << summary.certificate;
}

TEST_F(RunnerTest, OneShotModeStartsAProcessPerRequestAndIsolatesACrash) {
  options_.one_shot = true;
  const auto starts = scratch_ / "starts";
  const auto summary = run(fake_adapter("--crash-on kiln-v2-high-nibble --count-starts " +
                                        shell_quote(starts.string())));
  expect_only_case(summary, "kiln-v2-high-nibble", Status::kCrash);
  EXPECT_EQ(line_count(starts), 1 + kResultCount) << "hello plus one process per request";
  EXPECT_EQ(summary.exit_code, kExitFailures);
}

// ---- reliability: what the certificate may claim, and what is stored ----

// Finding 4: judge() never dereferences what a case lacks; such a case is an
// ERROR result that no expected-failures list can hide.
TEST(Judge, ACaseThatLacksWhatItsOpNeedsIsAnErrorResult) {
  Case no_block;
  no_block.id = "kiln-v2-no-block";
  kiln_v2::body(no_block).expect.accept = true;
  CaseResult encoded;
  judge(no_block, Operation::kEncode, protocol::EncodedBlock{{0x4b, 0x49}}, encoded);
  EXPECT_EQ(to_string(encoded.status), "ERROR");
  EXPECT_NE(encoded.detail.find("cannot be judged: it has no block"), std::string::npos) << encoded.detail;
  CaseResult decoded;
  judge(no_block, Operation::kDecode, protocol::Accept{}, decoded);
  EXPECT_EQ(to_string(decoded.status), "ERROR");

  Case classless;
  kiln_v2::body(classless).block = std::vector<std::uint8_t>{0x4b};
  kiln_v2::body(classless).expect.accept = false;  // neither class nor rule
  CaseResult rejected;
  judge(classless, Operation::kDecode, protocol::Reject{ErrorClass::kType, "no", std::nullopt, std::nullopt},
        rejected);
  EXPECT_EQ(to_string(rejected.status), "ERROR");
  EXPECT_NE(rejected.detail.find("names no class"), std::string::npos) << rejected.detail;
  EXPECT_EQ(rejected.got, "reject TYPE");

  // Even when a list names it, in any way.
  rejected.case_id = "kiln-v2-classless";
  for (const char* line : {"kiln-v2-classless\n", "kiln-v2-*:decode FAIL:\n"}) {
    auto list = kiln::conformance::ExpectedFailures::parse(line, "list.txt");
    ASSERT_TRUE(list) << list.error();
    list.value().record(rejected);
    EXPECT_TRUE(rejected.listed) << line;
    EXPECT_TRUE(rejected.unexpected()) << line;
    EXPECT_FALSE(rejected.expected_failure()) << line;
  }
}

// The one first_difference, which judge() and `cases check` report.
TEST(FirstDifference, IsTheFirstDifferingOffsetOrTheShorterLength) {
  const std::vector<std::uint8_t> abc{1, 2, 3}, abd{1, 2, 4}, ab{1, 2}, none;
  EXPECT_EQ(kiln::first_difference(abc, abd), 2u);
  EXPECT_EQ(kiln::first_difference(abc, abc), 3u);
  EXPECT_EQ(kiln::first_difference(abc, ab), 2u);
  EXPECT_EQ(kiln::first_difference(ab, abc), 2u);
  EXPECT_EQ(kiln::first_difference(none, abc), 0u);
  EXPECT_EQ(kiln::first_difference(std::vector<std::uint8_t>{9}, abc), 0u);

  Case c;
  kiln_v2::body(c).block = abc;
  CaseResult encoded;
  judge(c, Operation::kEncode, protocol::EncodedBlock{abd}, encoded);
  EXPECT_EQ(to_string(encoded.status), "FAIL");
  ASSERT_TRUE(encoded.first_difference);
  EXPECT_EQ(*encoded.first_difference, 2u);
  EXPECT_EQ(encoded.detail, "encoded block differs: byte 2: header magic: expected 01 02 03 (end), got 01 02 04 (end) (expected 3 bytes, got 3)");
}

TEST(Judge, TheRuleIsInformativeAndARejectedEncodeNeedsNoBlock) {
  Case typed;
  kiln_v2::body(typed).block = std::vector<std::uint8_t>{0x4b};
  kiln_v2::body(typed).expect.accept = false;
  kiln_v2::body(typed).expect.error_class = ErrorClass::kType;  // no rule
  CaseResult accepted;
  judge(typed, Operation::kDecode, protocol::Accept{}, accepted);
  EXPECT_EQ(to_string(accepted.status), "FAIL");
  EXPECT_EQ(accepted.detail, "expected a TYPE rejection");
  CaseResult wrong_class;
  judge(typed, Operation::kDecode, protocol::Reject{ErrorClass::kFrame, "bad", std::nullopt, std::nullopt},
        wrong_class);
  EXPECT_EQ(to_string(wrong_class.status), "FAIL");
  EXPECT_EQ(wrong_class.detail, "wrong class; adapter said: bad");

  kiln_v2::body(typed).block.reset();  // a description no block can exist for: encode only
  CaseResult encode;
  judge(typed, Operation::kEncode, protocol::Reject{ErrorClass::kType, "bool 2", std::nullopt, std::nullopt},
        encode);
  EXPECT_EQ(to_string(encode.status), "PASS") << encode.detail;
}

// Finding 5: the ops are a set; decode twice is a decode-only run.
TEST_F(RunnerTest, RepeatedOpsAreOneOpAndCertifyNothing) {
  options_.ops = {Operation::kDecode, Operation::kDecode};
  const auto summary = run("builtin:reference");
  EXPECT_EQ(summary.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(summary.results.size(), kResultCount - kEncodeResults);
  for (const auto& result : summary.results) EXPECT_EQ(result.op, Operation::kDecode) << result.case_id;
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: a filtered run certifies nothing", 0), 0u)
      << summary.certificate;
  EXPECT_EQ(out_.find("\nCONFORMANT"), std::string::npos) << out_;
}

// Finding 6: a hello that offers nothing we run has nothing checked: no certificate, exit 1.
TEST_F(RunnerTest, AHelloThatOffersNoOpsGetsNoCertificate) {
  const auto summary = run(python_adapter(scratch_ / "no-ops.py", R"(
serve(lambda request, line: {"name": "kiln-idle", "version": "1", "protocol": 1, "ops": []},
      lambda request, line: {"result": "error", "message": "never asked"})
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  ASSERT_EQ(summary.results.size(), kResultCount);
  for (const auto& result : summary.results) EXPECT_EQ(to_string(result.status), "SKIP") << result.case_id;
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: nothing was checked: kiln-idle 1 offers none", 0),
            0u)
      << summary.certificate;
}

TEST_F(RunnerTest, AHelloThatOffersOnlyAnotherProfileGetsNoCertificate) {
  const auto summary = run(python_adapter(scratch_ / "other-profile.py", R"(
serve(lambda request, line: {"name": "kiln-v9-only", "version": "1", "ops": ["decode", "encode"],
                               "profiles": ["kiln-v9"]},
      lambda request, line: {"result": "error", "message": "never asked"})
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.skipped, kResultCount);
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: nothing was checked", 0), 0u)
      << summary.certificate;
}

// Finding 6 (and 26): a hello that fails is a failed certification even when
// every case passes after the restart.
TEST_F(RunnerTest, AnAdapterWhoseFirstHelloFailsIsNotConformantEvenIfTheCasesPass) {
  const auto flag = scratch_ / "said-hello-once";
  const auto summary = run(python_adapter(scratch_ / "flaky-hello.py", R"(
FLAG = )" + nlohmann::json(flag.string()).dump() + R"(
def hello(request, line):
    if not os.path.exists(FLAG):
        open(FLAG, "w").close()
        return {"name": 5}
    return proxy(line)
serve(hello, lambda request, line: proxy(line))
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, kResultCount) << out_;
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("failed its hello (hello reply: "), std::string::npos)
      << summary.certificate;
}

// Finding 26: an error reply to hello fails the run with exit 1, and says why.
TEST_F(RunnerTest, AHelloErrorReplyFailsTheRunWithExitOne) {
  const auto summary = run(python_adapter(scratch_ / "hello-error.py", R"(
serve(lambda request, line: {"result": "error", "message": "protocol: I speak 7"},
      lambda request, line: proxy(line))
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_EQ(summary.totals.passed, 0u);
  EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("failed its hello"), std::string::npos) << summary.certificate;
}

// Finding 11: replies of a protocol version we do not speak are not judged.
TEST_F(RunnerTest, AHelloOfAnotherProtocolVersionIsRefused) {
  const auto proxy_with = [&](int version) {
    return python_adapter(scratch_ / ("protocol-" + std::to_string(version) + ".py"), R"(
def hello(request, line):
    reply = proxy(line)
    reply["protocol"] = )" + std::to_string(version) + R"(
    return reply
serve(hello, lambda request, line: proxy(line))
)");
  };
  // The control: the same proxy saying protocol 1 is certified.
  const auto control = run(proxy_with(1));
  EXPECT_EQ(control.exit_code, kExitOk) << out_ << err_;
  EXPECT_EQ(control.certificate.rfind("CONFORMANT: kiln-reference ", 0), 0u) << control.certificate;

  const auto summary = run(proxy_with(2));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  EXPECT_TRUE(summary.results.empty());
  EXPECT_EQ(summary.certificate.rfind("NO CERTIFICATE: kiln-reference ", 0), 0u) << summary.certificate;
  EXPECT_NE(summary.certificate.find("speaks adapter protocol 2, this runner protocol 1"),
            std::string::npos)
      << summary.certificate;
  EXPECT_NE(err_.find("the adapter speaks protocol 2; this runner speaks protocol 1 only"),
            std::string::npos)
      << err_;
}

// Finding 13: a huge message is stored bounded, and once.
TEST_F(RunnerTest, AdapterMessagesAreStoredBoundedAndOnce) {
  const auto summary = run(python_adapter(scratch_ / "huge-messages.py", R"(
def answer(request, line):
    if request["op"] == "decode":
        return {"result": "reject", "class": "FRAME", "message": "Q" * (1 << 20) + "\nQ",
                "rule": "Z" * (1 << 20)}
    return {"result": "error", "message": "J" * (1 << 20)}
serve(lambda request, line: proxy(line), answer)
)"));
  EXPECT_EQ(summary.exit_code, kExitFailures) << out_ << err_;
  ASSERT_EQ(summary.results.size(), kResultCount);
  const auto count = [](const CaseResult& result, char c) {
    return std::count(result.got.begin(), result.got.end(), c) +
           std::count(result.detail.begin(), result.detail.end(), c);
  };
  constexpr auto kLimit = static_cast<std::ptrdiff_t>(protocol::kMaxMessageBytes);
  for (const auto& result : summary.results) {
    SCOPED_TRACE(result.case_id + " " + std::string(to_string(result.op)));
    EXPECT_LE(result.got.size(), protocol::kMaxMessageBytes + 100);
    EXPECT_LE(result.detail.size(), protocol::kMaxMessageBytes + 200);
    EXPECT_LE(count(result, 'Q'), kLimit);
    EXPECT_LE(count(result, 'Z'), kLimit);
    EXPECT_LE(count(result, 'J'), kLimit);
    if (result.op == Operation::kEncode) {
      EXPECT_EQ(to_string(result.status), "PROTOCOL");
      EXPECT_GT(count(result, 'J'), kLimit / 2) << "the message is kept, bounded";
      EXPECT_NE(result.got.find("more bytes cut]"), std::string::npos);
    } else if (result.case_id != "kiln-v2-le-clear") {
      EXPECT_EQ(to_string(result.status), "FAIL");
      EXPECT_GT(count(result, 'Q'), kLimit / 2);
      EXPECT_NE(result.detail.find("more bytes cut]"), std::string::npos);
    }
  }
  // Printed on one line each: the message's newline starts no console line.
  EXPECT_EQ(out_.find("\nQ"), std::string::npos);
}

}  // namespace
}  // namespace kiln::conformance
