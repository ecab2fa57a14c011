// The process driver and the subprocess under it, against adapters that break
// the protocol in ways the run-level tests cannot pin down: replies out of step,
// deaths after a reply or behind a shell, a child holding the pipes, stderr at
// a failed start, a dead one-shot adapter, and a runner that is terminated.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/generated.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/conformance/subprocess.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using namespace std::chrono_literals;
using testing::ScratchDir;
using testing::read_text;
using testing::shell_quote;
using testing::write_text;

// Without `exec`: the runner must make the adapter the shell's own process.
std::string fake(const std::string& flags) { return shell_quote(KILN_FAKE_ADAPTER) + " " + flags; }

protocol::Request decode(const std::string& case_id) {
  return protocol::DecodeRequest{case_id, std::string(protocol::kProfileKilnV2), {}};
}

std::string kind_name(Exchange::Kind kind) {
  switch (kind) {
    case Exchange::Kind::kReply: return "reply";
    case Exchange::Kind::kCrash: return "CRASH";
    case Exchange::Kind::kTimeout: return "TIMEOUT";
    case Exchange::Kind::kProtocol: return "PROTOCOL";
  }
  return "?";
}

std::string describe(const Exchange& exchange) {
  return kind_name(exchange.kind) + ": " + exchange.detail + "\n[stderr] " + exchange.adapter_stderr;
}

std::unique_ptr<Driver> driver(const std::string& command, bool one_shot = false, int timeout_ms = 10000) {
  ProcessOptions options;
  options.command = command;
  options.one_shot = one_shot;
  options.timeout = std::chrono::milliseconds(timeout_ms);
  return make_process_driver(options);
}

