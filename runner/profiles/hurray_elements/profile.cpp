// Profile hurray-elements (reference/HURRAY.md): one tensor's element layer,
// judged against the case and the Tier 2 types the adapter's hello claims.
#include <algorithm>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/finding_case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/hex.hpp"
#include "profiles/hurray_elements/case_body.hpp"
#include "profiles/hurray_elements/families.hpp"
#include "profiles/hurray_elements/module.hpp"

namespace kiln::conformance {
namespace elements {

using Result = ElementsCase::Result;

bool tier2_unsupported(const ElementsCase& c, const hurray::TagSet& tier2) {
  return c.type && c.type->tier == hurray::Tier::k2 && !tier2.contains(c.tag);
}

Expected expected_decode(const ElementsCase& c, const hurray::TagSet& tier2) {
  if (tier2_unsupported(c, tier2)) {
    // HURRAY.md 2: handled exactly as a tag the reader does not recognize.
    if (c.decode_mode() == hurray::Mode::kPermissive) return {Result::kOpaque, hurray::ErrorClass::kTag, {}};
    return {Result::kReject, hurray::ErrorClass::kTag, hurray::Rule::kTagUnrecognized};
  }
  // Opaque: a TAG reject is the one reject that also conforms.
  if (c.result == Result::kOpaque) return {Result::kOpaque, hurray::ErrorClass::kTag, {}};
  return {c.result, c.error_class, c.rule};
}

std::vector<hurray::Element> element_values(const ElementsCase& c) {
  std::vector<hurray::Element> values;
  if (!c.elements) return values;
  values.reserve(c.elements->size());
  for (const auto& text : *c.elements) values.push_back(hurray::element_from_hex(text).value_or(hurray::Element{}));
  return values;
}

}  // namespace elements

namespace {

using Result = ElementsCase::Result;

std::string class_text(hurray::ErrorClass error_class) { return std::string(hurray::to_string(error_class)); }

std::string expected_text(const elements::Expected& expected, Operation op) {
  switch (expected.result) {
    case Result::kAccept: return op == Operation::kDecode ? "accept (elements)" : "data";
    case Result::kOpaque: return "opaque, or reject TAG";
    case Result::kReject: return "reject " + class_text(*expected.error_class);
  }
  return "?";
}

hurray::TagSet tier2_of(const protocol::Hello* hello) {
  // No usable hello: every op is tried, and every Tier 2 type is held to the case.
  return hello ? protocol::tier2_set(*hello) : hurray::TagSet::all_tier2();
}

std::string reference_rule(const elements::Expected& expected) {
  return expected.rule ? " (the reference reports " + std::string(hurray::rule_info(*expected.rule).id) + ")"
                       : std::string();
}

// Encode has no mode and no Tier 2 transform: the case's own expectation.
elements::Expected expected_encode(const ElementsCase& body) { return {body.result, body.error_class, body.rule}; }

std::string case_outcome(const ElementsCase& body);
std::vector<std::string> isolation_problems(const Case& c);

class ElementsProfile final : public Profile {
 public:
  ElementsProfile() {
    for (const hurray::RuleInfo& info : hurray::all_rules())
      rules_.push_back({info.id, hurray::to_string(info.error_class), info.summary});
  }

  std::string_view name() const override { return protocol::kProfileHurrayElements; }
  std::string_view document() const override { return "reference/HURRAY.md"; }
  std::span<const ProfileRule> rules() const override { return rules_; }

  std::optional<std::string> unjudgeable(const Case& c, Operation op) const override {
    const ElementsCase* found = c.body_as<ElementsCase>();
    if (!found) return "it has no hurray-elements body";
    const ElementsCase& body = *found;
    if (op == Operation::kDecode && !body.data) return "it has no data, which decode needs";
    if (op == Operation::kEncode && !body.elements) return "it has no elements, which encode needs";
    if (body.result == Result::kAccept && (!body.data || !body.elements))
      return "an accept case needs both data and elements";
    if (body.result == Result::kReject && !body.error_class) return "it expects a reject but names no class";
    return std::nullopt;
  }

