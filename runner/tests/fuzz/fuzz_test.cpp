// `kiln-conformance fuzz`: clean against the reference, its minimizers, the
// cases it writes, and its usage errors. That it finds bugs the golden cases
// miss is shown against the fuzz-only mutants (adapters/mutants/tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "kiln/adapter.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"
#include "kiln/conformance/hurray_elements/minimize.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/finding_case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/minimize.hpp"
#include "kiln/decode.hpp"
#include "kiln/protocol.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;

TensorDescription tensor(std::string name, std::uint16_t dtype, std::vector<std::uint64_t> shape,
                         std::vector<std::uint8_t> payload) {
  TensorDescription t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.payload = std::move(payload);
  return t;
}

// A small case set: a few reference blocks to mutate.
CaseSet seeds() {
  CaseSet set;
  BlockDescription one;
  one.tensors.push_back(tensor("x", 9, {3}, {1, 2, 3}));
  one.tensors.push_back(tensor("bits", 7, {2}, {0, 1}));
  Case c;
  c.id = "kiln-v2-seed";
  kiln_v2::body(c).description = one;
  kiln_v2::body(c).block = build(one).value().bytes;
  set.cases.push_back(c);
  return set;
}

FuzzOptions options_for(const std::string& adapter, const std::filesystem::path& out) {
  FuzzOptions options;
  options.adapter = adapter;
  options.runs = 3000;
  options.seed = 7;
  options.out_dir = out;
  options.quiet_progress = true;
  return options;
}

TEST(Fuzz, TheReferenceAdapterRunsClean) {
  ScratchDir scratch;
  std::ostringstream out, err;
  const auto summary =
      run_fuzz(options_for(KILN_REFERENCE_ADAPTER, scratch / "findings"), seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_EQ(summary.inputs, 3000u);
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  EXPECT_FALSE(std::filesystem::exists(scratch / "findings"));
  EXPECT_NE(out.str().find("3000 inputs"), std::string::npos) << out.str();
}

// The fake adapter's --crash-on fuzz dies on every request (each is named fuzz): each is a finding,
// deduplicated to one per reference verdict, and the run goes on.
TEST(Fuzz, AnAdapterThatCrashesIsAFindingAndIsRestarted) {
  ScratchDir scratch;
  auto options = options_for(std::string("'") + KILN_FAKE_ADAPTER + "' --crash-on fuzz",
                             scratch / "findings");
  options.runs = 200;
  options.ops = {Operation::kDecode};
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitFailures) << out.str() << err.str();
  ASSERT_FALSE(summary.findings.empty()) << out.str();
  for (const auto& finding : summary.findings) {
    EXPECT_NE(finding.signature.find("adapter crashes"), std::string::npos) << finding.signature;
    EXPECT_TRUE(finding.check_problems.empty()) << finding.check_problems.front();
  }
}

// The reference in process is the oracle of hurray-elements too: the reference
// adapter (a process, every Tier 2 type) agrees with it on every input.
TEST(Fuzz, TheReferenceAdapterRunsCleanOnHurrayElements) {
  ScratchDir scratch;
  auto options = options_for(KILN_REFERENCE_ADAPTER, scratch / "findings");
  options.profile = std::string(protocol::kProfileHurrayElements);
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);  // kiln cases only: no hurray seeds
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_EQ(summary.inputs, 3000u);
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  EXPECT_FALSE(std::filesystem::exists(scratch / "findings"));
}

// A crash on a hurray request is a finding as in kiln-v2, written as a hurray case.
TEST(Fuzz, AnAdapterThatCrashesOnHurrayElementsIsAFinding) {
  ScratchDir scratch;
  auto options = options_for(std::string("'") + KILN_FAKE_ADAPTER + "' --crash-on fuzz",
                             scratch / "findings");
  options.profile = std::string(protocol::kProfileHurrayElements);
  options.runs = 100;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitFailures) << out.str() << err.str();
  ASSERT_FALSE(summary.findings.empty()) << out.str();
  for (const auto& finding : summary.findings) {
    EXPECT_NE(finding.signature.find("adapter crashes"), std::string::npos) << finding.signature;
    EXPECT_EQ(finding.test_case.profile, protocol::kProfileHurrayElements);
    EXPECT_TRUE(finding.check_problems.empty()) << finding.check_problems.front();
  }
  EXPECT_NE(out.str().find("--profile hurray-elements"), std::string::npos) << out.str();
}

