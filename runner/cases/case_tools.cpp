#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "cases/case_tools_internal.hpp"
#include "kiln/conformance/families.hpp"
#include "kiln/conformance/report.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/sha256.hpp"
#include "kiln/hex.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {
namespace {

std::string errno_text(int code) { return code ? std::strerror(code) : "unknown error"; }

}  // namespace

Checked<std::string> read_case_folder_file(const std::filesystem::path& file) {
  auto text = read_regular_file(file, kMaxCaseFileBytes, " (cases/README.md, Limits)");
  if (!text) return Failure(file.string() + ": " + text.error());
  return text;
}

std::string ops_text(const std::vector<Operation>& ops) {
  std::string text = "[";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i) text += ", ";
    text += to_string(ops[i]);
  }
  return text + "]";
}

namespace {

// Replaces a file's content through a temporary file beside it and a rename, so
// that a failure (a full disk, say) leaves the old content whole. The file must
// be writable as it stands: a rename would otherwise replace a read-only file.
Checked<void> replace_file(const std::filesystem::path& file, const std::string& text) {
  const auto fail = [&](const std::string& step, int code) {
    return Failure(file.string() + ": cannot " + step + ": " + errno_text(code));
  };
  std::error_code resolve_error;
  // Through a symbolic link to its target, rather than over the link.
  const std::filesystem::path target = std::filesystem::canonical(file, resolve_error);
  if (resolve_error) return Failure(file.string() + ": cannot resolve: " + resolve_error.message());
  struct stat info {};
  if (::stat(target.c_str(), &info) != 0) return fail("stat", errno);
  if (::access(target.c_str(), W_OK) != 0) return fail("write", errno);
  std::string temporary = target.string() + ".regen-XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return fail("create a temporary file beside it", errno);
  const auto fail_and_remove = [&](const std::string& step, int code, bool close_it) {
    if (close_it) ::close(fd);
    ::unlink(temporary.c_str());
    return fail(step, code);
  };
  for (std::size_t written = 0; written < text.size();) {
    const ::ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return fail_and_remove("write " + temporary, count < 0 ? errno : EIO, true);
    written += static_cast<std::size_t>(count);
  }
  if (::fchmod(fd, info.st_mode & 07777) != 0)
    return fail_and_remove("set the mode of " + temporary, errno, true);
  if (::close(fd) != 0) return fail_and_remove("close " + temporary, errno, false);
  if (::rename(temporary.c_str(), target.c_str()) != 0)
    return fail_and_remove("rename " + temporary + " over it", errno, false);
  return {};
}

// One line of a file with its line end ("\n", "\r\n", or "" on a last line
// without one), so that lines regen does not touch come out byte for byte.
struct Line {
  std::string_view content;
  std::string_view end;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t newline = text.find('\n', at);
    if (newline == std::string_view::npos) {
      lines.push_back({text.substr(at), {}});
      break;
    }
    const std::size_t cr = newline > at && text[newline - 1] == '\r' ? 1 : 0;
    lines.push_back({text.substr(at, newline - cr - at), text.substr(newline - cr, cr + 1)});
    at = newline + 1;
  }
  return lines;
}

bool blank(std::string_view line) { return line.find_first_not_of(' ') == std::string_view::npos; }

std::string_view skip_space(std::string_view text) {
  const auto at = text.find_first_not_of(" \t");
  return at == std::string_view::npos ? std::string_view{} : text.substr(at);
}

// `ops: [decode, encode]`, whole on one line and with nothing after it: the
// form regen writes and the only one it rewrites.
bool plain_ops_line(std::string_view line) {
  if (line.rfind("ops:", 0) != 0) return false;
  std::string_view rest = line.substr(4);
  if (rest.empty() || (rest[0] != ' ' && rest[0] != '\t')) return false;
  rest = skip_space(rest);
  if (rest.empty() || rest[0] != '[') return false;
  const auto close = rest.find(']');
  if (close == std::string_view::npos || !skip_space(rest.substr(close + 1)).empty()) return false;
  for (char c : rest.substr(1, close - 1))
    if (!((c >= 'a' && c <= 'z') || c == ',' || c == ' ' || c == '\t')) return false;
  return true;
}

