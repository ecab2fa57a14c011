// Profile kiln-v2's isolation check (cases/README.md, "Isolation"): a reject
// case breaks the rules it lists and no other, read after read with the
// reference's lenient decode.
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/decode.hpp"

namespace kiln::conformance {
namespace {

std::string rule_list(const std::vector<Rule>& rules) {
  std::string text = "[";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (i) text += ", ";
    text += rule_info(rules[i]).id;
  }
  return text + "]";
}

bool listed(const std::vector<Rule>& rules, Rule rule) {
  return std::find(rules.begin(), rules.end(), rule) != rules.end();
}

const UnwaivableCheck* find_unwaivable(Rule rule) {
  for (const UnwaivableCheck& check : unwaivable_checks())
    if (check.rule == rule) return &check;
  return nullptr;
}

// One lenient read after another: each rule the reference reports that the case
// does not list is waived too and the block read again, so that one run names
// every extra rule. It ends at acceptance, or at a check that waiving cannot pass
// (the reported rule is waived already).
struct Isolation {
  std::vector<Rule> extra;            // broken beyond the listed rules, in the order found
  std::optional<Error> first_extra;   // what the reference reported for extra[0]
  std::optional<Error> stop;          // the unwaivable check the read ended at
};

Isolation isolate(std::span<const std::uint8_t> block, const std::vector<Rule>& broken) {
  RuleSet waived;
  for (Rule rule : broken) waived.add(rule);
  Isolation result;
  // Each round waives one more rule, so the loop ends within all_rules() rounds.
  for (std::size_t round = 0; round <= all_rules().size(); ++round) {
    auto decoded = decode(block, DecodeOptions{waived});
    if (decoded) return result;
    const Error& error = decoded.error();
    if (waived.contains(error.rule)) {
      result.stop = error;
      return result;
    }
    if (result.extra.empty()) result.first_extra = error;
    result.extra.push_back(error.rule);
    waived.add(error.rule);
  }
  return result;
}

// The case's own block with its truncate faults left out: the bytes a truncation
// case cut off, restored. nullopt when the case has no truncate fault.
std::optional<std::vector<std::uint8_t>> untruncated_block(const Case& test_case) {
  Case whole = test_case;
  auto& body = kiln_v2::body(whole);
  std::erase_if(body.faults,
                [](const Fault& fault) { return std::holds_alternative<Truncate>(fault); });
  if (body.faults.size() == kiln_v2::body(test_case).faults.size()) return std::nullopt;
  auto made = materialize(whole);
  if (made) return made.value().block;
  return std::nullopt;
}

// The problems of one read of isolate(); what names the bytes read ("", or
// " with its truncate faults left out").
void report_extra(const Isolation& isolation, const std::vector<Rule>& broken,
                  const std::string& what, std::vector<std::string>& problems) {
  if (isolation.extra.empty()) return;
  problems.push_back("isolation: breaks " + rule_list(isolation.extra) + " too" + what +
                     ", which the case does not list: with only " + rule_list(broken) +
                     " waived the reference reports " + isolation.first_extra->describe() +
                     "; make the case break only its rule, or list a rule it breaks on purpose "
                     "(check order) in also_breaks");
}

}  // namespace

std::span<const UnwaivableCheck> unwaivable_checks() noexcept {
  // decode.hpp: "Checks that keep every read inside the input are never waived".
  static constexpr UnwaivableCheck kChecks[] = {
      {Rule::kFrameTruncated, "the whole rule",
       "nothing can be read past the input's end, so a cut block is never read further"},
      {Rule::kFrameHeapLength, "its bound: a heap segment that runs past heap_length",
       "the segment's name and layout bytes would be read outside the heap"},
      {Rule::kFramePayloadLength, "its bound: a payload that runs past payload_length",
       "the payload would be read outside the payload region"},
  };
  return kChecks;
}

BrokenRules rules_broken_by(std::span<const std::uint8_t> block) {
  const Isolation found = isolate(block, {});
  return BrokenRules{found.extra, found.first_extra, found.stop};
}

std::vector<Rule> broken_rules(const Case& test_case) {
  auto& body = kiln_v2::body(test_case);
  if (body.expect.accept) return {};
  std::vector<Rule> broken{*body.expect.rule};
  broken.insert(broken.end(), body.also_breaks.begin(), body.also_breaks.end());
  return broken;
}

