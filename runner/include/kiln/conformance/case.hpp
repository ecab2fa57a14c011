// A golden case as loaded from cases/**/<id>.yaml. The schema is documented in
// cases/README.md and cases/case.schema.json; this is its in-memory form.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>


namespace kiln::conformance {

// Where something was written: file:line:column (1-based), for error messages.
// line 0 means the whole file or folder (it cannot be read, say): no position.
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
  std::string describe() const;  // "cases/x.yaml:3:5", or "cases/x.yaml" when line is 0
};

enum class Operation : std::uint8_t { kDecode, kEncode };
std::string_view to_string(Operation operation) noexcept;

// A profile's own part of a case: its bytes, values and expectation, as its case
// files write them. Each profile defines its body type in its own folder
// (runner/profiles/<profile>/) and reads it (Profile::read_case_body); the rest of
// the runner asks the body only what every profile answers.
class CaseBody {
 public:
  virtual ~CaseBody() = default;
  virtual std::unique_ptr<CaseBody> clone() const = 0;
  // The operations the case tests when its file lists none.
  virtual std::vector<Operation> derived_ops() const = 0;
  // The rule IDs the case exercises, of its own profile.
  virtual std::vector<std::string_view> rule_ids() const = 0;
  virtual bool expects_reject() const = 0;
  // The rule a reject case expects the reference to report.
  virtual std::optional<std::string_view> expected_rule_id() const = 0;
  // `cases regen`: the block the case's file stores is now block (what
  // Profile::regen_block made); a body whose files store no block keeps itself.
  virtual void set_stored_block(std::optional<std::vector<std::uint8_t>> block) { (void)block; }
};

struct Case {
  std::string id;
  std::string summary;
  std::string source;             // "seed 000 ...", "brief", "suite"
  std::string profile;            // its name; the profile's body type matches it
  std::vector<Operation> ops;     // as written; empty when the file has no ops yet
  SourceMark origin;              // the file the case came from
  // The folder the case sits in, relative to the cases root, '/'-separated ("type",
  // "a/b"); empty for a file at the root. Independent of how the root was spelled.
  std::string topic;

  Case() = default;
  Case(const Case& other);
  Case& operator=(const Case& other);
  Case(Case&&) noexcept = default;
  Case& operator=(Case&&) noexcept = default;
  ~Case() = default;

  // The profile's part, null until the loader or a profile's builder sets it.
  const CaseBody* body() const noexcept { return body_.get(); }
  CaseBody* body() noexcept { return body_.get(); }
  // The body as the profile's own type, or null when it is another's (or none).
  template <class Body>
  const Body* body_as() const noexcept {
    return dynamic_cast<const Body*>(body_.get());
  }
  template <class Body>
  Body* body_as() noexcept {
    return dynamic_cast<Body*>(body_.get());
  }
  // Makes the case one of profile profile_name, whose body type Body is.
  template <class Body>
  Body& set_body(std::string_view profile_name, Body body) {
    profile = std::string(profile_name);
    auto owned = std::make_unique<Body>(std::move(body));
    Body& set = *owned;
    body_ = std::move(owned);
    return set;
  }

  // The operations the case tests, as cases/README.md derives them (its body's).
  std::vector<Operation> derived_ops() const;
  // The rule IDs the case exercises, of its own profile.
  std::vector<std::string_view> rule_ids() const;
  bool expects_reject() const;
  // The rule a reject case expects the reference to report, of its own profile.
  std::optional<std::string_view> expected_rule_id() const;

 private:
  std::unique_ptr<CaseBody> body_;
};

// c's body as Body, the type of profile `profile`'s bodies, which the caller
// knows c is (std::logic_error otherwise: a caller's bug). Each profile wraps
// these in its own body(c) (kiln/conformance/<profile>/case.hpp).
template <class Body>
const Body& body_of(const Case& c, std::string_view profile) {
  const Body* body = c.body_as<Body>();
  if (!body) throw std::logic_error("case " + c.id + " is not a " + std::string(profile) + " case");
  return *body;
}
// The same, or for a case being built that has no body yet, a new one of the profile.
template <class Body>
Body& body_of(Case& c, std::string_view profile) {
  if (!c.body()) return c.set_body(profile, Body{});
  return const_cast<Body&>(body_of<Body>(static_cast<const Case&>(c), profile));
}

}  // namespace kiln::conformance
