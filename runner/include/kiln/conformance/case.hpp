// A golden case as loaded from cases/**/<id>.yaml. The schema is documented in
// cases/README.md and cases/case.schema.json; this is its in-memory form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/description.hpp"
#include "kiln/hurray.hpp"
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

// The body of a case of profile hurray-elements (cases/README.md, "Profile
// hurray-elements"): one tensor's element layer and what the reference makes of it.
struct ElementsCase {
  // The type, by name where the case names one (so a different tag assignment
  // is an edit of kiln::hurray::kTypes); type is then its row of the table.
  const hurray::TypeInfo* type = nullptr;
  std::uint8_t tag = 0;  // type->tag, or the raw tag the case gives
  std::vector<std::uint64_t> shape;
  std::optional<hurray::Mode> mode;                 // decode only; absent: strict
  std::optional<std::vector<std::uint8_t>> data;    // the decode input
  std::optional<std::vector<std::string>> elements; // hex, as written: the encode input
  std::vector<hurray::Rule> rules;
  std::vector<hurray::Rule> also_breaks;
  enum class Result : std::uint8_t { kAccept, kOpaque, kReject };
  // kOpaque: permissive mode and a tag not recognized: an opaque accept or a
  // TAG reject both conform (seed 003).
  Result result = Result::kAccept;
  std::optional<hurray::ErrorClass> error_class;  // kReject
  std::optional<hurray::Rule> rule;               // kReject: what the reference reports

  hurray::Mode decode_mode() const { return mode.value_or(hurray::Mode::kStrict); }
};

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
  // Set for profile hurray-elements, whose case has none of the Kiln members
  // below (description, faults, block, the Kiln rules and expect) but its own.
  std::optional<ElementsCase> elements;
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
  // The rule IDs the case exercises, of its own profile.
  std::vector<std::string_view> rule_ids() const;
  // A reject case: Kiln's expect, or the hurray body's result.
  bool expects_reject() const;
  // The rule a reject case expects the reference to report, of its own profile.
  std::optional<std::string_view> expected_rule_id() const;
};

}  // namespace kiln::conformance