// `block: |`, the form regen writes; its lines are checked by hex_line.
bool plain_block_line(std::string_view line) {
  if (line.rfind("block:", 0) != 0) return false;
  const std::string_view rest = line.substr(6);
  if (rest.empty() || (rest[0] != ' ' && rest[0] != '\t')) return false;
  const std::string_view value = skip_space(rest);
  return !value.empty() && value[0] == '|' && skip_space(value.substr(1)).empty();
}

bool hex_line(std::string_view line) {
  if (line.empty() || line[0] != ' ') return false;
  for (char c : line)
    if (!(c == ' ' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
      return false;
  return true;
}

// The lines of a top-level key's value, from the key's own line: the lines
// after it up to the last indented one before the next line that starts in
// column 1 (trailing blank lines stay where they are).
std::size_t value_end(const std::vector<Line>& lines, std::size_t key_line) {
  std::size_t end = key_line + 1;
  for (std::size_t k = key_line + 1; k < lines.size(); ++k) {
    const std::string_view content = lines[k].content;
    if (blank(content)) continue;
    if (content[0] != ' ' && content[0] != '\t') break;
    end = k + 1;
  }
  return end;
}

// Deep equality of two YAML trees, tags and key order included. The budget
// bounds the work on a tree that aliases expand (or that an alias makes
// cyclic): running out counts as a difference.
bool same_tree(const YAML::Node& a, const YAML::Node& b, std::size_t& budget, int depth = 0) {
  if (budget == 0 || depth > 64) return false;
  --budget;
  if (a.Type() != b.Type() || a.Tag() != b.Tag()) return false;
  switch (a.Type()) {
    case YAML::NodeType::Scalar:
      return a.Scalar() == b.Scalar();
    case YAML::NodeType::Sequence: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_tree(a[i], b[i], budget, depth + 1)) return false;
      return true;
    }
    case YAML::NodeType::Map: {
      if (a.size() != b.size()) return false;
      for (auto x = a.begin(), y = b.begin(); x != a.end() && y != b.end(); ++x, ++y)
        if (!same_tree(x->first, y->first, budget, depth + 1) ||
            !same_tree(x->second, y->second, budget, depth + 1))
          return false;
      return true;
    }
    default:
      return true;
  }
}

// Why the rewritten text would not load as the same case with the new ops and
// block, or nothing when it would: every other top-level key must have the
// same tree as before, and ops and block must appear once (block not at all
// when there is none) with exactly the new values.
std::optional<std::string> rewrite_problem(const YAML::Node& before, const YAML::Node& after,
                                           const std::vector<Operation>& ops,
                                           const std::optional<std::vector<std::uint8_t>>& block) {
  if (!after.IsMap()) return "it is no longer a mapping";
  std::vector<std::pair<YAML::Node, YAML::Node>> kept_before, kept_after;
  std::size_t ops_count = 0, block_count = 0;
  for (const auto& item : before)
    if (!(item.first.IsScalar() && (item.first.Scalar() == "ops" || item.first.Scalar() == "block")))
      kept_before.emplace_back(item.first, item.second);
  for (const auto& item : after) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string();
    if (key == "ops") {
      ++ops_count;
      const YAML::Node& value = item.second;
      bool same = value.IsSequence() && value.size() == ops.size();
      for (std::size_t i = 0; same && i < ops.size(); ++i)
        same = value[i].IsScalar() && value[i].Scalar() == to_string(ops[i]);
      if (!same) return "'ops' would not read back as " + ops_text(ops);
    } else if (key == "block") {
      ++block_count;
      const YAML::Node& value = item.second;
      const auto bytes = value.IsScalar() ? from_hex(value.Scalar(), nullptr, true) : std::nullopt;
      if (!block || !bytes || *bytes != *block) return "'block' would not read back as the new bytes";
    } else {
      kept_after.emplace_back(item.first, item.second);
    }
  }
  if (ops_count != 1) return "'ops' would appear " + std::to_string(ops_count) + " times";
  if (block_count != (block ? 1u : 0u))
    return "'block' would appear " + std::to_string(block_count) + " times";
  if (kept_before.size() != kept_after.size()) return "the other keys would change";
  std::size_t budget = 1u << 22;
  for (std::size_t i = 0; i < kept_before.size(); ++i)
    if (!same_tree(kept_before[i].first, kept_after[i].first, budget) ||
        !same_tree(kept_before[i].second, kept_after[i].second, budget))
      return "the key on line " + std::to_string(kept_after[i].first.Mark().line + 1) +
             " would read back differently";
  return std::nullopt;
}

}  // namespace

