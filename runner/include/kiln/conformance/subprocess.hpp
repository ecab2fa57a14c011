// A child process driven over pipes with deadlines: the runner's only way to
// talk to an untrusted adapter. Nothing the child does (crash, hang, flood a
// pipe, close one early, print a line of any length) blocks or crashes the runner.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>

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

class Subprocess {
 public:
  enum class Status { kOk, kEof, kTimeout, kTooLong, kBroken };

  // Runs `/bin/sh -c command` in its own process group. nullptr with error set
  // when the process could not be started.
  static std::unique_ptr<Subprocess> start(const std::string& command, std::string& error);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Writes all of data, draining the child's output meanwhile so neither side
  // blocks the other. kBroken when the child closed its input.
  Status write_all(std::string_view data, Clock::time_point deadline);
  void close_input();
  // Reads one line (without its newline). kTooLong once more than max_bytes
  // arrive without a newline; kEof when the child closed its output first.
  Status read_line(std::string& line, Clock::time_point deadline, std::size_t max_bytes);
  // Waits up to the deadline for the child to exit on its own.
  bool wait_exit(Clock::time_point deadline);
  // Kills the whole process group and reaps the child.
  void kill();
  bool exited() const { return exited_; }
  // "exited with status 3", "killed by signal 11 (SIGSEGV)", or "running".
  std::string exit_description() const;
  // The child's stderr since the last call (bounded).
  std::string take_stderr();

 private:
  Subprocess() = default;
  // One poll round: moves whatever is ready; false when the deadline passed.
  bool pump(Clock::time_point deadline, std::string_view* pending_write);
  void reap(bool block);

  pid_t pid_ = -1;
  int input_ = -1;   // the child's stdin
  int output_ = -1;  // the child's stdout
  int errors_ = -1;  // the child's stderr
  bool output_eof_ = false;
  bool input_broken_ = false;
  bool exited_ = false;
  int wait_status_ = 0;
  std::string output_buffer_;
  BoundedTail stderr_tail_{16 * 1024};
};

}  // namespace kiln::conformance
