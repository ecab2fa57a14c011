// Where kiln-conformance finds its golden cases when not told (--cases): beside
// its own executable, at the same relative place in an installed prefix
// (<prefix>/bin/../share/kiln-conformance/cases), an unpacked Debian package and
// the build tree (whose share/kiln-conformance/cases links to the source's
// cases/). Only that relative path is compiled in, so a prefix can move.
#pragma once

#include <filesystem>

namespace kiln::conformance {

// The cases folder for an executable at executable_path: lexically normal, not
// checked for existence.
std::filesystem::path cases_dir_beside(const std::filesystem::path& executable_path);

// The running program's path: /proc/self/exe, else argv0 made absolute when it
// names a file (contains a '/'); empty when neither tells.
std::filesystem::path running_executable(const char* argv0);

// cases_dir_beside(running_executable(argv0)), symlinks resolved when it exists
// (so messages name the real folder); "cases" (relative to the working folder)
// when the executable cannot be found.
std::filesystem::path default_cases_dir(const char* argv0);

}  // namespace kiln::conformance
