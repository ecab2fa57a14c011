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
  // The profile's check holds a reject case to isolation too.
  return check_case(std::get<Case>(loaded));
}

}  // namespace kiln::conformance