TEST(Fuzz, UsageErrorsExit2) {
  ScratchDir scratch;
  testing::write_text(scratch / "file", "x");
  std::ostringstream out, err;
  EXPECT_EQ(run_fuzz(options_for(KILN_REFERENCE_ADAPTER, scratch / "file"), seeds(), out, err).exit_code,
            kExitUsage);
  EXPECT_EQ(run_fuzz(options_for("builtin:nothing", scratch / "out"), seeds(), out, err).exit_code,
            kExitUsage);
  auto options = options_for(KILN_REFERENCE_ADAPTER, scratch / "out");
  options.cases_dir = scratch / "no-such-folder";
  EXPECT_EQ(run_fuzz(options, out, err).exit_code, kExitUsage);
  auto unknown = options_for(KILN_REFERENCE_ADAPTER, scratch / "out");
  unknown.profile = "kiln-v3";
  EXPECT_EQ(run_fuzz(unknown, seeds(), out, err).exit_code, kExitUsage);
}

// ---- findings you can trust: confirmed, bounded, kept ----

std::string fake(const std::string& flags) { return std::string("'") + KILN_FAKE_ADAPTER + "' " + flags; }

// The fake adapter counting its starts in scratch/starts, for flags that name a start.
std::string counting_starts(const ScratchDir& scratch, const std::string& flags) {
  return fake("--count-starts '" + (scratch / "starts").string() + "' " + flags);
}

std::size_t lines_in(const std::filesystem::path& file) {
  const std::string text = testing::read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Crashes once, then fails its next three starts: the crash does not reproduce
// (no fresh adapter starts, then one does and answers), so nothing is a finding,
// and the run goes on to its last input.
TEST(FuzzTrust, ACrashOnceThenFailedStartsIsNotAFinding) {
  ScratchDir scratch;
  auto options = options_for(counting_starts(scratch, "--crash-in-start 1 --fail-starts 2-4"), scratch / "findings");
  options.runs = 300;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  EXPECT_EQ(summary.inputs, 300u);
  ASSERT_EQ(summary.not_reproduced.size(), 1u) << out.str();
  EXPECT_TRUE(summary.not_reproduced[0].signature.ends_with("adapter crashes"));
  EXPECT_NE(summary.not_reproduced[0].replayed.find("fresh adapter"), std::string::npos);
  EXPECT_NE(out.str().find("NOT REPRODUCED: "), std::string::npos) << out.str();
  EXPECT_FALSE(std::filesystem::exists(scratch / "findings"));
}

// More failed starts in a row than any fixed count: each restart is retried
// with backoff, never given up on, and every input is still sent.
TEST(FuzzTrust, StartFailuresAreRetriedWithBackoffNotGivenUp) {
  ScratchDir scratch;
  auto options = options_for(counting_starts(scratch, "--crash-in-start 1 --fail-starts 2-9"), scratch / "findings");
  options.runs = 200;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  EXPECT_EQ(summary.inputs, 200u);
  EXPECT_EQ(lines_in(scratch / "starts"), 10u);  // the first, eight failures, one that worked
}

// An adapter that never starts again after a crash is unusable, not a finding.
TEST(FuzzTrust, AnAdapterThatCannotBeRestartedIsUnusable) {
  ScratchDir scratch;
  auto options = options_for(counting_starts(scratch, "--crash-in-start 1 --fail-starts 2-100000"), scratch / "findings");
  options.runs.reset();
  // Time for the crash's confirmation (three fresh starts, with pauses) and
  // then the run adapter's own restarts, on a loaded machine under the sanitizers.
  options.seconds = 5;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitAdapterUnusable) << out.str() << err.str();
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  EXPECT_NE(err.str().find("could not be restarted"), std::string::npos) << err.str();
}