  std::optional<std::string> out_of_scope(const Case& c, Operation op,
                                          const protocol::Hello* hello) const override {
    const ElementsCase* body = c.body_as<ElementsCase>();
    if (!body || op != Operation::kEncode || !hello) return std::nullopt;
    if (!elements::tier2_unsupported(*body, protocol::tier2_set(*hello))) return std::nullopt;
    return "Tier 2 type " + std::string(body->type->name) +
           " is not in the adapter's hurray_tier2: its encode is not sent (HURRAY.md 2)";
  }

  std::string expectation_text(const Case& c, Operation op, const protocol::Hello* hello) const override {
    const ElementsCase& body = hurray_elements::body(c);
    if (op == Operation::kEncode) return expected_text(expected_encode(body), op);
    return expected_text(elements::expected_decode(body, tier2_of(hello)), op);
  }

  protocol::Request request(const Case& c, Operation op) const override {
    const ElementsCase& body = hurray_elements::body(c);
    if (op == Operation::kDecode)
      return protocol::ElementsDecodeRequest{c.id, body.tag, body.shape, body.decode_mode(), *body.data};
    return protocol::ElementsEncodeRequest{c.id, body.tag, body.shape, *body.elements};
  }

  void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result,
             const protocol::Hello* hello) const override {
    const ElementsCase& body = hurray_elements::body(c);
    const elements::Expected expected =
        op == Operation::kDecode ? elements::expected_decode(body, tier2_of(hello)) : expected_encode(body);
    const auto* reject = std::get_if<protocol::ElementsReject>(&outcome);
    const auto fail = [&](std::string why) {
      result.status = Status::kFail;
      result.detail = std::move(why);
    };
    if (expected.result == Result::kReject || expected.result == Result::kOpaque) {
      const bool opaque_allowed = expected.result == Result::kOpaque;
      if (opaque_allowed && std::holds_alternative<protocol::OpaqueAccept>(outcome)) {
        result.status = Status::kPass;
        return;
      }
      if (!reject)
        return fail(std::string(opaque_allowed ? "expected opaque or a TAG rejection"
                                               : "expected a " + class_text(*expected.error_class) + " rejection") +
                    reference_rule(expected));
      if (reject->error_class != *expected.error_class)
        return fail("wrong class" + reference_rule(expected) + "; adapter said: " +
                    protocol::bounded_message(reject->message));
      result.status = Status::kPass;
      return;
    }
    if (reject)
      return fail("valid " + std::string(op == Operation::kDecode ? "data" : "elements") +
                  " were rejected: " + protocol::bounded_message(reject->message));
    if (std::holds_alternative<protocol::OpaqueAccept>(outcome))
      return fail("a recognized type's data was accepted as opaque: its elements were not read");
    if (op == Operation::kDecode) {
      const auto& accepted = std::get<protocol::ElementsAccept>(outcome).elements;
      const auto want = elements::element_values(body);
      const unsigned bits = body.type ? body.type->bits : 128;
      if (accepted.size() != want.size())
        return fail("expected " + std::to_string(want.size()) + " elements, got " + std::to_string(accepted.size()));
      for (std::size_t i = 0; i < want.size(); ++i)
        if (!(accepted[i] == want[i])) {
          result.first_difference = i;
          return fail("element " + std::to_string(i) + " is " + hurray::element_to_hex(accepted[i], bits) + ", expected " +
                      hurray::element_to_hex(want[i], bits));
        }
      result.status = Status::kPass;
      return;
    }
    const auto& bytes = std::get<protocol::ElementData>(outcome).bytes;
    if (auto difference = compare_bytes(*body.data, bytes, Naming{Naming::Kind::kData, 0})) {
      result.first_difference = difference->offset;
      fail("encoded data differs: " + difference->summary() + " (expected " + std::to_string(body.data->size()) +
           " bytes, got " + std::to_string(bytes.size()) + ")");
      result.difference = std::move(difference);
      return;
    }
    result.status = Status::kPass;
  }

  std::size_t payload_bytes(const Case& c) const override {
    const ElementsCase& body = hurray_elements::body(c);
    // An accepted decode comes back as elements: up to 32 hex digits and quotes each.
    const std::size_t listed = body.elements ? body.elements->size() * 20 : 0;
    return std::max(body.data ? body.data->size() : 0, listed);
  }

