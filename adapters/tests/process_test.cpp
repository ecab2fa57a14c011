// The real kiln-reference-adapter program: a transcript on its stdin, its replies
// on stdout, exit status 0 at end of input; one-shot mode; its flags.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "kiln/protocol.hpp"
#include "seed_blocks.hpp"

#include "program_run.hpp"

namespace kiln::protocol {
namespace {

using testing::kU4Hex;
using testing::kU4TensorJson;
using testing::lines_of;

using ProcessResult = kiln::testing::ProgramRun;

ProcessResult run_adapter(const std::string& arguments, const std::string& input) {
  const auto input_path = std::filesystem::temp_directory_path() /
                          ("kiln-adapter-test-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream file(input_path, std::ios::binary);
    file << input;
  }
  const std::string command = std::string("'") + KILN_REFERENCE_ADAPTER + "' " + arguments +
                              " < '" + input_path.string() + "' 2>/dev/null";
  const ProcessResult run = kiln::testing::run_shell_command(command);
  std::filesystem::remove(input_path);
  return run;
}

const std::string kDecodeU4 = R"({"op":"decode","case":"kiln-v2-u4","block":")" + kU4Hex + "\"}";
const std::string kAcceptU4 = R"({"result":"accept","tensors":[)" + kU4TensorJson + "]}";

TEST(ReferenceAdapterProcess, ServesATranscriptUntilEndOfInput) {
  const std::string input = R"({"op":"hello","protocol":1})" "\n" + kDecodeU4 +
                            "\nnot json\n" + R"({"op":"encode","tensors":[)" + kU4TensorJson +
                            "]}\n";
  const ProcessResult run = run_adapter("", input);
  EXPECT_EQ(run.exit_code, 0);
  const auto replies = lines_of(run.out);
  ASSERT_EQ(replies.size(), 4u) << run.out;
  auto hello = parse_hello_reply(replies[0]);
  ASSERT_TRUE(hello.ok()) << hello.error();
  EXPECT_EQ(hello.value().name, "kiln-reference");
  EXPECT_EQ(hello.value().version, KILN_PROJECT_VERSION);
  EXPECT_EQ(replies[1], kAcceptU4);
  auto error = parse_reply(replies[2], Op::kDecode);
  ASSERT_TRUE(error.ok()) << error.error();
  EXPECT_TRUE(std::holds_alternative<ProtocolError>(error.value()));
  EXPECT_EQ(replies[3], R"({"result":"block","block":")" + kU4Hex + "\"}");
}

TEST(ReferenceAdapterProcess, OneShotRequestThenEndOfInput) {
  const ProcessResult run = run_adapter("", kDecodeU4);  // no newline, then EOF
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, kAcceptU4 + "\n");
}

TEST(ReferenceAdapterProcess, DeepRequestsGetErrorRepliesNotACrash) {
  // 50,000 levels killed the program with SIGSEGV (status 139, no reply).
  constexpr std::size_t kDeep = 50000;
  std::string deep_object;
  for (std::size_t i = 0; i < kDeep; ++i) deep_object += R"({"a":)";
  deep_object += "1" + std::string(kDeep, '}');
  const std::string deep_array = std::string(kDeep, '[') + std::string(kDeep, ']');
  const std::string input = R"({"x":)" + deep_array + R"(,"op":"hello","protocol":1})" "\n" +
                            R"({"x":)" + deep_object + R"(,"op":"hello","protocol":1})" "\n" +
                            kDecodeU4 + "\n";
  const ProcessResult run = run_adapter("", input);
  EXPECT_EQ(run.exit_code, 0);
  const auto replies = lines_of(run.out);
  ASSERT_EQ(replies.size(), 3u) << run.out;
  for (std::size_t i = 0; i < 2; ++i) {
    auto error = parse_reply(replies[i], Op::kDecode);
    ASSERT_TRUE(error.ok()) << error.error();
    ASSERT_TRUE(std::holds_alternative<ProtocolError>(error.value())) << replies[i];
    EXPECT_EQ(std::get<ProtocolError>(error.value()).message.substr(0, 63),
              "the line nests arrays and objects more than 64 levels deep at b");
  }
  EXPECT_EQ(replies[2], kAcceptU4);
}

