// How the case loader and each profile's case body (profiles/<profile>/case_body.cpp)
// read a case file's YAML: as a YAML 1.2 reader types its scalars, strictly, with
// one error exit that names the offending node. Public, so that a profile
// registered from outside the runner (profile_registry.hpp) reads its case
// bodies with the same strictness as the built-in ones.
#pragma once

#include <yaml-cpp/mark.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/conformance/case.hpp"
#include "kiln/conformance/yaml_document.hpp"

namespace kiln::conformance::yaml_reading {

// Thrown by the readers, caught in load_case_text: a YAML tree walk reads far
// more clearly with one error exit.
struct Invalid {
  YAML::Mark mark;
  std::string message;
  // When set, the error is about one character of this scalar: the catch turns
  // the character's index into its own line:column.
  std::optional<yaml::Node> scalar;
  std::size_t character = 0;
};

[[noreturn]] void invalid(const YAML::Mark& mark, std::string message);
[[noreturn]] void invalid(const yaml::Node& node, std::string message);
[[noreturn]] void invalid_at(const yaml::Node& scalar_node, std::size_t character,
                             std::string message);

// Where an Invalid points, 1-based: its node's mark, or the exact character of
// its scalar in source when the file spells that scalar one for one.
std::pair<int, int> position_of(const YAML::Mark& mark);
std::optional<std::pair<int, int>> character_position(const std::string& source,
                                                      const yaml::Node& node,
                                                      std::size_t index);

// ---- YAML 1.2 core schema types of scalars ----

enum class Kind { kNull, kBool, kInteger, kFloat, kString, kSequence, kMapping };

bool all_of_chars(std::string_view text, bool (*accept)(char));
bool is_decimal(char c);
bool is_hex(char c);  // either case

Kind kind_of(const yaml::Node& node);
std::string kind_name(Kind kind);  // "an integer", for messages

// The node as the JSON document a YAML 1.2 reader makes of it, for the schema.
nlohmann::json json_of(const yaml::Node& node);

// ---- scalars and nodes ----

void require_map(const yaml::Node& node, const std::string& what);
void check_keys(const yaml::Node& map, const std::set<std::string>& allowed,
                const std::string& what);
const yaml::Node required(const yaml::Node& map, const std::string& key, const std::string& what);
std::string scalar(const yaml::Node& node, const std::string& what);
std::string string_scalar(const yaml::Node& node, const std::string& what);
std::optional<std::uint64_t> parse_core_unsigned(std::string_view text);
std::uint64_t unsigned_scalar(const yaml::Node& node, const std::string& what,
                              std::uint64_t maximum);

// How hex may be written: the schema's patterns, lower case in pairs.
enum class HexForm {
  kPacked,          // ^([0-9a-f]{2})*$
  kPackedNonEmpty,  // ^([0-9a-f]{2})+$
  kLines,           // ^([0-9a-f]{2}|\n)*$: the block, 32 bytes a line
};
std::vector<std::uint8_t> hex_scalar(const yaml::Node& node, const std::string& what, HexForm form);

std::vector<std::uint64_t> shape_node(const yaml::Node& node);

// ---- the members every profile's case shares (case_loader.cpp) ----

// id, summary, source and level, checked against the profile's own id and
// source patterns (id_form and source_form say them in messages).
void common_members(const yaml::Node& root, Case& c, const std::regex& id_pattern,
                    std::string_view id_form, const std::regex& source_pattern,
                    std::string_view source_form);
std::vector<Operation> ops_node(const yaml::Node& node);

}  // namespace kiln::conformance::yaml_reading
