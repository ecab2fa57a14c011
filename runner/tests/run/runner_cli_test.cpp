// `kiln-conformance run` from the command line: the JSON, JUnit and Markdown
// reports count what the console says, exit codes, selections by rule, filter
// and op, the case set's hash in the certificate, a replay command that runs as
// printed, and hello problems.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/report.hpp"
#include "run/runner_fixture.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using run_tests::RunnerTest;
using run_tests::fake_adapter;
using run_tests::kEncodeResults;
using run_tests::kResultCount;
using run_tests::python_adapter;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

class RunnerCli : public RunnerTest {
 protected:
  // A run here is about the cases: the generated phase, which would add its
  // results to every count and its time to every test, is left out unless a
  // test asks for it (runner/tests/generated_test.cpp tests it, and the CLI's default).
  testing::CommandResult cli(std::vector<std::string> args) {
    if (!args.empty() && args.front() == "run" && std::find(args.begin(), args.end(), "--generated") == args.end()) {
      args.push_back("--generated");
      args.push_back("0");
    }
    return testing::run_program(KILN_CONFORMANCE_CLI, args, scratch_);
  }
};

struct ClosingLine {
  std::size_t passed, failed, skipped, expected_failures, stale_expected_failures;
};

// The console's last line. (No <regex>: GCC 12 warns inside it under ASan.)
ClosingLine closing_line(const std::string& console) {
  const auto start = console.rfind('\n', console.size() >= 2 ? console.size() - 2 : 0);
  const std::string last = console.substr(start == std::string::npos ? 0 : start + 1);
  ClosingLine line{};
  char end = 0;
  const int read = std::sscanf(
      last.c_str(), "%zu passed, %zu failed, %zu skipped, %zu expected failures%c %zu stale expected failures%c",
      &line.passed, &line.failed, &line.skipped, &line.expected_failures, &end, &line.stale_expected_failures, &end);
  // The stale count is there only when it is not 0.
  const bool plain = read == 5 && end == '\n';
  const bool with_stale = read == 7 && end == '\n' && line.stale_expected_failures > 0;
  if (!plain && !with_stale) ADD_FAILURE() << "no closing line in\n" << console;
  return line;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

std::size_t xml_attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = element.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << name << " missing in " << element;
    return 0;
  }
  return std::stoul(element.substr(at + key.size()));
}

