#include "kiln/conformance/install_layout.hpp"

#include <system_error>

// Set by runner/CMakeLists.txt: CMAKE_INSTALL_DATADIR/kiln-conformance/cases
// relative to CMAKE_INSTALL_BINDIR, e.g. "../share/kiln-conformance/cases".
#ifndef KILN_CASES_FROM_BINDIR
#error "KILN_CASES_FROM_BINDIR must name the cases folder relative to the bin folder"
#endif

namespace kiln::conformance {

namespace fs = std::filesystem;

fs::path cases_dir_beside(const fs::path& executable_path) {
  return (executable_path.parent_path() / KILN_CASES_FROM_BINDIR).lexically_normal();
}

fs::path running_executable(const char* argv0) {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && !self.empty()) return self;
  // Without /proc: a path in argv[0] names the file; a bare name was found on
  // PATH, which this does not search.
  if (argv0 == nullptr) return {};
  const std::string given(argv0);
  if (given.find('/') == std::string::npos) return {};
  fs::path absolute = fs::absolute(given, error);
  return error ? fs::path{} : absolute;
}

fs::path default_cases_dir(const char* argv0) {
  const fs::path executable = running_executable(argv0);
  if (executable.empty()) return "cases";
  const fs::path beside = cases_dir_beside(executable);
  std::error_code error;
  fs::path real = fs::canonical(beside, error);
  return error ? beside : real;
}

}  // namespace kiln::conformance
