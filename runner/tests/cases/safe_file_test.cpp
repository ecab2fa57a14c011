// Safe output (safe_file.hpp): no write through a symbolic link planted at a
// predictable name, no existing file replaced, and `cases export` built on it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::read_text;
using testing::snapshot;
using testing::write_text;

std::string refused(const fs::path& path) {
  return path.string() + ": exists and was not written by this run: not replaced";
}

// "" when the write succeeded, else its error line: EXPECT_EQ then prints the error.
std::string error_of(const Checked<void>& written) { return written ? std::string() : written.error(); }

// Bytes a text reader would mangle: NUL, CR LF, high bytes.
const std::string kBinary("kiln\0\r\n\xff\x80 end", 13);

TEST(SafeFile, CreateNewFileWritesANewFileExactly) {
  ScratchDir scratch;
  EXPECT_EQ(error_of(create_new_file(scratch / "a.bin", kBinary)), "");
  EXPECT_EQ(read_text(scratch / "a.bin"), kBinary);
  EXPECT_EQ(error_of(create_new_file(scratch / "empty", "")), "");
  EXPECT_TRUE(fs::is_regular_file(scratch / "empty"));
  EXPECT_EQ(fs::file_size(scratch / "empty"), 0u);
  // Larger than one write() is likely to take at once.
  const std::string big(8 << 20, 'k');
  EXPECT_EQ(error_of(create_new_file(scratch / "big", big)), "");
  EXPECT_EQ(read_text(scratch / "big"), big);
  EXPECT_EQ(fs::symlink_status(scratch / "a.bin").type(), fs::file_type::regular);
}

TEST(SafeFile, CreateNewFileRefusesAnExistingFile) {
  ScratchDir scratch;
  write_text(scratch / "kept", "precious\n");
  EXPECT_EQ(error_of(create_new_file(scratch / "kept", "overwritten")), refused(scratch / "kept"));
  EXPECT_EQ(read_text(scratch / "kept"), "precious\n");
  // A second create of a file this call made is refused too: create is once only.
  ASSERT_EQ(error_of(create_new_file(scratch / "mine", "one")), "");
  EXPECT_EQ(error_of(create_new_file(scratch / "mine", "two")), refused(scratch / "mine"));
  EXPECT_EQ(read_text(scratch / "mine"), "one");
}