TEST_F(RunnerCli, ReportsParseAndCountWhatTheConsoleSays) {
  write_text(scratch_ / "expected.txt", "kiln-v2-u4 known\n");
  const auto json_file = scratch_ / "report.json";
  const auto junit_file = scratch_ / "report.xml";
  const auto markdown_file = scratch_ / "report.md";
  // A mix: a crash, a listed failure pair, a wrong class, a skipped encoder.
  const auto result = cli({"run", "--adapter",
                           fake_adapter("--no-encode --crash-on kiln-v2-f32 --garbage-on kiln-v2-u4 "
                                        "--reject-everything"),
                           "--cases", cases_.string(), "--generated", "0", "--timeout-ms", "5000", "--expected-failures",
                           (scratch_ / "expected.txt").string(), "--json", json_file.string(),
                           "--junit", junit_file.string(), "--markdown", markdown_file.string()});
  EXPECT_EQ(result.exit_code, kExitFailures) << result.out << result.err;
  const ClosingLine console = closing_line(result.out);
  // bool-byte, high-nibble, opaque decode FAIL; f32 decode CRASH; u4 decode listed; encode skipped.
  EXPECT_EQ(console.passed, 1u);
  EXPECT_EQ(console.failed, 4u);
  EXPECT_EQ(console.skipped, kEncodeResults);
  EXPECT_EQ(console.expected_failures, 1u);

  const auto report = nlohmann::json::parse(read_text(json_file));
  EXPECT_EQ(report["report_version"], kJsonReportVersion);
  EXPECT_EQ(report["totals"]["passed"], console.passed);
  EXPECT_EQ(report["totals"]["failed"], console.failed);
  EXPECT_EQ(report["totals"]["skipped"], console.skipped);
  EXPECT_EQ(report["totals"]["expected_failures"], console.expected_failures);
  // One profile in this case set, with its own verdict and counts.
  ASSERT_EQ(report["profiles"].size(), 1u) << report["profiles"].dump();
  EXPECT_EQ(report["profiles"][0]["profile"], "kiln-v2");
  EXPECT_EQ(report["profiles"][0]["verdict"], "not conformant");
  EXPECT_EQ(report["profiles"][0]["failed"], console.failed);
  EXPECT_EQ(report["results"].size(), kResultCount);
  EXPECT_EQ(report["adapter"]["name"], "kiln-fake");
  EXPECT_EQ(report["adapter"]["ops"], nlohmann::json::parse(R"(["decode"])"));
  EXPECT_EQ(report["case_set_sha256"].get<std::string>().size(), 64u);
  std::map<std::string, std::size_t> statuses;
  for (const auto& item : report["results"]) ++statuses[item["status"].get<std::string>()];
  EXPECT_EQ(statuses, (std::map<std::string, std::size_t>{
                          {"PASS", 1}, {"FAIL", 3}, {"CRASH", 1}, {"PROTOCOL", 1}, {"SKIP", 5}}));

  // JUnit: well formed, one testcase per result, and its counts agree.
  const std::string xml = read_text(junit_file);
  EXPECT_EQ(std::system(("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " +
                         shell_quote(junit_file.string()))
                            .c_str()),
            0)
      << xml;
  EXPECT_EQ(count_of(xml, "<testcase "), kResultCount);
  const auto suites_at = xml.find("<testsuites ");
  ASSERT_NE(suites_at, std::string::npos) << xml;
  const std::string suites = xml.substr(suites_at, xml.find('>', suites_at) - suites_at);
  EXPECT_EQ(xml_attribute(suites, "tests"), kResultCount);
  // failures are FAILs, errors are CRASH/TIMEOUT/PROTOCOL, skipped holds the listed ones too.
  EXPECT_EQ(xml_attribute(suites, "failures"), count_of(xml, "<failure "));
  EXPECT_EQ(xml_attribute(suites, "errors"), count_of(xml, "<error "));
  EXPECT_EQ(xml_attribute(suites, "skipped"), count_of(xml, "<skipped "));
  EXPECT_EQ(xml_attribute(suites, "failures") + xml_attribute(suites, "errors"), console.failed);
  EXPECT_EQ(xml_attribute(suites, "skipped"), console.skipped + console.expected_failures);

  const std::string markdown = read_text(markdown_file);
  EXPECT_NE(markdown.find("**" + report["certificate"].get<std::string>() + "**"), std::string::npos)
      << markdown;
  EXPECT_EQ(report["certificate"].get<std::string>().rfind("NOT CONFORMANT", 0), 0u);
  EXPECT_NE(result.out.find(report["certificate"].get<std::string>() + "\n"), std::string::npos);
}

// A listed case that passes and an entry that matches nothing: no wrong
// answer, and still exit 1, each report counting them as the console does.
TEST_F(RunnerCli, StaleExpectedFailuresExitOneCountedApartFromFailed) {
  write_text(scratch_ / "expected.txt", "kiln-v2-f32:decode FAIL: was broken once\nkiln-v2-gone\n");
  const auto json_file = scratch_ / "report.json";
  const auto junit_file = scratch_ / "report.xml";
  const auto result = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(), "--expected-failures",
                           (scratch_ / "expected.txt").string(), "--json", json_file.string(), "--junit",
                           junit_file.string()});
  EXPECT_EQ(result.exit_code, kExitFailures) << result.out << result.err;
  const ClosingLine console = closing_line(result.out);
  EXPECT_EQ(console.passed, kResultCount - 1);
  EXPECT_EQ(console.failed, 0u);
  EXPECT_EQ(console.stale_expected_failures, 2u);
  EXPECT_NE(result.out.find(" has 0 unexpected and 0 expected failure(s) and 2 stale expected failure(s); case set "),
            std::string::npos)
      << result.out;
  const auto report = nlohmann::json::parse(read_text(json_file));
  EXPECT_EQ(report["totals"]["failed"], console.failed);
  EXPECT_EQ(report["totals"]["stale_expected_failures"], console.stale_expected_failures);
  // JUnit keeps the stale listing a failure of its own type, as a run that fails.
  const std::string xml = read_text(junit_file);
  EXPECT_EQ(count_of(xml, "<failure type=\"STALE-EXPECTED-FAILURE\""), 1u) << xml;
  // `report` reads it back, its consistency check agreeing.
  const auto page = cli({"report", "--html", (scratch_ / "matrix.html").string(), json_file.string()});
  EXPECT_EQ(page.exit_code, kExitOk) << page.err;
}

