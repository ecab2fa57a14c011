// An implementation with one known bug: the suite's mutant named by the
// environment's KILN_MUTANT (kiln-mutant-adapter --list names them all).
#include <cstdlib>

#include "kiln/conformance/adapter_fuzzer.hpp"
#include "kiln/mutants.hpp"

std::unique_ptr<kiln::protocol::Adapter> kiln_make_adapter() {
  const char* name = std::getenv("KILN_MUTANT");
  const kiln::mutants::Mutant* mutant = kiln::mutants::find_mutant(name ? name : "");
  if (!mutant) return nullptr;  // the fuzzer says so and stops
  return std::make_unique<kiln::mutants::MutantAdapter>(*mutant);
}
