#include "kiln/conformance/fuzz_case.hpp"

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"

namespace kiln::conformance {

std::vector<std::string> check_case_file(const std::filesystem::path& file) {
  const auto loaded = load_case_file(file, file.string(), CaseSchema::builtin());
  if (!loaded) return {loaded.error().describe()};
  // The profile's check holds a reject case to isolation too.
  return check_case(*loaded);
}

}  // namespace kiln::conformance
