// Runs a shell command and keeps its stdout and exit code: the adapter test
// programs drive real adapter binaries this way.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace kiln::testing {

struct ProgramRun {
  std::string out;
  int exit_code = -1;  // -1: could not start, or ended by a signal
};

inline ProgramRun run_shell_command(const std::string& command) {
  ProgramRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace kiln::testing
