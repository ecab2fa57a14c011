// kiln-fake-adapter: the reference adapter over the process protocol, with
// misbehaviours switched on by flags, so the runner's tests can show that each
// one fails only the case it happens on and the run goes on.
//
//   --crash-on ID            abort() when a request names case ID
//   --hang-on ID             never answer case ID (sleep until killed)
//   --garbage-on ID          answer case ID with a line that is not JSON
//   --partial-then-exit-on ID  write half a reply line for case ID, then exit 0
//   --huge-line-on ID        answer case ID with a 100 MiB line without newline, then hang
//   --huge-newline-on ID     the same line, ended by a newline
//   --close-stdout-on ID     close stdout at case ID and keep running
//   --wrong-case-on ID       answer case ID correctly but echo "case":"some-other-id"
//   --array-case-on ID       answer case ID correctly but echo "case" as 200 zeros in arrays 40 deep (within the reply bound)
//   --reply-twice-on ID      write the reply line for case ID twice, in one write
//   --abort-after-reply-on ID  answer case ID, then abort()
//   --linger-after-reply-on ID answer case ID, then sleep until killed (even at end of input)
//   --segfault-on ID         die of SIGSEGV (the default action, not a sanitizer's) at case ID
//   --exit-at-hello          exit 0 on the first request line, without replying
//   --flood-stderr           write 4 MiB to stderr before every reply
//   --log-stderr             write "kiln-fake: request for case ID" to stderr per request
//   --no-encode              hello offers only decode
//   --reject-everything      answer every decode and encode with a FRAME reject
//   --hostile-text           reject everything with markup, script and control characters in
//                            the hello name and messages, and invalid UTF-8 on stderr (kHostileText)
//   --count-starts FILE      append one line to FILE per process start; the flags below that
//                            name a start count them there (the first start is 1)
//   --crash-in-start K       abort() at the first decode or encode request of start K
//   --fail-starts A-B        starts A to B exit at their first request line, without replying
//   --stall-in-start K MS    sleep MS ms before answering the first decode or encode of start K
//   --slow-hello MS          sleep MS ms before answering the hello
//   --reject-repeats         a request line identical to the one before it gets a FRAME reject
//                            (a reader that takes the repeat for a buffer it already consumed)
//   --wide-accept-on ID      answer case ID with an accept of one tensor of a million dimensions
//   --long-text              reject everything with a 16 KiB message of control bytes, and
//                            write 16 KiB of them to stderr per request
//   --no-id                  never echo the request's id (a protocol 1 adapter written before ids)
//   --debug-line             after every decode or encode reply, a second write of a debug line
//   --trailing-bytes         every decode or encode reply line ends in " debug" before its newline
//   --answer-again-late-on ID  answer case ID, then at the next request first write ID's reply
//                            again and only 100 ms later that request's own
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "kiln/adapter.hpp"

namespace {

namespace kp = kiln::protocol;

struct Flags {
  std::multimap<std::string, std::string> on_case;  // misbehaviour -> case id
  bool exit_at_hello = false;
  bool flood_stderr = false;
  bool log_stderr = false;
  bool no_encode = false;
  bool reject_everything = false;
  bool hostile_text = false;
  bool reject_repeats = false;
  bool no_id = false;
  bool long_text = false;
  bool debug_line = false;
  bool trailing_bytes = false;
  long start = 0;  // this process's start number (--count-starts)
  long crash_in_start = -1;
  long fail_first = 0, fail_last = -1;
  long stall_in_start = -1, stall_ms = 0;
  long slow_hello_ms = 0;
};

// What an adapter could say to break a report: markup that runs script if a
// page inserts it as HTML, an end tag for the page's data element, controls.
constexpr const char* kHostileText =
    "</script><script>window.kilnPwned=1</script><img src=x onerror=\"window.kilnPwned=2\">"
    "<b>bold</b> \x01\x1b[31m & \u2028 end";

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

// The reference adapter, or one that rejects everything it is asked.
class FakeAdapter final : public kp::Adapter {
 public:
  explicit FakeAdapter(const Flags& flags) : flags_(flags) {}
  kp::Hello hello() override {
    kp::Hello hello = reference_.hello();
    hello.name = flags_.hostile_text ? std::string("kiln-fake ") + kHostileText : "kiln-fake";
    if (flags_.no_encode) hello.ops = {std::string(kp::kOpDecode)};
    return hello;
  }
  kp::Outcome decode(std::span<const std::uint8_t> block) override {
    if (flags_.reject_everything) return rejection();
    return reference_.decode(block);
  }
  kp::Outcome encode(const kiln::BlockDescription& description) override {
    if (flags_.reject_everything) return rejection();
    return reference_.encode(description);
  }