TEST(SafeFile, CreateNewFileRefusesASymlinkToAFile) {
  ScratchDir scratch;
  write_text(scratch / "target", "precious\n");
  fs::create_symlink(scratch / "target", scratch / "planted.kiln");
  EXPECT_EQ(error_of(create_new_file(scratch / "planted.kiln", "attack")), refused(scratch / "planted.kiln"));
  EXPECT_EQ(read_text(scratch / "target"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(scratch / "planted.kiln"));
  EXPECT_EQ(fs::read_symlink(scratch / "planted.kiln"), scratch / "target");
}

TEST(SafeFile, CreateNewFileRefusesADanglingSymlink) {
  ScratchDir scratch;
  fs::create_symlink(scratch / "would-be-created", scratch / "planted.kiln");
  EXPECT_EQ(error_of(create_new_file(scratch / "planted.kiln", "attack")), refused(scratch / "planted.kiln"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(scratch / "would-be-created")));
  EXPECT_TRUE(fs::is_symlink(scratch / "planted.kiln"));
}

TEST(SafeFile, CreateNewFileReportsADirectoryAndAMissingFolder) {
  ScratchDir scratch;
  fs::create_directories(scratch / "dir");
  EXPECT_EQ(error_of(create_new_file(scratch / "dir", "x")),
            (scratch / "dir").string() + ": cannot open for writing: Is a directory");
  EXPECT_EQ(error_of(create_new_file(scratch / "missing" / "f", "x")),
            (scratch / "missing" / "f").string() + ": cannot open for writing: No such file or directory");
  EXPECT_FALSE(fs::exists(scratch / "missing"));
}

TEST(SafeFile, CheckNewFileAgreesWithCreateNewFile) {
  ScratchDir scratch;
  write_text(scratch / "file", "x");
  fs::create_symlink(scratch / "nowhere", scratch / "dangling");
  EXPECT_EQ(error_of(check_new_file(scratch / "free")), "");
  EXPECT_FALSE(fs::exists(scratch / "free"));  // checking creates nothing
  EXPECT_EQ(error_of(check_new_file(scratch / "file")), refused(scratch / "file"));
  EXPECT_EQ(error_of(check_new_file(scratch / "dangling")), refused(scratch / "dangling"));
  EXPECT_EQ(error_of(check_new_file(scratch / "file")), error_of(create_new_file(scratch / "file", "y")));
  EXPECT_EQ(read_text(scratch / "file"), "x");
}

TEST(SafeFile, ReplaceOwnFileReplacesContentAndLeavesNoTemporary) {
  ScratchDir scratch;
  ASSERT_EQ(error_of(create_new_file(scratch / "finding.kiln", "first, longer version")), "");
  EXPECT_EQ(error_of(replace_own_file(scratch / "finding.kiln", kBinary)), "");
  EXPECT_EQ(read_text(scratch / "finding.kiln"), kBinary);
  EXPECT_EQ(error_of(replace_own_file(scratch / "finding.kiln", "min")), "");
  EXPECT_EQ(read_text(scratch / "finding.kiln"), "min");
  // Only the file itself: every temporary was renamed away.
  EXPECT_EQ(snapshot(scratch.path()), (std::map<std::string, std::string>{{"finding.kiln", "min"}}));
}

// Someone swaps the run's own file for a link between two writes: rename replaces
// the link itself and the link's target keeps its bytes.
TEST(SafeFile, ReplaceOwnFileReplacesASwappedInSymlinkNotItsTarget) {
  ScratchDir scratch;
  write_text(scratch / "elsewhere" / "target", "precious\n");
  const fs::path own = scratch / "out" / "finding.kiln";
  fs::create_directories(own.parent_path());
  ASSERT_EQ(error_of(create_new_file(own, "first")), "");
  fs::remove(own);
  fs::create_symlink(scratch / "elsewhere" / "target", own);
  EXPECT_EQ(error_of(replace_own_file(own, "second")), "");
  EXPECT_EQ(fs::symlink_status(own).type(), fs::file_type::regular);
  EXPECT_EQ(read_text(own), "second");
  EXPECT_EQ(read_text(scratch / "elsewhere" / "target"), "precious\n");
  EXPECT_EQ(snapshot(scratch / "out"), (std::map<std::string, std::string>{{"finding.kiln", "second"}}));
}

TEST(SafeFile, ReplaceOwnFileFailsCleanlyWithoutItsFolder) {
  ScratchDir scratch;
  const auto problem = error_of(replace_own_file(scratch / "gone" / "f", "x"));
  ASSERT_TRUE(!problem.empty());
  EXPECT_EQ(problem.rfind((scratch / "gone" / "f").string() + ": cannot ", 0), 0u) << problem;
  EXPECT_NE(problem.find("No such file or directory"), std::string::npos) << problem;
}

TEST(SafeFile, FreeNameSkipsExistingNamesAndDanglingSymlinks) {
  ScratchDir scratch;
  std::string stem = "stale";
  EXPECT_EQ(free_name(scratch.path(), "crash-ab12", ".kiln", stem), scratch / "crash-ab12.kiln");
  EXPECT_EQ(stem, "crash-ab12");
  write_text(scratch / "crash-ab12.kiln", "x");
  fs::create_symlink(scratch / "nowhere", scratch / "crash-ab12-2.kiln");  // dangling
  fs::create_directories(scratch / "crash-ab12-3.kiln");
  fs::create_symlink(scratch / "crash-ab12.kiln", scratch / "crash-ab12-4.kiln");  // live
  EXPECT_EQ(free_name(scratch.path(), "crash-ab12", ".kiln", stem), scratch / "crash-ab12-5.kiln");
  EXPECT_EQ(stem, "crash-ab12-5");
  // Another extension is another name.
  EXPECT_EQ(free_name(scratch.path(), "crash-ab12", ".json", stem), scratch / "crash-ab12.json");
  EXPECT_EQ(stem, "crash-ab12");
  EXPECT_FALSE(fs::exists(fs::symlink_status(scratch / "nowhere")));
}

TEST(SafeFile, FreeNameGivesUpAfterAThousand) {
  ScratchDir scratch;
  write_text(scratch / "f.x", "");
  for (int n = 2; n <= 1000; ++n) write_text(scratch / ("f-" + std::to_string(n) + ".x"), "");
  std::string stem = "stale";
  EXPECT_EQ(free_name(scratch.path(), "f", ".x", stem), fs::path());
  EXPECT_EQ(stem, "");
}

TEST(SafeFile, MakeOutputDirCreatesParentsAndRefusesAFile) {
  ScratchDir scratch;
  EXPECT_EQ(error_of(make_output_dir(scratch / "a" / "b")), "");
  EXPECT_TRUE(fs::is_directory(scratch / "a" / "b"));
  EXPECT_EQ(error_of(make_output_dir(scratch / "a" / "b")), "");  // already there
  write_text(scratch / "file", "kept");
  const auto problem = error_of(make_output_dir(scratch / "file"));
  ASSERT_TRUE(!problem.empty());
  EXPECT_EQ(problem.rfind((scratch / "file").string() + ": cannot create: ", 0), 0u) << problem;
  EXPECT_EQ(read_text(scratch / "file"), "kept");
}

// ---- cases export on top of it ----

struct ExportResult {
  int code;
  std::string out;
  std::string err;
};
ExportResult export_to(const fs::path& root, const fs::path& destination) {
  std::ostringstream out, err;
  const int code = cases_export(root, destination, out, err);
  return {code, out.str(), err.str()};
}

// The review's attack: a link planted at a case's predictable file name.
TEST(CasesExport, SafeFileRefusesAPlantedSymlinkAndWritesNothing) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  write_text(scratch / "victim", "precious\n");
  const auto destination = scratch / "export";
  fs::create_directories(destination);
  fs::create_symlink(scratch / "victim", destination / "kiln-v2-u4.kiln");
  const ExportResult result = export_to(root, destination);
  EXPECT_EQ(result.code, kExitFailures) << result.out;
  EXPECT_EQ(result.err, "export: " + refused(destination / "kiln-v2-u4.kiln") + "\n");
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(read_text(scratch / "victim"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(destination / "kiln-v2-u4.kiln"));
  // Every name is checked before the first write: nothing else is there.
  EXPECT_EQ(std::distance(fs::directory_iterator(destination), fs::directory_iterator()), 1);
}

TEST(CasesExport, SafeFileRefusesADanglingSymlinkWithoutCreatingItsTarget) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  const auto destination = scratch / "export";
  fs::create_directories(destination);
  fs::create_symlink(scratch / "created-by-attack", destination / "index.json");
  const ExportResult result = export_to(root, destination);
  EXPECT_EQ(result.code, kExitFailures) << result.out;
  EXPECT_EQ(result.err, "export: " + refused(destination / "index.json") + "\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(scratch / "created-by-attack")));
  EXPECT_EQ(std::distance(fs::directory_iterator(destination), fs::directory_iterator()), 1);
}

// A second export into the same folder: the first conflicting name (the first
// case's file, in index order) is named, and the first export is left whole.
TEST(CasesExport, SafeFileRefusesToReplaceAnEarlierExport) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  const auto destination = scratch / "export";
  const ExportResult first = export_to(root, destination);
  ASSERT_EQ(first.code, kExitOk) << first.err;
  const auto index = nlohmann::json::parse(read_text(destination / "index.json"));
  ASSERT_FALSE(index["cases"].empty());
  const std::string first_file = index["cases"][0]["file"].get<std::string>();
  const auto before = snapshot(destination);
  EXPECT_EQ(before.size(), index["cases"].size() + 1);  // every case has bytes here
  const ExportResult second = export_to(root, destination);
  EXPECT_EQ(second.code, kExitFailures);
  EXPECT_EQ(second.err, "export: " + refused(destination / first_file) + "\n");
  EXPECT_EQ(second.out, "");
  EXPECT_EQ(snapshot(destination), before);
}

