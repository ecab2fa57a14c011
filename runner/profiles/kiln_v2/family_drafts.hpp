// Profile kiln-v2's drafts (families.cpp): a generator states a block by its
// tensors and faults, and the profile writes and checks the case file. Shared by
// the generators in families.cpp and utf8_families.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/rules.hpp"

namespace kiln::conformance::kiln_v2_families {

struct Draft {
  std::string suffix;   // the id is kiln-v2-sweep-<family>-<suffix>
  std::string summary;  // ASCII, one line
  std::vector<std::string> tensors;  // one YAML flow mapping each
  std::vector<std::string> faults;   // likewise
  bool accept = true;
  ErrorClass error_class = ErrorClass::kFrame;
  // The rule the family expects the reference to report; nullopt when the family
  // fixes only the class (field-bits: which rule catches a flipped bit first is
  // the reference's check order), and the reference's rule is written.
  std::optional<Rule> rule;
  std::vector<Rule> exercises;  // further rules the case sits on
};

struct TensorSpec {
  std::string name;
  std::string dtype = "u8";
  std::string shape = "[0]";  // YAML flow text
  std::string payload;        // bytes
  std::optional<std::string> layout;
  std::uint64_t block_size = 0;
};

TensorSpec spec(std::string name, std::string dtype = "u8", std::string shape = "[0]",
               std::string payload = "", std::optional<std::string> layout = std::nullopt,
               std::uint64_t block_size = 0);
// One YAML flow mapping, as Draft::tensors holds it.
std::string tensor_text(const TensorSpec& t);
Draft reject(std::string suffix, std::string summary, std::vector<std::string> tensors,
             std::vector<std::string> faults, Rule rule);
Draft accept(std::string suffix, std::string summary, std::vector<std::string> tensors,
             std::vector<Rule> exercises);
// A list of byte values, each as a one-byte string.
std::vector<std::string> bytes_of(const YAML::Node& node, const char* what);

// The generators of utf8_families.cpp: bytes in a tensor name or a layout name.
std::vector<Draft> utf8_byte_positions(families::Params& params, const CaseSchema&);
std::vector<Draft> utf8_pairs(families::Params& params, const CaseSchema&);
std::vector<Draft> utf8_continuations(families::Params& params, const CaseSchema&);
std::vector<Draft> utf8_sequences(families::Params& params, const CaseSchema&);

}  // namespace kiln::conformance::kiln_v2_families
