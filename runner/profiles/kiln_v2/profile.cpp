// Profile kiln-v2 (reference/FORMAT.md): a whole block, decoded to its tensors
// or encoded from their description, judged byte for byte.
#include <algorithm>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/block_diff.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/finding_case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/hex.hpp"
#include "kiln/protocol.hpp"
#include "profiles/kiln_v2/case_body.hpp"
#include "profiles/kiln_v2/families.hpp"
#include "profiles/kiln_v2/module.hpp"

namespace kiln::conformance {
namespace {

using protocol::bounded_message;

// Why op cannot be judged on c, or nothing. The loader refuses such cases; this
// keeps the runner from ever dereferencing what is not there if one slips by.
std::optional<std::string> unjudgeable(const Case& c, Operation op) {
  const KilnCase& body = kiln_v2::body(c);
  // decode sends the block; an accepted encode is compared with it. Only a
  // rejected encode (a description no block can exist for) does without.
  if (!body.block && (op == Operation::kDecode || body.expect.accept))
    return "it has no block, which " + std::string(op == Operation::kDecode ? "decode" : "an accepted encode") + " needs";
  if (!body.expect.accept && !body.expect.error_class) return "it expects a reject but names no class";
  return std::nullopt;
}

std::string expectation_text(const Expectation& expect, Operation op) {
  if (!expect.accept)
    return expect.error_class ? "reject " + std::string(to_string(*expect.error_class)) : "reject";
  return op == Operation::kDecode ? "accept" : "block";
}

// The reference's rule for a reject case, when the case names one (informative).
std::string reference_rule(const Expectation& expect) {
  return expect.rule ? " (the reference reports " + std::string(rule_info(*expect.rule).id) + ")"
                     : std::string();
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size() && i < 16; ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() > 16) text += ", ... (rank " + std::to_string(shape.size()) + ")";
  return text + "]";
}

// A name or layout from a decode, quoted and short enough for one line.
std::string quoted_text(const std::string& text) {
  return protocol::printable(protocol::quoted_excerpt(text, 64));
}

// The first way two decoded tensor lists differ, in reading order, naming the
// tensor and the member; empty when equal. A payload difference is also given
// by field and window.
std::string describe_tensor_difference(const BlockDescription& expected,
                                       const BlockDescription& got, CaseResult& result) {
  if (expected.tensors.size() != got.tensors.size())
    return "expected " + std::to_string(expected.tensors.size()) + " tensors, got " +
           std::to_string(got.tensors.size());
  for (std::size_t i = 0; i < expected.tensors.size(); ++i) {
    const auto& want = expected.tensors[i];
    const auto& have = got.tensors[i];
    const std::string which = "tensor " + std::to_string(i) + " " + quoted_text(want.name) + ": ";
    if (want.name != have.name) return which + "name " + quoted_text(have.name) + ", expected " + quoted_text(want.name);
    if (want.dtype != have.dtype)
      return which + "dtype " + std::to_string(have.dtype) + ", expected " + std::to_string(want.dtype);
    if (want.shape != have.shape)
      return which + "shape " + shape_text(have.shape) + ", expected " + shape_text(want.shape);
    if (want.layout != have.layout)
      return which + "layout " + quoted_text(have.layout) + ", expected " + quoted_text(want.layout);
    if (want.block_size != have.block_size)
      return which + "block_size " + std::to_string(have.block_size) + ", expected " +
             std::to_string(want.block_size);
    if (auto difference = compare_bytes(want.payload, have.payload, Naming{Naming::Kind::kPayload, i})) {
      result.first_difference = difference->offset;
      const std::string text = which + "payload differs: " + difference->summary() + " (expected " +
                               std::to_string(want.payload.size()) + " bytes, got " +
                               std::to_string(have.payload.size()) + ")";
      result.difference = std::move(difference);
      return text;
    }
  }
  return {};
}

class KilnProfile final : public Profile {
 public:
  KilnProfile() {
    for (const RuleInfo& info : all_rules())
      rules_.push_back({info.id, kiln::to_string(info.error_class), info.summary});
  }

  std::string_view name() const override { return protocol::kProfileKilnV2; }
  std::string_view document() const override { return "reference/FORMAT.md"; }
  std::span<const ProfileRule> rules() const override { return rules_; }