// A folder without a single case file is almost always a wrong --cases: say
// so rather than pass with nothing checked.
bool report_empty_set(const CaseSet& set, const std::filesystem::path& root, const char* command,
                      std::ostream& err) {
  if (!set.cases.empty() || !set.errors.empty()) return false;
  err << command << ": no case files (*.yaml) in " << root.string() << ": nothing done\n";
  return true;
}

std::string block_hex_lines(const std::vector<std::uint8_t>& block, const std::string& indent) {
  constexpr std::size_t kBytesPerLine = 32;
  std::string text;
  for (std::size_t at = 0; at < block.size(); at += kBytesPerLine) {
    const std::size_t count = std::min(kBytesPerLine, block.size() - at);
    text += indent + to_hex(std::span(block).subspan(at, count)) + "\n";
  }
  return text;
}

Result<std::string, CaseError> rewrite_generated_keys(
    const std::string& text, const Case& test_case,
    const std::optional<std::vector<std::uint8_t>>& block) {
  const auto refuse = [&](std::size_t line, std::size_t column, std::string message) {
    return CaseError{SourceMark{test_case.origin.file, static_cast<int>(line),
                                static_cast<int>(column)},
                     std::move(message)};
  };
  const std::vector<Line> lines = split_lines(text);
  // yaml-cpp counts only LF as a line end where other YAML parsers count a lone
  // CR too: with one in the file, lines cannot be matched to keys safely.
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (const auto cr = lines[i].content.find('\r'); cr != std::string_view::npos)
      return refuse(i + 1, cr + 1,
                    "a carriage return that does not end a line: regen rewrites only files with "
                    "LF or CRLF line ends");
  // New lines take the file's line end, so that a CRLF file stays CRLF.
  std::string eol = "\n";
  for (const Line& line : lines)
    if (!line.end.empty()) {
      eol = std::string(line.end);
      break;
    }

  YAML::Node before;
  try {
    before = YAML::Load(text);
  } catch (const YAML::Exception& problem) {
    return refuse(static_cast<std::size_t>(problem.mark.line + 1),
                  static_cast<std::size_t>(problem.mark.column + 1), problem.msg);
  } catch (const std::exception& problem) {
    return refuse(1, 1, std::string("cannot parse: ") + problem.what());
  }
  if (!before.IsMap() || before.Style() != YAML::EmitterStyle::Block)
    return refuse(1, 1, "regen rewrites only a file that is a block mapping (key: value lines)");

  // Where ops and block stand: found by the parser, then held to the one plain
  // form regen writes, so that a quoted, tagged, anchored or block-sequence
  // spelling is refused instead of left beside a rewritten copy.
  std::optional<std::size_t> key_line[2];  // ops, block
  const char* const kNames[2] = {"ops", "block"};
  const char* const kForms[2] = {
      "`ops: [decode, encode]` on one line",
      "`block: |` followed by lines of hex indented by two spaces"};
  for (const auto& item : before) {
    const YAML::Mark mark = item.first.Mark();
    const std::size_t line = mark.line >= 0 ? static_cast<std::size_t>(mark.line) : lines.size();
    if (mark.column != 0 || line >= lines.size())
      return refuse(line + 1, static_cast<std::size_t>(mark.column + 1),
                    "a top-level key that does not start in column 1: regen cannot rewrite this "
                    "file safely");
    if (!item.first.IsScalar()) continue;
    for (int k = 0; k < 2; ++k) {
      if (item.first.Scalar() != kNames[k]) continue;
      const std::string name = kNames[k];
      if (key_line[k])
        return refuse(line + 1, 1,
                      "a second '" + name + "' key (the first is on line " +
                          std::to_string(*key_line[k] + 1) + "): keep one, then run regen");
      key_line[k] = line;
      const std::size_t end = value_end(lines, line);
      bool plain = k == 0 ? plain_ops_line(lines[line].content) && end == line + 1
                          : plain_block_line(lines[line].content);
      for (std::size_t j = line + 1; plain && j < end; ++j)
        plain = blank(lines[j].content) || hex_line(lines[j].content);
      if (!plain)
        return refuse(line + 1, 1,
                      "cannot rewrite this form of '" + name + "' safely; write it as " +
                          kForms[k] + ", or delete the key and run regen");
    }
  }

  Case regenerated = test_case;
  if (CaseBody* body = regenerated.body()) body->set_stored_block(block);
  const std::vector<Operation> ops = regenerated.derived_ops();
  std::string replacement[2];
  replacement[0] = "ops: " + ops_text(ops) + eol;
  if (block) {
    replacement[1] = "block: |" + eol;
    std::istringstream hex(block_hex_lines(*block, "  "));
    for (std::string line; std::getline(hex, line);) replacement[1] += line + eol;
  }

  std::string output;
  output.reserve(text.size() + replacement[1].size() + 64);
  for (std::size_t i = 0; i < lines.size();) {
    int key = -1;
    for (int k = 0; k < 2; ++k)
      if (key_line[k] == i) key = k;
    if (key < 0) {
      output.append(lines[i].content).append(lines[i].end);
      ++i;
      continue;
    }
    output += replacement[key];
    i = value_end(lines, i);
  }
  for (int k = 0; k < 2; ++k) {
    if (key_line[k] || replacement[k].empty()) continue;
    if (!output.empty() && output.back() != '\n') output += eol;
    output += replacement[k];
  }

  // The new text must read back as the same case with the new ops and block;
  // anything this function did not foresee is refused here, before a write.
  std::optional<std::string> problem;
  try {
    problem = rewrite_problem(before, YAML::Load(output), ops, block);
  } catch (const std::exception& error) {
    problem = std::string("it would not parse: ") + error.what();
  }
  if (problem)
    return refuse(1, 1, "regen cannot rewrite this file safely: " + *problem +
                            "; write ops and block as regen writes them, at the top level");
  return output;
}

