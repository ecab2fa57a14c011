#include "kiln/conformance/case_loader.hpp"

#include <yaml-cpp/exceptions.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>

#include "case_yaml.hpp"
#include "schema_patterns.hpp"
#include "kiln/conformance/yaml_reading.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/short_match.hpp"
#include "profiles/registry.hpp"

// valijson matches each "pattern" with std::regex_search. This one member of
// its visitor, for the one adapter the loader uses, asks the patterns of the
// schema being applied (SchemaPatterns) first and otherwise does what valijson
// does. Declared before any use of the visitor, in the only file that uses it.
template <>
bool valijson::ValidationVisitor<valijson::adapters::NlohmannJsonAdapter>::visit(
    const valijson::constraints::PatternConstraint& constraint) {
  if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;
  const std::string pattern(constraint.getPattern<std::string::allocator_type>());
  const std::string text = m_target.asString();
  std::optional<bool> matched;
  if (const auto* patterns = kiln::conformance::SchemaPatterns::on_this_thread())
    matched = patterns->search(pattern, text);
  if (!matched) {
    auto it = m_regexesCache.find(pattern);
    if (it == m_regexesCache.end()) it = m_regexesCache.emplace(pattern, std::regex(pattern)).first;
    matched = std::regex_search(text, it->second);
  }
  if (!*matched) {
    if (m_results)
      m_results->pushError(m_context, "Failed to match regex specified by 'pattern' constraint.");
    return false;
  }
  return true;
}

namespace kiln::conformance {

struct CaseSchema::Impl {
  std::string display_name;
  valijson::Schema schema;
  // valijson compiles each pattern with std::regex's default, recursive matcher,
  // which overflows the stack on a long payload; these are compiled first, with
  // the polynomial (breadth-first) matcher, and valijson finds them here.
  // Only read once the schema is built: the loader's threads share it.
  std::unordered_map<std::string, std::regex> regexes;
  SchemaPatterns patterns;
};

// ---- the members every profile's case shares ----

namespace yaml_reading {

std::vector<Operation> ops_node(const yaml::Node& node) {
  if (!node.IsSequence() || node.size() == 0) invalid(node, "ops is a non-empty sequence");
  std::vector<Operation> ops;
  for (const auto& item : node) {
    const std::string op = string_scalar(item, "an op");
    Operation operation;
    if (op == "decode") operation = Operation::kDecode;
    else if (op == "encode") operation = Operation::kEncode;
    else invalid(item, "op is decode or encode, not '" + op + "'");
    if (std::find(ops.begin(), ops.end(), operation) != ops.end())
      invalid(item, "op " + op + " is listed twice");
    ops.push_back(operation);
  }
  return ops;
}

void common_members(const yaml::Node& root, Case& c, const std::regex& id_pattern,
                    std::string_view id_form, const std::regex& source_pattern,
                    std::string_view source_form) {
  const yaml::Node id = required(root, "id", "the case");
  c.id = string_scalar(id, "id");
  if (c.id.size() > kLongestToken)
    invalid(id, "id is " + std::to_string(c.id.size()) + " characters long, more than " +
                    std::to_string(kLongestToken));
  if (!short_match(c.id, id_pattern))
    invalid(id, "id '" + c.id + "' is not lower-case " + std::string(id_form));
  c.summary = string_scalar(required(root, "summary", "the case"), "summary");
  if (c.summary.empty() || c.summary.find('\n') != std::string::npos)
    invalid(root["summary"], "summary is one non-empty line");
  c.source = string_scalar(required(root, "source", "the case"), "source");
  if (c.source.size() > kLongestToken)
    invalid(root["source"], "source is " + std::to_string(c.source.size()) +
                                " characters long, more than " + std::to_string(kLongestToken));
  if (!short_match(c.source, source_pattern)) invalid(root["source"], "source is " + std::string(source_form));
  // One level today; the key stays so that a later format version can add one
  // without a change to every case file.
  const yaml::Node level = required(root, "level", "the case");
  if (const std::string value = string_scalar(level, "level"); value != "required")
    invalid(level, "level is 'required', not '" + value +
                       "': every case is required (the recommended level was removed, cases/README.md, level)");
}

}  // namespace yaml_reading

namespace {

using namespace yaml_reading;
namespace fs = std::filesystem;

// Where a file's size limit is documented, for the message of one past it.
constexpr std::string_view kLimitsNote = " (cases/README.md, Limits)";

// ---- the structure every case file shares ----

// The index of the first byte that does not belong to well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) {
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) length = 2;
    else if ((lead & 0xF0) == 0xE0) length = 3;
    else if ((lead & 0xF8) == 0xF0) length = 4;
    else return i;
    if (text.size() - i < length) return i;
    std::uint32_t code = lead & (0x7Fu >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      code = code << 6 | (next & 0x3Fu);
    }
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return i;
    i += length;
  }
  return std::string_view::npos;
}

