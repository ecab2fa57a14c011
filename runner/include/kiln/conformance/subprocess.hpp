// A child process driven over pipes with deadlines: the runner's only way to
// talk to an untrusted adapter. Nothing the child does (crash, hang, flood a
// pipe, close one early, print a line of any length, exit while a child of its
// own keeps its pipes open) blocks or crashes the runner.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "kiln/error.hpp"

namespace kiln::conformance {

using Clock = std::chrono::steady_clock;

// The tail of a stream that may be flooded: keeps the last `capacity` bytes and
// counts what it dropped.
class BoundedTail {
 public:
  explicit BoundedTail(std::size_t capacity) : capacity_(capacity) {}
  void append(std::string_view data);
  std::string take();  // the kept text (with a note when bytes were dropped); clears
 private:
  std::size_t capacity_;
  std::string text_;
  std::uint64_t dropped_ = 0;
};

// The shell text the runner hands to `/bin/sh -c` for an adapter command: the
// command itself with `exec` put before its last simple command, so that the
// adapter replaces the shell and is the runner's own child (its exit status,
// its signal and its stdout reach the runner, not a waiting shell's).
//   python3 a.py               -> exec python3 a.py
//   FOO=1 ./x --flag 'a b'     -> FOO=1 exec ./x --flag 'a b'
//   cd dir && ./x              -> cd dir && exec ./x
// A command it cannot rewrite safely (a pipeline, a subshell, a compound command
// such as if/for/{ }, a background job, command substitution, a here-document, a
// comment, a builtin last) comes back unchanged.
std::string exec_form(std::string_view command);

// Installs SIGINT, SIGTERM and SIGHUP handlers that SIGKILL the process group of
// every adapter still running and then end the runner with that signal, so a
// terminated run leaves no hung adapter (or its children) behind. Signals the
// runner was started with ignored stay ignored. Call once, early in main.
void install_termination_cleanup();

class Subprocess {
 public:
  enum class Status { kOk, kEof, kTimeout, kTooLong, kBroken };

  // Runs `/bin/sh -c exec_form(command)` in its own process group; the error
  // when the process could not be started.
  static Checked<std::unique_ptr<Subprocess>> start(const std::string& command);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Writes all of data, draining the child's output meanwhile so neither side
  // blocks the other. kBroken when the child closed its input or exited.
  Status write_all(std::string_view data, Clock::time_point deadline);
  void close_input();
  // Reads one line (without its newline). kTooLong once more than max_bytes
  // arrive without a newline; kEof when the child closed its output, or exited,
  // before a whole line came (a process it left behind may still hold the pipe).
  Status read_line(std::string& line, Clock::time_point deadline, std::size_t max_bytes);
  // Takes whatever the child's stdout holds right now, without waiting; true
  // when unread output is buffered (see unread_output()).
  bool output_waiting();
  // Output received after the last line read_line returned.
  std::string_view unread_output() const { return output_buffer_; }
  // Waits up to the deadline for the child to exit on its own.
  bool wait_exit(Clock::time_point deadline);
  // Kills the whole process group and reaps the child.
  void kill();
  // Whether the child has exited (checked now, without waiting).
  bool check_exited();
  bool exited() const { return exited_; }
  // The child exited with status 0.
  bool exited_cleanly() const;
  // "exited with status 3", "was killed by signal 11 (SIGSEGV)", or "is running".
  std::string exit_description() const;
  // The child's stderr since the last call (bounded).
  std::string take_stderr();

 private:
  Subprocess() = default;
  // One poll round: moves whatever is ready; false when the deadline passed.
  bool pump(Clock::time_point deadline, std::string_view* pending_write);
  void reap(bool block);
  // Reads what a pipe holds now, at most `max_reads` chunks; false at its end.
  bool drain(int fd, std::size_t max_reads, bool to_stderr);

  pid_t pid_ = -1;
  int input_ = -1;   // the child's stdin
  int output_ = -1;  // the child's stdout
  int errors_ = -1;  // the child's stderr
  bool output_eof_ = false;
  bool input_broken_ = false;
  bool exited_ = false;
  int wait_status_ = 0;
  Clock::time_point last_reap_{};  // when pump last checked whether the child exited
  // How long the last replies took to come, smoothed (read_line).
  Clock::duration reply_time_ = Clock::duration::zero();
  // Tries the child's stdout, yielding between tries, until output comes, it
  // ends, or until.
  void spin_for_output(Clock::time_point until);
  std::string output_buffer_;
  BoundedTail stderr_tail_{16 * 1024};
};

}  // namespace kiln::conformance
