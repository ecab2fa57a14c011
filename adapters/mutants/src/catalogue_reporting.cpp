// Wrong reporting: the right block rejected, with the wrong class, or the wrong
// defect of two reported.
#include <utility>

#include "catalogue_parts.hpp"

namespace kiln::mutants::parts {
namespace {

Mutant reported_as(std::string_view name, std::string_view description, Rule rule,
                   ErrorClass reported) {
  Mutant mutant = make(name, kFamilyReporting, description);
  mutant.alter_reject = [rule, reported](Reject& reject, ByteSpan) {
    if (reject.rule == rule_info(rule).id) reject.error_class = reported;
  };
  return mutant;
}

}  // namespace

std::vector<Mutant> reporting_mutants() {
  std::vector<Mutant> family;
  family.push_back(reported_as("byte-length-reported-as-frame",
                               "TYPE-BYTE-LENGTH is reported as FRAME (\"a length is framing\")",
                               Rule::kTypeByteLength, ErrorClass::kFrame));
  family.push_back(
      reported_as("opaque-layout-utf8-reported-as-frame",
                  "TYPE-OPAQUE-LAYOUT-UTF8 is reported as FRAME (one UTF-8 error for all names)",
                  Rule::kTypeOpaqueLayoutUtf8, ErrorClass::kFrame));
  family.push_back(
      reported_as("payload-length-reported-as-type",
                  "FRAME-PAYLOAD-LENGTH is reported as TYPE (\"the payload is the tensor's\")",
                  Rule::kFramePayloadLength, ErrorClass::kType));
  family.push_back(reported_as("name-utf8-reported-as-type",
                               "FRAME-NAME-UTF8 is reported as TYPE (\"names are content\")",
                               Rule::kFrameNameUtf8, ErrorClass::kType));
  {
    Mutant m = make("types-before-frame", kFamilyReporting,
                    "tensors are type-checked before the frame is finished: TYPE wins over FRAME");
    m.alter_reject = [](Reject& reject, ByteSpan input) {
      if (reject.error_class != ErrorClass::kFrame) return;
      RuleSet every_frame_rule;
      for (const RuleInfo& info : all_rules())
        if (info.error_class == ErrorClass::kFrame) every_frame_rule.add(info.rule);
      auto lenient = kiln::decode(input, DecodeOptions{every_frame_rule});
      if (!lenient && lenient.error().error_class() == ErrorClass::kType)
        reject = protocol::reject_from(lenient.error());
    };
    family.push_back(std::move(m));
  }
  return family;
}

}  // namespace kiln::mutants::parts
