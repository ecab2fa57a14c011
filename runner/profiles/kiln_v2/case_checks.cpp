// Profile kiln-v2's `cases check` of one case (Profile::check): its stored
// block and ops against the regenerated ones, and the reference's decode and
// encode against its expectation.
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cases/case_tools_internal.hpp"
#include "kiln/conformance/block_diff.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/decode.hpp"
#include "kiln/encode.hpp"
#include "kiln/first_difference.hpp"

namespace kiln::conformance {
namespace {

std::string describe_outcome(const Error& error) { return error.describe(); }

std::string expected_text(const Expectation& expect) {
  if (expect.accept) return "accept";
  return "reject " + std::string(to_string(*expect.error_class)) + " " +
         std::string(rule_info(*expect.rule).id);
}

// Compares a reference error with a reject expectation; empty when they agree.
std::optional<std::string> compare_reject(const Expectation& expect, const Error& error) {
  if (expect.accept) return "expected accept, the reference reports " + describe_outcome(error);
  if (error.rule != *expect.rule)
    return "expected " + expected_text(expect) + ", the reference reports " + describe_outcome(error);
  return std::nullopt;
}

}  // namespace

std::vector<std::string> check_kiln_case(const Case& test_case) {
  const KilnCase& body = kiln_v2::body(test_case);
  std::vector<std::string> problems;
  auto made = materialize(test_case);
  if (!made) {
    problems.push_back(made.error());
    return problems;
  }
  const Materialized& materialized = made.value();

  // A file regen has not written yet (no ops) gets its block from the loader,
  // so that every tool can use it; the file itself still stores none.
  const bool stored = body.block && !test_case.ops.empty();
  if (materialized.block && !stored) {
    problems.push_back("has no block; run `kiln-conformance cases regen`");
  } else if (!materialized.block && body.block) {
    problems.push_back("has a block, but its description cannot be placed: " +
                       materialized.placement_error->describe());
  } else if (materialized.block && *materialized.block != *body.block) {
    // Named by field, the regenerated block being the one whose layout is right.
    const auto difference = compare_bytes(*materialized.block, *body.block);
    std::ostringstream message;
    message << "stored block differs from the regenerated one at "
            << (difference ? difference->summary()
                           : "byte " + std::to_string(first_difference(*materialized.block,
                                                                        *body.block)))
            << " (regenerated first, stored second; stored " << body.block->size()
            << " bytes, regenerated " << materialized.block->size() << ")";
    problems.push_back(message.str());
  }
  Case regenerated = test_case;
  kiln_v2::body(regenerated).block = materialized.block;
  if (test_case.ops != regenerated.derived_ops())
    problems.push_back("ops is " + ops_text(test_case.ops) + ", derived is " +
                       ops_text(regenerated.derived_ops()) + "; run `kiln-conformance cases regen`");

  // The reference must give exactly the expected outcome, rule included.
  if (materialized.block) {
    auto decoded = decode(*materialized.block);
    if (decoded) {
      if (!body.expect.accept)
        problems.push_back("expected " + expected_text(body.expect) +
                           ", the reference accepts the block");
      else if (decoded.value().to_description() != body.description)
        problems.push_back("the reference accepts the block but decodes other tensors than the "
                           "description");
    } else if (auto mismatch = compare_reject(body.expect, decoded.error())) {
      problems.push_back("decode: " + *mismatch);
    }
  }
  // A reject case breaks its listed rules and nothing else; only when the
  // reference reports its rule, so that one defect gives one message.
  if (materialized.block && !body.expect.accept) {
    auto decoded = decode(*materialized.block);
    if (!decoded && decoded.error().rule == *body.expect.rule)
      for (auto& problem : check_isolation(test_case, *materialized.block).problems)
        problems.push_back(std::move(problem));
  }
  if (body.faults.empty()) {
    auto encoded = encode(body.description);
    if (encoded) {
      if (!body.expect.accept)
        problems.push_back("expected " + expected_text(body.expect) +
                           ", the reference encoder accepts the description");
      else if (!materialized.block || encoded.value() != *materialized.block)
        problems.push_back("the reference encoder writes other bytes than the block");
    } else if (auto mismatch = compare_reject(body.expect, encoded.error())) {
      problems.push_back("encode: " + *mismatch);
    }
  }
  return problems;
}

}  // namespace kiln::conformance