void check_utf8(const yaml::Node& scalar_node) {
  const std::size_t bad = invalid_utf8_at(scalar_node.Scalar());
  if (bad != std::string_view::npos)
    invalid_at(scalar_node, bad, "not UTF-8 at character " + std::to_string(bad) +
                                     ": YAML text is UTF-8 (name_hex and layout_hex take other bytes)");
}

// Keys must be strings and unique: yaml-cpp keeps every duplicate and returns the
// first, PyYAML the last, so a duplicate would mean different cases to different
// readers. Text must be UTF-8, as YAML requires (and valijson assumes).
void check_structure(const yaml::Node& node) {
  if (node.IsMap()) {
    std::unordered_set<std::string> seen;
    for (const auto& item : node) {
      if (!item.first.IsScalar() || item.first.IsNull())
        invalid(item.first, "a key must be a string");
      check_utf8(item.first);
      if (!seen.insert(item.first.Scalar()).second)
        invalid(item.first, "duplicate key '" + item.first.Scalar() + "'");
      check_structure(item.second);
    }
  } else if (node.IsSequence()) {
    for (const auto& child : node) check_structure(child);
  } else if (node.IsScalar()) {
    check_utf8(node);
  }
}

// The profile that reads the case's body: the one the file names, or the
// registry's default when it names none.
const Profile& case_profile(const yaml::Node& root) {
  const yaml::Node profile = root["profile"];
  if (!profile) return *find_profile(default_profile_name());
  const std::string name = string_scalar(profile, "profile");
  const Profile* found = find_profile(name);
  if (!found) invalid(profile, "profile is " + profile_names(" or ") + ", not '" + name + "'");
  return *found;
}

// ---- case.schema.json, applied with valijson ----

// valijson's context ("<root>", "[tensors]", "[0]", ...) as a node of the file
// and a readable path ("tensors[0].name"): as deep as the file goes.
std::pair<yaml::Node, std::string> locate(const yaml::Node& root,
                                          const std::vector<std::string>& context) {
  yaml::Node node(root);
  std::string path;
  for (std::size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') break;
    const std::string name = part.substr(1, part.size() - 2);
    std::optional<yaml::Node> child;
    if (node.IsMap()) {
      for (const auto& item : node)
        if (item.first.Scalar() == name) {
          child = item.second;
          break;
        }
      if (child) path += (path.empty() ? "" : ".") + name;
    } else if (node.IsSequence()) {
      const auto index = parse_core_unsigned(name);
      if (index && *index < node.size()) {
        child = node[*index];
        path += "[" + name + "]";
      }
    }
    if (!child) break;
    node = *child;
  }
  return {node, path};
}