 private:
  kp::Outcome rejection() const {
    const std::string message = flags_.hostile_text ? kHostileText
                                : flags_.long_text   ? std::string(kp::kMaxMessageBytes, '\x01')
                                                     : "rejects everything on purpose";
    return kp::Reject{kiln::ErrorClass::kFrame, message, std::nullopt, std::nullopt};
  }
  const Flags& flags_;
  kp::ReferenceAdapter reference_;
};

bool misbehaves(const Flags& flags, const std::string& what, const std::string& case_id) {
  auto [first, last] = flags.on_case.equal_range(what);
  for (auto it = first; it != last; ++it)
    if (it->second == case_id) return true;
  return false;
}

void write_stdout(const std::string& text) {
  std::cout << text << std::flush;
}

void flood_stderr() {
  static const std::string chunk(64 * 1024, 'e');
  for (int i = 0; i < 64; ++i) std::cerr.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  std::cerr << "\nflood done\n" << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--exit-at-hello") flags.exit_at_hello = true;
    else if (arg == "--flood-stderr") flags.flood_stderr = true;
    else if (arg == "--log-stderr") flags.log_stderr = true;
    else if (arg == "--no-encode") flags.no_encode = true;
    else if (arg == "--reject-everything") flags.reject_everything = true;
    else if (arg == "--hostile-text") flags.hostile_text = flags.reject_everything = true;
    else if (arg == "--reject-repeats") flags.reject_repeats = true;
    else if (arg == "--no-id") flags.no_id = true;
    else if (arg == "--long-text") flags.long_text = flags.reject_everything = true;
    else if (arg == "--debug-line") flags.debug_line = true;
    else if (arg == "--trailing-bytes") flags.trailing_bytes = true;
    else if (arg == "--count-starts" && i + 1 < argc) {
      const char* file = argv[++i];
      std::ofstream(file, std::ios::app) << "start\n";
      std::ifstream counted(file);
      for (std::string line; std::getline(counted, line);) ++flags.start;
    } else if (arg == "--crash-in-start" && i + 1 < argc) flags.crash_in_start = std::atol(argv[++i]);
    else if (arg == "--fail-starts" && i + 1 < argc) {
      const std::string range = argv[++i];
      flags.fail_first = std::atol(range.c_str());
      flags.fail_last = std::atol(range.substr(range.find('-') + 1).c_str());
    } else if (arg == "--stall-in-start" && i + 2 < argc) {
      flags.stall_in_start = std::atol(argv[++i]);
      flags.stall_ms = std::atol(argv[++i]);
    } else if (arg == "--slow-hello" && i + 1 < argc) flags.slow_hello_ms = std::atol(argv[++i]);
    else if (arg.rfind("--", 0) == 0 && arg.size() > 6 && arg.substr(arg.size() - 3) == "-on" && i + 1 < argc)
      flags.on_case.emplace(arg.substr(2, arg.size() - 5), argv[++i]);
    else {
      std::cerr << "kiln-fake-adapter: unknown argument '" << arg << "'\n";
      return 2;
    }
  }
  std::ios::sync_with_stdio(false);
  FakeAdapter adapter(flags);
  const kp::Hello offered = adapter.hello();