TEST_F(RunnerCli, AConformantRunExitsZeroWithTheCertificateInEveryReport) {
  const auto markdown_file = scratch_ / "report.md";
  const auto result = cli({"run", "--adapter", shell_quote(KILN_REFERENCE_ADAPTER), "--cases",
                           cases_.string(), "--generated", "0", "--markdown", markdown_file.string()});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  const ClosingLine console = closing_line(result.out);
  EXPECT_EQ(console.passed, kResultCount);
  EXPECT_NE(read_text(markdown_file).find("**CONFORMANT: kiln-reference "), std::string::npos);
}

TEST_F(RunnerCli, ExitCodes) {
  const std::string adapter = "builtin:reference";
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", (scratch_ / "missing").string()}).exit_code,
            kExitUsage);
  const auto unknown_rule =
      cli({"run", "--adapter", adapter, "--cases", cases_.string(), "--rules", "TYPE-NO-SUCH"});
  EXPECT_EQ(unknown_rule.exit_code, kExitUsage);
  EXPECT_NE(unknown_rule.err.find("'TYPE-NO-SUCH' is not a rule ID"), std::string::npos)
      << unknown_rule.err;
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", cases_.string(), "--no-such-flag"}).exit_code,
            kExitUsage);
  EXPECT_EQ(cli({"run", "--adapter", "builtin:nothing", "--cases", cases_.string()}).exit_code,
            kExitUsage);
  EXPECT_EQ(cli({"run", "--adapter", adapter, "--cases", cases_.string()}).exit_code, kExitOk);
  // Without its generated checks: what they write goes beside the reports, or into the working directory.
  EXPECT_EQ(cli({"run", "--adapter", fake_adapter("--reject-everything"), "--cases", cases_.string(),
                 "--generated", "0"})
                .exit_code,
            kExitFailures);
}

TEST_F(RunnerCli, RulesAndFilterSelectCasesAndCertifyNothing) {
  const auto by_rule = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                            "--rules", "TYPE-BOOL-BYTE,FRAME-LE-FLAG", "--verbose"});
  EXPECT_EQ(by_rule.exit_code, kExitOk) << by_rule.err;
  EXPECT_EQ(closing_line(by_rule.out).passed, 3u);  // bool-byte decode+encode, le-clear decode
  EXPECT_NE(by_rule.out.find("PASS  kiln-v2-bool-byte encode"), std::string::npos) << by_rule.out;
  EXPECT_NE(by_rule.out.find("NO CERTIFICATE"), std::string::npos) << by_rule.out;

  const auto by_glob = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                            "--filter", "kiln-v2-*-*", "--ops", "encode"});
  EXPECT_EQ(by_glob.exit_code, kExitOk) << by_glob.err;
  EXPECT_EQ(closing_line(by_glob.out).passed, 2u);  // bool-byte and high-nibble encode
}

// Finding 5, from the command line.
TEST_F(RunnerCli, OpsDecodeTwiceIsADecodeOnlyRunWithoutACertificate) {
  const auto result = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(), "--ops",
                           "decode,decode"});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  EXPECT_EQ(closing_line(result.out).passed, kResultCount - kEncodeResults);
  EXPECT_NE(result.out.find("\nNO CERTIFICATE: a filtered run certifies nothing"), std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("\nCONFORMANT"), std::string::npos) << result.out;
}

// Finding 27: nothing selected is a usage error, said so, not a silent success.
TEST_F(RunnerCli, ASelectionThatMatchesNothingIsAUsageError) {
  const auto no_match =
      cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(), "--filter", "nomatch"});
  EXPECT_EQ(no_match.exit_code, kExitUsage) << no_match.out << no_match.err;
  EXPECT_NE(no_match.err.find("run: nothing selected: no case of "), std::string::npos) << no_match.err;
  EXPECT_NE(no_match.out.find("NO CERTIFICATE: nothing selected"), std::string::npos) << no_match.out;
  // A case that matches but has no case of the op asked for: le-clear has faults, so no encode.
  const auto no_op = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string(),
                          "--filter", "kiln-v2-le-clear", "--ops", "encode"});
  EXPECT_EQ(no_op.exit_code, kExitUsage) << no_op.out << no_op.err;
  EXPECT_NE(no_op.err.find("nothing selected"), std::string::npos) << no_op.err;
}

