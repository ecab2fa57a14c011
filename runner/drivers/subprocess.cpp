#include "kiln/conformance/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln::conformance {
namespace {

// How long one poll may sleep: the adapter's own exit is noticed within this
// even while a process it left behind keeps its pipes open.
constexpr int kPollSliceMs = 50;
// A reply that usually comes within this is waited for by trying the pipe
// (yielding the processor between tries), not by sleeping in poll: a sleep
// and a wake-up on another core cost more than a fast adapter's whole answer
// on a virtual machine. A slower adapter is waited for in poll at once.
constexpr auto kSpinFor = std::chrono::microseconds(100);
// One drain reads at most this many 64 KiB chunks: a process that escaped the
// adapter's group and floods a pipe must not hold the runner.
constexpr std::size_t kMaxDrainReads = 64;

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), kPollSliceMs));
}

// ---- the process groups a terminating signal must kill ----

// Fixed and lock-free: the signal handler may only load atomics and call kill().
constexpr std::size_t kMaxLiveGroups = 64;
std::array<std::atomic<pid_t>, kMaxLiveGroups> live_groups{};
static_assert(std::atomic<pid_t>::is_always_lock_free);
constexpr std::array<int, 3> kTerminationSignals{SIGINT, SIGTERM, SIGHUP};