  const bool failing_start = flags.start >= flags.fail_first && flags.start <= flags.fail_last;
  bool first_request = true;
  std::string previous_line;
  std::string late_answer;  // --answer-again-late-on: written before the next reply
  for (std::string line; std::getline(std::cin, line);) {
    if (flags.exit_at_hello || failing_start) return 0;
    const auto request = kp::parse_request(line);
    const bool is_hello = request && kp::op_of(request.value()) == kp::Op::kHello;
    if (is_hello && flags.slow_hello_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(flags.slow_hello_ms));
    if (!is_hello && first_request) {
      first_request = false;
      if (flags.start == flags.crash_in_start) std::abort();
      if (flags.start == flags.stall_in_start)
        std::this_thread::sleep_for(std::chrono::milliseconds(flags.stall_ms));
    }
    // The same request, whatever its id (each line has an id of its own).
    std::string without_id = line;
    if (auto json = kp::parse_line(line); json && json.value().is_object()) {
      json.value().erase("id");
      without_id = json.value().dump();
    }
    const bool repeated = !is_hello && without_id == previous_line;
    previous_line = std::move(without_id);
    std::string case_id;
    if (auto json = kp::parse_line(line); json && json.value().contains("case") &&
                                          json.value()["case"].is_string())
      case_id = json.value()["case"].get<std::string>();
    if (flags.flood_stderr) flood_stderr();
    if (flags.hostile_text) std::cerr << kHostileText << " \xff\xfe\xc0\x80 not UTF-8\n" << std::flush;
    if (flags.long_text) std::cerr << std::string(kp::kMaxMessageBytes, '\x01') << std::flush;
    if (flags.log_stderr) std::cerr << "kiln-fake: request for case " << case_id << "\n" << std::flush;

    if (misbehaves(flags, "crash", case_id)) std::abort();
    if (misbehaves(flags, "segfault", case_id)) {
      signal(SIGSEGV, SIG_DFL);  // past a sanitizer's handler: the runner must see the signal
      raise(SIGSEGV);
    }
    if (misbehaves(flags, "hang", case_id)) sleep_forever();
    if (misbehaves(flags, "garbage", case_id)) {
      write_stdout("this is not JSON {\n");
      continue;
    }
    if (flags.reject_repeats && repeated) {
      const bool hurray = request && kp::profile_of(request.value()) == kp::kProfileHurrayElements;
      write_stdout(hurray ? R"({"result":"reject","class":"DATA","message":"a repeat read as consumed"})" "\n"
                          : R"({"result":"reject","class":"FRAME","message":"a repeat read as consumed"})" "\n");
      continue;
    }
    std::string reply = kp::answer(adapter, offered, line);
    if (flags.no_id) {
      auto json = kp::parse_line(reply);
      json.value().erase("id");
      reply = json.value().dump();
    }
    if (!late_answer.empty()) {
      write_stdout(late_answer + "\n");
      late_answer.clear();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (misbehaves(flags, "answer-again-late", case_id)) late_answer = reply;
    if (!is_hello && flags.trailing_bytes) reply += " debug";
    if (misbehaves(flags, "partial-then-exit", case_id)) {
      write_stdout(reply.substr(0, reply.size() / 2));
      return 0;
    }
    if (misbehaves(flags, "huge-line", case_id) || misbehaves(flags, "huge-newline", case_id)) {
      const std::string chunk(1 << 20, 'x');
      for (int i = 0; i < 100 && std::cout; ++i) std::cout << chunk;
      if (misbehaves(flags, "huge-newline", case_id)) {
        std::cout << '\n' << std::flush;
        continue;
      }
      std::cout << std::flush;
      sleep_forever();
    }
    if (misbehaves(flags, "close-stdout", case_id)) {
      std::cout.flush();
      ::close(STDOUT_FILENO);
      sleep_forever();
    }
    if (misbehaves(flags, "wrong-case", case_id)) {
      auto json = kp::parse_line(reply);
      json.value()["case"] = "some-other-id";
      write_stdout(json.value().dump() + "\n");
      continue;
    }
    if (misbehaves(flags, "array-case", case_id)) {
      constexpr std::size_t kDepth = 40;
      std::string zeros = "0";
      for (int i = 1; i < 200; ++i) zeros += ",0";
      write_stdout("{\"case\":" + std::string(kDepth, '[') + zeros + std::string(kDepth, ']') + "," +
                   reply.substr(1) + "\n");
      continue;
    }
    if (misbehaves(flags, "wide-accept", case_id)) {
      std::string shape = "1";
      for (int i = 1; i < 1000000; ++i) shape += ",1";
      write_stdout(R"({"result":"accept","tensors":[{"name":"x","dtype":17,"shape":[)" + shape +
                   R"(],"layout":null,"block_size":0,"payload":"2103"}]})" "\n");
      continue;
    }
    if (misbehaves(flags, "reply-twice", case_id)) {
      write_stdout(reply + "\n" + reply + "\n");
      continue;
    }
    write_stdout(reply + "\n");
    if (!is_hello && flags.debug_line) write_stdout("debug: answered case " + case_id + "\n");
    if (misbehaves(flags, "abort-after-reply", case_id)) std::abort();
    if (misbehaves(flags, "linger-after-reply", case_id)) sleep_forever();
  }
  return 0;
}