// A bound on replays: the disagreements past it are neither confirmed nor listed.
TEST(FuzzTrust, MaxConfirmationsBoundsTheReplays) {
  ScratchDir scratch;
  auto options = options_for(fake("--reject-everything"), scratch / "findings");
  options.runs = 500;
  std::ostringstream ignored;
  const auto unbounded = run_fuzz(options, seeds(), ignored, ignored);
  ASSERT_GT(unbounded.findings.size() + unbounded.not_reproduced.size(), 2u);
  options.max_confirmations = 2;
  options.out_dir = scratch / "bounded";
  std::ostringstream out, err;
  const auto bounded = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(bounded.findings.size() + bounded.not_reproduced.size(), 2u) << out.str();
  EXPECT_EQ(bounded.exit_code, kExitFailures);
}

// One slow reply on a loaded machine: a fresh adapter answers it in time, so it is no hang.
TEST(FuzzTrust, AOneOffStallIsNotAHang) {
  ScratchDir scratch;
  auto options = options_for(counting_starts(scratch, "--stall-in-start 1 1500"), scratch / "findings");
  options.runs = 200;
  options.timeout_ms = 300;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_TRUE(summary.findings.empty()) << out.str();
  ASSERT_EQ(summary.not_reproduced.size(), 1u) << out.str();
  EXPECT_TRUE(summary.not_reproduced[0].signature.ends_with("adapter hangs"));
  EXPECT_NE(summary.not_reproduced[0].replayed.find("agrees with the reference"), std::string::npos)
      << summary.not_reproduced[0].replayed;
}

// A bug that needs the request before it (the same request twice in a row):
// each finding is the shortest sequence that reproduces in a fresh adapter,
// written as a request file that `replay` reproduces, and the reference passes.
TEST(FuzzTrust, AStateDependentBugIsKeptAsARequestFileThatReplays) {
  ScratchDir scratch;
  auto options = options_for(fake("--reject-repeats"), scratch / "findings");
  options.runs = 1500;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitFailures) << out.str() << err.str();
  ASSERT_FALSE(summary.findings.empty()) << out.str();
  for (const auto& finding : summary.findings) {
    EXPECT_TRUE(finding.state_dependent) << finding.signature;
    EXPECT_EQ(finding.requests, 2u) << finding.file;
    EXPECT_TRUE(finding.file.string().ends_with(".requests.jsonl")) << finding.file;
    EXPECT_EQ(lines_in(finding.file), 3u);  // the header and two requests
    EXPECT_NE(finding.replay.find(" replay --adapter "), std::string::npos) << finding.replay;
  }
  const auto file = summary.findings.front().file;
  ReplayOptions replay;
  replay.file = file;
  replay.adapter = fake("--reject-repeats");
  std::ostringstream replay_out, replay_err;
  EXPECT_EQ(run_replay(replay, replay_out, replay_err), kExitFailures) << replay_out.str() << replay_err.str();
  EXPECT_NE(replay_out.str().find("REPRODUCED: " + summary.findings.front().signature), std::string::npos)
      << replay_out.str();
  replay.adapter = KILN_REFERENCE_ADAPTER;
  EXPECT_EQ(run_replay(replay, replay_out, replay_err), kExitOk) << replay_out.str() << replay_err.str();
  replay.adapter = fake("--exit-at-hello");
  EXPECT_EQ(run_replay(replay, replay_out, replay_err), kExitAdapterUnusable);
}

