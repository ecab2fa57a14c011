// A global operator new that counts, for the bench programs that link it:
// linking counting_allocations.cpp into a program replaces its operator new/delete.
#pragma once

#include <cstdint>

namespace kiln::bench {

struct AllocationCount {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;  // requested, summed over the allocations
  // The most heap the counted code held at once beyond what was held at the
  // start (malloc's usable sizes, frees subtracted): its peak footprint.
  std::uint64_t peak_bytes = 0;
};

// Counts the allocations made by operator new until stop; not reentrant.
void start_counting_allocations();
AllocationCount stop_counting_allocations();

}  // namespace kiln::bench
