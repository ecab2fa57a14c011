// The process's own memory as Linux reports it in /proc/self/status, for the
// bench programs that measure memory beside their counted allocations.
#pragma once

#include <cstdint>

namespace kiln::bench {

// Kilobyte fields of /proc/self/status, in bytes.
struct MemoryStatus {
  std::uint64_t peak = 0;      // VmHWM
  std::uint64_t resident = 0;  // VmRSS
  std::uint64_t anonymous = 0; // RssAnon: heap and other private memory
  std::uint64_t file = 0;      // RssFile: mapped file pages
};

MemoryStatus read_memory_status();

// Makes VmHWM equal to the current RSS (Linux 4.0 and later); false when the
// kernel does not allow it, and the peak then counts from the process's start.
bool reset_peak_memory();

}  // namespace kiln::bench