  std::string scope_note(const protocol::Hello& hello) const override {
    std::string names;
    for (const hurray::TypeInfo& type : hurray::kTypes)
      if (type.tier == hurray::Tier::k2 && hello.supports_tier2(type.name))
        names += (names.empty() ? "" : ", ") + std::string(type.name);
    return "Tier 2: " + (names.empty() ? std::string("none") : names);
  }

  std::vector<std::string> check(const Case& c) const override;
  void check_summary(const CaseSet&, std::ostream&) const override {}
  // A case states its own data and has no block: only its ops are regen's.
  Checked<std::optional<std::vector<std::uint8_t>>> regen_block(const Case&) const override {
    return std::nullopt;
  }
  const FamilyGenerators& family_generators() const override { return hurray_elements_family_generators(); }
  CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) const override {
    return hurray_elements::case_yaml_members(c, ops);
  }
  void read_case_body(const yaml::Node& root, Case& c) const override {
    hurray_elements::read_case_body(root, c);
  }
  // Nothing waits for the schema: read_case_body checks every form of cases/README.md.
  void check_case_body(const yaml::Node&, const Case&) const override {}

  std::string_view export_extension() const override { return ".data"; }
  std::string_view case_schema_text() const override { return builtin_case_schema_text(); }
  Exported export_case(const Case& c) const override {
    const ElementsCase& body = hurray_elements::body(c);
    Exported exported{protocol::Json::object(), body.data, export_extension()};
    protocol::Json& entry = exported.entry;
    entry["profile"] = c.profile;
    entry["rules"] = protocol::Json::array();
    for (hurray::Rule rule : body.rules) entry["rules"].push_back(std::string(hurray::rule_info(rule).id));
    switch (body.result) {
      case Result::kAccept: entry["expect"] = {{"result", "accept"}}; break;
      case Result::kOpaque: entry["expect"] = {{"result", "opaque"}}; break;
      case Result::kReject:
        entry["expect"] = {{"result", "reject"},
                           {"class", class_text(*body.error_class)},
                           {"rule", std::string(hurray::rule_info(*body.rule).id)}};
        break;
    }
    // The tag always, the name too when it has one: a reader without the table needs the tag.
    entry["tag"] = body.tag;
    entry["type"] = body.type ? protocol::Json(std::string(body.type->name)) : protocol::Json(nullptr);
    entry["shape"] = body.shape;
    entry["mode"] = std::string(hurray::to_string(body.decode_mode()));
    entry["elements"] = body.elements ? protocol::Json(*body.elements) : protocol::Json(nullptr);
    return exported;
  }

  bool breaks_alone(const Case& c) const override {
    const ElementsCase& body = hurray_elements::body(c);
    return body.result == Result::kReject && body.also_breaks.empty() && isolation_problems(c).empty();
  }

  std::string identity(const Case& c) const override {
    const ElementsCase& body = hurray_elements::body(c);
    std::string text = "hurray-elements tag " + std::to_string(body.tag) + " shape";
    for (std::uint64_t dimension : body.shape) text += " " + std::to_string(dimension);
    text += " mode " + std::string(hurray::to_string(body.decode_mode())) + " " + case_outcome(body) + "\n";
    text += body.data ? to_hex(*body.data) : std::string("-");
    if (body.elements)
      for (const auto& element : *body.elements) text += " " + element;
    return text;
  }

 private:
  std::vector<ProfileRule> rules_;
};

std::string reference_outcome(const hurray::Result<hurray::Decoded>& decoded) {
  if (!decoded) return "reject " + class_text(decoded.error().error_class()) + " " + std::string(decoded.error().rule_id());
  return decoded.value().opaque ? "opaque" : "accept";
}

std::string case_outcome(const ElementsCase& body) {
  switch (body.result) {
    case Result::kAccept: return "accept";
    case Result::kOpaque: return "opaque";
    case Result::kReject:
      return "reject " + class_text(*body.error_class) + " " + std::string(hurray::rule_info(*body.rule).id);
  }
  return "?";
}

std::string ops_list(const std::vector<Operation>& ops) {
  std::string text = "[";
  for (std::size_t i = 0; i < ops.size(); ++i) text += (i ? ", " : "") + std::string(to_string(ops[i]));
  return text + "]";
}