// Several conflicts: the first in writing order (case files, then index.json).
TEST(CasesExport, SafeFileNamesTheFirstConflictAndKeepsTheFiles) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  const auto destination = scratch / "export";
  write_text(destination / "index.json", "{\"mine\": true}\n");
  write_text(destination / "kiln-v2-f32.kiln", "not a block");
  write_text(destination / "notes.txt", "unrelated");
  const auto before = snapshot(destination);
  const ExportResult result = export_to(root, destination);
  EXPECT_EQ(result.code, kExitFailures);
  EXPECT_EQ(result.err, "export: " + refused(destination / "kiln-v2-f32.kiln") + "\n");
  EXPECT_EQ(snapshot(destination), before);
}

// A folder holding only other names is fine: export adds its files beside them.
TEST(CasesExport, SafeFileExportsBesideUnrelatedFiles) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  const auto destination = scratch / "export";
  write_text(destination / "notes.txt", "unrelated");
  const ExportResult result = export_to(root, destination);
  ASSERT_EQ(result.code, kExitOk) << result.err;
  EXPECT_EQ(read_text(destination / "notes.txt"), "unrelated");
  EXPECT_EQ(read_text(destination / "kiln-v2-u4.kiln"), [] {
    std::string bytes;
    const std::string hex = testing::kU4BlockHex;
    for (std::size_t at = 0; at < hex.size(); at += 2)
      bytes += static_cast<char>(std::stoi(hex.substr(at, 2), nullptr, 16));
    return bytes;
  }());
  struct stat info {};
  ASSERT_EQ(::stat((destination / "index.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0600, 0600u);  // readable and writable by its owner
}

}  // namespace
}  // namespace kiln::conformance