// A request file may hold 64-bit integers in either form (one written by hand,
// or by a tool for an adapter of strings); replay sends each adapter the form
// its hello asks for.
TEST(Replay, ReadsRequestFilesInEitherFormOfTheIntegers) {
  ScratchDir scratch;
  const std::string tensor = R"({"name":"x","dtype":17,"shape":@,"layout":null,"block_size":0,"payload":"2103"})";
  const auto encode = [&](const std::string& shape) {
    return R"({"op":"encode","profile":"kiln-v2","tensors":[)" + tensor.substr(0, tensor.find('@')) + shape +
           tensor.substr(tensor.find('@') + 1) + "]}\n";
  };
  testing::write_text(scratch / "requests.jsonl",
                      "{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\n" + encode("[\"3\"]") +
                          encode("[3]"));
  ReplayOptions replay;
  replay.file = scratch / "requests.jsonl";
  for (const std::string& adapter : {std::string(KILN_REFERENCE_ADAPTER),
                                    testing::shell_quote(KILN_REFERENCE_ADAPTER) + " --int64 string"}) {
    replay.adapter = adapter;
    std::ostringstream out, err;
    EXPECT_EQ(run_replay(replay, out, err), kExitOk) << adapter << "\n" << out.str() << err.str();
  }
  testing::write_text(scratch / "bad.jsonl",
                      "{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\n" + encode("[\"03\"]"));
  replay.file = scratch / "bad.jsonl";
  std::ostringstream out, err;
  EXPECT_EQ(run_replay(replay, out, err), kExitUsage);
  EXPECT_NE(err.str().find("bad.jsonl:2: tensors[0].shape[0]: must be an integer"), std::string::npos) << err.str();
}

TEST(Replay, RefusesWhatIsNotARequestFile) {
  ScratchDir scratch;
  ReplayOptions replay;
  replay.adapter = KILN_REFERENCE_ADAPTER;
  std::ostringstream out, err;
  for (const std::string& text :
       {std::string(""), std::string("{\"op\":\"decode\",\"block\":\"00\"}\n"),
        std::string("{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\n"),
        std::string("{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\n{\"op\":\"hello\",\"protocol\":1}\n"),
        std::string("{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\nnot json\n")}) {
    testing::write_text(scratch / "requests.jsonl", text);
    replay.file = scratch / "requests.jsonl";
    EXPECT_EQ(run_replay(replay, out, err), kExitUsage) << text;
  }
  std::string too_many = "{\"kiln_conformance_requests\":1,\"profile\":\"kiln-v2\"}\n";
  for (std::size_t i = 0; i <= kMaxReplayRequests; ++i) too_many += "{\"op\":\"decode\",\"block\":\"\"}\n";
  testing::write_text(scratch / "many.jsonl", too_many);
  replay.file = scratch / "many.jsonl";
  EXPECT_EQ(run_replay(replay, out, err), kExitUsage);
  EXPECT_NE(err.str().find("more than " + std::to_string(kMaxReplayRequests) + " requests"), std::string::npos);
  replay.file = scratch / "missing.jsonl";
  EXPECT_EQ(run_replay(replay, out, err), kExitUsage);
  EXPECT_NE(err.str().find("requests.jsonl:2: "), std::string::npos) << err.str();
}

// Every candidate hangs: --seconds bounds the whole run, minimization and
// confirmation included (one confirmation may run past it, at five timeouts),
// and the replay command waits as long as the confirmation did.
TEST(FuzzTrust, HangingCandidatesStayWithinTheBudget) {
  ScratchDir scratch;
  auto options = options_for(fake("--hang-on fuzz"), scratch / "findings");
  options.runs.reset();
  options.seconds = 1;
  options.timeout_ms = 200;
  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  const auto summary = run_fuzz(options, seeds(), out, err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1 + 5 * 0.2 + 3) << out.str();  // the budget, one confirmation, starts
  EXPECT_EQ(summary.exit_code, kExitFailures) << out.str() << err.str();
  ASSERT_EQ(summary.findings.size(), 1u) << out.str();
  EXPECT_TRUE(summary.findings[0].signature.ends_with("adapter hangs"));
  EXPECT_NE(summary.findings[0].replay.find("--timeout-ms 1000"), std::string::npos) << summary.findings[0].replay;
  EXPECT_NE(testing::read_text(summary.findings[0].file).find("--timeout-ms 1000"), std::string::npos);
}