void apply_schema(const yaml::Node& root, CaseSchema::Impl& schema) {
  using Adapter = valijson::adapters::NlohmannJsonAdapter;
  nlohmann::json document = json_of(root);
  // ops is regen's to write, from the rest of the file: ops_node has checked its
  // form, and `cases check` compares it with the derived ops. A stale ops must
  // not stop regen from writing the fresh one.
  document.erase("ops");
  const Adapter target(document);
  const SchemaPatterns::Scope patterns(schema.patterns);
  // Without results valijson stops at the first failure: the cheap common case.
  valijson::ValidationVisitor<Adapter> quick(target, {"<root>"}, true, nullptr, schema.regexes);
  if (quick.validateSchema(schema.schema)) return;

  valijson::ValidationResults results;
  valijson::ValidationVisitor<Adapter> full(target, {"<root>"}, true, &results, schema.regexes);
  full.validateSchema(schema.schema);
  // The deepest error names the offending node; the ones above it only say
  // that a child failed.
  const valijson::ValidationResults::Error* deepest = nullptr;
  for (const auto& error : results)
    if (!deepest || error.context.size() > deepest->context.size()) deepest = &error;
  if (!deepest) invalid(root, "does not satisfy " + schema.display_name);
  const auto [node, path] = locate(root, deepest->context);
  std::string description = deepest->description;
  if (!description.empty() && description.back() == '.') description.pop_back();
  invalid(node, (path.empty() ? std::string("the case") : path) + " (" + kind_name(kind_of(node)) +
                    ") does not satisfy " + schema.display_name + ": " + description);
}

// A profile's Profile::case_schema_text(), compiled the first time a case of it
// loads. Keyed by the text itself: a profile registered for a scope may go, and
// a later one with other text must not find the earlier's schema.
const Result<CaseSchema, CaseError>& profile_schema(const Profile& profile) {
  static std::mutex guard;
  static std::map<std::string, Result<CaseSchema, CaseError>, std::less<>> compiled;
  const std::lock_guard lock(guard);
  const std::string_view text = profile.case_schema_text();
  if (auto found = compiled.find(text); found != compiled.end()) return found->second;
  const std::string display = text == builtin_case_schema_text()
                                  ? std::string("the built-in case.schema.json")
                                  : "the built-in case schema of profile " + std::string(profile.name());
  return compiled.emplace(std::string(text), CaseSchema::parse(std::string(text), display)).first->second;
}

// ---- the cases folder ----

// work(i) for each i below count, on up to one thread a core (at most 8). Each
// case file loads on its own and the profiles' readers keep no state, so the
// files load in parallel; the caller takes the results in file order, which
// keeps a set, and the order of its errors, the same on any machine.
void for_each_index(std::size_t count, const std::function<void(std::size_t)>& work) {
  constexpr std::size_t kFilesPerThread = 32;  // below that, a thread costs more than it saves
  const std::size_t cores = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const std::size_t threads = std::min(cores, std::max<std::size_t>(1, count / kFilesPerThread));
  std::atomic<std::size_t> next{0};
  const auto take_until_done = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) work(i);
  };
  std::vector<std::jthread> helpers;
  try {
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(take_until_done);
  } catch (const std::system_error&) {  // no more threads: the ones started and this one finish
  }
  take_until_done();
}

struct FoundFile {
  fs::path path;
  std::string topic;
};

class FolderWalk {
 public:
  FolderWalk(fs::path base, std::vector<CaseError>& errors)
      : base_(std::move(base)), errors_(errors) {}

  std::string display(const fs::path& path) const {
    const std::string relative = path.lexically_relative(base_).generic_string();
    return relative.empty() ? path.generic_string() : relative;
  }