  std::optional<std::string> unjudgeable(const Case& c, Operation op) const override {
    return conformance::unjudgeable(c, op);
  }
  std::optional<std::string> out_of_scope(const Case&, Operation, const protocol::Hello*) const override {
    return std::nullopt;  // the profile has no optional part
  }
  std::string expectation_text(const Case& c, Operation op, const protocol::Hello*) const override {
    return conformance::expectation_text(kiln_v2::body(c).expect, op);
  }
  protocol::Request request(const Case& c, Operation op) const override {
    const KilnCase& body = kiln_v2::body(c);
    if (op == Operation::kDecode) return protocol::DecodeRequest{c.id, c.profile, *body.block};
    return protocol::EncodeRequest{c.id, c.profile, body.description};
  }
  void judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result,
             const protocol::Hello*) const override;
  std::size_t payload_bytes(const Case& c) const override {
    const KilnCase& body = kiln_v2::body(c);
    return body.block ? body.block->size() : 0;
  }
  std::string scope_note(const protocol::Hello&) const override { return {}; }
  std::vector<std::string> check(const Case& c) const override { return check_kiln_case(c); }
  void check_summary(const CaseSet& set, std::ostream& out) const override {
    report_isolation_coverage(set, out);
  }
  Checked<std::optional<std::vector<std::uint8_t>>> regen_block(const Case& c) const override {
    auto made = materialize(c);
    if (!made) return Failure(std::move(made).error());
    return std::move(made).value().block;
  }
  const FamilyGenerators& family_generators() const override { return kiln_v2_family_generators(); }
  CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) const override {
    return kiln_v2::case_yaml_members(c, ops);
  }
  void read_case_body(const yaml::Node& root, Case& c) const override { kiln_v2::read_case_body(root, c); }
  void check_case_body(const yaml::Node& root, const Case& c) const override {
    kiln_v2::check_block_can_exist(c, root);
  }
  std::string_view export_extension() const override { return ".kiln"; }
  std::string_view case_schema_text() const override { return builtin_case_schema_text(); }
  Exported export_case(const Case& c) const override {
    const KilnCase& body = kiln_v2::body(c);
    Exported exported{protocol::Json::object(), body.block, export_extension()};
    protocol::Json& entry = exported.entry;
    entry["profile"] = c.profile;
    entry["rules"] = protocol::Json::array();
    for (Rule rule : body.rules) entry["rules"].push_back(std::string(rule_info(rule).id));
    entry["expect"] = {{"result", body.expect.accept ? "accept" : "reject"}};
    if (!body.expect.accept) {
      entry["expect"]["class"] = std::string(kiln::to_string(*body.expect.error_class));
      entry["expect"]["rule"] = std::string(rule_info(*body.expect.rule).id);
    }
    entry["tensors"] = protocol::tensors_to_json(body.description);
    return exported;
  }
  bool breaks_alone(const Case& c) const override {
    const KilnCase& body = kiln_v2::body(c);
    if (body.expect.accept || !body.block || !body.also_breaks.empty()) return false;
    const IsolationResult isolation = check_isolation(c, *body.block);
    return isolation.problems.empty() && (!isolation.exempt || isolation.restored);
  }
  std::string identity(const Case& c) const override {
    const KilnCase& body = kiln_v2::body(c);
    std::string text = "accept";
    if (!body.expect.accept)
      text = "reject " + std::string(kiln::to_string(*body.expect.error_class)) + " " +
             std::string(rule_info(*body.expect.rule).id);
    return text + "\n" + (body.block ? to_hex(*body.block) : std::string("-"));
  }

 private:
  std::vector<ProfileRule> rules_;
};

void KilnProfile::judge(const Case& c, Operation op, const protocol::Outcome& outcome, CaseResult& result,
                        const protocol::Hello*) const {
  const KilnCase& body = kiln_v2::body(c);
  if (!body.expect.accept) {
    const auto* reject = std::get_if<protocol::Reject>(&outcome);
    if (!reject) {
      result.status = Status::kFail;
      result.detail = "expected a " + std::string(to_string(*body.expect.error_class)) + " rejection" +
                      reference_rule(body.expect);
      return;
    }
    if (reject->error_class != *body.expect.error_class) {
      result.status = Status::kFail;
      result.detail = "wrong class" + reference_rule(body.expect) +
                      "; adapter said: " + bounded_message(reject->message);
      return;
    }
    result.status = Status::kPass;
    return;
  }
  if (const auto* reject = std::get_if<protocol::Reject>(&outcome)) {
    result.status = Status::kFail;
    result.detail = "a valid " + std::string(op == Operation::kDecode ? "block" : "description") +
                    " was rejected: " + bounded_message(reject->message);
    return;
  }
  if (op == Operation::kDecode) {
    const auto& accepted = std::get<protocol::Accept>(outcome);
    result.detail = describe_tensor_difference(body.description, accepted.description, result);
    result.status = result.detail.empty() ? Status::kPass : Status::kFail;
    return;
  }
  const auto& encoded = std::get<protocol::EncodedBlock>(outcome);
  if (auto difference = compare_bytes(*body.block, encoded.bytes)) {
    result.first_difference = difference->offset;
    result.status = Status::kFail;
    result.detail = "encoded block differs: " + difference->summary() + " (expected " +
                    std::to_string(body.block->size()) + " bytes, got " +
                    std::to_string(encoded.bytes.size()) + ")";
    result.difference = std::move(difference);
    return;
  }
  result.status = Status::kPass;
}

}  // namespace

namespace kiln_v2 {

const Profile& profile() {
  static const KilnProfile profile;
  return profile;
}

}  // namespace kiln_v2

}  // namespace kiln::conformance
