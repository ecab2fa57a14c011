// One generator per rule ID: each makes a block that is valid except for one
// defect, placed so that the defect is the FIRST one in the decoder's check
// order (reference/src/decode.cpp), so the decoder must report exactly that rule.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "kiln/kiln.hpp"

namespace kiln::properties {

struct BrokenBlock {
  Rule rule = Rule::kFrameTruncated;  // the rule the generator breaks
  std::string how;                    // the defect, in words, for counterexamples
  BlockDescription description;       // the content written before any byte edit
  std::vector<std::uint8_t> bytes;    // the block to decode (empty when encoder_only)
  bool byte_edits = false;            // bytes differ from build(description)
  bool encoder_only = false;          // no block exists: encode(description) must refuse
};

void showValue(const BrokenBlock& broken, std::ostream& os);

// The content under a FRAME defect: valid, or itself holding a TYPE defect (the
// frame must still win).
enum class Base { kValid, kWithTypeDefect };

struct RuleBreaker {
  Rule rule;
  rc::Gen<BrokenBlock> (*make)(Base base);  // TYPE breakers ignore base
};

std::span<const RuleBreaker> rule_breakers();
const RuleBreaker* find_breaker(Rule rule);

// A tensor named name that breaks the TYPE rule and nothing earlier in the
// per-tensor order. rule must be a TYPE rule.
rc::Gen<TensorDescription> type_broken_tensor(Rule rule, std::string name);

// A block of at least min_tensors tensors, valid or with one TYPE defect.
rc::Gen<BlockDescription> base_block(Base base, std::size_t min_tensors);

}  // namespace kiln::properties