std::vector<std::string> check_case(const Case& test_case) { return profile_of(test_case).check(test_case); }

bool report_load_errors(const CaseSet& set, std::ostream& err) {
  for (const auto& error : set.errors) err << error.describe() << "\n";
  return set.errors.empty();
}

int cases_regen(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  // The sweep families first, so that their files load below like any other.
  if (const int code = regen_families(root, out, err); code != kExitOk) return code;
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) {
    err << "regen: nothing written: " << set.errors.size() << " case file(s) do not load\n";
    return kExitUsage;
  }
  if (report_empty_set(set, root, "regen", err)) return kExitUsage;
  // Materialise everything first so that one bad fault leaves every file untouched.
  std::vector<std::pair<const Case*, std::optional<std::vector<std::uint8_t>>>> results;
  bool failed = false;
  for (const Case& c : set.cases) {
    auto made = profile_of(c).regen_block(c);
    if (!made) {
      err << c.origin.describe() << ": " << c.id << ": " << made.error() << "\n";
      failed = true;
      continue;
    }
    results.emplace_back(&c, std::move(made).value());
  }
  if (failed) {
    err << "regen: nothing written\n";
    return kExitUsage;
  }
  // Every new text is worked out (and read back) before any is written, for
  // the same reason: a file regen cannot rewrite safely leaves all untouched.
  struct Rewrite {
    std::filesystem::path file;
    const Case* c;
    std::string text;
  };
  std::vector<Rewrite> rewrites;
  std::size_t refused = 0;
  for (const auto& [c, block] : results) {
    const std::filesystem::path file = root.parent_path() / c->origin.file;
    const auto read = read_case_folder_file(file);
    if (!read) {
      err << "regen: " << read.error() << "\n";
      ++refused;
      continue;
    }
    const std::string& before = read.value();
    auto after = rewrite_generated_keys(before, *c, block);
    if (!after) {
      err << after.error().describe() << "\n";
      ++refused;
      continue;
    }
    if (*after == before) continue;
    rewrites.push_back({file, c, std::move(after).value()});
  }
  if (refused) {
    err << "regen: nothing written: " << refused << " file(s) cannot be rewritten safely\n";
    return kExitUsage;
  }
  std::size_t changed = 0, unwritten = 0;
  for (const Rewrite& rewrite : rewrites) {
    if (const auto replaced = replace_file(rewrite.file, rewrite.text); !replaced) {
      err << "regen: " << replaced.error() << "\n";
      ++unwritten;
      continue;
    }
    ++changed;
    out << "rewrote " << rewrite.c->origin.file << "\n";
  }
  out << "regen: " << set.cases.size() << " cases, " << changed << " file(s) rewritten\n";
  if (unwritten) {
    err << "regen: " << unwritten << " file(s) could not be written\n";
    return kExitFailures;
  }
  return kExitOk;
}

