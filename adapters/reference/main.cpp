// kiln-reference-adapter: the reference library as a JSON Lines process adapter
// (protocol/PROTOCOL.md). Flags are parsed by hand so that this program builds
// with a compiler and nlohmann-json alone.
#include <csignal>
#include <cstring>
#include <iostream>
#include <unistd.h>

#include "kiln/adapter.hpp"

namespace {

constexpr const char* kUsage =
    "usage: kiln-reference-adapter [--help] [--version] [--int64 number|string]\n"
    "\n"
    "Answers Kiln adapter protocol 1 on stdin/stdout: one JSON request per line,\n"
    "one JSON reply per line, until end of input. See protocol/PROTOCOL.md.\n"
    "\n"
    "  --int64 string  say \"int64\": \"string\" in hello, so that the runner sends\n"
    "                  64-bit integers as decimal strings, and write replies' so too\n"
    "                  (default: number)\n";

// Every write is checked: output that did not arrive must not end in status 0.
int flushed_stdout_status() {
  std::cout.flush();
  if (std::cout) return 0;
  std::cerr << "kiln-reference-adapter: writing to stdout failed\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that went away is a failed write (status 1, said on stderr), not a
  // death by SIGPIPE that looks like a crash.
  std::signal(SIGPIPE, SIG_IGN);
  bool show_version = false;
  auto int64 = kiln::protocol::Int64Form::kNumber;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return flushed_stdout_status();
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      show_version = true;
      continue;
    }
    if (std::strcmp(argv[i], "--int64") == 0 && i + 1 < argc) {
      const auto form = kiln::protocol::int64_form_from_string(argv[++i]);
      if (form) {
        int64 = *form;
        continue;
      }
      std::cerr << "kiln-reference-adapter: --int64 takes number or string, not '" << argv[i]
                << "'\n" << kUsage;
      return 2;
    }
    std::cerr << "kiln-reference-adapter: unknown argument '" << argv[i] << "'\n" << kUsage;
    return 2;
  }
  kiln::protocol::ReferenceAdapter adapter(int64);
  if (show_version) {
    const auto hello = adapter.hello();
    std::cout << hello.name << ' ' << hello.version << " (protocol " << hello.protocol << ")\n";
    return flushed_stdout_status();
  }
  // Straight on the descriptors: one read per request line (blocks arrive as
  // lines of tens of MiB), one write per reply, and no sleep between a reply
  // and a request that follows at once.
  bool write_failed = false;
  if (kiln::protocol::serve(adapter, STDIN_FILENO, STDOUT_FILENO, write_failed)) return 0;
  std::cerr << (write_failed ? "kiln-reference-adapter: writing a reply to stdout failed\n"
                             : "kiln-reference-adapter: reading stdin failed\n");
  return 1;
}