  // Every *.yaml below folder. Links to files are followed; links to folders are
  // not (a loop would never end), and so are errors rather than silently skipped.
  void walk(const fs::path& folder, const std::string& topic, int depth) {
    if (depth > kMaxFolderDepth) {
      fail(folder, "folders nest more than " + std::to_string(kMaxFolderDepth) +
                       " deep below the cases root");
      return;
    }
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
      const fs::path& path = it->path();
      std::error_code entry_error;
      const fs::file_status own = it->symlink_status(entry_error);
      if (entry_error) {
        fail(path, "cannot read: " + entry_error.message());
        continue;
      }
      if (fs::is_directory(own)) {
        const std::string name = path.filename().string();
        walk(path, topic.empty() ? name : topic + "/" + name, depth + 1);
        continue;
      }
      fs::file_status target = own;
      if (fs::is_symlink(own)) {
        target = fs::status(path, entry_error);
        if (entry_error || !fs::exists(target)) {
          fail(path, "a link that leads nowhere: " +
                         (entry_error ? entry_error.message() : std::string("no such file")));
          continue;
        }
        if (fs::is_directory(target)) {
          fail(path, "a link to a folder: links to folders are not followed");
          continue;
        }
      }
      if (path.extension() != ".yaml") continue;
      if (!fs::is_regular_file(target)) {
        fail(path, "not a regular file");
        continue;
      }
      files.push_back(FoundFile{path, topic});
    }
    if (error) fail(folder, "cannot read the folder: " + error.message());
  }

  std::vector<FoundFile> files;

 private:
  void fail(const fs::path& path, std::string message) {
    errors_.push_back(CaseError{SourceMark{display(path), 0, 0}, std::move(message)});
  }

  fs::path base_;
  std::vector<CaseError>& errors_;
};

// ---- the schema file ----

constexpr std::uintmax_t kMaxSchemaBytes = std::uintmax_t{1} << 20;
constexpr int kMaxSchemaDepth = 64;

struct SchemaTooDeep {};

// Prepares the schema's JSON for valijson: integers above 2^63 - 1 become doubles
// (valijson reads integers as int64_t, so 2^64 - 1 would read as -1), and every
// pattern is compiled ahead with the non-recursive matcher.
void prepare_schema(nlohmann::json& json, CaseSchema::Impl& impl) {
  if (json.is_number_unsigned() &&
      json.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    json = static_cast<double>(json.get<std::uint64_t>());
    return;
  }
  if (json.is_object()) {
    for (auto& [key, value] : json.items()) {
      if (key == "pattern" && value.is_string()) {
        const std::string pattern = value.get<std::string>();
        impl.regexes.emplace(pattern, std::regex(pattern, std::regex::ECMAScript |
                                                              std::regex_constants::__polynomial));
        impl.patterns.add(pattern);
      }
      if (key == "patternProperties" && value.is_object())
        for (const auto& [pattern, ignored] : value.items())
          impl.regexes.emplace(pattern, std::regex(pattern, std::regex::ECMAScript |
                                                                std::regex_constants::__polynomial));
      prepare_schema(value, impl);
    }
  } else if (json.is_array()) {
    for (auto& value : json) prepare_schema(value, impl);
  }
}

}  // namespace

CaseSchema::CaseSchema(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<CaseSchema, CaseError> CaseSchema::load(const std::filesystem::path& file,
                                               const std::string& display_name) {
  const Checked<std::string> read = read_regular_file(file, kMaxSchemaBytes, kLimitsNote);
  if (!read) return CaseError{SourceMark{display_name, 0, 0}, read.error()};
  return parse(read.value(), display_name);
}

Result<CaseSchema, CaseError> CaseSchema::parse(const std::string& text,
                                                const std::string& display_name) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  auto impl = std::make_shared<Impl>();
  impl->display_name = display_name;
  try {
    nlohmann::json json = nlohmann::json::parse(
        text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > kMaxSchemaDepth) throw SchemaTooDeep{};
          return true;
        });
    prepare_schema(json, *impl);
    // ops is written by regen, and apply_schema leaves it out (see there): out
    // of the required keys of the case, and of each profile's case under $defs.
    const auto drop_ops = [](nlohmann::json& object) {
      if (object.is_object() && object.contains("required") && object["required"].is_array()) {
        auto& required_keys = object["required"];
        required_keys.erase(std::remove(required_keys.begin(), required_keys.end(), "ops"),
                            required_keys.end());
      }
    };
    drop_ops(json);
    if (json.is_object() && json.contains("$defs") && json["$defs"].is_object())
      for (auto& profile : json["$defs"]) drop_ops(profile);
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    const valijson::adapters::NlohmannJsonAdapter adapter(json);
    parser.populateSchema(adapter, impl->schema);
  } catch (const SchemaTooDeep&) {
    return error_at(0, 0, "nested more than " + std::to_string(kMaxSchemaDepth) + " deep");
  } catch (const nlohmann::json::parse_error& problem) {
    // byte counts from 1: the character where the JSON went wrong.
    const std::size_t at = std::min<std::size_t>(problem.byte ? problem.byte - 1 : 0, text.size());
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i)
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    return error_at(line, static_cast<int>(at - line_start) + 1,
                    std::string("not JSON: ") + problem.what());
  } catch (const std::regex_error& problem) {
    return error_at(0, 0, std::string("a pattern std::regex cannot compile: ") + problem.what());
  } catch (const std::exception& problem) {
    return error_at(0, 0, std::string("valijson cannot read the schema: ") + problem.what());
  }
  return CaseSchema(std::move(impl));
}

