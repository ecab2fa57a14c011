// kiln_blind_reach: how many mutants the generator of `run`'s generated phase
// finds on its own. Each mutant is fuzzed adapter-blind (FuzzOptions::
// adapter_blind: every adapter gets the same inputs) for --runs inputs of its
// profile at each seed; kiln-v2 grows from the golden cases, hurray-elements
// from nothing, as the generated phase does. Prints one line per mutant (the
// seeds that found it) and the totals: the numbers in adapters/mutants/README.md.
//
//   kiln_blind_reach [--runs N] [--seeds FIRST-LAST] [--shard I/N]
//                    [--set catalogue|fuzz-only|all] [--mutant NAME]... [--fuzz] [--ladder]
//
// --fuzz fuzzes as the fuzz command does (not blind), for the budgets of
// tests/fuzz_only_test.cpp; --ladder says, per seed, the least of 100, 200,
// 500, 1000, ... up to --runs that finds the mutant (a run of fewer inputs is a
// prefix of a longer one at the same seed).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/conformance/fuzz.hpp"
#include "kiln/mutants.hpp"

namespace {

namespace fs = std::filesystem;
using kiln::mutants::Mutant;

bool is_hurray(const Mutant& mutant) {
  return mutant.family.starts_with("hurray-") || mutant.name.starts_with("fuzz-hurray-");
}

int usage() {
  std::cerr << "usage: kiln_blind_reach [--runs N] [--seeds FIRST-LAST] [--shard I/N] "
               "[--set catalogue|fuzz-only|all] [--mutant NAME]... [--fuzz] [--ladder]\n";
  return 2;
}

// 100, 200, 500, 1000, ... up to and with last.
std::vector<std::uint64_t> ladder_to(std::uint64_t last) {
  std::vector<std::uint64_t> rungs;
  for (std::uint64_t scale = 100; rungs.empty() || rungs.back() < last; scale *= 10)
    for (std::uint64_t step : {1, 2, 5})
      if (rungs.empty() || rungs.back() < last) rungs.push_back(std::min(step * scale, last));
  return rungs;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = kiln::conformance::kDefaultGeneratedChecks;
  std::uint64_t first_seed = 1, last_seed = 1;
  std::size_t shard = 0, shards = 1;
  std::string set = "all";
  std::vector<std::string> names;
  bool blind = true, ladder = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fuzz" || arg == "--ladder") {
      (arg == "--fuzz" ? blind : ladder) = arg == "--ladder";
      continue;
    }
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--runs") runs = std::stoull(value);
    else if (arg == "--seeds") {
      const auto dash = value.find('-');
      first_seed = std::stoull(value.substr(0, dash));
      last_seed = dash == std::string::npos ? first_seed : std::stoull(value.substr(dash + 1));
    } else if (arg == "--shard") {
      const auto slash = value.find('/');
      if (slash == std::string::npos) return usage();
      shard = std::stoul(value.substr(0, slash));
      shards = std::stoul(value.substr(slash + 1));
    } else if (arg == "--set") set = value;
    else if (arg == "--mutant") names.push_back(value);
    else return usage();
  }
  std::vector<const Mutant*> mutants;
  if (!names.empty()) {
    for (const auto& name : names) {
      const Mutant* mutant = kiln::mutants::find_mutant(name);
      if (!mutant) return usage();
      mutants.push_back(mutant);
    }
  } else {
    if (set == "catalogue" || set == "all")
      for (const Mutant& mutant : kiln::mutants::catalogue()) mutants.push_back(&mutant);
    if (set == "fuzz-only" || set == "all")
      for (const Mutant& mutant : kiln::mutants::fuzz_only_mutants()) mutants.push_back(&mutant);
  }

  const auto cases = kiln::conformance::load_case_set(KILN_CASES_DIR);
  if (!cases.errors.empty()) {
    std::cerr << cases.errors.front().describe() << "\n";
    return 2;
  }
  const kiln::conformance::CaseSet no_cases;
  std::size_t found_kiln = 0, total_kiln = 0, found_hurray = 0, total_hurray = 0;
  for (std::size_t index = shard; index < mutants.size(); index += shards) {
    const Mutant& mutant = *mutants[index];
    const bool hurray = is_hurray(mutant);
    std::string seeds_found;
    std::size_t found = 0;
    const auto finds = [&](std::uint64_t seed, std::uint64_t inputs) {
      kiln::conformance::FuzzOptions options;
      options.adapter = std::string("'") + KILN_MUTANT_ADAPTER + "' --mutant " + std::string(mutant.name);
      options.profile = hurray ? std::string(kiln::protocol::kProfileHurrayElements)
                               : std::string(kiln::protocol::kProfileKilnV2);
      options.runs = inputs;
      options.seed = seed;
      options.adapter_blind = blind;
      options.quiet_progress = true;
      options.out_dir = fs::temp_directory_path() / ("kiln-blind-reach-" + std::to_string(::getpid()));
      fs::remove_all(options.out_dir);
      std::ostringstream out, err;
      const auto summary = kiln::conformance::run_fuzz(options, hurray ? no_cases : cases, out, err);
      fs::remove_all(options.out_dir);
      return !summary.findings.empty();
    };
    for (std::uint64_t seed = first_seed; seed <= last_seed; ++seed) {
      if (ladder) {
        for (std::uint64_t rung : ladder_to(runs))
          if (finds(seed, rung)) {
            ++found;
            seeds_found += " " + std::to_string(seed) + "@" + std::to_string(rung);
            break;
          }
      } else if (finds(seed, runs)) {
        ++found;
        seeds_found += " " + std::to_string(seed);
      }
    }
    const std::size_t seeds = last_seed - first_seed + 1;
    std::cout << (found == seeds ? "found " : found ? "some  " : "MISSED") << " " << mutant.name << " ["
              << mutant.family << "] seeds:" << (seeds_found.empty() ? " none" : seeds_found) << std::endl;
    (hurray ? total_hurray : total_kiln) += 1;
    if (found == seeds) (hurray ? found_hurray : found_kiln) += 1;
  }
  std::cout << "found at every seed " << first_seed << ".." << last_seed << " within " << runs
            << (blind ? " blind" : " (fuzz, not blind)") << " inputs: kiln-v2 " << found_kiln << "/" << total_kiln << ", hurray-elements " << found_hurray
            << "/" << total_hurray << std::endl;
  return 0;
}
