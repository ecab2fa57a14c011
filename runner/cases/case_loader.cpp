#include "kiln/conformance/case_loader.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>

#include "kiln/conformance/yaml_reading.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/short_match.hpp"
#include "profiles/registry.hpp"

namespace kiln::conformance {

struct CaseSchema::Impl {
  std::string display_name;
  valijson::Schema schema;
  // valijson compiles each pattern with std::regex's default, recursive matcher,
  // which overflows the stack on a long payload; these are compiled first, with
  // the polynomial (breadth-first) matcher, and valijson finds them here.
  std::unordered_map<std::string, std::regex> regexes;
};

// ---- the members every profile's case shares ----

namespace yaml_reading {

std::vector<Operation> ops_node(const YAML::Node& node) {
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

void common_members(const YAML::Node& root, Case& c, const std::regex& id_pattern,
                    std::string_view id_form, const std::regex& source_pattern,
                    std::string_view source_form) {
  const YAML::Node id = required(root, "id", "the case");
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
  const YAML::Node level = required(root, "level", "the case");
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

// ---- YAML: a bounded first pass over the events ----

// Case files are plain YAML (cases/README.md): one document, no anchors,
// aliases or tags. Refusing aliases outright bounds a file's expanded size by
// its own size; the node count and depth bound the tree yaml-cpp builds and the
// recursion of everything that walks it. Throws Invalid at the first problem.
class BoundedScan final : public YAML::EventHandler {
 public:
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) invalid(mark, "a second YAML document: a case file holds exactly one");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, "", anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    invalid(mark, "an alias: " + std::string(kPlain));
  }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    invalid(mark, "an anchor '&" + name + "': " + kPlain);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string&) override {
    node(mark, tag, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  static constexpr const char* kPlain = "case files are plain YAML, without anchors or aliases";

  void node(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) invalid(mark, "an anchor: " + std::string(kPlain));
    // "?" is an untagged plain node, "!" an untagged quoted or block scalar.
    if (!tag.empty() && tag != "?" && tag != "!")
      invalid(mark, "a tag '" + tag + "': case files are plain YAML, without tags");
    if (++nodes_ > kMaxCaseNodes)
      invalid(mark, "more than " + std::to_string(kMaxCaseNodes) +
                        " YAML nodes: larger than any case (cases/README.md, Limits)");
  }
  void open(const YAML::Mark& mark) {
    if (++depth_ > kMaxCaseDepth)
      invalid(mark, "nested more than " + std::to_string(kMaxCaseDepth) +
                        " levels deep (cases/README.md, Limits)");
  }

  int documents_ = 0;
  std::size_t nodes_ = 0;
  int depth_ = 0;
};

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

void check_utf8(const YAML::Node& scalar_node) {
  const std::size_t bad = invalid_utf8_at(scalar_node.Scalar());
  if (bad != std::string_view::npos)
    invalid_at(scalar_node, bad, "not UTF-8 at character " + std::to_string(bad) +
                                     ": YAML text is UTF-8 (name_hex and layout_hex take other bytes)");
}

// Keys must be strings and unique: yaml-cpp keeps every duplicate and returns the
// first, PyYAML the last, so a duplicate would mean different cases to different
// readers. Text must be UTF-8, as YAML requires (and valijson assumes).
void check_structure(const YAML::Node& node) {
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
const Profile& case_profile(const YAML::Node& root) {
  const YAML::Node profile = root["profile"];
  if (!profile) return *find_profile(default_profile_name());
  const std::string name = string_scalar(profile, "profile");
  const Profile* found = find_profile(name);
  if (!found) invalid(profile, "profile is " + profile_names(" or ") + ", not '" + name + "'");
  return *found;
}

// ---- case.schema.json, applied with valijson ----

// valijson's context ("<root>", "[tensors]", "[0]", ...) as a node of the file
// and a readable path ("tensors[0].name"): as deep as the file goes.
std::pair<YAML::Node, std::string> locate(const YAML::Node& root,
                                          const std::vector<std::string>& context) {
  YAML::Node node(root);
  std::string path;
  for (std::size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') break;
    const std::string name = part.substr(1, part.size() - 2);
    std::optional<YAML::Node> child;
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
    node.reset(*child);  // reset rebinds; operator= would overwrite the node's value
  }
  return {node, path};
}

void apply_schema(const YAML::Node& root, CaseSchema::Impl& schema) {
  using Adapter = valijson::adapters::NlohmannJsonAdapter;
  nlohmann::json document = json_of(root);
  // ops is regen's to write, from the rest of the file: ops_node has checked its
  // form, and `cases check` compares it with the derived ops. A stale ops must
  // not stop regen from writing the fresh one.
  document.erase("ops");
  const Adapter target(document);
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

Result<Case, CaseError> load_case_text(const std::string& text, const std::string& display_name,
                                       const CaseSchema& schema, const std::string& topic) {
  auto error_at = [&](int line, int column, std::string message) {
    return CaseError{SourceMark{display_name, line, column}, std::move(message)};
  };
  if (text.size() > kMaxCaseFileBytes)
    return error_at(0, 0, "larger than " + std::to_string(kMaxCaseFileBytes) + " bytes");
  try {
    try {
      BoundedScan scan;
      std::istringstream events(text);
      YAML::Parser parser(events);
      while (parser.HandleNextDocument(scan)) {
      }
      if (scan.documents() == 0)
        return error_at(1, 1, "no YAML document (the file is empty or only comments): a case is "
                              "a mapping of the keys in cases/README.md");
      const YAML::Node root = YAML::Load(text);
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
        if (!own) return own.error();
        checked_with = own->impl();
      }
      apply_schema(root, *checked_with);
      profile.check_case_body(root, c);
      c.topic = topic;
      return c;
    } catch (const Invalid& problem) {
      auto [line, column] = position_of(problem.mark);
      if (problem.scalar)
        if (auto exact = character_position(text, *problem.scalar, problem.character))
          std::tie(line, column) = *exact;
      return error_at(line, column, problem.message);
    } catch (const YAML::Exception& problem) {
      const auto [line, column] = position_of(problem.mark);
      return error_at(line, column, problem.msg);
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

  std::map<std::string, std::string> first_file_of_id;
  for (const auto& [file, topic] : walk.files) {
    const std::string display = walk.display(file);
    auto loaded = load_case_file(file, display, *schema, topic);
    if (!loaded) {
      set.errors.push_back(std::move(loaded).error());
      continue;
    }
    Case& c = loaded.value();
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