const CaseSchema& CaseSchema::builtin() {
  static const CaseSchema each_profiles_own{nullptr};
  return each_profiles_own;
}

Result<CaseSchema, CaseError> CaseSchema::of_folder(const std::filesystem::path& root) {
  const fs::path file = root / kCaseSchemaFile;
  std::error_code error;
  if (fs::symlink_status(file, error).type() == fs::file_type::not_found) return builtin();
  return load(file, (root.filename() / kCaseSchemaFile).generic_string());
}

std::string SourceMark::describe() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string CaseError::describe() const { return where.describe() + ": " + message; }

std::string_view to_string(Operation operation) noexcept {
  return operation == Operation::kDecode ? "decode" : "encode";
}

Case::Case(const Case& other)
    : id(other.id), summary(other.summary), source(other.source), profile(other.profile), ops(other.ops),
      origin(other.origin), topic(other.topic),
      body_(other.body_ ? other.body_->clone() : nullptr) {}

Case& Case::operator=(const Case& other) {
  if (this != &other) *this = Case(other);
  return *this;
}

std::vector<Operation> Case::derived_ops() const {
  return body_ ? body_->derived_ops() : std::vector<Operation>{};
}

std::vector<std::string_view> Case::rule_ids() const {
  return body_ ? body_->rule_ids() : std::vector<std::string_view>{};
}

std::optional<std::string_view> Case::expected_rule_id() const {
  return body_ ? body_->expected_rule_id() : std::nullopt;
}

bool Case::expects_reject() const { return body_ && body_->expects_reject(); }

Result<Case, CaseError> load_case_file(const std::filesystem::path& file,
                                       const std::string& display_name, const CaseSchema& schema,
                                       const std::string& topic) {
  const Checked<std::string> read = read_regular_file(file, kMaxCaseFileBytes, kLimitsNote);
  if (!read) return CaseError{SourceMark{display_name, 0, 0}, read.error()};
  return load_case_text(read.value(), display_name, schema, topic);
}

namespace {

// The checks of a case once its YAML is a tree: they throw Invalid (or
// YAML::Exception, from a lookup on a scalar) at the first problem.
Case case_of(const yaml::Node& root, const std::string& display_name, const CaseSchema& schema,
             const std::string& topic) {
  require_map(root, "a case file");
  check_structure(root);
  const Profile& profile = case_profile(root);
  Case c;
  c.origin.file = display_name;
  c.profile = std::string(profile.name());
  profile.read_case_body(root, c);
  CaseSchema::Impl* checked_with = schema.impl();
  if (!checked_with) {
    const auto& own = profile_schema(profile);
    if (!own) throw own.error();
    checked_with = own->impl();
  }
  apply_schema(root, *checked_with);
  profile.check_case_body(root, c);
  c.topic = topic;
  return c;
}

}  // namespace