// Finding 27: the certificate names the case set it is for.
TEST_F(RunnerCli, TheCertificateNamesTheCaseSetHash) {
  const std::string hash = case_set_hash(load_case_set(cases_));
  ASSERT_EQ(hash.size(), 64u);
  const auto result = cli({"run", "--adapter", "builtin:reference", "--cases", cases_.string()});
  EXPECT_EQ(result.exit_code, kExitOk) << result.out << result.err;
  EXPECT_NE(result.out.find("\nCONFORMANT: kiln-reference "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("; case set " + hash.substr(0, 12) + "\n"), std::string::npos) << result.out;
}

// The "replay:" line of the console for case `id` and op.
std::string replay_line(const std::string& console, const std::string& id, const std::string& op) {
  const auto at = console.find("  " + id + " " + op + "\n");
  if (at == std::string::npos) return {};
  const auto replay = console.find("    replay:   ", at);
  if (replay == std::string::npos) return {};
  const auto start = replay + std::strlen("    replay:   ");
  return console.substr(start, console.find('\n', start) - start);
}

// Finding 28: the replay command runs as printed, from a program path that
// needs quoting, with the run's timeout.
TEST_F(RunnerCli, TheReplayCommandReproducesTheFailureAsPrinted) {
  const auto bin = scratch_ / "bin dir's";
  std::filesystem::create_directories(bin);
  const auto program = bin / "kiln-conformance";
  std::filesystem::create_symlink(KILN_CONFORMANCE_CLI, program);
  const auto result = testing::run_program(
      program.string(),
      {"run", "--adapter", fake_adapter("--hang-on kiln-v2-f32"), "--cases", cases_.string(),
       "--timeout-ms", "700"},
      scratch_);
  EXPECT_EQ(result.exit_code, kExitFailures) << result.out << result.err;
  const std::string replay = replay_line(result.out, "kiln-v2-f32", "decode");
  ASSERT_FALSE(replay.empty()) << result.out;
  EXPECT_EQ(replay.rfind(shell_quote(program.string()) + " run ", 0), 0u) << replay;
  EXPECT_NE(replay.find(" --timeout-ms 700 "), std::string::npos) << replay;

  const auto out_file = scratch_ / "replay.out";
  const int status = std::system((replay + " >" + shell_quote(out_file.string()) + " 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << replay;
  EXPECT_EQ(WEXITSTATUS(status), kExitFailures) << read_text(out_file);
  const std::string replayed = read_text(out_file);
  EXPECT_NE(replayed.find("TIMEOUT  kiln-v2-f32 decode"), std::string::npos) << replayed;
  EXPECT_NE(replayed.find("no reply within 700 ms"), std::string::npos) << replayed;
  const ClosingLine totals = closing_line(replayed);
  EXPECT_EQ(totals.failed, 1u);
  EXPECT_EQ(totals.passed + totals.skipped + totals.expected_failures, 0u);

  // The default timeout is not spelled out.
  const auto crash = cli({"run", "--adapter", fake_adapter("--crash-on kiln-v2-f32"), "--cases",
                          cases_.string()});
  const std::string default_replay = replay_line(crash.out, "kiln-v2-f32", "decode");
  ASSERT_FALSE(default_replay.empty()) << crash.out;
  EXPECT_EQ(default_replay.find("--timeout-ms"), std::string::npos) << default_replay;
  EXPECT_NE(default_replay.find(" --filter kiln-v2-f32 --ops decode --verbose"), std::string::npos)
      << default_replay;
}

// Finding 11 and 26, from the command line: hello problems exit 1.
TEST_F(RunnerCli, HelloProblemsExitOne) {
  const auto other_protocol = cli(
      {"run", "--cases", cases_.string(), "--adapter",
       python_adapter(scratch_ / "protocol-2.py", R"(
def hello(request, line):
    reply = proxy(line)
    reply["protocol"] = 2
    return reply
serve(hello, lambda request, line: proxy(line))
)")});
  EXPECT_EQ(other_protocol.exit_code, kExitFailures) << other_protocol.out << other_protocol.err;
  EXPECT_NE(other_protocol.out.find("\nNO CERTIFICATE: kiln-reference "), std::string::npos)
      << other_protocol.out;
  const auto crash_at_hello =
      cli({"run", "--cases", cases_.string(), "--adapter", fake_adapter("--exit-at-hello")});
  EXPECT_EQ(crash_at_hello.exit_code, kExitFailures) << crash_at_hello.out << crash_at_hello.err;
  EXPECT_NE(crash_at_hello.out.find("failed its hello"), std::string::npos) << crash_at_hello.out;
}

}  // namespace
}  // namespace kiln::conformance