// The rules the case's input breaks, by the reference's broken_rules, against
// what the case lists: a reject case breaks exactly expect.rule and also_breaks
// (cases/README.md, "Isolation"); any other case breaks none.
std::vector<std::string> isolation_problems(const Case& c) {
  const ElementsCase& body = hurray_elements::body(c);
  std::vector<std::string> problems;
  std::vector<hurray::Rule> listed;
  if (body.result == Result::kReject) {
    listed.reserve(1 + body.also_breaks.size());
    listed.push_back(*body.rule);
    for (hurray::Rule rule : body.also_breaks) listed.push_back(rule);
  }
  const auto judge_against = [&](std::vector<hurray::Rule> broken, std::string_view op) {
    for (hurray::Rule rule : broken)
      if (std::find(listed.begin(), listed.end(), rule) == listed.end())
        problems.push_back(std::string(op) + " also breaks " + std::string(hurray::rule_info(rule).id) +
                           ", which the case does not list (list it in also_breaks, or break only the case's rule)");
    for (hurray::Rule rule : listed)
      if (std::find(broken.begin(), broken.end(), rule) == broken.end())
        problems.push_back(std::string(op) + " does not break " + std::string(hurray::rule_info(rule).id) +
                           ", which the case lists");
  };
  if (body.data) judge_against(hurray::broken_rules(body.tag, body.shape, body.decode_mode(), *body.data), "decode");
  if (body.elements && body.decode_mode() != hurray::Mode::kPermissive)
    judge_against(hurray::encode_broken_rules(body.tag, body.shape, elements::element_values(body)), "encode");
  return problems;
}

std::vector<std::string> ElementsProfile::check(const Case& c) const {
  std::vector<std::string> problems = isolation_problems(c);
  const ElementsCase& body = hurray_elements::body(c);
  if (c.ops != c.derived_ops())
    problems.push_back("ops is " + ops_list(c.ops) + ", derived " + ops_list(c.derived_ops()) + " (run cases regen)");
  if (body.data) {
    // The reference supports every Tier 2 type: the case's own expectation.
    const auto decoded = hurray::decode(body.tag, body.shape, body.decode_mode(), *body.data);
    if (reference_outcome(decoded) != case_outcome(body))
      problems.push_back("the reference decodes to " + reference_outcome(decoded) + ", the case expects " +
                         case_outcome(body));
    else if (decoded && !decoded.value().opaque) {
      const auto want = elements::element_values(body);
      const hurray::Decoded& tensor = decoded.value();
      if (tensor.count != want.size())
        problems.push_back("the reference decodes " + std::to_string(tensor.count) + " elements, the case lists " +
                           std::to_string(want.size()));
      for (std::uint64_t i = 0; i < tensor.count && i < want.size(); ++i) {
        const hurray::Element got = tensor.element(i);
        const std::string canonical = hurray::element_to_hex(got, tensor.type->bits);
        if (!(got == want[i]) || (*body.elements)[i] != canonical) {
          problems.push_back("element " + std::to_string(i) + " decodes to " + canonical + ", the case lists " +
                             (*body.elements)[i]);
          break;
        }
      }
      if (tensor.extra_bytes != 0)
        problems.push_back("data holds " + std::to_string(tensor.extra_bytes) +
                           " bytes past S: the suite sends exactly S (HURRAY.md 6.2)");
    }
  }
  if (body.elements && body.decode_mode() != hurray::Mode::kPermissive) {
    const auto encoded = hurray::encode(body.tag, body.shape, elements::element_values(body));
    if (body.result == Result::kAccept) {
      if (!encoded)
        problems.push_back("the reference refuses to encode the elements: " + encoded.error().describe());
      else if (body.data && encoded.value() != *body.data)
        problems.push_back("the reference encodes the elements to " + to_hex(encoded.value()) + ", the case has data " +
                           to_hex(*body.data));
    } else if (body.result == Result::kReject) {
      const std::string got = encoded ? std::string("data")
                                      : "reject " + class_text(encoded.error().error_class()) + " " +
                                            std::string(encoded.error().rule_id());
      if (got != case_outcome(body))
        problems.push_back("the reference encodes to " + got + ", the case expects " + case_outcome(body));
    }
  }
  return problems;
}

}  // namespace

namespace hurray_elements {

const Profile& profile() {
  static const ElementsProfile profile;
  return profile;
}

}  // namespace hurray_elements

}  // namespace kiln::conformance
