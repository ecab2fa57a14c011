// The sweep families' engine (cases/README.md, "Sweeps"): reads each family
// file, finds its generator among the profiles' (Profile::family_generators()),
// and writes and bounds the members the generator drafts. It knows no profile:
// each profile's generators and their case text are in profiles/<profile>/families.cpp.
#include "kiln/conformance/families.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/safe_file.hpp"

namespace kiln::conformance {
namespace families {

void fail(const YAML::Node& node, std::string message) {
  throw FamilyProblem{node.Mark(), std::move(message)};
}


std::uint64_t uint_of(const YAML::Node& node, std::uint64_t max, const char* what) {
  if (!node.IsScalar()) fail(node, std::string(what) + " must be an integer");
  const std::string& text = node.Scalar();
  std::uint64_t value = 0;
  std::size_t at = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    at = 2;
  }
  if (at == text.size()) fail(node, std::string(what) + " must be an integer");
  for (; at < text.size(); ++at) {
    const char ch = text[at];
    int digit;
    if (ch >= '0' && ch <= '9') digit = ch - '0';
    else if (base == 16 && ch >= 'a' && ch <= 'f') digit = ch - 'a' + 10;
    else if (base == 16 && ch >= 'A' && ch <= 'F') digit = ch - 'A' + 10;
    else fail(node, std::string(what) + " must be an integer, not '" + text + "'");
    if (value > (max - static_cast<std::uint64_t>(digit)) / static_cast<std::uint64_t>(base))
      fail(node, std::string(what) + " is above " + std::to_string(max));
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  return value;
}

std::string string_of(const YAML::Node& node, const char* what) {
  if (!node.IsScalar()) fail(node, std::string(what) + " must be a string");
  return node.Scalar();
}

const YAML::Node& sequence_of(const YAML::Node& node, const char* what) {
  if (!node.IsSequence()) fail(node, std::string(what) + " must be a list");
  if (node.size() > kMaxFamilyMembers)
    fail(node, std::string(what) + " has more than " + std::to_string(kMaxFamilyMembers) +
                   " items");
  return node;
}

std::vector<std::uint64_t> uints_of(const YAML::Node& node, std::uint64_t max, const char* what) {
  std::vector<std::uint64_t> values;
  for (const auto& item : sequence_of(node, what)) values.push_back(uint_of(item, max, what));
  return values;
}

std::vector<std::string> strings_of(const YAML::Node& node, const char* what) {
  std::vector<std::string> values;
  for (const auto& item : sequence_of(node, what)) values.push_back(string_of(item, what));
  return values;
}

Params::Params(YAML::Node node) : node_(std::move(node)) {
  if (!node_.IsMap()) fail(node_, "params must be a mapping");
}

YAML::Node Params::required(const char* key) {
  used_.insert(key);
  const YAML::Node value = node_[key];
  if (!value) fail(node_, std::string("params lacks '") + key + "'");
  return value;
}

YAML::Node Params::optional(const char* key) {
  used_.insert(key);
  return node_[key];
}

void Params::finish() const {
  for (const auto& item : node_) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : "";
    if (!used_.count(key)) fail(item.first, "unknown parameter '" + key + "' for this generator");
  }
}

Product exact_product(const std::vector<std::uint64_t>& dims) {
  Product p;
  p.value = 1;
  bool zero = std::find(dims.begin(), dims.end(), 0) != dims.end();
  if (zero) {
    p.value = 0;
    return p;
  }
  for (std::uint64_t d : dims) {
    p.value *= d;
    if (p.value > ~std::uint64_t{0}) {
      p.overflows = true;
      return p;
    }
  }
  return p;
}

std::vector<std::uint64_t> dims_of(const YAML::Node& node) {
  if (node.IsMap()) {
    Params p(node);
    const std::uint64_t rank = uint_of(p.required("rank"), 4096, "rank");
    const std::uint64_t fill = uint_of(p.required("fill"), ~std::uint64_t{0}, "fill");
    p.finish();
    return std::vector<std::uint64_t>(rank, fill);
  }
  return uints_of(node, ~std::uint64_t{0}, "a dimension");
}

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string byte_hex(std::uint64_t byte) {
  static const char kDigits[] = "0123456789abcdef";
  return {kDigits[(byte >> 4) & 15], kDigits[byte & 15]};
}

std::string kebab(std::string_view text) {
  std::string out;
  for (char ch : text) out += ch == '_' ? '-' : ch;
  return out;
}

std::string generated_note(const std::string& family, const std::string& generator) {
  return "# Written by `kiln-conformance cases regen` from cases/" + std::string(kFamiliesFolder) + "/" +
         family + kFamilyExtension + " (generator " + generator + "): edit the family, not this file.\n";
}

MemberPlace member_place(std::string_view id_prefix, const std::string& family, const std::string& suffix) {
  MemberPlace place;
  place.id = std::string(id_prefix) + "-sweep-" + family + "-" + suffix;
  place.topic = std::string(kSweepFolder) + "/" + family;
  place.path = place.topic + "/" + place.id + ".yaml";
  return place;
}

}  // namespace families

