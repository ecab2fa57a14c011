// Safe input and output for the suite's files. A file the suite writes is never
// written through a symbolic link and never replaces a file this run did not
// create, so a link or a file planted at a predictable name (a finding's, an
// export's) cannot redirect or destroy anything; a file it reads is a regular
// file, read within a bound. POSIX only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "kiln/error.hpp"

namespace kiln::conformance {

// The whole of a regular file of at most max_bytes: the one reader of the
// suite's files (cases, schemas, families, request files, reports). O_NONBLOCK
// keeps a FIFO from blocking the open; fstat on the open descriptor then refuses
// it (no race between a check and the open). The error is the reason alone, for
// the caller to put after the name it shows: "cannot open: <reason>", "cannot
// read: <reason>", "not a regular file", or, one past the bound, "larger than N
// bytes" followed by limits_note (where the limit is documented).
Checked<std::string> read_regular_file(const std::filesystem::path& file, std::uintmax_t max_bytes,
                                       std::string_view limits_note = {});

// Creates path exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644 less the umask)
// and writes all of bytes. Fails when anything is at the name, a dangling or live
// symbolic link included. The error is one line naming the path:
// "<path>: exists and was not written by this run: not replaced" when something
// is there, "<path>: cannot open for writing: Is a directory" when it is a
// directory, "<path>: cannot open for writing|write|close: <strerror>" otherwise.
// A failed write removes the partial file (this call created it).
Checked<void> create_new_file(const std::filesystem::path& path, std::string_view bytes);

// What create_new_file would refuse at path as it stands, without creating
// anything: lets a writer of many files check every name before writing one.
Checked<void> check_new_file(const std::filesystem::path& path);

// For improving a file this run created: writes a temporary sibling
// ".<filename>.tmp-<pid>-<counter>" created exclusively, then rename()s it over
// path. rename replaces a symbolic link found at path, never its target. The
// temporary is removed on failure; the error is one line naming path.
Checked<void> replace_own_file(const std::filesystem::path& path, std::string_view bytes);

// The first of dir/(stem + extension), dir/(stem + "-2" + extension), ... up to
// "-1000" at which nothing exists (symlink_status: a dangling link counts as
// existing); chosen_stem receives the stem used, so a caller whose id is the
// file's name can change the id with it. An empty path (and chosen_stem empty)
// when all are taken or a name's status cannot be read. Another process may take
// the name before it is created: create it with create_new_file all the same.
std::filesystem::path free_name(const std::filesystem::path& dir, std::string_view stem,
                                std::string_view extension, std::string& chosen_stem);

// Creates dir and its parents when missing; succeeds when dir is (or now is) a
// directory, else fails with "<dir>: cannot create: <reason>". dir itself may be a link to a
// directory: it is the caller's chosen place, not a name inside it.
Checked<void> make_output_dir(const std::filesystem::path& dir);

}  // namespace kiln::conformance
