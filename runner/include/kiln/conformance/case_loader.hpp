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
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/error.hpp"

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

// The suite's cases/case.schema.json as it was when this program was built: the
// built-in profiles' Profile::case_schema_text().
std::string_view builtin_case_schema_text();

// A compiled case.schema.json: a cheap handle, copies share the compiled
// schema. Validation reuses compiled patterns, so one schema (and its copies)
// must not be used by two threads at once.
class CaseSchema {
 public:
  // Reads and compiles a JSON Schema file. display_name names it in errors.
  static Result<CaseSchema, CaseError> load(const std::filesystem::path& file,
                                            const std::string& display_name);
  static Result<CaseSchema, CaseError> parse(const std::string& text,
                                             const std::string& display_name);
  // For a cases folder without a schema of its own: each case is checked with
  // its profile's Profile::case_schema_text(), each text compiled once, so a
  // profile registered from outside the runner brings its schema with it.
  static const CaseSchema& builtin();
  // The schema the cases under root are checked with: root/case.schema.json
  // when there is anything at that name (named root's name/case.schema.json in
  // errors), else builtin().
  static Result<CaseSchema, CaseError> of_folder(const std::filesystem::path& root);

  // The loader's view: the valijson schema and its compiled patterns, or none
  // for builtin().
  struct Impl;
  Impl* impl() const { return impl_.get(); }

 private:
  explicit CaseSchema(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// display_name is how the file is named in messages and in Case::origin; topic
// goes to Case::topic.
Result<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                       const std::string& display_name, const CaseSchema& schema,
                                       const std::string& topic = "");

// The same for a case held in memory (a sweep family's member before regen
// writes it): text is what the file would hold.
Result<Case, CaseError> load_case_text(const std::string& text, const std::string& display_name,
                                       const CaseSchema& schema, const std::string& topic = "");

struct CaseSet {
  std::vector<Case> cases;  // sorted by id
  std::vector<CaseError> errors;
};

// Every *.yaml below root, recursively, checked against CaseSchema::of_folder(root). Any error makes the set unusable: a
// schema that does not load, a folder that
// cannot be read, a link that leads nowhere or to a folder (links to folders are
// not followed), a *.yaml that is not a regular file, a file that does not load,
// duplicate ids, and file names that differ from the id.
CaseSet load_case_set(const std::filesystem::path& root);

}  // namespace kiln::conformance