namespace {

namespace fs = std::filesystem;
using families::FamilyProblem;
using families::fail;
using families::string_of;

// The generator a family names, and its profile's name; nullptr: none has it.
const FamilyGeneratorEntry* find_generator(std::string_view name, std::string_view& profile) {
  for (const Profile* candidate : all_profiles())
    for (const FamilyGeneratorEntry& entry : candidate->family_generators().entries)
      if (entry.name == name) {
        profile = candidate->name();
        return &entry;
      }
  return nullptr;
}

void read_family(const fs::path& file, const std::string& display, const CaseSchema& schema,
                 FamilySet& set) {
  auto error_at = [&](int line, int column, std::string message) {
    set.errors.push_back(CaseError{SourceMark{display, line, column}, std::move(message)});
  };
  const Checked<std::string> read = read_regular_file(file, kMaxFamilyFileBytes);
  if (!read) return error_at(0, 0, read.error());
  const std::string& text = read.value();
  Family family;
  family.name = file.stem().string();
  family.file = display;
  static const std::regex kName("^[a-z0-9]+(-[a-z0-9]+)*$");
  if (family.name.size() > 40 || !std::regex_match(family.name, kName))
    return error_at(0, 0, "a family's file name is <name>.family, name in [a-z0-9-], at most 40");
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return error_at(1, 1, "a family is a mapping: family, generator, summary, params");
    families::Params top(root);
    const YAML::Node name_node = top.required("family");
    if (string_of(name_node, "family") != family.name)
      fail(name_node, "family is the file's name without .family: " + family.name);
    const YAML::Node generator_node = top.required("generator");
    family.generator = string_of(generator_node, "generator");
    family.summary = string_of(top.required("summary"), "summary");
    families::Params params(top.required("params"));
    top.finish();
    std::string_view profile;
    const FamilyGeneratorEntry* generator = find_generator(family.generator, profile);
    if (!generator) fail(generator_node, "no generator '" + family.generator + "'");
    family.profile = profile;
    const std::vector<PendingMember> pending = generator->generate(params, schema);
    const std::size_t count = pending.size();
    if (count == 0) fail(root, "the family generates no case");
    if (count > kMaxFamilyMembers)
      fail(root, "the family generates " + std::to_string(count) + " cases, more than " +
                     std::to_string(kMaxFamilyMembers));
    std::set<std::string> ids;
    std::size_t family_bytes = 0;
    const MemberContext context{family.name, family.generator, schema};
    for (const PendingMember& finish : pending) {
      FinishedMember member = finish(context);
      if (!member) {
        error_at(1, 1, member.error());
        continue;
      }
      auto& made = member.value();
      if (!ids.insert(made.id).second) {
        error_at(1, 1, made.id + ": generated twice");
        continue;
      }
      family_bytes += made.text.size();
      if (family_bytes > kMaxFamilyBytes) {
        error_at(1, 1, made.id + ": the family's cases reach " + std::to_string(family_bytes) +
                           " bytes here, more than one family may write (" + std::to_string(kMaxFamilyBytes) + ")");
        break;
      }
      family.members.push_back(std::move(made));
    }
  } catch (const FamilyProblem& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.message);
  } catch (const YAML::Exception& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.msg);
  } catch (const std::exception& problem) {
    return error_at(1, 1, std::string("cannot expand: ") + problem.what());
  }
  set.families.push_back(std::move(family));
}

}  // namespace

std::span<const FamilyGenerator> family_generators() noexcept {
  static const std::vector<FamilyGenerator> all = [] {
    std::vector<FamilyGenerator> listed;
    for (const Profile* profile : all_profiles())
      for (const FamilyGeneratorEntry& entry : profile->family_generators().entries)
        listed.push_back({entry.name, entry.walks, profile->name()});
    return listed;
  }();
  return all;
}

FamilySet expand_families(const fs::path& root, const CaseSchema& schema) {
  FamilySet set;
  const fs::path folder = root / kFamiliesFolder;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(folder, error);
  if (status.type() == fs::file_type::not_found) return set;
  const std::string folder_name = (root.filename() / kFamiliesFolder).generic_string();
  if (error || !fs::is_directory(status)) {
    set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0}, "not a folder of families"});
    return set;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() != kFamilyExtension) continue;
    if (files.size() >= kMaxFamilies) {
      set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0},
                                     "more than " + std::to_string(kMaxFamilies) + " families"});
      return set;
    }
    files.push_back(it->path());
  }
  if (error) {
    set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0}, "cannot read: " + error.message()});
    return set;
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    read_family(file, folder_name + "/" + file.filename().string(), schema, set);
  return set;
}

}  // namespace kiln::conformance