int cases_check(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (report_empty_set(set, root, "check", err)) return kExitUsage;
  const bool loaded = report_load_errors(set, err);
  std::size_t failing = 0;
  for (const Case& c : set.cases) {
    const auto problems = check_case(c);
    if (!problems.empty()) ++failing;
    for (const auto& problem : problems)
      err << c.origin.file << ": " << c.id << ": " << problem << "\n";
  }
  for (const Profile* profile : all_profiles()) profile->check_summary(set, out);
  const std::size_t family_failures = check_families(root, set, err);
  out << (set.cases.size() - std::min(failing, set.cases.size())) << " passed, "
      << failing + set.errors.size() + family_failures << " failed\n";
  if (family_failures) failing += family_failures;
  if (!loaded) return kExitUsage;
  return failing == 0 ? kExitOk : kExitFailures;
}

int cases_coverage(const std::filesystem::path& root, std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) return kExitUsage;
  if (report_empty_set(set, root, "coverage", err)) return kExitUsage;
  std::size_t uncovered = 0, rule_count = 0;
  // alone: breaking cases that break no other rule, checked whole (cases/README.md,
  // "Isolation"): the ones that tell a reader without the rule's check from one with it.
  std::vector<bool> isolated(set.cases.size());
  for (std::size_t i = 0; i < set.cases.size(); ++i)
    isolated[i] = profile_of(set.cases[i]).breaks_alone(set.cases[i]);
  // Rule by rule, profile by profile: every profile's rules need breaking cases.
  for (const Profile* profile : all_profiles()) {
    std::size_t profile_cases = 0, profile_uncovered = 0;
    for (const Case& c : set.cases) profile_cases += &profile_of(c) == profile;
    // A folder of one profile's cases (a copy, an export) is judged on that profile.
    if (profile_cases == 0) {
      out << (rule_count ? "\n" : "") << "profile " << profile->name() << ": no cases\n";
      continue;
    }
    out << (rule_count ? "\n" : "") << "profile " << profile->name() << " (" << profile->document() << "): "
        << profile_cases << " cases\n";
    // swept: cases of the sweep families (cases/families) that exercise the rule.
    out << "rule                        breaking  alone  exercising  swept  example\n";
    for (const ProfileRule& rule : profile->rules()) {
      ++rule_count;
      std::size_t breaking = 0, alone = 0, exercising = 0, swept = 0;
      std::string example;
      for (std::size_t i = 0; i < set.cases.size(); ++i) {
        const Case& c = set.cases[i];
        if (&profile_of(c) != profile) continue;
        if (c.expected_rule_id() == rule.id) {
          if (!breaking) example = c.id;
          ++breaking;
          alone += isolated[i];
        }
        const auto ids = c.rule_ids();
        const bool exercises = std::find(ids.begin(), ids.end(), rule.id) != ids.end();
        exercising += exercises;
        swept += exercises && c.source.rfind("family ", 0) == 0;
      }
      char line[200];
      std::snprintf(line, sizeof line, "%-27s %9zu %6zu %11zu %6zu  %s\n", std::string(rule.id).c_str(),
                    breaking, alone, exercising, swept, breaking ? example.c_str() : "NO CASE BREAKS THIS RULE");
      out << line;
      profile_uncovered += breaking == 0;
    }
    out << profile->name() << ": " << profile->rules().size() << " rules, " << profile_uncovered
        << " without a breaking case\n";
    uncovered += profile_uncovered;
  }
  // The sweep families: what each generates, by outcome and by rule.
  std::map<std::string, std::vector<const Case*>> by_family;
  for (const Case& c : set.cases)
    if (c.source.rfind("family ", 0) == 0) by_family[c.source.substr(7)].push_back(&c);
  if (!by_family.empty()) {
    out << "\nfamily                          cases  accept  reject  rules broken\n";
    for (const auto& [family, members] : by_family) {
      std::map<std::string_view, std::size_t> rules;
      std::size_t accepted = 0;
      for (const Case* c : members) {
        if (!c->expects_reject()) ++accepted;
        else if (auto id = c->expected_rule_id()) ++rules[*id];
      }
      std::string broken;
      for (const auto& [id, count] : rules)
        broken += (broken.empty() ? "" : ", ") + std::string(id) + " " + std::to_string(count);
      char line[120];
      std::snprintf(line, sizeof line, "%-30s %6zu %7zu %7zu  ", family.c_str(), members.size(),
                    accepted, members.size() - accepted);
      out << line << (broken.empty() ? "-" : broken) << "\n";
    }
  }
  out << set.cases.size() << " cases, " << rule_count << " rules, " << uncovered
      << " rule(s) without a breaking case\n";
  return uncovered == 0 ? kExitOk : kExitFailures;
}

