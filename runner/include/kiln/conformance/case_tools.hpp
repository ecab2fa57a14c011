// The `kiln-conformance cases ...` subcommands, as functions that tests can call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

// Exit codes shared by every subcommand, so scripts can trust them:
// 1: checks failed, or a file could not be written;
// 2: the input is unusable: a bad argument, no case files, a file that does not
//    load, or (regen) a file it cannot rewrite safely. Nothing is written then.
// 3: (fuzz, replay) the adapter is unusable: no hello, another protocol, or
//    nothing offered that was asked for. Nothing was judged.
enum ExitCode : int { kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitAdapterUnusable = 3 };

// The text of a case file with its generated keys (ops, block) replaced where
// they stand, or appended when absent; every other line is kept byte for byte
// and new lines take the file's line end (LF or CRLF). Only the forms regen
// writes are rewritten: top-level `ops: [...]` on one line and `block: |` with
// hex lines. Any other form of those keys (quoted, tagged, anchored, a block
// sequence, spanning lines, with comments), a second copy, or a result that
// would not read back as the same case with the new keys is refused with the
// file:line:column (origin.file of the case) to fix.
Result<std::string, CaseError> rewrite_generated_keys(
    const std::string& text, const Case& test_case,
    const std::optional<std::vector<std::uint8_t>>& block);

// Lower-case hex, 32 bytes a line, for the block key.
std::string block_hex_lines(const std::vector<std::uint8_t>& block, const std::string& indent);

// Every problem of one loaded case against the reference: bytes that differ from
// the regenerated ones (the first differing offset and the field it falls in),
// ops that differ from the derived ones, and a reference outcome that differs
// from expect.
std::vector<std::string> check_case(const Case& test_case);
// Each subcommand exits 2 on a folder without case files: nothing was checked.
// regen replaces each changed file through a temporary file and a rename.
int cases_regen(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_check(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_coverage(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_export(const std::filesystem::path& root, const std::filesystem::path& destination,
                 std::ostream& out, std::ostream& err);

// `cases from-input`: the cases a profile's raw fuzz input stands for
// (raw_input.hpp), each expecting the reference's verdict, written to
// out_dir/<id>.yaml and held to `cases check` there. A file already at that
// name is left alone (the same text: said and passed; other text: exit 1).
int cases_from_input(const std::filesystem::path& input_file, std::string_view profile,
                     const std::filesystem::path& out_dir, std::ostream& out, std::ostream& err);
// `cases seeds`: the raw input of each case of the profile under root, one
// file per distinct input named by its case id: the adapter fuzzer's seed corpus.
int cases_seeds(const std::filesystem::path& root, std::string_view profile,
                const std::filesystem::path& out_dir, std::ostream& out, std::ostream& err);
// The largest input file from-input reads.
inline constexpr std::uintmax_t kMaxRawInputFileBytes = std::uintmax_t{16} << 20;

// Prints every load error as file:line:column and returns false when there was one.
bool report_load_errors(const CaseSet& set, std::ostream& err);

}  // namespace kiln::conformance

namespace kiln::conformance {
// SHA-256 over every case's id, expectation, ops and block, in id order: names
// the exact case set a report or an export came from.
std::string case_set_hash(const CaseSet& set);
}  // namespace kiln::conformance
