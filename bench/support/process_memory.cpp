#include "process_memory.hpp"

#include <fstream>
#include <limits>
#include <string>

namespace kiln::bench {

MemoryStatus read_memory_status() {
  MemoryStatus status;
  std::ifstream in("/proc/self/status");
  std::string key;
  std::uint64_t kilobytes = 0;
  std::string unit;
  while (in >> key) {
    if (key == "VmHWM:" || key == "VmRSS:" || key == "RssAnon:" || key == "RssFile:") {
      in >> kilobytes >> unit;
      const std::uint64_t bytes = kilobytes * 1024;
      if (key == "VmHWM:") status.peak = bytes;
      if (key == "VmRSS:") status.resident = bytes;
      if (key == "RssAnon:") status.anonymous = bytes;
      if (key == "RssFile:") status.file = bytes;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return status;
}

bool reset_peak_memory() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace kiln::bench
