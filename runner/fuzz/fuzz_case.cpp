#include "kiln/conformance/fuzz_case.hpp"

#include <variant>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"

namespace kiln::conformance {

std::vector<std::string> check_case_file(const std::filesystem::path& file) {
  const auto& schema = CaseSchema::builtin();
  if (const auto* error = std::get_if<CaseError>(&schema)) return {error->describe()};
  auto loaded = load_case_file(file, file.string(), std::get<CaseSchema>(schema));
  if (const auto* error = std::get_if<CaseError>(&loaded)) return {error->describe()};
  const Case& c = std::get<Case>(loaded);
  std::vector<std::string> problems = check_case(c);
  if (problems.empty() && !c.expect.accept && c.block)
    for (auto& problem : check_isolation(c, *c.block).problems) problems.push_back(std::move(problem));
  return problems;
}

}  // namespace kiln::conformance
