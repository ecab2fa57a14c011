// Assertions shared by the property files: what a decoder or encoder must
// report for a block that breaks one rule.
#pragma once

#include <string>

#include <rapidcheck.h>

#include "breakers.hpp"
#include "kiln/kiln.hpp"

namespace kiln::properties {

// Asserts (RC_ASSERT) that err names the class and the rule of expected.
inline void require_error(const Error& err, const RuleInfo& expected, const char* who) {
  RC_LOG() << who << ": " << err.describe() << "\n";
  RC_ASSERT(std::string(to_string(err.error_class())) ==
            std::string(to_string(expected.error_class)));
  RC_ASSERT(std::string(err.rule_id()) == std::string(expected.id));
}

// The decoder reports the broken rule for the block; when the defect is in the
// content alone (no byte edits), the encoder refuses it with the same rule.
inline void require_reported(const BrokenBlock& broken) {
  const RuleInfo& expected = rule_info(broken.rule);
  if (!broken.encoder_only) {
    const auto decoded = decode(broken.bytes);
    RC_ASSERT(!decoded.ok());
    require_error(decoded.error(), expected, "decoder");
  }
  if (broken.encoder_only || !broken.byte_edits) {
    const auto encoded = encode(broken.description);
    RC_ASSERT(!encoded.ok());
    require_error(encoded.error(), expected, "encoder");
  }
}

}  // namespace kiln::properties