TEST(ReferenceAdapterProcess, NulThenGarbageIsAnErrorReply) {
  // The hello before the NUL was answered as if the line ended there.
  const ProcessResult run = run_adapter(
      "", std::string(R"({"op":"hello","protocol":1})") + '\0' + "garbage\n" + kDecodeU4 + "\n");
  EXPECT_EQ(run.exit_code, 0);
  const auto replies = lines_of(run.out);
  ASSERT_EQ(replies.size(), 2u) << run.out;
  EXPECT_EQ(replies[0],
            R"({"result":"error","message":"the line has a raw control byte 0x00 at byte 27; )"
            R"(JSON allows only space, tab, CR and LF between tokens"})");
  EXPECT_EQ(replies[1], kAcceptU4);
}

TEST(ReferenceAdapterProcess, AFailedWriteEndsWithStatus1) {
  // /dev/full takes no bytes: every write fails with ENOSPC.
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(run_adapter(">/dev/full", R"({"op":"hello","protocol":1})" "\n").exit_code, 1);
  EXPECT_EQ(run_adapter("--version >/dev/full", "").exit_code, 1);
  EXPECT_EQ(run_adapter("--help >/dev/full", "").exit_code, 1);
}

TEST(ReferenceAdapterProcess, AReaderThatWentAwayEndsWithStatus1NotASignal) {
  // The reader (true) has exited when the request arrives a second later, so
  // the reply's write fails with EPIPE. Status 141 (128 + SIGPIPE) looked like a crash.
  const auto status_path = std::filesystem::temp_directory_path() /
                           ("kiln-adapter-status-" + std::to_string(::getpid()) + ".txt");
  const std::string command = R"({ sleep 1; echo '{"op":"hello","protocol":1}'; } | { ')" +
                              std::string(KILN_REFERENCE_ADAPTER) + "' 2>/dev/null; echo $? >'" +
                              status_path.string() + "'; } | true";
  kiln::testing::run_shell_command(command);
  std::string status;
  std::getline(std::ifstream(status_path), status);
  std::filesystem::remove(status_path);
  EXPECT_EQ(status, "1");
}

TEST(ReferenceAdapterProcess, Flags) {
  const ProcessResult version = run_adapter("--version", "");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, "kiln-reference " KILN_PROJECT_VERSION " (protocol 1)\n");
  const ProcessResult help = run_adapter("--help", "");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: kiln-reference-adapter"), std::string::npos);
  const ProcessResult unknown = run_adapter("--bogus", kDecodeU4);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out, "");
  for (const char* bad : {"--int64 bits", "--int64"}) {
    const ProcessResult refused = run_adapter(bad, kDecodeU4);
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_EQ(refused.out, "") << bad;
  }
}

// --int64 string: the hello asks for strings, and replies write them; requests
// are read in either form.
TEST(ReferenceAdapterProcess, Int64StringAsksForStringsAndWritesThem) {
  const std::string encode_strings = R"({"op":"encode","tensors":[{"name":"x","dtype":17,"shape":["3"],)"
                                     R"("layout":null,"block_size":0,"payload":"2103"}]})";
  const ProcessResult run = run_adapter("--int64 string", R"({"op":"hello","protocol":1})" "\n" + kDecodeU4 +
                                                              "\n" + encode_strings + "\n" +
                                                              R"({"op":"decode","block":""})" "\n");
  EXPECT_EQ(run.exit_code, 0);
  const auto replies = lines_of(run.out);
  ASSERT_EQ(replies.size(), 4u) << run.out;
  auto hello = parse_hello_reply(replies[0]);
  ASSERT_TRUE(hello.ok()) << hello.error();
  EXPECT_EQ(hello.value().int64, Int64Form::kString);
  EXPECT_NE(replies[1].find(R"("shape":["3"])"), std::string::npos) << replies[1];
  EXPECT_EQ(replies[2], R"({"result":"block","block":")" + kU4Hex + "\"}");
  EXPECT_NE(replies[3].find(R"("offset":"0")"), std::string::npos) << replies[3];
  // The default, and --int64 number, ask for nothing: the hello is as before.
  for (const char* numbers : {"", "--int64 number"}) {
    const ProcessResult plain = run_adapter(numbers, R"({"op":"hello","protocol":1})" "\n" + kDecodeU4 + "\n");
    const auto lines = lines_of(plain.out);
    ASSERT_EQ(lines.size(), 2u) << numbers;
    EXPECT_EQ(lines[0].find("int64"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[1], kAcceptU4) << numbers;
  }
}

}  // namespace
}  // namespace kiln::protocol
