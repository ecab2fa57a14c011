// kiln-reference-adapter: the reference library as a JSON Lines process adapter
// (adapters/PROTOCOL.md). Flags are parsed by hand so that this program builds
// with a compiler and nlohmann-json alone.
#include <cstring>
#include <iostream>

#include "kiln/adapter.hpp"

namespace {

constexpr const char* kUsage =
    "usage: kiln-reference-adapter [--help] [--version]\n"
    "\n"
    "Answers Kiln adapter protocol 1 on stdin/stdout: one JSON request per line,\n"
    "one JSON reply per line, until end of input. See adapters/PROTOCOL.md.\n";

}  // namespace

int main(int argc, char** argv) {
  kiln::protocol::ReferenceAdapter adapter;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      const auto hello = adapter.hello();
      std::cout << hello.name << ' ' << hello.version << " (protocol " << hello.protocol
                << ")\n";
      return 0;
    }
    std::cerr << "kiln-reference-adapter: unknown argument '" << argv[i] << "'\n" << kUsage;
    return 2;
  }
  // Blocks arrive as lines of tens of MiB: unsynchronised streams read them fast.
  std::ios::sync_with_stdio(false);
  return kiln::protocol::serve(adapter, std::cin, std::cout) ? 0 : 1;
}