// A hello slower than the request timeout: the hello has its own limit.
TEST(FuzzTrust, ASlowHelloIsWaitedFor) {
  ScratchDir scratch;
  auto options = options_for(fake("--slow-hello 1200"), scratch / "findings");
  options.runs = 100;
  options.timeout_ms = 300;
  std::ostringstream out, err;
  const auto summary = run_fuzz(options, seeds(), out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_EQ(summary.inputs, 100u);
}

TEST(FuzzTrust, AnAdapterWithoutAUsableHelloExits3) {
  ScratchDir scratch;
  std::ostringstream out, err;
  EXPECT_EQ(run_fuzz(options_for(fake("--exit-at-hello"), scratch / "findings"), seeds(), out, err).exit_code,
            kExitAdapterUnusable);
  EXPECT_NE(err.str().find("unusable"), std::string::npos) << err.str();
  auto encode_only = options_for(fake("--no-encode"), scratch / "findings");
  encode_only.ops = {Operation::kEncode};
  EXPECT_EQ(run_fuzz(encode_only, seeds(), out, err).exit_code, kExitAdapterUnusable);
  EXPECT_FALSE(std::filesystem::exists(scratch / "findings"));
}

// A symlink planted at a finding's predictable name is neither followed nor
// replaced: the finding takes the next free name (and id), and its case loads.
TEST(FuzzTrust, APlantedSymlinkIsNeitherFollowedNorReplaced) {
  ScratchDir scratch;
  auto options = options_for(fake("--crash-on fuzz"), scratch / "first");
  options.runs = 1;
  options.ops = {Operation::kDecode};
  std::ostringstream out, err;
  const auto first = run_fuzz(options, seeds(), out, err);
  ASSERT_EQ(first.findings.size(), 1u) << out.str() << err.str();
  const auto name = first.findings[0].file.filename();

  std::filesystem::create_directories(scratch / "second");
  testing::write_text(scratch / "victim", "precious\n");
  std::filesystem::create_symlink(scratch / "victim", scratch / "second" / name);
  options.out_dir = scratch / "second";
  const auto second = run_fuzz(options, seeds(), out, err);
  ASSERT_EQ(second.findings.size(), 1u) << out.str() << err.str();
  EXPECT_EQ(testing::read_text(scratch / "victim"), "precious\n");
  EXPECT_TRUE(std::filesystem::is_symlink(scratch / "second" / name));
  EXPECT_NE(second.findings[0].file.filename(), name);
  EXPECT_EQ(second.findings[0].file.stem().string(), second.findings[0].test_case.id);
  EXPECT_TRUE(second.findings[0].check_problems.empty()) << second.findings[0].check_problems.front();
}

// hurray-elements generates its inputs: no case folder is read, even a missing one.
TEST(FuzzTrust, HurrayElementsReadsNoCaseFolder) {
  ScratchDir scratch;
  auto options = options_for(KILN_REFERENCE_ADAPTER, scratch / "findings");
  options.profile = std::string(protocol::kProfileHurrayElements);
  options.cases_dir = scratch / "no-such-folder";
  options.runs = 200;
  std::ostringstream out, err;
  EXPECT_EQ(run_fuzz(options, out, err).exit_code, kExitOk) << out.str() << err.str();
}

TEST(FuzzMinimize, ShrinksADescriptionToWhatTheFailureNeeds) {
  BlockDescription big;
  for (int i = 0; i < 6; ++i)
    big.tensors.push_back(tensor("tensor-" + std::to_string(i), i == 3 ? 7 : 9, {2, 2}, {5, 5, 5, 5}));
  big.tensors[3].payload = {0, 2, 0, 1};  // a bool byte of 2: the "bug"
  const DescriptionPredicate has_bad_bool = [](const BlockDescription& d) {
    for (const auto& t : d.tensors)
      if (t.dtype == 7)
        for (auto b : t.payload)
          if (b > 1) return true;
    return false;
  };
  const auto small = minimize_description(big, has_bad_bool, 1000);
  ASSERT_EQ(small.tensors.size(), 1u);
  EXPECT_EQ(small.tensors[0].dtype, 7);
  EXPECT_LE(small.tensors[0].name.size(), 1u);
  EXPECT_TRUE(small.tensors[0].shape.empty());
  EXPECT_EQ(small.tensors[0].payload, std::vector<std::uint8_t>{2});
}

TEST(FuzzMinimize, StopsAtItsBudget) {
  std::size_t calls = 0;
  const BlockPredicate never = [&](std::span<const std::uint8_t>) { return ++calls, false; };
  const std::vector<std::uint8_t> bytes(4096, 0x55);
  EXPECT_EQ(minimize_block(bytes, never, 17), bytes);
  EXPECT_EQ(calls, 17u);
}

TEST(FuzzMinimize, ShrinksAHurrayInputAndCutsDataPastS) {
  ElementsInput input;
  input.tag = hurray::type_by_name("bool")->tag;
  input.shape = {3, 7};
  input.mode = hurray::Mode::kPermissive;
  input.data = {0x11, 0x22, 0x04};  // byte 2, bit 2: the "bug"
  const ElementsPredicate bit_2_of_a_byte = [](const ElementsInput& candidate) {
    return std::any_of(candidate.data.begin(), candidate.data.end(), [](std::uint8_t b) { return (b & 4) != 0; });
  };
  const auto small = minimize_elements(input, Operation::kDecode, bit_2_of_a_byte, 1000);
  EXPECT_EQ(small.mode, hurray::Mode::kStrict);
  EXPECT_EQ(small.data, std::vector<std::uint8_t>{0x04});
  // What remains is a shape whose S is one byte: the data never holds more than S.
  const auto count = hurray::element_count(small.shape);
  ASSERT_TRUE(count);
  EXPECT_EQ(hurray::data_size(*hurray::type_by_tag(input.tag), *count), 1u);
}

// Every form a hurray finding takes (cases/README.md, "Profile hurray-elements"):
// each loads, passes `cases check` and expects what the reference says.
TEST(FuzzCase, HurrayFindingsAreWrittenAsCasesThatCheck) {
  ScratchDir scratch;
  const auto tag = [](const char* name) { return hurray::type_by_name(name)->tag; };
  struct Example {
    Operation op;
    ElementsInput input;
    ElementsCase::Result result;
  };
  const Example examples[] = {
      {Operation::kDecode, {tag("uint4"), {3}, hurray::Mode::kStrict, {0xc5, 0x03}, {}}, ElementsCase::Result::kAccept},
      {Operation::kDecode, {tag("bool"), {5}, hurray::Mode::kPermissive, {0x2d}, {}}, ElementsCase::Result::kReject},
      // Short, and padding set in the byte present: also_breaks names the second rule.
      {Operation::kDecode, {tag("float6_e2m3"), {1}, hurray::Mode::kStrict, {0xc0, 0x00}, {}}, ElementsCase::Result::kReject},
      {Operation::kDecode, {0x47, {2, 3}, hurray::Mode::kPermissive, {1, 2, 3}, {}}, ElementsCase::Result::kOpaque},
      {Operation::kDecode, {0xF3, {}, hurray::Mode::kStrict, {}, {}}, ElementsCase::Result::kReject},
      {Operation::kEncode, {tag("float8_e8m0"), {2}, hurray::Mode::kStrict, {}, {"7f", "01"}}, ElementsCase::Result::kAccept},
      {Operation::kEncode, {tag("int2"), {2}, hurray::Mode::kStrict, {}, {"3", "4", "0"}}, ElementsCase::Result::kReject},
      {Operation::kEncode, {tag("complex128"), {1}, hurray::Mode::kStrict, {}, {"1" + std::string(32, '0')}},
       ElementsCase::Result::kReject},
  };
  int n = 0;
  for (const Example& example : examples) {
    const std::string id = "hurray-fuzz-test-" + std::to_string(n++);
    const Case c = elements_finding_case(example.op, example.input, id, "a \"test\"", std::nullopt);
    ASSERT_TRUE(c.body_as<ElementsCase>());
    EXPECT_EQ(c.body_as<ElementsCase>()->result, example.result) << id;
    const std::string text = case_yaml(c, {"a comment"});
    auto loaded = load_case_text(text, id + ".yaml", testing::suite_schema());
    ASSERT_TRUE(loaded.ok()) << loaded.error().describe() << "\n" << text;
    const auto problems = check_case(loaded.value());
    EXPECT_TRUE(problems.empty()) << problems.front() << "\n" << text;
    testing::write_text(scratch / (id + ".yaml"), text);
  }
  const std::string six_bit = testing::read_text(scratch / "hurray-fuzz-test-2.yaml");
  EXPECT_NE(six_bit.find("also_breaks: [HURRAY-PAD-6BIT]"), std::string::npos) << six_bit;
  EXPECT_NE(testing::read_text(scratch / "hurray-fuzz-test-3.yaml").find("type: 0x47"), std::string::npos);
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(scratch.path(), out, err), kExitOk) << out.str() << err.str();
}

