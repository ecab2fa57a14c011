#include "kiln/conformance/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::conformance {
namespace {

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1000));
}

}  // namespace

void BoundedTail::append(std::string_view data) {
  text_.append(data);
  if (text_.size() > capacity_) {
    const std::size_t excess = text_.size() - capacity_;
    dropped_ += excess;
    text_.erase(0, excess);
  }
}

std::string BoundedTail::take() {
  std::string result;
  if (dropped_) result = "[" + std::to_string(dropped_) + " earlier bytes of stderr dropped]\n";
  result += text_;
  text_.clear();
  dropped_ = 0;
  return result;
}

std::unique_ptr<Subprocess> Subprocess::start(const std::string& command, std::string& error) {
  // An adapter that exits while we write must give EPIPE (a failed case), not a
  // SIGPIPE that ends the runner and loses every result.
  static const bool ignoring_sigpipe = [] { return signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)ignoring_sigpipe;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      ::close(fd);
    return nullptr;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so kill() reaches the shell's children too
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    signal(SIGPIPE, SIG_DFL);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with an early kill()
  auto process = std::unique_ptr<Subprocess>(new Subprocess());
  process->pid_ = pid;
  process->input_ = in_pipe[1];
  process->output_ = out_pipe[0];
  process->errors_ = err_pipe[0];
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  for (int fd : {process->input_, process->output_, process->errors_}) set_nonblocking(fd);
  return process;
}

Subprocess::~Subprocess() { kill(); }

bool Subprocess::pump(Clock::time_point deadline, std::string_view* pending_write) {
  pollfd fds[3];
  nfds_t count = 0;
  int out_index = -1, err_index = -1, in_index = -1;
  if (output_ >= 0 && !output_eof_) {
    out_index = static_cast<int>(count);
    fds[count++] = {output_, POLLIN, 0};
  }
  if (errors_ >= 0) {
    err_index = static_cast<int>(count);
    fds[count++] = {errors_, POLLIN, 0};
  }
  if (pending_write && !pending_write->empty() && input_ >= 0) {
    in_index = static_cast<int>(count);
    fds[count++] = {input_, POLLOUT, 0};
  }
  if (Clock::now() >= deadline) return false;
  if (count == 0) {  // nothing left to watch: only time can pass
    usleep(static_cast<useconds_t>(std::min(remaining_ms(deadline), 10)) * 1000);
    return Clock::now() < deadline;
  }
  const int ready = poll(fds, count, remaining_ms(deadline));
  if (ready < 0 && errno != EINTR) return false;
  char chunk[65536];
  if (out_index >= 0 && fds[out_index].revents) {
    const ssize_t got = ::read(output_, chunk, sizeof chunk);
    if (got > 0) output_buffer_.append(chunk, static_cast<std::size_t>(got));
    else if (got == 0 || (errno != EAGAIN && errno != EINTR)) output_eof_ = true;
  }
  if (err_index >= 0 && fds[err_index].revents) {
    const ssize_t got = ::read(errors_, chunk, sizeof chunk);
    if (got > 0) stderr_tail_.append(std::string_view(chunk, static_cast<std::size_t>(got)));
    else if (got == 0 || (errno != EAGAIN && errno != EINTR)) close_fd(errors_);
  }
  if (in_index >= 0 && fds[in_index].revents) {
    if (fds[in_index].revents & (POLLERR | POLLHUP)) {
      input_broken_ = true;
    } else {
      const ssize_t sent = ::write(input_, pending_write->data(), pending_write->size());
      if (sent > 0) pending_write->remove_prefix(static_cast<std::size_t>(sent));
      else if (sent < 0 && errno != EAGAIN && errno != EINTR) input_broken_ = true;
    }
  }
  return true;
}

Subprocess::Status Subprocess::write_all(std::string_view data, Clock::time_point deadline) {
  if (input_ < 0 || input_broken_) return Status::kBroken;
  while (!data.empty()) {
    if (input_broken_) return Status::kBroken;
    if (!pump(deadline, &data)) return Status::kTimeout;
  }
  return Status::kOk;
}

void Subprocess::close_input() { close_fd(input_); }

Subprocess::Status Subprocess::read_line(std::string& line, Clock::time_point deadline,
                                         std::size_t max_bytes) {
  // Search only what arrived since the last look: a 64 MiB line comes in 64 KiB
  // reads, and rescanning the whole buffer each time is quadratic.
  std::size_t searched = 0;
  for (;;) {
    const std::size_t newline = output_buffer_.find('\n', searched);
    searched = output_buffer_.size();
    if (newline != std::string::npos) {
      if (newline > max_bytes) return Status::kTooLong;
      line.assign(output_buffer_, 0, newline);
      output_buffer_.erase(0, newline + 1);
      return Status::kOk;
    }
    if (output_buffer_.size() > max_bytes) return Status::kTooLong;
    if (output_eof_) return Status::kEof;
    if (!pump(deadline, nullptr)) return Status::kTimeout;
  }
}

void Subprocess::reap(bool block) {
  if (exited_ || pid_ < 0) return;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done == pid_) {
    exited_ = true;
    wait_status_ = status;
  }
}

bool Subprocess::wait_exit(Clock::time_point deadline) {
  for (;;) {
    reap(false);
    if (exited_) return true;
    if (!pump(deadline, nullptr)) return false;
  }
}

void Subprocess::kill() {
  if (pid_ > 0 && !exited_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  // Keep what stderr already holds for the report, then close everything.
  if (errors_ >= 0) {
    char chunk[65536];
    ssize_t got;
    while ((got = ::read(errors_, chunk, sizeof chunk)) > 0)
      stderr_tail_.append(std::string_view(chunk, static_cast<std::size_t>(got)));
  }
  close_fd(input_);
  close_fd(output_);
  close_fd(errors_);
}

std::string Subprocess::exit_description() const {
  if (!exited_) return "running";
  if (WIFEXITED(wait_status_)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int signal_number = WTERMSIG(wait_status_);
    const char* name = sigabbrev_np(signal_number);
    return "killed by signal " + std::to_string(signal_number) +
           (name ? std::string(" (SIG") + name + ")" : std::string());
  }
  return "stopped";
}

std::string Subprocess::take_stderr() {
  // Whatever is already in the pipe belongs to this request.
  if (errors_ >= 0) {
    char chunk[65536];
    ssize_t got;
    while ((got = ::read(errors_, chunk, sizeof chunk)) > 0)
      stderr_tail_.append(std::string_view(chunk, static_cast<std::size_t>(got)));
  }
  return stderr_tail_.take();
}

}  // namespace kiln::conformance
