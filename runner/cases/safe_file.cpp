#include "kiln/conformance/safe_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace kiln::conformance {
namespace {

std::string errno_text(int code) { return code ? std::strerror(code) : "unknown error"; }

std::string cannot(const std::filesystem::path& path, std::string_view step, int code) {
  return path.string() + ": cannot " + std::string(step) + ": " + errno_text(code);
}

// The message for an EEXIST from an exclusive create: a directory is named as
// such (it could never have been written as a file), anything else is refused.
std::string exists_text(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return cannot(path, "open for writing", EISDIR);
  return path.string() + ": exists and was not written by this run: not replaced";
}

// Writes all of bytes to fd: write() may stop short (a signal, a pipe-like
// file system) or fail with EINTR, neither of which is an error. 0 or errno.
int write_all(int fd, std::string_view bytes) {
  const char* at = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, at, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno ? errno : EIO;
    }
    if (written == 0) return EIO;  // no progress and no error: give up, never spin
    at += written;
    left -= static_cast<std::size_t>(written);
  }
  return 0;
}

// Opens path as a new file: O_EXCL fails on anything at the name, and
// O_NOFOLLOW with it makes a dangling link fail too rather than create its target.
int open_new(const std::filesystem::path& path) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Writes and closes fd (a file this process just created at path); on failure
// removes path, which holds only part of bytes. The error is one line.
Checked<void> fill_new(int fd, const std::filesystem::path& path, std::string_view bytes,
                       const std::filesystem::path& named) {
  if (const int code = write_all(fd, bytes)) {
    ::close(fd);
    ::unlink(path.c_str());
    return cannot(named, "write", code);
  }
  // close reports a delayed write error (NFS, a full disk): it must be checked,
  // and not retried on EINTR, since the descriptor is gone on Linux either way.
  if (::close(fd) != 0) {
    const int code = errno;
    ::unlink(path.c_str());
    return cannot(named, "close", code);
  }
  return {};
}

}  // namespace

Checked<std::string> read_regular_file(const std::filesystem::path& file, std::uintmax_t max_bytes,
                                       std::string_view limits_note) {
  const auto fail = [](std::string what) {
    return Failure(std::move(what) + ": " + std::error_code(errno, std::generic_category()).message());
  };
  const auto too_large = [&] {
    return Failure("larger than " + std::to_string(max_bytes) + " bytes" + std::string(limits_note));
  };
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail("cannot open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return fail("cannot read");
  if (!S_ISREG(info.st_mode)) return Failure("not a regular file");
  const auto size = static_cast<std::uintmax_t>(info.st_size);
  if (size > max_bytes) return too_large();
  std::string text;
  text.reserve(static_cast<std::size_t>(size));  // grown only if the file grows
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail("cannot read");
    if (got == 0) break;
    // The file may grow while it is read: the bound holds for what is read.
    if (text.size() + static_cast<std::size_t>(got) > max_bytes) return too_large();
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

Checked<void> create_new_file(const std::filesystem::path& path, std::string_view bytes) {
  const int fd = open_new(path);
  if (fd < 0) {
    const int code = errno;
    if (code == EEXIST) return exists_text(path);
    return cannot(path, "open for writing", code);
  }
  return fill_new(fd, path, bytes, path);
}

Checked<void> check_new_file(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) return exists_text(path);
  if (errno == ENOENT) return {};
  return cannot(path, "open for writing", errno);
}

Checked<void> replace_own_file(const std::filesystem::path& path, std::string_view bytes) {
  // Unique within the process by the counter and across processes by the pid; a
  // stale temporary of a dead process with the same pid is skipped, not reused.
  static std::atomic<unsigned long> counter{0};
  const std::filesystem::path dir = path.parent_path();
  const std::string base = "." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::filesystem::path temp = dir / (base + std::to_string(counter++));
    const int fd = open_new(temp);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return cannot(path, "create a temporary file", errno);
    }
    if (auto filled = fill_new(fd, temp, bytes, path); !filled) return filled;
    // rename() replaces the name at path, whatever it is (a link is replaced
    // itself, never followed), and is atomic: readers see old or new, never part.
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      const int code = errno;
      ::unlink(temp.c_str());
      return cannot(path, "replace", code);
    }
    return {};
  }
  return cannot(path, "create a temporary file", EEXIST);
}

std::filesystem::path free_name(const std::filesystem::path& dir, std::string_view stem,
                                std::string_view extension, std::string& chosen_stem) {
  chosen_stem.clear();
  for (int n = 1; n <= 1000; ++n) {
    std::string candidate(stem);
    if (n > 1) candidate += "-" + std::to_string(n);
    const std::filesystem::path path = dir / (candidate + std::string(extension));
    std::error_code error;
    // Not status(): a dangling link is something at the name, and writing the
    // name would create its target.
    const std::filesystem::file_status status = std::filesystem::symlink_status(path, error);
    if (status.type() == std::filesystem::file_type::not_found) {
      chosen_stem = std::move(candidate);
      return path;
    }
    if (error) return {};  // unreadable (EACCES, ENOTDIR, ...): no name can be vouched for
  }
  return {};
}

Checked<void> make_output_dir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Failure(dir.string() + ": cannot create: " + error.message());
  // create_directories may accept an existing non-directory on some libraries.
  if (!std::filesystem::is_directory(dir, error))
    return Failure(dir.string() + ": cannot create: " +
                   (error ? error.message() : std::string(std::strerror(ENOTDIR))));
  return {};
}

}  // namespace kiln::conformance
