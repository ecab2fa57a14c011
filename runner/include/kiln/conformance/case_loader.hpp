// Loads golden case files (cases/README.md) strictly: unknown keys, bad hex,
// unknown rule IDs, out-of-range numbers and duplicate ids are errors that
// name file:line:column.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

struct CaseError {
  SourceMark where;
  std::string message;
  std::string describe() const;  // "file:line:column: message"
};

// display_name is how the file is named in messages and in Case::origin.
std::variant<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                             const std::string& display_name);

struct CaseSet {
  std::vector<Case> cases;  // sorted by id
  std::vector<CaseError> errors;
};

// Every *.yaml below root, recursively. Duplicate ids and file names that differ
// from the id are errors.
CaseSet load_case_set(const std::filesystem::path& root);

}  // namespace kiln::conformance
