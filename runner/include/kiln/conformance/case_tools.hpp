// The `kiln-conformance cases ...` subcommands, as functions that tests can call.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "kiln/conformance/case_loader.hpp"

namespace kiln::conformance {

// Exit codes shared by every subcommand, so scripts can trust them.
enum ExitCode : int { kExitOk = 0, kExitFailures = 1, kExitUsage = 2 };

// The text of a case file with its generated keys (ops, block) replaced in place,
// or appended when absent; every other line is kept as it was.
std::string rewrite_generated_keys(const std::string& text, const Case& test_case,
                                   const std::optional<std::vector<std::uint8_t>>& block);

// Lower-case hex, 32 bytes a line, for the block key.
std::string block_hex_lines(const std::vector<std::uint8_t>& block, const std::string& indent);

// Every problem of one loaded case against the reference: bytes that differ from
// the regenerated ones (with the first differing offset), ops that differ from
// the derived ones, and a reference outcome that differs from expect.
std::vector<std::string> check_case(const Case& test_case);

int cases_regen(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_check(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_coverage(const std::filesystem::path& root, std::ostream& out, std::ostream& err);
int cases_export(const std::filesystem::path& root, const std::filesystem::path& destination,
                 std::ostream& out, std::ostream& err);

// Prints every load error as file:line:column and returns false when there was one.
bool report_load_errors(const CaseSet& set, std::ostream& err);

}  // namespace kiln::conformance

namespace kiln::conformance {
// SHA-256 over every case's id, expectation, ops and block, in id order: names
// the exact case set a report or an export came from.
std::string case_set_hash(const CaseSet& set);
}  // namespace kiln::conformance
