// A global operator new that counts, for bench_memory only: linking
// counting_allocations.cpp into a program replaces its operator new/delete.
#pragma once

#include <cstdint>

namespace kiln::bench {

struct AllocationCount {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;  // requested, summed over the allocations
};

// Counts the allocations made by operator new until stop; not reentrant.
void start_counting_allocations();
AllocationCount stop_counting_allocations();

}  // namespace kiln::bench
