// Profile parity (profile.hpp): every part of kiln::conformance::Profile, short.
#include "profiles/parity/profile.hpp"

#include <regex>
#include <stdexcept>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/yaml_reading.hpp"
#include "kiln/conformance/run.hpp"
#include "kiln/hex.hpp"

namespace kiln::conformance::parity {

bool even(std::span<const std::uint8_t> bytes) {
  std::uint8_t x = 0;
  for (std::uint8_t byte : bytes) x ^= byte;
  return x == 0;
}

const ParityCase& body(const Case& c) {
  const ParityCase* found = c.body_as<ParityCase>();
  if (!found) throw std::logic_error("case " + c.id + " is not a parity case");
  return *found;
}

namespace {

constexpr ProfileRule kRules[] = {
    {kRule, "FRAME", "the XOR of the bytes is 0"},
};

// Its case files' schema (Profile::case_schema_text()): a folder of parity
// cases needs no case.schema.json of its own.
constexpr std::string_view kCaseSchema = R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["id", "summary", "profile", "rules", "source", "level", "bytes", "expect"],
  "properties": {
    "summary": {"type": "string", "maxLength": 60},
    "profile": {"enum": ["parity"]},
    "rules": {"type": "array", "items": {"enum": ["PARITY-XOR"]}},
    "bytes": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
    "expect": {"enum": ["accept", "reject"]}
  }
})";

std::string outcome_text(bool accept) { return accept ? "accept" : "reject"; }

class ParityProfile final : public Profile {
 public:
  std::string_view name() const override { return kName; }
  std::string_view document() const override { return "runner/tests/profiles/parity/profile.hpp"; }
  std::span<const ProfileRule> rules() const override { return kRules; }

  std::optional<std::string> unjudgeable(const Case& c, Operation op) const override {
    if (!c.body_as<ParityCase>()) return "it has no parity body";
    if (op != Operation::kDecode) return "profile parity has no encode";
    return std::nullopt;
  }
  std::optional<std::string> out_of_scope(const Case&, Operation, const protocol::Hello*) const override {
    return std::nullopt;
  }
  std::string expectation_text(const Case& c, Operation, const protocol::Hello*) const override {
    return body(c).accept ? "accept" : "reject (" + std::string(kRule) + ")";
  }
  // A parity decode is a plain decode request that names the profile: the
  // adapter's decode() gets the bytes.
  protocol::Request request(const Case& c, Operation) const override {
    return protocol::DecodeRequest{c.id, std::string(kName), body(c).bytes};
  }
  // protocol::answers() treats a profile it does not know as Kiln's: a decode
  // is answered by Accept or Reject, and those are what is judged here. Any
  // reject passes a reject case: parity has one rule, so its class says nothing.
  void judge(const Case& c, Operation, const protocol::Outcome& outcome, CaseResult& result,
             const protocol::Hello*) const override {
    const bool accepted = std::holds_alternative<protocol::Accept>(outcome);
    if (accepted == body(c).accept) {
      result.status = Status::kPass;
      return;
    }
    result.status = Status::kFail;
    result.detail = body(c).accept ? "bytes whose XOR is 0 were rejected"
                                   : "bytes whose XOR is not 0 were accepted (" + std::string(kRule) + ")";
  }
  std::size_t payload_bytes(const Case& c) const override { return body(c).bytes.size(); }
  std::string scope_note(const protocol::Hello&) const override { return {}; }

  std::string identity(const Case& c) const override {
    return "parity " + outcome_text(body(c).accept) + " " + to_hex(body(c).bytes);
  }
  Exported export_case(const Case& c) const override {
    Exported exported{protocol::Json::object(), body(c).bytes, export_extension()};
    exported.entry["profile"] = c.profile;
    exported.entry["rules"] = {std::string(kRule)};
    exported.entry["expect"] = {{"result", outcome_text(body(c).accept)}};
    return exported;
  }
  bool breaks_alone(const Case& c) const override { return !body(c).accept; }  // one rule to break
  std::vector<std::string> check(const Case& c) const override {
    std::vector<std::string> problems;
    if (even(body(c).bytes) != body(c).accept)
      problems.push_back("the bytes' XOR says " + outcome_text(even(body(c).bytes)) + ", the case expects " +
                         outcome_text(body(c).accept));
    if (c.ops != c.derived_ops()) problems.push_back("ops is not [decode] (run cases regen)");
    return problems;
  }
  void check_summary(const CaseSet&, std::ostream&) const override {}
  // A case states its bytes: it stores no block for regen to make.
  Checked<std::optional<std::vector<std::uint8_t>>> regen_block(const Case&) const override {
    return std::optional<std::vector<std::uint8_t>>{};
  }
  const FamilyGenerators& family_generators() const override {
    static const FamilyGenerators none{};  // no sweep families
    return none;
  }
  CaseYamlMembers case_yaml_members(const Case& c, std::string_view ops) const override {
    return {"rules: [" + std::string(kRule) + "]\n",
            "bytes: \"" + to_hex(body(c).bytes) + "\"\nexpect: " + outcome_text(body(c).accept) + "\nops: [" +
                std::string(ops) + "]\n"};
  }

  void read_case_body(const yaml::Node& root, Case& c) const override {
    using namespace yaml_reading;
    check_keys(root, {"id", "summary", "rules", "source", "level", "profile", "bytes", "expect", "ops"},
               "the case (profile parity)");
    static const std::regex kId("^parity-[a-z0-9]+(-[a-z0-9]+)*$");
    static const std::regex kSource("^(brief|suite)$");
    common_members(root, c, kId, "parity-[a-z0-9-]", kSource, "'brief' or 'suite'");
    const yaml::Node rules = required(root, "rules", "the case");
    if (!rules.IsSequence() || rules.size() != 1 || string_scalar(rules[0], "rules[0]") != kRule)
      invalid(rules, "rules is [" + std::string(kRule) + "]");
    ParityCase body;
    body.bytes = hex_scalar(required(root, "bytes", "the case"), "bytes", HexForm::kPacked);
    const yaml::Node expect = required(root, "expect", "the case");
    const std::string result = string_scalar(expect, "expect");
    if (result != "accept" && result != "reject") invalid(expect, "expect is accept or reject, not '" + result + "'");
    body.accept = result == "accept";
    if (const yaml::Node ops = root["ops"]) c.ops = ops_node(ops);
    c.set_body(kName, std::move(body));
  }
  // The reference is the rule itself: a case must say what it says.
  void check_case_body(const yaml::Node& root, const Case& c) const override {
    if (even(body(c).bytes) != body(c).accept)
      yaml_reading::invalid(root["expect"], "expect is " + outcome_text(even(body(c).bytes)) +
                                                " for these bytes (" + std::string(kRule) + ")");
  }

  std::string_view export_extension() const override { return ".parity"; }
  std::string_view case_schema_text() const override { return kCaseSchema; }
};

}  // namespace

const Profile& profile() {
  static const ParityProfile profile;
  return profile;
}

}  // namespace kiln::conformance::parity
