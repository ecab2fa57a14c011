// Helpers shared by the runner's tests: a scratch directory per test, whole-file
// reads and writes, running the CLI, and a small set of golden cases.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kiln/conformance/case_loader.hpp"

namespace kiln::conformance::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::filesystem::path& file);
void write_text(const std::filesystem::path& file, const std::string& text);
// Every regular file below root with its bytes, keyed by relative path.
std::map<std::string, std::string> snapshot(const std::filesystem::path& root);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs `program args...` through the shell with stdout and stderr captured in
// files of scratch; args are quoted here.
CommandResult run_program(const std::string& program, const std::vector<std::string>& args,
                          const ScratchDir& scratch);
std::string shell_quote(const std::string& text);

// The suite's cases/case.schema.json: its path, a copy of it in dir (every cases
// folder holds its schema), and the schema compiled once for load_case_file.
std::filesystem::path suite_schema_path();
void write_schema(const std::filesystem::path& dir);
const CaseSchema& suite_schema();

// YAML text of six small cases (the seed cases u4, high-nibble, bool-byte,
// le-clear, f32 and opaque) without ops and block, keyed by id.
const std::map<std::string, std::string>& seed_case_texts();
// Writes the schema and seed_case_texts() under dir (in two topic folders) and
// fills in ops and block with `cases regen`; fails the calling test when regen fails.
void write_seed_cases(const std::filesystem::path& dir);

// The design brief's worked example kiln-v2-u4: u4 [3] = 1, 2, 3 (130 bytes).
extern const char* const kU4BlockHex;

}  // namespace kiln::conformance::testing