void register_group(pid_t group) {
  for (auto& slot : live_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
  // All slots taken: the runner drives one adapter at a time, so this is unreachable;
  // the group is still killed by kill() on every normal path.
}

void unregister_group(pid_t group) {
  for (auto& slot : live_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

extern "C" void kill_groups_and_reraise(int signal_number) {
  const int saved_errno = errno;
  for (auto& slot : live_groups) {
    const pid_t group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
  // SA_RESETHAND restored the default action: the signal, pending until this
  // handler returns, ends the runner the way it would have without us.
  ::raise(signal_number);
  errno = saved_errno;
}

// ---- exec_form: where `exec` goes in an adapter command ----

struct Token {
  bool separator;  // ; newline && ||
  std::size_t begin, end;
};

// Past a `$` construct at text[at], or nullopt when it is one this scanner
// does not follow (command substitution, a ${...} holding quotes or nesting).
std::optional<std::size_t> skip_dollar(std::string_view text, std::size_t at) {
  if (at + 1 < text.size() && text[at + 1] == '(') return std::nullopt;
  if (at + 1 < text.size() && text[at + 1] == '{') {
    const std::size_t close = text.find('}', at + 2);
    if (close == std::string_view::npos) return std::nullopt;
    if (text.substr(at + 2, close - at - 2).find_first_of("'\"`$(){}\\;&|\n") != std::string_view::npos)
      return std::nullopt;
    return close + 1;
  }
  return at + 1;
}

// The command split into words and list separators at the top level; nullopt
// for anything but a list of simple commands.
std::optional<std::vector<Token>> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  const std::size_t n = text.size();
  auto next_is = [&](std::size_t at, char c) { return at + 1 < n && text[at + 1] == c; };
  std::size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '\n' || c == ';') {
      if (c == ';' && next_is(i, ';')) return std::nullopt;  // case ... ;;
      tokens.push_back({true, i, i + 1});
      ++i;
    } else if (c == '&' || c == '|') {
      if (!next_is(i, c)) return std::nullopt;  // a background job or a pipeline
      tokens.push_back({true, i, i + 2});
      i += 2;
    } else if (c == '(' || c == ')' || c == '#') {
      return std::nullopt;  // a subshell, or a comment
    } else {
      const std::size_t begin = i;
      while (i < n) {
        const char w = text[i];
        if (w == ' ' || w == '\t' || w == '\n' || w == ';' || w == '&' || w == '|' || w == '(' ||
            w == ')')
          break;
        if (w == '`') return std::nullopt;
        if (w == '\\') {
          if (i + 1 >= n) return std::nullopt;
          i += 2;
        } else if (w == '\'') {
          const std::size_t close = text.find('\'', i + 1);
          if (close == std::string_view::npos) return std::nullopt;
          i = close + 1;
        } else if (w == '"') {
          std::size_t j = i + 1;
          while (j < n && text[j] != '"') {
            if (text[j] == '`') return std::nullopt;
            if (text[j] == '\\') {
              j += 2;
            } else if (text[j] == '$') {
              const auto past = skip_dollar(text, j);
              if (!past) return std::nullopt;
              j = *past;
            } else {
              ++j;
            }
          }
          if (j >= n) return std::nullopt;
          i = j + 1;
        } else if (w == '$') {
          const auto past = skip_dollar(text, i);
          if (!past) return std::nullopt;
          i = *past;
        } else if (w == '<' && next_is(i, '<')) {
          return std::nullopt;  // a here-document
        } else if ((w == '<' || w == '>') && (next_is(i, '&') || next_is(i, '|'))) {
          i += 2;  // 2>&1, >|: one redirection, not a separator
        } else {
          ++i;
        }
      }
      tokens.push_back({false, begin, i});
    }
  }
  return tokens;
}

bool is_assignment(std::string_view word) {
  const std::size_t equals = word.find('=');
  if (equals == 0 || equals == std::string_view::npos) return false;
  if (!(std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '_')) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Words `exec` cannot precede: reserved words end or open compound commands,
// and builtins are no programs to exec (`exec` itself: nothing to add).
bool is_reserved_or_builtin(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "!",     "{",      "}",       "[[",     "]]",    "case",    "do",     "done",  "elif",
      "else",  "esac",   "fi",      "for",    "function", "if",   "in",     "select", "then",
      "time",  "until",  "while",   ".",      ":",     "alias",   "bg",     "break", "builtin",
      "cd",    "chdir",  "command", "continue", "eval", "exec",   "exit",   "export", "fc",
      "fg",    "getopts", "hash",   "jobs",   "local", "read",    "readonly", "return", "set",
      "shift", "source", "times",   "trap",   "type",  "ulimit",  "umask",  "unalias", "unset",
      "wait"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

}  // namespace

std::string exec_form(std::string_view command) {
  const auto tokens = tokenize(command);
  if (!tokens) return std::string(command);
  // The last simple command's tokens (separators after it, `./x;`, end nothing).
  std::size_t end = tokens->size();
  while (end > 0 && (*tokens)[end - 1].separator) --end;
  std::size_t first = end;
  while (first > 0 && !(*tokens)[first - 1].separator) --first;
  for (std::size_t i = first; i < end; ++i) {
    const Token& token = (*tokens)[i];
    const std::string_view word = command.substr(token.begin, token.end - token.begin);
    if (is_assignment(word)) continue;  // FOO=1 exec ./x passes FOO=1 to ./x
    if (is_reserved_or_builtin(word)) break;
    return std::string(command.substr(0, token.begin)) + "exec " +
           std::string(command.substr(token.begin));
  }
  return std::string(command);
}

void install_termination_cleanup() {
  struct sigaction action {};
  action.sa_handler = kill_groups_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int signal_number : kTerminationSignals) sigaddset(&action.sa_mask, signal_number);
  action.sa_flags = SA_RESETHAND;
  for (int signal_number : kTerminationSignals) {
    struct sigaction previous {};
    // Started with the signal ignored (nohup, a background job): keep it so.
    if (sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    sigaction(signal_number, &action, nullptr);
  }
}

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

Checked<std::unique_ptr<Subprocess>> Subprocess::start(const std::string& command) {
  // An adapter that exits while we write must give EPIPE (a failed case), not a
  // SIGPIPE that ends the runner and loses every result.
  static const bool ignoring_sigpipe = [] { return signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)ignoring_sigpipe;
  const std::string script = exec_form(command);
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0)
    return Failure(std::string("pipe: ") + std::strerror(errno));
  // Termination signals wait until the child's group is registered: a signal in
  // between would otherwise leave this child running.
  sigset_t termination, previous_mask;
  sigemptyset(&termination);
  for (int signal_number : kTerminationSignals) sigaddset(&termination, signal_number);
  pthread_sigmask(SIG_BLOCK, &termination, &previous_mask);
  const pid_t pid = fork();
  if (pid < 0) {
    const std::string error = std::string("fork: ") + std::strerror(errno);
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      ::close(fd);
    return Failure(error);
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so kill() reaches the adapter's children too
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    signal(SIGPIPE, SIG_DFL);
    // The runner's cleanup handler is not the adapter's (exec would reset it too,
    // but a signal may come before exec).
    for (int signal_number : kTerminationSignals) {
      struct sigaction current {};
      if (sigaction(signal_number, nullptr, &current) == 0 &&
          current.sa_handler == kill_groups_and_reraise)
        signal(signal_number, SIG_DFL);
    }
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with an early kill()
  register_group(pid);
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
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

bool Subprocess::drain(int fd, std::size_t max_reads, bool to_stderr) {
  char chunk[65536];
  for (std::size_t i = 0; i < max_reads; ++i) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      if (to_stderr) stderr_tail_.append(std::string_view(chunk, static_cast<std::size_t>(got)));
      else output_buffer_.append(chunk, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return !(got == 0 || errno != EAGAIN);  // EAGAIN: nothing more for now
  }
  return true;
}

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
  const auto now = Clock::now();
  if (now >= deadline) return false;
  bool read_output = false;
  if (count == 0) {  // nothing left to watch: only time can pass
    usleep(static_cast<useconds_t>(std::min(remaining_ms(deadline), 10)) * 1000);
  } else {
    const int ready = poll(fds, count, remaining_ms(deadline));
    if (ready < 0 && errno != EINTR) return false;
    char chunk[65536];
    if (out_index >= 0 && fds[out_index].revents) {
      const ssize_t got = ::read(output_, chunk, sizeof chunk);
      if (got > 0) {
        output_buffer_.append(chunk, static_cast<std::size_t>(got));
        read_output = true;
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        output_eof_ = true;
      }
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
  }
  // The adapter may exit while a process it started keeps its pipes open: its
  // exit, not the pipes', says it is gone. A round that brought a reply's
  // bytes skips the check (a waitid per line), unless a slice has passed
  // since the last: output that keeps coming cannot hide an exit.
  if (!read_output || now - last_reap_ >= std::chrono::milliseconds(kPollSliceMs)) {
    last_reap_ = now;
    reap(false);
  }
  return true;
}

Subprocess::Status Subprocess::write_all(std::string_view data, Clock::time_point deadline) {
  if (input_ < 0 || input_broken_) return Status::kBroken;
  // A request line mostly fits the pipe at once: written without a poll first.
  if (!exited_ && !data.empty()) {
    ssize_t sent;
    do sent = ::write(input_, data.data(), data.size());
    while (sent < 0 && errno == EINTR);
    if (sent > 0) data.remove_prefix(static_cast<std::size_t>(sent));
    else if (sent < 0 && errno != EAGAIN) input_broken_ = true;
  }
  while (!data.empty()) {
    if (input_broken_ || exited_) return Status::kBroken;
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
  bool drained_after_exit = false;
  const auto started = Clock::now();
  if (output_buffer_.empty() && reply_time_ < kSpinFor) spin_for_output(std::min(started + kSpinFor, deadline));
  for (;;) {
    const std::size_t newline = output_buffer_.find('\n', searched);
    searched = output_buffer_.size();
    if (newline != std::string::npos) {
      if (newline > max_bytes) return Status::kTooLong;
      line.assign(output_buffer_, 0, newline);
      output_buffer_.erase(0, newline + 1);
      reply_time_ = (3 * reply_time_ + (Clock::now() - started)) / 4;
      return Status::kOk;
    }
    if (output_buffer_.size() > max_bytes) return Status::kTooLong;
    if (output_eof_ || drained_after_exit) return Status::kEof;
    if (exited_) {
      // Everything the adapter wrote before it exited is in the pipe now; read
      // it (bounded, a leftover process may still write) and look once more.
      char chunk[65536];
      while (output_buffer_.size() <= max_bytes) {
        const ssize_t got = ::read(output_, chunk, sizeof chunk);
        if (got > 0) output_buffer_.append(chunk, static_cast<std::size_t>(got));
        else if (got < 0 && errno == EINTR) continue;
        else break;
      }
      drained_after_exit = true;
      continue;
    }
    if (!pump(deadline, nullptr)) return Status::kTimeout;
  }
}

void Subprocess::spin_for_output(Clock::time_point until) {
  if (output_ < 0 || output_eof_ || exited_) return;
  char chunk[65536];
  while (Clock::now() < until) {
    const ssize_t got = ::read(output_, chunk, sizeof chunk);
    if (got > 0) {
      output_buffer_.append(chunk, static_cast<std::size_t>(got));
      return;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
      sched_yield();
      continue;
    }
    output_eof_ = true;
    return;
  }
}

bool Subprocess::output_waiting() {
  if (output_ >= 0 && !output_eof_ && !drain(output_, 1, false)) output_eof_ = true;
  return !output_buffer_.empty();
}

void Subprocess::reap(bool block) {
  if (exited_ || pid_ < 0) return;
  // WNOWAIT first: until it is reaped, the exited child holds its pid, so the
  // group id below cannot yet belong to anyone else.
  siginfo_t info{};
  int waited;
  do {
    info.si_pid = 0;
    waited = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
  } while (waited != 0 && errno == EINTR);
  if (waited != 0 || info.si_pid != pid_) return;
  // Whatever it left behind in its group goes with it (a child holding stdout).
  ::kill(-pid_, SIGKILL);
  unregister_group(pid_);
  int status = 0;
  pid_t done;
  do done = waitpid(pid_, &status, 0);
  while (done < 0 && errno == EINTR);
  exited_ = true;
  wait_status_ = status;
}

bool Subprocess::check_exited() {
  reap(false);
  return exited_;
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
  if (errors_ >= 0) drain(errors_, kMaxDrainReads, true);
  close_fd(input_);
  close_fd(output_);
  close_fd(errors_);
}

bool Subprocess::exited_cleanly() const {
  return exited_ && WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 0;
}

std::string Subprocess::exit_description() const {
  if (!exited_) return "is running";
  if (WIFEXITED(wait_status_)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int signal_number = WTERMSIG(wait_status_);
    const char* name = sigabbrev_np(signal_number);
    return "was killed by signal " + std::to_string(signal_number) +
           (name ? std::string(" (SIG") + name + ")" : std::string());
  }
  return "stopped";
}

std::string Subprocess::take_stderr() {
  // Whatever is already in the pipe belongs to this request.
  if (errors_ >= 0 && !drain(errors_, kMaxDrainReads, true)) close_fd(errors_);
  return stderr_tail_.take();
}

}  // namespace kiln::conformance
