// A golden case as loaded from cases/**/<id>.yaml. The schema is documented in
// cases/README.md and cases/case.schema.json; this is its in-memory form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/rules.hpp"

namespace kiln::conformance {

// Where something was written: file:line:column (1-based), for error messages.
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
  std::string describe() const;  // "cases/x.yaml:3:5"
};

// A byte position named by a layout anchor of the canonical block ("heap+3",
// "tensor[1].data", "end-1") or a plain absolute offset.
struct Anchor {
  std::string text;  // as written, for messages and re-serialisation
};

// Faults are applied in order to the canonical bytes of the description.
struct SetField {
  std::optional<std::uint32_t> tensor;  // nullopt: a header field
  std::string field;                    // a name from kiln/layout.hpp
  std::uint64_t value = 0;
};
struct Overwrite {
  Anchor at;
  std::vector<std::uint8_t> bytes;
};
struct Truncate {
  Anchor to;  // the new length
};
struct Append {
  std::vector<std::uint8_t> bytes;
};
using Fault = std::variant<SetField, Overwrite, Truncate, Append>;

enum class Operation : std::uint8_t { kDecode, kEncode };
std::string_view to_string(Operation operation) noexcept;

struct Expectation {
  bool accept = true;
  std::optional<ErrorClass> error_class;  // set when !accept
  std::optional<Rule> rule;               // the rule the reference reports (informative)
};

enum class Level : std::uint8_t { kRequired, kRecommended };

struct Case {
  std::string id;
  std::string summary;
  std::vector<Rule> rules;        // the rules this case exercises
  std::string source;             // "seed 000 kiln-v2-u4", "brief", "suite"
  Level level = Level::kRequired;
  std::string profile = "kiln-v2";
  BlockDescription description;   // payloads already packed from typed values
  std::vector<Fault> faults;
  std::optional<std::vector<std::uint8_t>> block;  // absent only when no block can exist
  Expectation expect;
  std::vector<Operation> ops;     // derived: decode always (with a block); encode iff no faults
  SourceMark origin;              // the file the case came from

  // The operations the case tests, as the schema derives them from the rest.
  std::vector<Operation> derived_ops() const;
};

}  // namespace kiln::conformance
