// `cases regen` and `cases check` for the sweep families (families.hpp): the
// folder's .family files expanded, their members written or compared.
#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cases/case_tools_internal.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/families.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/safe_file.hpp"

namespace kiln::conformance {
namespace {

// ---- sweep families (families.hpp) ----

// Every *.yaml below root/sweep, as paths relative to root ("sweep/a/x.yaml").
std::vector<std::string> sweep_files(const std::filesystem::path& root, std::string& problem) {
  std::vector<std::string> files;
  const std::filesystem::path folder = root / kSweepFolder;
  std::error_code error;
  if (!std::filesystem::exists(folder, error)) return files;
  for (std::filesystem::recursive_directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().extension() == ".yaml")
      files.push_back(it->path().lexically_relative(root).generic_string());
  }
  if (error) problem = (root.filename() / kSweepFolder).generic_string() + ": cannot read: " + error.message();
  std::sort(files.begin(), files.end());
  return files;
}

struct FamilyExpansion {
  FamilySet set;
  std::map<std::string, const FamilyMember*> by_path;  // relative to the cases root
  std::string problem;                                 // the schema or the sweep folder
};

FamilyExpansion expand(const std::filesystem::path& root) {
  FamilyExpansion result;
  const auto schema = CaseSchema::of_folder(root);
  if (!schema) {
    result.problem = schema.error().describe();
    return result;
  }
  result.set = expand_families(root, *schema);
  for (const Family& family : result.set.families)
    for (const FamilyMember& member : family.members) result.by_path[member.relative_path] = &member;
  return result;
}

std::string display_path(const std::filesystem::path& root, const std::string& relative) {
  return (root.filename() / relative).generic_string();
}

}  // namespace

// Writes every family's members under root/sweep and removes the files there no
// family generates any more; exit code as regen's.
int regen_families(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  FamilyExpansion expansion = expand(root);
  if (!expansion.problem.empty()) {
    err << expansion.problem << "\nregen: nothing written\n";
    return kExitUsage;
  }
  if (!expansion.set.errors.empty()) {
    for (const auto& error : expansion.set.errors) err << error.describe() << "\n";
    err << "regen: nothing written: " << expansion.set.errors.size()
        << " problem(s) in the sweep families\n";
    return kExitUsage;
  }
  std::string problem;
  const std::vector<std::string> existing = sweep_files(root, problem);
  if (!problem.empty()) {
    err << problem << "\nregen: nothing written\n";
    return kExitUsage;
  }
  // sweep/ is regen's own, but a file there that no family wrote is someone's
  // work: refuse rather than delete it.
  std::vector<std::string> stale;
  for (const std::string& relative : existing) {
    if (expansion.by_path.count(relative)) continue;
    const auto text = read_case_folder_file(root / relative);
    if (!text) {
      err << "regen: " << text.error() << "\n";
      return kExitUsage;
    }
    if (text.value().find("\nsource: family ") == std::string::npos) {
      err << display_path(root, relative) << ": not written by a family, and " << kSweepFolder
          << "/ is regen's own: move it to a topic folder\nregen: nothing written\n";
      return kExitUsage;
    }
    stale.push_back(relative);
  }
  std::size_t written = 0, members = 0, unwritten = 0;
  for (const Family& family : expansion.set.families) {
    for (const FamilyMember& member : family.members) {
      ++members;
      const std::filesystem::path file = root / member.relative_path;
      if (std::filesystem::exists(file)) {
        const auto before = read_case_folder_file(file);
        if (before && before.value() == member.text) continue;
      }
      std::error_code made;
      std::filesystem::create_directories(file.parent_path(), made);
      const Checked<void> wrote = made ? Failure(file.string() + ": " + made.message())
                                       : write_text_file(file, member.text);
      if (!wrote) {
        err << "regen: " << wrote.error() << "\n";
        ++unwritten;
        continue;
      }
      ++written;
    }
  }
  for (const std::string& relative : stale) {
    std::error_code error;
    if (!std::filesystem::remove(root / relative, error) || error) {
      err << "regen: " << display_path(root, relative) << ": cannot remove: " << error.message() << "\n";
      ++unwritten;
      continue;
    }
    out << "removed " << display_path(root, relative) << " (no family generates it)\n";
  }
  if (!expansion.set.families.empty() || !stale.empty())
    out << "families: " << expansion.set.families.size() << " families, " << members
        << " cases, " << written << " file(s) written, " << stale.size() << " removed\n";
  return unwritten ? kExitFailures : kExitOk;
}

// What check holds the sweep folder to: every member's file as its family
// writes it, nothing else there, and no family case elsewhere. Each problem
// is counted as a failing case.
std::size_t check_families(const std::filesystem::path& root, const CaseSet& set, std::ostream& err) {
  FamilyExpansion expansion = expand(root);
  if (!expansion.problem.empty()) {
    err << expansion.problem << "\n";
    return 1;
  }
  std::size_t failing = expansion.set.errors.size();
  for (const auto& error : expansion.set.errors) err << error.describe() << "\n";
  std::string problem;
  const std::vector<std::string> existing = sweep_files(root, problem);
  if (!problem.empty()) {
    err << problem << "\n";
    ++failing;
  }
  const std::set<std::string> present(existing.begin(), existing.end());
  for (const auto& [relative, member] : expansion.by_path) {
    const std::string shown = display_path(root, relative);
    if (!present.count(relative)) {
      err << shown << ": " << member->id << ": missing: its family generates it; run `kiln-conformance cases regen`\n";
      ++failing;
    } else if (const auto text = read_case_folder_file(root / relative); !text) {
      err << text.error() << "\n";
      ++failing;
    } else if (text.value() != member->text) {
      err << shown << ": " << member->id << ": differs from what its family generates; run `kiln-conformance cases regen` (edit the family, not the file)\n";
      ++failing;
    }
  }
  for (const std::string& relative : existing)
    if (!expansion.by_path.count(relative)) {
      err << display_path(root, relative) << ": no family generates it, and " << kSweepFolder
          << "/ holds only what families generate\n";
      ++failing;
    }
  for (const Case& c : set.cases)
    if (c.source.rfind("family ", 0) == 0 &&
        !expansion.by_path.count(c.topic + "/" + c.id + ".yaml")) {
      err << c.origin.file << ": " << c.id << ": source '" << c.source
          << "', but no family generates this case here\n";
      ++failing;
    }
  return failing;
}

}  // namespace kiln::conformance
