#include "kiln/conformance/case_tools.hpp"

#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "kiln/conformance/materialize.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/protocol.hpp"
#include "kiln/decode.hpp"
#include "kiln/encode.hpp"
#include "kiln/hex.hpp"

namespace kiln::conformance {
namespace {

std::string ops_text(const std::vector<Operation>& ops) {
  std::string text = "[";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i) text += ", ";
    text += to_string(ops[i]);
  }
  return text + "]";
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

bool starts_key(const std::string& line, const std::string& key) {
  return line.rfind(key + ":", 0) == 0;
}

// The first offset where two byte strings differ, or the shorter length.
std::size_t first_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

std::string describe_outcome(const Error& error) { return error.describe(); }

std::string expected_text(const Expectation& expect) {
  if (expect.accept) return "accept";
  return "reject " + std::string(to_string(*expect.error_class)) + " " +
         std::string(rule_info(*expect.rule).id);
}

// Compares a reference error with a reject expectation; empty when they agree.
std::optional<std::string> compare_reject(const Expectation& expect, const Error& error) {
  if (expect.accept) return "expected accept, the reference reports " + describe_outcome(error);
  if (error.rule != *expect.rule)
    return "expected " + expected_text(expect) + ", the reference reports " + describe_outcome(error);
  return std::nullopt;
}

}  // namespace

std::string block_hex_lines(const std::vector<std::uint8_t>& block, const std::string& indent) {
  constexpr std::size_t kBytesPerLine = 32;
  std::string text;
  for (std::size_t at = 0; at < block.size(); at += kBytesPerLine) {
    const std::size_t count = std::min(kBytesPerLine, block.size() - at);
    text += indent + to_hex(std::span(block).subspan(at, count)) + "\n";
  }
  return text;
}

std::string rewrite_generated_keys(const std::string& text, const Case& test_case,
                                   const std::optional<std::vector<std::uint8_t>>& block) {
  Case regenerated = test_case;
  regenerated.block = block;
  std::map<std::string, std::string> replacement;
  replacement["ops"] = "ops: " + ops_text(regenerated.derived_ops()) + "\n";
  replacement["block"] = block ? "block: |\n" + block_hex_lines(*block, "  ") : "";

  const auto lines = split_lines(text);
  std::string output;
  std::map<std::string, bool> written;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string* key = nullptr;
    for (const auto& [name, _] : replacement)
      if (starts_key(lines[i], name)) key = &name;
    if (!key) {
      output += lines[i++] + "\n";
      continue;
    }
    // The key's value runs over the indented (or blank) lines that follow it.
    std::size_t end = i + 1;
    while (end < lines.size() &&
           (lines[end].empty() || lines[end][0] == ' ' || lines[end][0] == '\t'))
      ++end;
    output += replacement[*key];
    written[*key] = true;
    i = end;
  }
  for (const char* key : {"ops", "block"})
    if (!written[key]) output += replacement[key];
  return output;
}

std::vector<std::string> check_case(const Case& test_case) {
  std::vector<std::string> problems;
  auto made = materialize(test_case);
  if (auto* error = std::get_if<std::string>(&made)) {
    problems.push_back(*error);
    return problems;
  }
  const Materialized& materialized = std::get<Materialized>(made);

  if (materialized.block && !test_case.block) {
    problems.push_back("has no block; run `kiln-conformance cases regen`");
  } else if (!materialized.block && test_case.block) {
    problems.push_back("has a block, but its description cannot be placed: " +
                       materialized.placement_error->describe());
  } else if (materialized.block && *materialized.block != *test_case.block) {
    const std::size_t at = first_difference(*materialized.block, *test_case.block);
    std::ostringstream message;
    message << "stored block differs from the regenerated one at byte " << at << " (stored "
            << test_case.block->size() << " bytes, regenerated " << materialized.block->size()
            << ")";
    problems.push_back(message.str());
  }
  Case regenerated = test_case;
  regenerated.block = materialized.block;
  if (test_case.ops != regenerated.derived_ops())
    problems.push_back("ops is " + ops_text(test_case.ops) + ", derived is " +
                       ops_text(regenerated.derived_ops()) + "; run `kiln-conformance cases regen`");

  // The reference must give exactly the expected outcome, rule included.
  if (materialized.block) {
    auto decoded = decode(*materialized.block);
    if (decoded) {
      if (!test_case.expect.accept)
        problems.push_back("expected " + expected_text(test_case.expect) +
                           ", the reference accepts the block");
      else if (decoded.value().to_description() != test_case.description)
        problems.push_back("the reference accepts the block but decodes other tensors than the "
                           "description");
    } else if (auto mismatch = compare_reject(test_case.expect, decoded.error())) {
      problems.push_back("decode: " + *mismatch);
    }
  }
  if (test_case.faults.empty()) {
    auto encoded = encode(test_case.description);
    if (encoded) {
      if (!test_case.expect.accept)
        problems.push_back("expected " + expected_text(test_case.expect) +
                           ", the reference encoder accepts the description");
      else if (!materialized.block || encoded.value() != *materialized.block)
        problems.push_back("the reference encoder writes other bytes than the block");
    } else if (auto mismatch = compare_reject(test_case.expect, encoded.error())) {
      problems.push_back("encode: " + *mismatch);
    }
  }
  return problems;
}

bool report_load_errors(const CaseSet& set, std::ostream& err) {
  for (const auto& error : set.errors) err << error.describe() << "\n";
  return set.errors.empty();
}

