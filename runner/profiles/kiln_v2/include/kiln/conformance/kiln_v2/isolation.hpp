// Profile kiln-v2's checks of a case against the reference, and isolation
// (cases/README.md, "Isolation"): a reject case breaks its listed rules and no other.
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/error.hpp"

namespace kiln::conformance {

// check_case of a kiln-v2 case: what the profile's check() runs.
std::vector<std::string> check_kiln_case(const Case& test_case);

// ---- isolation (cases/README.md, "Isolation") ----

// A check that the reference's lenient decode never waives, wholly or in part,
// because it keeps every read inside the input (kiln::decode, DecodeOptions). A
// reject case whose lenient read ends at one is exempt from the whole isolation
// check: nothing after that check in decode order is read.
struct UnwaivableCheck {
  Rule rule;
  std::string_view part;    // what of the rule is never waived
  std::string_view reason;  // why
};
std::span<const UnwaivableCheck> unwaivable_checks() noexcept;

// The rules a reject case breaks: expect.rule, then also_breaks. Empty for an
// accept case.
std::vector<Rule> broken_rules(const Case& test_case);

struct IsolationResult {
  std::vector<std::string> problems;
  // The unwaivable check a listed rule's read ended at, when the case is exempt.
  std::optional<Rule> exempt;
  // Exempt at FRAME-TRUNCATED, and checked whole with its truncate faults left out.
  bool restored = false;
};

// Isolation of a reject case whose block the reference rejects with expect.rule:
// with exactly broken_rules() waived the reference accepts the block (a problem
// names every other rule it breaks); each also_breaks rule is broken (with the
// other listed rules waived, the reference reports it). A read that ends at an
// unwaivable check of a listed rule makes the case exempt: the rules checked
// before it are still held, and a case cut by truncate faults is checked again
// with them left out.
IsolationResult check_isolation(const Case& test_case, std::span<const std::uint8_t> block);

// `cases check`'s lines on isolation: how many reject cases it checks whole, and
// which it checks only up to an unwaivable check, and why.
void report_isolation_coverage(const CaseSet& set, std::ostream& out);

// Every rule a block breaks, found as isolation finds them: the reference's
// first rule, then with that one waived the next, and so on. Empty when the
// reference accepts the block; stop is the unwaivable check the last read ended
// at, if it did.
struct BrokenRules {
  std::vector<Rule> rules;
  std::optional<Error> first;  // the reference's strict report (rules[0])
  std::optional<Error> stop;
};
BrokenRules rules_broken_by(std::span<const std::uint8_t> block);

}  // namespace kiln::conformance
