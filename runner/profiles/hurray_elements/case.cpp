// The hurray-elements case body's answers to what every profile's body answers.
#include "kiln/conformance/hurray_elements/case.hpp"

#include <utility>

#include "kiln/protocol.hpp"

namespace kiln::conformance {

std::vector<Operation> ElementsCase::derived_ops() const {
  std::vector<Operation> ops;
  if (data) ops.push_back(Operation::kDecode);
  if (elements && decode_mode() != hurray::Mode::kPermissive) ops.push_back(Operation::kEncode);
  return ops;
}

std::vector<std::string_view> ElementsCase::rule_ids() const {
  std::vector<std::string_view> ids;
  for (hurray::Rule r : rules) ids.push_back(hurray::rule_info(r).id);
  return ids;
}

std::optional<std::string_view> ElementsCase::expected_rule_id() const {
  if (!rule) return std::nullopt;
  return hurray::rule_info(*rule).id;
}

namespace hurray_elements {

ElementsCase& set_body(Case& c, ElementsCase body) { return c.set_body(protocol::kProfileHurrayElements, std::move(body)); }

const ElementsCase& body(const Case& c) { return body_of<ElementsCase>(c, protocol::kProfileHurrayElements); }

ElementsCase& body(Case& c) { return body_of<ElementsCase>(c, protocol::kProfileHurrayElements); }

}  // namespace hurray_elements

}  // namespace kiln::conformance
