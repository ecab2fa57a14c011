// The one writer of a case file's text (fuzz_case.hpp's case_yaml): the
// members every case has, in cases/README.md's order, around its profile's.
#include "cases/case_writer.hpp"

#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

Case finding_base_case(const std::string& id, const std::string& summary) {
  Case c;
  c.id = id;
  c.summary = summary;
  c.source = "suite";
  return c;
}

std::string case_yaml(const Case& c, const std::vector<std::string>& comments) {
  std::string out;
  for (const auto& comment : comments) out += "# " + protocol::printable(comment) + "\n";
  out += "id: " + c.id + "\n";
  out += "summary: " + yaml_quoted(protocol::printable(c.summary)) + "\n";
  // A case of the default profile names none.
  if (c.profile != default_profile_name()) out += "profile: " + c.profile + "\n";
  std::string ops;
  for (Operation op : c.derived_ops()) ops += (ops.empty() ? "" : ", ") + std::string(to_string(op));
  const CaseYamlMembers members = profile_of(c).case_yaml_members(c, ops);
  out += members.rules;
  out += "source: " + c.source + "\n";
  out += "level: required\n";  // the only level (cases/README.md, level)
  return out + members.body;
}

}  // namespace kiln::conformance