IsolationResult check_isolation(const Case& test_case, std::span<const std::uint8_t> block) {
  auto& body = kiln_v2::body(test_case);
  IsolationResult result;
  const std::vector<Rule> broken = broken_rules(test_case);
  if (broken.empty()) return result;
  const Isolation isolation = isolate(block, broken);
  report_extra(isolation, broken, "", result.problems);

  std::optional<std::vector<std::uint8_t>> whole;
  if (isolation.stop && listed(broken, isolation.stop->rule)) {
    const UnwaivableCheck* check = find_unwaivable(isolation.stop->rule);
    if (!check) {
      // A listed rule is waived, yet reported: the reference does not honour a waiver.
      result.problems.push_back("isolation: with " + rule_list(broken) +
                                " waived the reference still reports " +
                                isolation.stop->describe() + ", which is not an unwaivable check");
      return result;
    }
    result.exempt = check->rule;
    // Cut bytes restored, a truncation case is checked whole after all.
    if (check->rule == Rule::kFrameTruncated) whole = untruncated_block(test_case);
    if (whole) {
      report_extra(isolate(*whole, broken), broken, " with its truncate faults left out",
                   result.problems);
      result.restored = true;
    }
  }

  // Each listed rule must be broken: with the other listed rules waived, the
  // reference reports it, in the block or, where the read stops at the cut
  // first, in the block with its truncate faults left out. With one rule listed
  // that is the strict read, which check_case compares with expect already.
  for (Rule rule : broken) {
    if (broken.size() < 2) break;
    RuleSet others;
    for (Rule other : broken)
      if (other != rule) others.add(other);
    auto decoded = decode(block, DecodeOptions{others});
    const bool cut_first = !decoded && decoded.error().rule == Rule::kFrameTruncated;
    if (whole && cut_first && rule != Rule::kFrameTruncated)
      decoded = decode(*whole, DecodeOptions{others});
    // A check-order case whose faults make a listed bound (an unwaivable check)
    // run past: the other listed rules sit in its description, so they are
    // checked in the description's own block, faults left out.
    if (!decoded && decoded.error().rule != rule && listed(broken, decoded.error().rule) &&
        find_unwaivable(decoded.error().rule) && !body.faults.empty()) {
      Case described = test_case;
      kiln_v2::body(described).faults.clear();
      auto made = materialize(described);
      if (made && made.value().block) {
        auto again = decode(*made.value().block, DecodeOptions{others});
        if (!again && again.error().rule == rule) continue;
      }
    }
    const std::string what = (rule == *body.expect.rule ? "isolation: expect.rule is "
                                                             : "isolation: also_breaks lists ") +
                             std::string(rule_info(rule).id);
    if (decoded) {
      result.problems.push_back(what + ", but the case does not break it: with the other listed "
                                       "rules waived the reference accepts the block");
    } else if (decoded.error().rule == rule) {
      continue;
    } else if (listed(broken, decoded.error().rule)) {
      result.problems.push_back(what + ", which cannot be checked: with the other listed rules "
                                       "waived the reference stops first at " +
                                decoded.error().describe());
    } else if (isolation.extra.empty()) {
      // An unlisted rule the isolation read did not meet: name it here.
      result.problems.push_back(what + ", but with the other listed rules waived the reference "
                                       "reports " + decoded.error().describe());
    }
  }
  return result;
}

void report_isolation_coverage(const CaseSet& set, std::ostream& out) {
  // How much of the suite isolation checks whole, and which cases it checks only
  // in part and why (cases/README.md, "Isolation"), so that a run shows it.
  std::size_t whole = 0, restored = 0;
  std::vector<std::vector<std::string>> exempt(unwaivable_checks().size());
  for (const Case& c : set.cases) {
    const KilnCase* body = c.body_as<KilnCase>();  // the set holds other profiles' cases too
    if (!body || body->expect.accept || !body->block) continue;
    const IsolationResult isolation = check_isolation(c, *body->block);
    if (!isolation.exempt) ++whole;
    else if (isolation.restored) ++restored;
    else
      for (std::size_t k = 0; k < exempt.size(); ++k)
        if (unwaivable_checks()[k].rule == *isolation.exempt) exempt[k].push_back(c.id);
  }
  out << "isolation: " << whole << " reject case(s) checked whole, " << restored
      << " whole once their truncate faults are left out, and only up to an unwaivable check:";
  for (std::size_t k = 0; k < exempt.size(); ++k)
    out << (k ? ", " : " ") << exempt[k].size() << " at "
        << rule_info(unwaivable_checks()[k].rule).id;
  out << "\n";
  for (std::size_t k = 0; k < exempt.size(); ++k) {
    if (exempt[k].empty()) continue;
    const UnwaivableCheck& check = unwaivable_checks()[k];
    out << "  at " << rule_info(check.rule).id << ", " << check.part << " (" << check.reason
        << "):";
    for (std::size_t i = 0; i < exempt[k].size(); ++i) out << (i ? ", " : " ") << exempt[k][i];
    out << "\n";
  }
}

}  // namespace kiln::conformance