TEST(FuzzCase, AFoundRejectBlockIsWrittenAsACaseThatChecks) {
  ScratchDir scratch;
  BlockDescription d;
  d.tensors.push_back(tensor("b", 7, {2}, {0, 2}));
  const auto bytes = build(d).value().bytes;
  protocol::ReferenceAdapter reference;
  for (std::size_t cut : {bytes.size(), std::size_t{40}}) {
    const std::vector<std::uint8_t> block(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    const auto outcome = reference.decode(block);
    ASSERT_TRUE(std::holds_alternative<protocol::Reject>(outcome));
    const std::string id = "kiln-v2-fuzz-test-" + std::to_string(cut);
    const Case c = decode_finding_case(block, outcome, id, "a test", std::nullopt);
    testing::write_text(scratch / (id + ".yaml"), case_yaml(c, {"a comment"}));
    const auto problems = check_case_file(scratch / (id + ".yaml"));
    EXPECT_TRUE(problems.empty()) << problems.front();
  }
  std::ostringstream out, err;
  EXPECT_EQ(cases_check(scratch.path(), out, err), kExitOk) << out.str() << err.str();
}

TEST(FuzzCase, AnAcceptedBlockWithAnOddNameIsWrittenAsAnAcceptCase) {
  ScratchDir scratch;
  BlockDescription d;
  d.tensors.push_back(tensor(std::string("q\"\\\0\xc3\xa9", 6), 9, {1}, {7}));
  d.tensors.push_back(tensor("plain", 4096, {}, {1, 2}));
  d.tensors.back().layout = "Q\n";
  d.tensors.back().block_size = 2;
  const auto block = build(d).value().bytes;
  protocol::ReferenceAdapter reference;
  const Case c = decode_finding_case(block, reference.decode(block), "kiln-v2-fuzz-accept",
                                     "summary with \"quotes\"", std::string("FRAME-NAME-UTF8"));
  EXPECT_EQ(kiln_v2::body(c).rules, std::vector<Rule>{Rule::kFrameNameUtf8});
  testing::write_text(scratch / "kiln-v2-fuzz-accept.yaml", case_yaml(c, {}));
  const auto problems = check_case_file(scratch / "kiln-v2-fuzz-accept.yaml");
  EXPECT_TRUE(problems.empty()) << problems.front();
}

}  // namespace
}  // namespace kiln::conformance