std::size_t line_count(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return 0;
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Whether the adapter's hello came; why not, when it did not.
::testing::AssertionResult says_hello(Driver& adapter) {
  const auto hello = adapter.hello();
  if (hello) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << hello.error();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Waits (generously) for a condition another process brings about.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// Gone, or a zombie nobody reaps yet (it runs no more either way).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

std::vector<pid_t> pids_in(const std::filesystem::path& file) {
  std::vector<pid_t> pids;
  std::istringstream lines(read_text(file));
  for (long pid; lines >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += length;
  }
  return true;
}

constexpr const char* kHelloReply = R"({"name":"sh-adapter","version":"1","ops":["decode","encode"]})";
constexpr const char* kFrameReject = R"({"result":"reject","class":"FRAME"})";

class ProcessDriverTest : public ::testing::Test {
 protected:
  // A shell-script adapter in the scratch directory; returns its command.
  std::string script(const std::string& text) {
    const auto file = scratch_ / "adapter.sh";
    write_text(file, text);
    return "sh " + shell_quote(file.string());
  }
  std::string path(const std::string& name) const { return shell_quote((scratch_ / name).string()); }

  ScratchDir scratch_;
};

// ---- exec_form (finding 21) ----

TEST(ExecForm, PutsExecBeforeTheLastSimpleCommand) {
  const std::pair<std::string, std::string> rewritten[] = {
      {"python3 a.py", "exec python3 a.py"},
      {"./x", "exec ./x"},
      {"FOO=1 ./x --flag 'a b'", "FOO=1 exec ./x --flag 'a b'"},
      {"FOO=1 BAR=\"x y\" ./x", "FOO=1 BAR=\"x y\" exec ./x"},
      {"cd dir && ./x", "cd dir && exec ./x"},
      {"cd 'my dir'; ./x --sep ';' \"a && b\"", "cd 'my dir'; exec ./x --sep ';' \"a && b\""},
      {"test -f x || ./fallback", "test -f x || exec ./fallback"},
      {"./x 2>&1", "exec ./x 2>&1"},
      {"./x 2>/tmp/log --n=1", "exec ./x 2>/tmp/log --n=1"},
      {"$HOME/bin/x \"$ARG\" ${DIR}/y", "exec $HOME/bin/x \"$ARG\" ${DIR}/y"},
      {"./x a\\ b", "exec ./x a\\ b"},
      {"if true; then :; fi && ./x", "if true; then :; fi && exec ./x"},
      {"  ./x  ", "  exec ./x  "},
      {"./x;", "exec ./x;"},
      {"python3 a.py\n", "exec python3 a.py\n"},
  };
  for (const auto& [command, expected] : rewritten) EXPECT_EQ(exec_form(command), expected) << command;
}

TEST(ExecForm, LeavesWhatItCannotRewriteUnchanged) {
  const std::string unchanged[] = {
      "exec ./x",           "./x | tee log",        "./x &",          "(cd dir && ./x)",
      "{ ./x; }",           "if true; then ./x; fi", "for i in 1; do ./x; done",
      "./x $(cat args)",    "./x `cat args`",       "./x <<EOF\nEOF",  "./x # comment",
      "FOO=1",                "cd dir",         "./x 'unterminated",
      ". ./env.sh",         "eval ./x",             "! ./x",          "./x \"${A:-$B}\"",
      "case a in a) ./x;; esac",                    "",
  };
  for (const auto& command : unchanged) EXPECT_EQ(exec_form(command), command) << command;
}

TEST_F(ProcessDriverTest, ShellSyntaxKeepsWorkingAndTheAdapterIsTheChild) {
  std::filesystem::create_directories(scratch_ / "my dir");
  write_text(scratch_ / "my dir" / "run.sh",
             "[ \"$FOO\" = 1 ] && [ \"$1\" = 'a b' ] || { echo \"bad: $FOO $1\" >&2; exit 9; }\n"
             "echo $$ > " + path("pid") + "\n"
             "exec " + shell_quote(KILN_FAKE_ADAPTER) + " --crash-on x\n");
  auto adapter = driver("cd " + path("my dir") + " && FOO=1 sh run.sh 'a b'");
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange crashed = adapter->exchange(decode("x"));
  // The adapter's own death, not the waiting shell's "status 134".
  EXPECT_EQ(crashed.kind, Exchange::Kind::kCrash) << describe(crashed);
  EXPECT_TRUE(contains(crashed.detail, "was killed by signal 6 (SIGABRT) without replying"))
      << describe(crashed);
}

// ---- the adapter, not a shell, is the child (finding 21) ----

TEST_F(ProcessDriverTest, ASegfaultIsReportedAsASignalNotAShellStatus) {
  auto adapter = driver(fake("--segfault-on x"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange crashed = adapter->exchange(decode("x"));
  EXPECT_EQ(crashed.kind, Exchange::Kind::kCrash) << describe(crashed);
  EXPECT_TRUE(contains(crashed.detail, "was killed by signal 11 (SIGSEGV) without replying"))
      << describe(crashed);
  EXPECT_EQ(adapter->exchange(decode("y")).kind, Exchange::Kind::kReply);
}

TEST_F(ProcessDriverTest, ClosingStdoutAndRunningOnIsACrashNotATimeout) {
  auto adapter = driver(fake("--close-stdout-on x"), false, 5000);
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange crashed = adapter->exchange(decode("x"));
  EXPECT_EQ(crashed.kind, Exchange::Kind::kCrash) << describe(crashed);
  EXPECT_TRUE(contains(crashed.detail, "closed its stdout without replying")) << describe(crashed);
}

TEST_F(ProcessDriverTest, AnAdapterThatExitsWhileItsChildHoldsStdoutIsACrash) {
  // The child keeps stdout open long after the adapter is gone.
  auto adapter = driver(script("read -r line\nsleep 60 &\necho $! > " + path("child") +
                               "\necho 'gone' >&2\nexit 3\n"),
                        false, 5000);
  const auto hello = adapter->hello();
  ASSERT_FALSE(hello);
  const std::string& detail = hello.error();
  EXPECT_TRUE(contains(detail, "the adapter exited with status 3 without replying")) << detail;
  EXPECT_TRUE(contains(detail, "gone")) << detail;
  // What it left behind in its process group went with it.
  const auto child = pids_in(scratch_ / "child");
  ASSERT_EQ(child.size(), 1u);
  EXPECT_TRUE(eventually([&] { return process_gone(child[0]); }, 10s)) << child[0];
}

// ---- one reply per request (finding 9) ----

TEST_F(ProcessDriverTest, AReplyWrittenTwiceFailsThatCaseAndRestartsTheAdapter) {
  const auto starts = scratch_ / "starts";
  auto adapter = driver(fake("--reply-twice-on b --count-starts " + shell_quote(starts.string())));
  ASSERT_TRUE(says_hello(*adapter));
  EXPECT_EQ(adapter->exchange(decode("a")).kind, Exchange::Kind::kReply);
  const Exchange doubled = adapter->exchange(decode("b"));
  EXPECT_EQ(doubled.kind, Exchange::Kind::kProtocol) << describe(doubled);
  EXPECT_TRUE(contains(doubled.detail, "more output behind it")) << describe(doubled);
  // The spare line is not the next case's answer: a fresh adapter gives that.
  const Exchange next = adapter->exchange(decode("c"));
  EXPECT_EQ(next.kind, Exchange::Kind::kReply) << describe(next);
  EXPECT_EQ(line_count(starts), 2u);
}

TEST_F(ProcessDriverTest, OutputWaitingBeforeARequestMeansTheAdapterIsOutOfStep) {
  // After its first case's reply (and the hello that checks it: the replies
  // carry no id) the adapter writes one more line, once, when the test says
  // so: before the runner sends the next request.
  auto adapter = driver(script(std::string("answer() { case \"$line\" in *'\"op\":\"hello\"'*) echo '") +
                               kHelloReply + "';; *) echo '" + kFrameReject + "';; esac; }\n" +
                               "read -r line; answer; read -r line; answer; read -r line; answer\n" +
                               "if [ ! -e " + path("written") + " ]; then\n" +
                               "  while [ ! -e " + path("go") + " ]; do sleep 0.02; done\n" +
                               "  echo '{\"result\":\"reject\",\"class\":\"TYPE\"}'\n" +
                               "  touch " + path("written") + "\n" +
                               "fi\n" +
                               "while read -r line; do answer; done\n"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange first = adapter->exchange(decode("a"));
  ASSERT_EQ(first.kind, Exchange::Kind::kReply) << describe(first);
  write_text(scratch_ / "go", "");
  // The line is in the pipe before the file exists: echo comes before touch.
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(scratch_ / "written"); }));
  const Exchange stale = adapter->exchange(decode("b"));
  EXPECT_EQ(stale.kind, Exchange::Kind::kProtocol) << describe(stale);
  EXPECT_TRUE(contains(stale.detail, "out of step")) << describe(stale);
  EXPECT_TRUE(contains(stale.detail, R"("class":"TYPE")")) << describe(stale);
  const Exchange next = adapter->exchange(decode("c"));
  ASSERT_EQ(next.kind, Exchange::Kind::kReply) << describe(next);
  EXPECT_TRUE(std::holds_alternative<protocol::Reject>(next.outcome));
}

// ---- replies tied to their requests (issue 25, item 6) ----

// An answer given again after the runner's check for stray output, so that it
// is the first line the next request reads. Both requests' right answers are
// the same FRAME reject (an empty block): judged by position, the stray answer
// would pass as the next one's.
TEST_F(ProcessDriverTest, AnAnswerGivenAgainIsNeverTakenForTheNextRequests) {
  {
    SCOPED_TRACE("the adapter echoes ids: the next request's reply names the wrong id");
    auto adapter = driver(fake("--answer-again-late-on a"));
    ASSERT_TRUE(says_hello(*adapter));
    const Exchange first = adapter->exchange(decode("a"));
    ASSERT_EQ(first.kind, Exchange::Kind::kReply) << describe(first);
    const Exchange stray = adapter->exchange(decode("b"));
    EXPECT_EQ(stray.kind, Exchange::Kind::kProtocol) << describe(stray);
    EXPECT_TRUE(contains(stray.detail, "not request")) << describe(stray);
    // A fresh adapter answers the next one.
    EXPECT_EQ(adapter->exchange(decode("c")).kind, Exchange::Kind::kReply);
  }
  {
    // The hello sent after a reply without id is the "next request": the
    // answer given again comes before its reply, and shows there.
    SCOPED_TRACE("the adapter echoes no id: the hello after the reply catches the stray line");
    auto adapter = driver(fake("--answer-again-late-on a --no-id"));
    ASSERT_TRUE(says_hello(*adapter));
    const Exchange first = adapter->exchange(decode("a"));
    EXPECT_EQ(first.kind, Exchange::Kind::kProtocol) << describe(first);
    EXPECT_TRUE(contains(first.detail, "no \"id\"")) << describe(first);
    for (const char* next : {"b", "c"}) {
      const Exchange answered = adapter->exchange(decode(next));
      EXPECT_EQ(answered.kind, Exchange::Kind::kReply) << next << " " << describe(answered);
    }
  }
}

TEST_F(ProcessDriverTest, RepliesWithoutIdAreAcceptedWhileTheAdapterStaysInStep) {
  const auto starts = scratch_ / "starts";
  auto adapter = driver(fake("--no-id --count-starts " + shell_quote(starts.string())));
  ASSERT_TRUE(says_hello(*adapter));
  for (int i = 0; i < 20; ++i) {
    const Exchange answered = adapter->exchange(decode("case-" + std::to_string(i)));
    ASSERT_EQ(answered.kind, Exchange::Kind::kReply) << i << " " << describe(answered);
    EXPECT_TRUE(std::holds_alternative<protocol::Reject>(answered.outcome));
  }
  EXPECT_EQ(line_count(starts), 1u);
}

TEST_F(ProcessDriverTest, AReplyEchoingAnIdOfTheWrongTypeIsAProtocolFailure) {
  auto adapter = driver(script(std::string("read -r line; echo '") + kHelloReply + "'\n" +
                               "read -r line; echo '{\"id\":\"2\",\"result\":\"reject\",\"class\":\"FRAME\"}'\n" +
                               "while read -r line; do :; done\n"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange wrong = adapter->exchange(decode("x"));
  EXPECT_EQ(wrong.kind, Exchange::Kind::kProtocol) << describe(wrong);
  EXPECT_TRUE(contains(wrong.detail, "the reply's \"id\" is of type string")) << describe(wrong);
}

// ---- a reply holds no more than its request can be answered with (issue 25, item 3) ----

TEST_F(ProcessDriverTest, AReplyWiderThanAnyAnswerToItsRequestIsRefusedBeforeItIsBuilt) {
  auto adapter = driver(fake("--wide-accept-on x"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange wide = adapter->exchange(decode("x"));
  EXPECT_EQ(wide.kind, Exchange::Kind::kProtocol) << describe(wide);
  EXPECT_TRUE(contains(wide.detail, "JSON values")) << describe(wide);
  EXPECT_EQ(adapter->exchange(decode("y")).kind, Exchange::Kind::kReply);
}

// ---- 64-bit integers as strings, on request (issue 27, item 3) ----

// sh adapters that answer hello with hello_reply and keep every other request
// line in the scratch file `kept`, answering each with a reject whose offset is
// the string "18446744073709551615" (DATA for hurray-elements, FRAME else).
class Int64DriverTest : public ProcessDriverTest {
 protected:
  std::string recording_adapter(const std::string& hello_reply, const std::string& kept) {
    const std::string reject = R"({"result":"reject","class":"@","offset":"18446744073709551615"})";
    const auto with_class = [&](const std::string& name) {
      return reject.substr(0, reject.find('@')) + name + reject.substr(reject.find('@') + 1);
    };
    return script("while read -r line; do\n"
                  "  case \"$line\" in\n"
                  "    *'\"op\":\"hello\"'*) echo '" + hello_reply + "'; continue;;\n"
                  "  esac\n"
                  "  printf '%s\\n' \"$line\" >> " + path(kept) + "\n"
                  "  case \"$line\" in\n"
                  "    *hurray-elements*) echo '" + with_class("DATA") + "';;\n"
                  "    *) echo '" + with_class("FRAME") + "';;\n"
                  "  esac\n"
                  "done\n");
  }
  std::string kept(const std::string& name) const { return read_text(scratch_ / name); }
};

const std::vector<protocol::Request>& requests_with_shapes() {
  static const std::vector<protocol::Request> requests = {
      protocol::EncodeRequest{"e", std::string(protocol::kProfileKilnV2),
                              {{TensorDescription{"x", 17, {3, 18446744073709551615u}, "", 0, {}}}}},
      protocol::ElementsDecodeRequest{"d", 73, {3}, hurray::Mode::kStrict, {0xc5, 0x03}},
      protocol::ElementsEncodeRequest{"h", 73, {0}, {}},
  };
  return requests;
}

TEST_F(Int64DriverTest, AnAdapterWhoseHelloAsksForStringsIsSentStrings) {
  for (const bool one_shot : {false, true}) {
    SCOPED_TRACE(one_shot ? "one-shot" : "persistent");
    const std::string file = one_shot ? "one-shot-requests" : "requests";
    auto adapter = driver(recording_adapter(R"({"name":"sh","version":"1","ops":["decode","encode"],)"
                                            R"("profiles":["kiln-v2","hurray-elements"],"int64":"string"})",
                                            file),
                          one_shot);
    const auto hello = adapter->hello();
    ASSERT_TRUE(hello) << hello.error();
    EXPECT_EQ(hello->int64, protocol::Int64Form::kString);
    for (const auto& request : requests_with_shapes()) {
      const Exchange answered = adapter->exchange(request);
      ASSERT_EQ(answered.kind, Exchange::Kind::kReply) << describe(answered);
    }
    const std::string sent = kept(file);
    EXPECT_TRUE(contains(sent, R"("dtype":17,"shape":["3","18446744073709551615"],"layout":null,"block_size":0)"))
        << sent;
    EXPECT_TRUE(contains(sent, R"("tag":73,"shape":["3"],"mode":"strict")")) << sent;
    EXPECT_TRUE(contains(sent, R"("tag":73,"shape":["0"],"elements":[])")) << sent;
    EXPECT_FALSE(contains(sent, R"("id":")")) << sent;  // a counter: always a number
  }
}

TEST_F(Int64DriverTest, RepliesInEitherFormAreReadFromAnyAdapter) {
  // The hello asks for nothing: requests carry numbers, the string replies are read all the same.
  auto adapter = driver(recording_adapter(R"({"name":"sh","version":"1","ops":["decode","encode"],)"
                                          R"("profiles":["kiln-v2","hurray-elements"]})",
                                          "requests"));
  const auto hello = adapter->hello();
  ASSERT_TRUE(hello) << hello.error();
  EXPECT_EQ(hello->int64, protocol::Int64Form::kNumber);
  const auto& requests = requests_with_shapes();
  const Exchange kiln = adapter->exchange(requests[0]);
  ASSERT_EQ(kiln.kind, Exchange::Kind::kReply) << describe(kiln);
  EXPECT_EQ(std::get<protocol::Reject>(kiln.outcome).offset, 18446744073709551615u);
  const Exchange elements = adapter->exchange(requests[1]);
  ASSERT_EQ(elements.kind, Exchange::Kind::kReply) << describe(elements);
  EXPECT_EQ(std::get<protocol::ElementsReject>(elements.outcome).offset, 18446744073709551615u);
  const std::string sent = kept("requests");
  EXPECT_TRUE(contains(sent, R"("shape":[3,18446744073709551615])")) << sent;
  EXPECT_TRUE(contains(sent, R"("tag":73,"shape":[3],)")) << sent;
  adapter->stop();  // before script() rewrites the file it runs

  // An accept whose dimensions are strings, from the same kind of adapter.
  auto accepting = driver(script(std::string("while read -r line; do case \"$line\" in\n") +
                                 "  *'\"op\":\"hello\"'*) echo '" + kHelloReply + "';;\n" +
                                 "  *) echo '{\"result\":\"accept\",\"tensors\":[{\"name\":\"x\",\"dtype\":17,"
                                 "\"shape\":[\"18446744073709551615\",0],\"layout\":null,\"block_size\":0,\"payload\":\"\"}]}';;\n" +
                                 "esac; done\n"));
  ASSERT_TRUE(says_hello(*accepting));
  const Exchange accept = accepting->exchange(decode("x"));
  ASSERT_EQ(accept.kind, Exchange::Kind::kReply) << describe(accept);
  EXPECT_EQ(std::get<protocol::Accept>(accept.outcome).description.tensors.at(0).shape,
            (std::vector<std::uint64_t>{18446744073709551615u, 0}));
}

TEST_F(Int64DriverTest, ANonCanonicalStringInAReplyIsAMalformedReplyNamingTheMember) {
  auto adapter = driver(script(std::string("read -r line; echo '") + kHelloReply + "'\n" +
                               "while read -r line; do echo '{\"result\":\"reject\",\"class\":\"FRAME\",\"offset\":\"01\"}'; done\n"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange malformed = adapter->exchange(decode("x"));
  EXPECT_EQ(malformed.kind, Exchange::Kind::kProtocol) << describe(malformed);
  EXPECT_TRUE(contains(malformed.detail, R"(malformed reply: offset: must be an integer from 0 to )"
                                         R"(18446744073709551615, as a number or a decimal string, got )"
                                         R"(the string "01", which has a leading zero)"))
      << describe(malformed);
}

TEST_F(Int64DriverTest, AHelloAskingForAnUnknownFormIsAFailedHello) {
  auto adapter = driver(script(R"(read -r line; echo '{"name":"sh","version":"1","ops":["decode"],"int64":"bigint"}')"
                               "\nwhile read -r line; do :; done\n"));
  const auto hello = adapter->hello();
  ASSERT_FALSE(hello);
  EXPECT_TRUE(contains(hello.error(), R"(hello reply: int64: must be "number" or "string", got "bigint")"))
      << hello.error();
}

// The whole path at run level: the reference asking for strings passes every seed case.
TEST(RunnerInt64, TheReferenceAskingForStringsPassesEveryCase) {
  ScratchDir scratch;
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(scratch / "cases"));
  RunOptions options;
  options.cases_dir = scratch / "cases";
  options.quiet_progress = true;
  options.generated = 200;
  options.generated_out = scratch / "generated";
  options.adapter = shell_quote(KILN_REFERENCE_ADAPTER) + " --int64 string";
  std::ostringstream out, err;
  const RunSummary summary = run_suite(options, out, err);
  EXPECT_EQ(summary.exit_code, kExitOk) << out.str() << err.str();
  EXPECT_EQ(summary.certificate.rfind("CONFORMANT: kiln-reference", 0), 0u) << summary.certificate;
}

// ---- restart storms (issue 25, item 5) ----

// A debug line after every reply (each process answers once, then is out of
// step) or trailing bytes on every reply line: abandoned after a few starts,
// saying what it wrote and why that breaks the protocol; nothing more is sent.
TEST_F(ProcessDriverTest, AnAdapterThatBreaksTheProtocolOverAndOverIsAbandoned) {
  for (const std::string flags : {"--debug-line", "--trailing-bytes"}) {
    SCOPED_TRACE(flags);
    const auto starts = scratch_ / ("starts" + flags);
    auto adapter = driver(fake(flags + " --count-starts " + shell_quote(starts.string())));
    ASSERT_TRUE(says_hello(*adapter));
    int sent = 0;
    while (adapter->abandoned().empty() && sent < 100) {
      adapter->exchange(decode("case-" + std::to_string(sent)));
      ++sent;
    }
    const std::string why = adapter->abandoned();
    ASSERT_FALSE(why.empty()) << sent << " requests";
    EXPECT_LE(sent, 16);
    EXPECT_TRUE(contains(why, "debug print on stdout")) << why;
    EXPECT_TRUE(contains(why, flags == "--debug-line" ? "debug: answered case" : "} debug")) << why;
    const std::size_t started = line_count(starts);
    EXPECT_LE(started, 9u);
    const Exchange refused = adapter->exchange(decode("later"));
    EXPECT_TRUE(refused.not_started) << describe(refused);
    EXPECT_TRUE(contains(refused.detail, "not sent")) << describe(refused);
    EXPECT_EQ(line_count(starts), started);
  }
}

// Protocol failures now and then, each followed by clean answers, are not a storm.
TEST_F(ProcessDriverTest, OccasionalProtocolFailuresDoNotAbandonTheAdapter) {
  std::string flags;
  for (int i = 0; i < 60; i += 3) flags += " --garbage-on case-" + std::to_string(i);
  auto adapter = driver(fake(flags));
  ASSERT_TRUE(says_hello(*adapter));
  int broken = 0;
  for (int i = 0; i < 60; ++i) {
    const Exchange exchange = adapter->exchange(decode("case-" + std::to_string(i)));
    ASSERT_FALSE(exchange.not_started) << i << " " << describe(exchange);
    broken += exchange.kind == Exchange::Kind::kProtocol;
  }
  EXPECT_EQ(broken, 20);
  EXPECT_TRUE(adapter->abandoned().empty()) << adapter->abandoned();
}

TEST_F(ProcessDriverTest, InOneShotModeASecondReplyLineIsAProtocolFailure) {
  auto adapter = driver(fake("--reply-twice-on x"), true);
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange doubled = adapter->exchange(decode("x"));
  EXPECT_EQ(doubled.kind, Exchange::Kind::kProtocol) << describe(doubled);
  EXPECT_EQ(adapter->exchange(decode("y")).kind, Exchange::Kind::kReply);
}

// At run level: each duplicate would be taken as the answer to the next case.
TEST(RunnerOutOfStep, AnAdapterThatRepliesTwiceFailsOnlyThatCase) {
  ScratchDir scratch;
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(scratch / "cases"));
  RunOptions options;
  options.cases_dir = scratch / "cases";
  options.quiet_progress = true;
  options.timeout_ms = 10000;
  options.adapter = fake("--reply-twice-on kiln-v2-high-nibble");
  std::ostringstream out, err;
  const RunSummary summary = run_suite(options, out, err);
  ASSERT_FALSE(summary.results.empty()) << out.str() << err.str();
  for (const auto& result : summary.results)
    EXPECT_EQ(to_string(result.status),
              std::string(result.case_id == "kiln-v2-high-nibble" ? "PROTOCOL" : "PASS"))
        << result.case_id << " " << to_string(result.op) << ": " << result.detail;
}

// A whole run against either storm: NOT CONFORMANT, saying why, with the
// checks left not run and a handful of starts rather than one per check. The
// debug-line adapter passes every other check, so it is abandoned in the
// generated phase, which ends with it.
TEST(RunnerRestartStorm, ARunAgainstAnAdapterThatBreaksTheProtocolEndsAtOnce) {
  ScratchDir scratch;
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(scratch / "cases"));
  for (const std::string flags : {"--trailing-bytes", "--debug-line"}) {
    SCOPED_TRACE(flags);
    const auto starts = scratch / ("starts" + flags);
    RunOptions options;
    options.cases_dir = scratch / "cases";
    options.quiet_progress = true;
    options.timeout_ms = 10000;
    options.generated = 200;
    options.generated_out = scratch / ("generated" + flags);
    options.adapter = fake(flags + " --count-starts " + shell_quote(starts.string()));
    std::ostringstream out, err;
    const RunSummary summary = run_suite(options, out, err);
    EXPECT_EQ(summary.exit_code, kExitFailures) << out.str() << err.str();
    EXPECT_EQ(summary.certificate.rfind("NOT CONFORMANT: kiln-fake", 0), 0u) << summary.certificate;
    EXPECT_TRUE(contains(summary.certificate, "was abandoned")) << summary.certificate;
    EXPECT_TRUE(contains(summary.certificate, "debug print on stdout")) << summary.certificate;
    EXPECT_TRUE(contains(summary.certificate, "checks not run")) << summary.certificate;
    EXPECT_TRUE(contains(out.str(), "stopped: ")) << out.str();
    EXPECT_LT(summary.results.size(), 11u + 2 * 200u);
    // Each failure the phase confirms starts adapters of its own, at most
    // kMaxGeneratedConfirmations of them per profile.
    EXPECT_LE(line_count(starts), 10u + 2 * 2 * kMaxGeneratedConfirmations) << out.str();
  }
}

// ---- one-shot: the process must exit cleanly after its reply (finding 10) ----

TEST_F(ProcessDriverTest, OneShotAbortAfterTheReplyIsACrash) {
  auto adapter = driver(fake("--abort-after-reply-on x"), true);
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange crashed = adapter->exchange(decode("x"));
  EXPECT_EQ(crashed.kind, Exchange::Kind::kCrash) << describe(crashed);
  EXPECT_TRUE(contains(crashed.detail, "was killed by signal 6 (SIGABRT) after replying"))
      << describe(crashed);
  EXPECT_EQ(adapter->exchange(decode("y")).kind, Exchange::Kind::kReply);
}

TEST_F(ProcessDriverTest, OneShotLateNonZeroExitAfterTheReplyIsACrash) {
  // The exit comes well after the reply, within the request's time limit.
  auto adapter = driver(script(std::string("read -r line\n") + "case \"$line\" in\n" +
                               "  *hello*) echo '" + kHelloReply + "'; exit 0;;\n" + "esac\n" +
                               "echo '" + kFrameReject + "'\nsleep 0.5\nexit 3\n"),
                        true);
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange crashed = adapter->exchange(decode("x"));
  EXPECT_EQ(crashed.kind, Exchange::Kind::kCrash) << describe(crashed);
  EXPECT_TRUE(contains(crashed.detail, "exited with status 3 after replying")) << describe(crashed);
}

TEST_F(ProcessDriverTest, OneShotAdapterThatRepliesButNeverExitsTimesOut) {
  auto adapter = driver(fake("--linger-after-reply-on x"), true, 2000);
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange lingered = adapter->exchange(decode("x"));
  EXPECT_EQ(lingered.kind, Exchange::Kind::kTimeout) << describe(lingered);
  EXPECT_TRUE(contains(lingered.detail, "replied but did not exit within 2000 ms"))
      << describe(lingered);
}

// ---- stderr with every failure (finding 22) ----

TEST_F(ProcessDriverTest, AFailedStartShowsTheAdaptersStderr) {
  for (const bool one_shot : {false, true}) {
    SCOPED_TRACE(one_shot ? "one-shot" : "persistent");
    auto adapter = driver(
        script("echo 'Traceback: ModuleNotFoundError: No module named kiln' >&2\nexit 1\n"), one_shot);
    const auto hello = adapter->hello();
    ASSERT_FALSE(hello);
    const std::string& detail = hello.error();
    EXPECT_TRUE(contains(detail, "exited with status 1")) << detail;
    EXPECT_TRUE(contains(detail, "No module named kiln")) << detail;
    const Exchange failed = adapter->exchange(decode("x"));
    EXPECT_EQ(failed.kind, Exchange::Kind::kCrash) << describe(failed);
    EXPECT_TRUE(contains(failed.adapter_stderr, "No module named kiln")) << describe(failed);
  }
}

TEST_F(ProcessDriverTest, AMalformedReplyKeepsTheAdaptersStderr) {
  auto adapter = driver(fake("--log-stderr --garbage-on x"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange garbage = adapter->exchange(decode("x"));
  EXPECT_EQ(garbage.kind, Exchange::Kind::kProtocol) << describe(garbage);
  EXPECT_TRUE(contains(garbage.adapter_stderr, "kiln-fake: request for case x")) << describe(garbage);
}

// ---- a dead one-shot adapter is given up on (finding 23) ----

TEST_F(ProcessDriverTest, OneShotDeadAdapterIsGivenUpOnAfterThreeFailuresInARow) {
  const auto starts = scratch_ / "starts";
  auto adapter = driver(fake("--exit-at-hello --count-starts " + shell_quote(starts.string())), true);
  EXPECT_FALSE(adapter->hello());
  for (int i = 0; i < 10; ++i) {
    const Exchange failed = adapter->exchange(decode("case-" + std::to_string(i)));
    EXPECT_EQ(failed.kind, Exchange::Kind::kCrash) << i << " " << describe(failed);
    if (i >= 3) {
      EXPECT_TRUE(contains(failed.detail, "not started: ")) << i << " " << describe(failed);
    }
  }
  // The hello, two cases, and the hello that confirmed it: then no more starts.
  EXPECT_EQ(line_count(starts), 4u);
}

TEST_F(ProcessDriverTest, OneShotCasesThatCrashInARowDoNotStopAnAdapterThatStillWorks) {
  const auto starts = scratch_ / "starts";
  auto adapter = driver(fake("--crash-on a --crash-on b --crash-on c --count-starts " +
                             shell_quote(starts.string())),
                        true);
  ASSERT_TRUE(says_hello(*adapter));
  for (const char* crashing : {"a", "b", "c", "a", "b", "c"})
    EXPECT_EQ(adapter->exchange(decode(crashing)).kind, Exchange::Kind::kCrash) << crashing;
  const Exchange fine = adapter->exchange(decode("d"));
  EXPECT_EQ(fine.kind, Exchange::Kind::kReply) << describe(fine);
  // A hello checked the adapter after each run of three crashes.
  EXPECT_EQ(line_count(starts), 1u + 7u + 2u);
}

// ---- what the adapter echoes is described, never dumped or copied raw ----

TEST_F(ProcessDriverTest, ANonStringCaseEchoIsDescribedByItsTypeNotDumped) {
  auto adapter = driver(fake("--array-case-on x"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange echoed = adapter->exchange(decode("x"));
  EXPECT_EQ(echoed.kind, Exchange::Kind::kProtocol) << describe(echoed);
  EXPECT_TRUE(contains(echoed.detail, "the reply's \"case\" is of type array")) << describe(echoed);
  // The reply itself appears only as its bounded excerpt.
  EXPECT_LE(echoed.detail.size(), protocol::kMaxMessageBytes + 100);
}

TEST_F(ProcessDriverTest, AMalformedReplysDetailIsValidUtf8) {
  auto adapter = driver(script(std::string("read -r line; echo '") + kHelloReply + "'\n" +
                               "read -r line; printf 'ab\\377\\001cd\\n'\n" +
                               "while read -r line; do :; done\n"));
  ASSERT_TRUE(says_hello(*adapter));
  const Exchange bytes = adapter->exchange(decode("x"));
  EXPECT_EQ(bytes.kind, Exchange::Kind::kProtocol) << describe(bytes);
  // Reports are JSON and XML: a stray byte is shown, not copied.
  EXPECT_TRUE(valid_utf8(bytes.detail)) << bytes.detail;
  EXPECT_TRUE(contains(bytes.detail, "ab\\xff\\x01cd")) << bytes.detail;
}

// ---- a terminated runner takes its adapter along (finding 24) ----

class TerminationCleanup : public ProcessDriverTest, public ::testing::WithParamInterface<int> {};

TEST_P(TerminationCleanup, TheRunnersAdapterAndItsChildDieWithIt) {
  const int signal_number = GetParam();
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(scratch_ / "cases"));
  // Never answers the hello; a child of its own sleeps too.
  const std::string adapter =
      script("echo $$ >> " + path("pids") + "\nsleep 300 &\necho $! >> " + path("pids") +
             "\nexec sleep 300\n");
  const std::string cases = (scratch_ / "cases").string();
  const pid_t runner = fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    // As a shell would start it: default actions, output discarded.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execl(KILN_CONFORMANCE_CLI, KILN_CONFORMANCE_CLI, "run", "--adapter", adapter.c_str(), "--cases",
          cases.c_str(), "--timeout-ms", "120000", "--no-progress", static_cast<char*>(nullptr));
    _exit(127);
  }
  const bool started = eventually([&] { return line_count(scratch_ / "pids") >= 2; });
  const auto adapter_pids = pids_in(scratch_ / "pids");
  ::kill(runner, signal_number);
  int status = 0;
  const bool runner_ended = eventually([&] { return waitpid(runner, &status, WNOHANG) == runner; });
  if (!runner_ended) {
    ::kill(runner, SIGKILL);
    waitpid(runner, &status, 0);
  }
  std::vector<pid_t> survivors;
  for (pid_t pid : adapter_pids)
    if (!eventually([&] { return process_gone(pid); }, 10s)) survivors.push_back(pid);
  for (pid_t pid : survivors) ::kill(pid, SIGKILL);  // leave nothing behind either way

  ASSERT_TRUE(started) << "the adapter never started";
  ASSERT_TRUE(runner_ended) << "the runner ignored signal " << signal_number;
  ASSERT_EQ(adapter_pids.size(), 2u);
  // The runner still ends the way the signal says.
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
  EXPECT_TRUE(survivors.empty()) << survivors.size() << " adapter processes outlived the runner";
}

INSTANTIATE_TEST_SUITE_P(Signals, TerminationCleanup, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& info) { return info.param == SIGTERM ? "SIGTERM" : "SIGINT"; });

}  // namespace
}  // namespace kiln::conformance
