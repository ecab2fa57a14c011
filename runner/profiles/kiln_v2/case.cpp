// The kiln-v2 case body's answers to what every profile's body answers.
#include "kiln/conformance/kiln_v2/case.hpp"

#include <utility>

#include "kiln/protocol.hpp"

namespace kiln::conformance {

std::vector<Operation> KilnCase::derived_ops() const {
  std::vector<Operation> ops;
  // A case with faults has bytes no description encodes to: a decode test only,
  // even before regen has written its block.
  if (block || !faults.empty()) ops.push_back(Operation::kDecode);
  if (faults.empty()) ops.push_back(Operation::kEncode);
  return ops;
}

std::vector<std::string_view> KilnCase::rule_ids() const {
  std::vector<std::string_view> ids;
  for (Rule rule : rules) ids.push_back(rule_info(rule).id);
  return ids;
}

std::optional<std::string_view> KilnCase::expected_rule_id() const {
  if (!expect.rule) return std::nullopt;
  return rule_info(*expect.rule).id;
}

namespace kiln_v2 {

KilnCase& set_body(Case& c, KilnCase body) { return c.set_body(protocol::kProfileKilnV2, std::move(body)); }

const KilnCase& body(const Case& c) { return body_of<KilnCase>(c, protocol::kProfileKilnV2); }

KilnCase& body(Case& c) { return body_of<KilnCase>(c, protocol::kProfileKilnV2); }

}  // namespace kiln_v2

}  // namespace kiln::conformance