Result<Case, CaseError> load_case_text(const std::string& text, const std::string& display_name,
                                       const CaseSchema& schema, const std::string& topic) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  if (text.size() > kMaxCaseFileBytes)
    return error_at(0, 0, "larger than " + std::to_string(kMaxCaseFileBytes) + " bytes");
  try {
    // The fast reader's tree, when it vouches for it and the case passes; any
    // refusal is left to the checked reader, whose verdict and message count.
    try {
      yaml::Document document;
      if (case_yaml::read_fast(text, document))
        return case_of(document.root(), display_name, schema, topic);
    } catch (const Invalid&) {
    } catch (const YAML::Exception&) {
    } catch (const CaseError&) {
    } catch (const std::exception&) {
    }
    // Outside the try: an Invalid may point at one of its nodes.
    yaml::Document document;
    try {
      if (!case_yaml::read_checked(text, document))
        return error_at(1, 1, "no YAML document (the file is empty or only comments): a case is "
                              "a mapping of the keys in cases/README.md");
      return case_of(document.root(), display_name, schema, topic);
    } catch (const Invalid& problem) {
      auto [line, column] = position_of(problem.mark);
      if (problem.scalar)
        if (auto exact = character_position(text, *problem.scalar, problem.character))
          std::tie(line, column) = *exact;
      return error_at(line, column, problem.message);
    } catch (const YAML::Exception& problem) {
      const auto [line, column] = position_of(problem.mark);
      return error_at(line, column, problem.msg);
    } catch (const CaseError& problem) {
      return problem;
    }
  } catch (const std::exception& problem) {  // out of memory, say: an error, never an abort
    return error_at(1, 1, std::string("cannot load: ") + problem.what());
  }
}

CaseSet load_case_set(const std::filesystem::path& root) {
  CaseSet set;
  std::error_code error;
  const fs::file_status status = fs::status(root, error);
  if (error || !fs::is_directory(status)) {
    set.errors.push_back(CaseError{SourceMark{root.string(), 0, 0},
                                   error ? "cannot read: " + error.message()
                                         : std::string("not a folder of cases")});
    return set;
  }
  // Names in messages and Case::origin are relative to the root's parent
  // ("cases/type/x.yaml"): regen writes to root.parent_path() / origin.file.
  FolderWalk walk(root.parent_path(), set.errors);
  const auto schema = CaseSchema::of_folder(root);
  if (!schema) {
    set.errors.push_back(schema.error());
    return set;
  }
  walk.walk(root, "", 0);
  std::sort(walk.files.begin(), walk.files.end(),
            [](const FoundFile& a, const FoundFile& b) { return a.path < b.path; });

  std::vector<std::optional<Result<Case, CaseError>>> loaded(walk.files.size());
  for_each_index(walk.files.size(), [&](std::size_t i) {
    const auto& [file, topic] = walk.files[i];
    const std::string display = walk.display(file);
    try {
      loaded[i].emplace(load_case_file(file, display, *schema, topic));
    } catch (const std::exception& problem) {  // out of memory, say: an error, never an abort
      loaded[i].emplace(CaseError{SourceMark{display, 1, 1}, std::string("cannot load: ") + problem.what()});
    }
  });

  std::map<std::string, std::string> first_file_of_id;
  for (std::size_t i = 0; i < walk.files.size(); ++i) {
    const fs::path& file = walk.files[i].path;
    const std::string display = walk.display(file);
    auto& result = *loaded[i];
    if (!result) {
      set.errors.push_back(std::move(result).error());
      continue;
    }
    Case& c = result.value();
    if (file.stem().string() != c.id) {
      set.errors.push_back(CaseError{SourceMark{display, 1, 1},
                                     "id '" + c.id + "' differs from the file name"});
      continue;
    }
    auto [it, inserted] = first_file_of_id.emplace(c.id, display);
    if (!inserted) {
      set.errors.push_back(CaseError{SourceMark{display, 1, 1},
                                     "duplicate id '" + c.id + "', first in " + it->second});
      continue;
    }
    set.cases.push_back(std::move(c));
  }
  std::sort(set.cases.begin(), set.cases.end(),
            [](const Case& a, const Case& b) { return a.id < b.id; });
  return set;
}

}  // namespace kiln::conformance
