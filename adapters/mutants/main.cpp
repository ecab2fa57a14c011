// kiln-mutant-adapter: the reference with one named implementer's bug, as a JSON
// Lines process adapter (protocol/PROTOCOL.md), for measuring what the suite kills.
#include <cstring>
#include <iostream>
#include <string_view>

#include "kiln/mutants.hpp"

namespace {

constexpr const char* kUsage =
    "usage: kiln-mutant-adapter --mutant NAME | --control | --list | --list-fuzz-only | --help\n"
    "\n"
    "Answers Kiln adapter protocol 1 on stdin/stdout as the reference library with\n"
    "exactly one bug, the mutant NAME (--list prints the catalogue, --list-fuzz-only\n"
    "the bugs only a fuzzer finds). --control serves the\n"
    "reference through the same pipeline with no bug. An unknown name exits 2.\n";

int usage_error(std::string_view problem) {
  std::cerr << "kiln-mutant-adapter: " << problem << "\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using kiln::mutants::Mutant;
  const Mutant* mutant = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (argument == "--list") {
      for (const Mutant& m : kiln::mutants::catalogue())
        std::cout << m.name << "  [" << m.family << "] " << m.description << "\n";
      return 0;
    }
    if (argument == "--list-fuzz-only") {
      for (const Mutant& m : kiln::mutants::fuzz_only_mutants())
        std::cout << m.name << "  [" << m.family << "] " << m.description << "\n";
      return 0;
    }
    if (argument == "--control") {
      mutant = &kiln::mutants::control();
      continue;
    }
    if (argument == "--mutant") {
      if (++i == argc) return usage_error("--mutant needs a NAME");
      mutant = kiln::mutants::find_mutant(argv[i]);
      if (!mutant) return usage_error("unknown mutant '" + std::string(argv[i]) + "' (see --list)");
      continue;
    }
    return usage_error("unknown argument '" + std::string(argument) + "'");
  }
  if (!mutant) return usage_error("choose a mutant with --mutant NAME (or --control)");

  std::ios::sync_with_stdio(false);
  kiln::mutants::MutantAdapter adapter(*mutant);
  return kiln::protocol::serve(adapter, std::cin, std::cout) ? 0 : 1;
}