int cases_regen(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) {
    err << "regen: nothing written: " << set.errors.size() << " case file(s) do not load\n";
    return kExitUsage;
  }
  // Materialise everything first so that one bad fault leaves every file untouched.
  std::vector<std::pair<const Case*, Materialized>> results;
  bool failed = false;
  for (const Case& c : set.cases) {
    auto made = materialize(c);
    if (auto* error = std::get_if<std::string>(&made)) {
      err << c.origin.describe() << ": " << c.id << ": " << *error << "\n";
      failed = true;
      continue;
    }
    results.emplace_back(&c, std::get<Materialized>(std::move(made)));
  }
  if (failed) {
    err << "regen: nothing written\n";
    return kExitUsage;
  }
  std::size_t changed = 0;
  for (const auto& [c, made] : results) {
    const std::filesystem::path file = root.parent_path() / c->origin.file;
    const std::string before = read_file(file);
    const std::string after = rewrite_generated_keys(before, *c, made.block);
    if (after == before) continue;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << after;
    ++changed;
    out << "rewrote " << c->origin.file << "\n";
  }
  out << "regen: " << set.cases.size() << " cases, " << changed << " file(s) rewritten\n";
  return kExitOk;
}

int cases_check(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  const bool loaded = report_load_errors(set, err);
  std::size_t failing = 0;
  for (const Case& c : set.cases) {
    const auto problems = check_case(c);
    if (!problems.empty()) ++failing;
    for (const auto& problem : problems)
      err << c.origin.file << ": " << c.id << ": " << problem << "\n";
  }
  out << (set.cases.size() - failing) << " passed, " << failing + set.errors.size()
      << " failed\n";
  if (!loaded) return kExitUsage;
  return failing == 0 ? kExitOk : kExitFailures;
}

int cases_coverage(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) return kExitUsage;
  std::size_t uncovered = 0;
  out << "rule                        breaking  exercising  example\n";
  for (const RuleInfo& rule : all_rules()) {
    std::size_t breaking = 0;
    std::size_t exercising = 0;
    std::string example;
    for (const Case& c : set.cases) {
      if (c.expect.rule == rule.rule) {
        if (!breaking) example = c.id;
        ++breaking;
      }
      for (Rule r : c.rules) exercising += r == rule.rule;
    }
    char line[160];
    std::snprintf(line, sizeof line, "%-27s %9zu %11zu  %s\n", std::string(rule.id).c_str(),
                  breaking, exercising, breaking ? example.c_str() : "NO CASE BREAKS THIS RULE");
    out << line;
    uncovered += breaking == 0;
  }
  out << set.cases.size() << " cases, " << all_rules().size() << " rules, " << uncovered
      << " rule(s) without a breaking case\n";
  return uncovered == 0 ? kExitOk : kExitFailures;
}

std::string case_set_hash(const CaseSet& set) {
  Sha256 hash;
  for (const Case& c : set.cases) {
    hash.update(c.id + "\n" + expected_text(c.expect) + "\n" + ops_text(c.derived_ops()) + "\n");
    hash.update(c.block ? to_hex(*c.block) : std::string("-"));
    hash.update("\n");
  }
  return hash.hex_digest();
}

int cases_export(const std::filesystem::path& root, const std::filesystem::path& destination,
                 std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) {
    err << "export: nothing written\n";
    return kExitUsage;
  }
  std::error_code error;
  std::filesystem::create_directories(destination, error);
  if (error) {
    err << destination.string() << ": cannot create: " << error.message() << "\n";
    return kExitUsage;
  }
  protocol::Json index;
  index["format"] = "kiln-conformance-export";
  index["export_version"] = 1;
  index["suite_version"] = KILN_SUITE_VERSION;
  index["profile"] = "kiln-v2";
  index["case_set_sha256"] = case_set_hash(set);
  index["cases"] = protocol::Json::array();
  for (const Case& c : set.cases) {
    protocol::Json entry;
    entry["id"] = c.id;
    entry["summary"] = c.summary;
    entry["file"] = c.block ? protocol::Json(c.id + ".kiln") : protocol::Json(nullptr);
    entry["rules"] = protocol::Json::array();
    for (Rule rule : c.rules) entry["rules"].push_back(std::string(rule_info(rule).id));
    entry["source"] = c.source;
    entry["level"] = c.level == Level::kRequired ? "required" : "recommended";
    entry["ops"] = protocol::Json::array();
    for (Operation op : c.derived_ops()) entry["ops"].push_back(std::string(to_string(op)));
    entry["expect"] = {{"result", c.expect.accept ? "accept" : "reject"}};
    if (!c.expect.accept) {
      entry["expect"]["class"] = std::string(to_string(*c.expect.error_class));
      entry["expect"]["rule"] = std::string(rule_info(*c.expect.rule).id);
    }
    entry["tensors"] = protocol::tensors_to_json(c.description);
    index["cases"].push_back(std::move(entry));
    if (c.block) {
      std::ofstream file(destination / (c.id + ".kiln"), std::ios::binary | std::ios::trunc);
      file.write(reinterpret_cast<const char*>(c.block->data()),
                 static_cast<std::streamsize>(c.block->size()));
      if (!file) {
        err << (destination / (c.id + ".kiln")).string() << ": write failed\n";
        return kExitFailures;
      }
    }
  }
  std::ofstream(destination / "index.json", std::ios::binary | std::ios::trunc)
      << index.dump(1, ' ', false, protocol::Json::error_handler_t::replace) << "\n";
  out << "export: " << set.cases.size() << " cases to " << destination.string() << "\n";
  return kExitOk;
}

}  // namespace kiln::conformance