std::string case_set_hash(const CaseSet& set) {
  Sha256 hash;
  for (const Case& c : set.cases) {
    // Kiln's identity is "<expectation>\n<block hex>", so its hashes read as before.
    const std::string identity = profile_of(c).identity(c);
    const std::size_t split = identity.find('\n');
    hash.update(c.id + "\n" + identity.substr(0, split) + "\n" + ops_text(c.derived_ops()) + "\n");
    hash.update(split == std::string::npos ? std::string() : identity.substr(split + 1));
    hash.update("\n");
  }
  return hash.hex_digest();
}

// Every file is created exclusively (safe_file.hpp): export never writes through
// a symbolic link nor replaces a file, so a link planted at a case's name cannot
// redirect it. A name that is taken fails the export (1, like a file it cannot
// write), naming the first such file in writing order; all names are checked
// before anything is written, so a second export into the same folder writes
// nothing. A name taken in between is still refused by the exclusive create.
int cases_export(const std::filesystem::path& root, const std::filesystem::path& destination,
                 std::ostream& out, std::ostream& err) {
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) {
    err << "export: nothing written\n";
    return kExitUsage;
  }
  if (report_empty_set(set, root, "export", err)) return kExitUsage;
  std::error_code error;
  std::filesystem::create_directories(destination, error);
  if (error) {
    err << destination.string() << ": cannot create: " << error.message() << "\n";
    return kExitUsage;
  }
  protocol::Json index;
  index["format"] = "kiln-conformance-export";
  // 2: cases of every profile, each entry naming its own (1 had the first profile's alone).
  index["export_version"] = 2;
  index["suite_version"] = KILN_SUITE_VERSION;
  index["profiles"] = protocol::Json::array();
  for (const Profile* profile : all_profiles()) index["profiles"].push_back(std::string(profile->name()));
  index["case_set_sha256"] = case_set_hash(set);
  index["cases"] = protocol::Json::array();
  // Each file's name and bytes, index.json last, written once every name is free.
  std::vector<std::pair<std::string, std::string>> files;
  for (const Case& c : set.cases) {
    Profile::Exported exported = profile_of(c).export_case(c);
    const std::string file = c.id + std::string(exported.extension);
    protocol::Json entry;
    entry["id"] = c.id;
    entry["summary"] = c.summary;
    entry["file"] = exported.bytes ? protocol::Json(file) : protocol::Json(nullptr);
    entry["source"] = c.source;
    entry["level"] = "required";  // every case's, kept so that an index reads as before
    entry["ops"] = protocol::Json::array();
    for (Operation op : c.derived_ops()) entry["ops"].push_back(std::string(to_string(op)));
    for (auto& [key, value] : exported.entry.items()) entry[key] = std::move(value);
    index["cases"].push_back(std::move(entry));
    if (exported.bytes) files.emplace_back(file, std::string(exported.bytes->begin(), exported.bytes->end()));
  }
  files.emplace_back("index.json", index.dump(1, ' ', false, protocol::Json::error_handler_t::replace) + "\n");
  for (const auto& [file, bytes] : files) {
    if (auto checked = check_new_file(destination / file); !checked) {
      err << "export: " << checked.error() << "\n";
      return kExitFailures;
    }
  }
  for (const auto& [file, bytes] : files) {
    if (auto written = create_new_file(destination / file, bytes); !written) {
      err << "export: " << written.error() << "\n";
      return kExitFailures;
    }
  }
  out << "export: " << set.cases.size() << " cases to " << destination.string() << "\n";
  return kExitOk;
}

}  // namespace kiln::conformance