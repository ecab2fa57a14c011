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
// line 0 means the whole file or folder (it cannot be read, say): no position.
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
  std::string describe() const;  // "cases/x.yaml:3:5", or "cases/x.yaml" when line is 0
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
  // The rules a reject case breaks on purpose besides expect.rule (a check-order
  // case); `cases check` holds every reject case to breaking exactly these and
  // expect.rule (cases/README.md, "Isolation").
  std::vector<Rule> also_breaks;
  std::string source;             // "seed 000 kiln-v2-u4", "brief", "suite"
  Level level = Level::kRequired;
  std::string profile = "kiln-v2";
  BlockDescription description;   // payloads already packed from typed values
  std::vector<Fault> faults;
  // The block as the file stores it. Absent for an encoder-only case (a reject case
  // without faults whose description cannot be placed) and in a file regen has not
  // written yet: the loader refuses an accept case or a case with faults whose
  // description cannot be placed, since no block can ever exist for them.
  std::optional<std::vector<std::uint8_t>> block;
  Expectation expect;
  std::vector<Operation> ops;     // as written; empty when the file has no ops yet
  SourceMark origin;              // the file the case came from
  // The folder the case sits in, relative to the cases root, '/'-separated ("type",
  // "a/b"); empty for a file at the root. Independent of how the root was spelled.
  std::string topic;

  // The operations the case tests, as cases/README.md derives them: decode when
  // there is a block or there are faults, encode when there are no faults.
  std::vector<Operation> derived_ops() const;
};

}  // namespace kiln::conformance
