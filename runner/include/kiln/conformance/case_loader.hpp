// Loads golden case files (cases/README.md) strictly: every case must satisfy
// cases/case.schema.json (applied with valijson) and the loader's own rules
// (rule IDs of the reference, exact typed values, anchors, duplicate ids);
// unknown or duplicate keys, bad hex and out-of-range numbers are errors that
// name file:line:column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/conformance/case.hpp"

namespace kiln::conformance {

struct CaseError {
  SourceMark where;
  std::string message;
  std::string describe() const;  // "file:line:column: message"
};

// Bounds on what one case file may be, so that no input exhausts memory, stack
// or time (cases/README.md lists them). The largest case of the suite is about
// 4 KB, 211 YAML nodes and 5 levels deep.
inline constexpr std::uintmax_t kMaxCaseFileBytes = std::uintmax_t{1} << 20;
inline constexpr std::size_t kMaxCaseNodes = std::size_t{1} << 17;  // scalars, sequences, mappings
inline constexpr int kMaxCaseDepth = 32;                             // nested sequences and mappings
// Payloads, names, layouts and dimensions (8 bytes each) of the description.
inline constexpr std::uint64_t kMaxDescriptionBytes = std::uint64_t{256} << 20;
// Folders below the cases root.
inline constexpr int kMaxFolderDepth = 32;

// The schema file, which sits in the cases root beside the topic folders.
inline constexpr const char* kCaseSchemaFile = "case.schema.json";

// The suite's cases/case.schema.json as it was when this program was built.
std::string_view builtin_case_schema_text();

// A compiled case.schema.json. Validation reuses compiled patterns, so one
// instance must not be used by two threads at once.
class CaseSchema {
 public:
  // Reads and compiles a JSON Schema file. display_name names it in errors.
  static std::variant<CaseSchema, CaseError> load(const std::filesystem::path& file,
                                                  const std::string& display_name);
  static std::variant<CaseSchema, CaseError> parse(const std::string& text,
                                                   const std::string& display_name);
  // builtin_case_schema_text(), compiled once; for a cases folder without a schema.
  static const std::variant<CaseSchema, CaseError>& builtin();
  CaseSchema(CaseSchema&&) noexcept;
  CaseSchema& operator=(CaseSchema&&) noexcept;
  ~CaseSchema();

  // The loader's view: the valijson schema and its compiled patterns.
  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  explicit CaseSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// display_name is how the file is named in messages and in Case::origin; topic
// goes to Case::topic.
std::variant<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                             const std::string& display_name,
                                             const CaseSchema& schema,
                                             const std::string& topic = "");

// The same for a case held in memory (a sweep family's member before regen
// writes it): text is what the file would hold.
std::variant<Case, CaseError> load_case_text(const std::string& text,
                                             const std::string& display_name,
                                             const CaseSchema& schema,
                                             const std::string& topic = "");

struct CaseSet {
  std::vector<Case> cases;  // sorted by id
  std::vector<CaseError> errors;
};

// Every *.yaml below root, recursively, checked against root/case.schema.json, or
// the built-in schema when root has none. Any error makes the set unusable: a
// schema that does not load, a folder that
// cannot be read, a link that leads nowhere or to a folder (links to folders are
// not followed), a *.yaml that is not a regular file, a file that does not load,
// duplicate ids, and file names that differ from the id.
CaseSet load_case_set(const std::filesystem::path& root);

}  // namespace kiln::conformance
