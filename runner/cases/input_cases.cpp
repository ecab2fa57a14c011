// `cases from-input` and `cases seeds`: between a profile's raw fuzz inputs
// (raw_input.hpp) and golden cases, both ways.
#include <set>
#include <string>
#include <vector>

#include "cases/case_tools_internal.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/fuzz_case.hpp"
#include "kiln/conformance/profile.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/raw_input.hpp"
#include "kiln/conformance/safe_file.hpp"
#include "kiln/conformance/sha256.hpp"

namespace kiln::conformance {
namespace {

// The profile's raw input format, or why there is none (said on err).
const RawInputFormat* raw_input_of(std::string_view profile, const char* command, std::ostream& err) {
  const ProfileModule* module = find_profile_module(profile);
  if (module && module->raw_input) return module->raw_input;
  err << command << ": profile '" << profile << "' has no raw fuzz input (profiles with one: "
      << raw_input_profile_names(" or ") << ")\n";
  return nullptr;
}

// "accepts" or "rejects FRAME (FRAME-MAGIC)": what the written case expects.
std::string expectation_of(const Case& c) {
  if (!c.expects_reject()) return "the reference accepts";
  const auto rule = c.expected_rule_id();
  return "the reference rejects" + (rule ? " (" + std::string(*rule) + ")" : std::string());
}

}  // namespace

int cases_from_input(const std::filesystem::path& input_file, std::string_view profile,
                     const std::filesystem::path& out_dir, std::ostream& out, std::ostream& err) {
  const RawInputFormat* format = raw_input_of(profile, "from-input", err);
  if (!format) return kExitUsage;
  const Checked<std::string> read =
      read_regular_file(input_file, kMaxRawInputFileBytes, " (cases from-input reads at most this much)");
  if (!read) {
    err << "from-input: " << input_file.string() << ": " << read.error() << "\n";
    return kExitUsage;
  }
  const std::span<const std::uint8_t> input(reinterpret_cast<const std::uint8_t*>(read.value().data()),
                                            read.value().size());
  Sha256 hash;
  hash.update(input);
  const std::string digest = hash.hex_digest();
  const std::string name = input_file.filename().string();
  const std::vector<Case> cases =
      format->cases_of(input, "A fuzz input (" + protocol::printable(name) + ") as the reference judges it");
  const std::vector<std::string> comments{
      "# Written by kiln-conformance cases from-input from " + protocol::printable(name) + " (" +
          std::to_string(input.size()) + " bytes, SHA-256 " + digest + ").",
      "# It expects what the reference says of the input: commit it under cases/ as it is."};
  if (auto made = make_output_dir(out_dir); !made) {
    err << "from-input: " << made.error() << "\n";
    return kExitFailures;
  }
  int status = kExitOk;
  for (const Case& c : cases) {
    const std::filesystem::path file = out_dir / (c.id + ".yaml");
    const std::string text = case_yaml(c, comments);
    if (auto written = create_new_file(file, text); !written) {
      // The same input written before leaves the same file: nothing to do.
      const Checked<std::string> before = read_regular_file(file, text.size(), "");
      if (before && before.value() == text) {
        out << "from-input: " << file.string() << ": already written (ops " << ops_text(c.ops) << "; "
            << expectation_of(c) << ")\n";
        continue;
      }
      err << "from-input: " << written.error() << "\n";
      status = kExitFailures;
      continue;
    }
    // What is written must be a case `cases check` accepts: checked here, at once.
    const std::vector<std::string> problems = check_case_file(file);
    for (const std::string& problem : problems)
      err << "from-input: " << file.string() << ": the written case fails cases check: " << problem << "\n";
    if (!problems.empty()) {
      status = kExitFailures;
      continue;
    }
    out << "from-input: wrote " << file.string() << " (ops " << ops_text(c.ops) << "; " << expectation_of(c) << ")\n";
  }
  return status;
}

int cases_seeds(const std::filesystem::path& root, std::string_view profile,
                const std::filesystem::path& out_dir, std::ostream& out, std::ostream& err) {
  const RawInputFormat* format = raw_input_of(profile, "seeds", err);
  if (!format) return kExitUsage;
  const CaseSet set = load_case_set(root);
  if (!report_load_errors(set, err)) {
    err << "seeds: nothing written\n";
    return kExitUsage;
  }
  if (report_empty_set(set, root, "seeds", err)) return kExitUsage;
  // One file per distinct input, named by its case; every name checked first.
  std::vector<std::pair<std::filesystem::path, std::vector<std::uint8_t>>> seeds;
  std::set<std::vector<std::uint8_t>> seen;
  std::size_t longer = 0;
  for (const Case& c : set.cases) {
    if (profile_of(c).name() != profile) continue;
    std::optional<std::vector<std::uint8_t>> input = format->input_of(c);
    if (!input) continue;
    if (input->size() > format->max_length) {
      ++longer;
      continue;
    }
    if (seen.insert(*input).second) seeds.emplace_back(out_dir / c.id, std::move(*input));
  }
  if (seeds.empty()) {
    err << "seeds: no case of profile " << profile << " in " << root.string() << " has an input: nothing written\n";
    return kExitUsage;
  }
  if (auto made = make_output_dir(out_dir); !made) {
    err << "seeds: " << made.error() << "\n";
    return kExitFailures;
  }
  for (const auto& [file, bytes] : seeds)
    if (auto checked = check_new_file(file); !checked) {
      err << "seeds: " << checked.error() << "\n";
      return kExitFailures;
    }
  for (const auto& [file, bytes] : seeds)
    if (auto written = create_new_file(file, std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                                              bytes.size()));
        !written) {
      err << "seeds: " << written.error() << "\n";
      return kExitFailures;
    }
  out << "seeds: " << seeds.size() << " inputs of profile " << profile << " to " << out_dir.string();
  if (longer) out << " (" << longer << " longer than the fuzzer's max_len of " << format->max_length << " left out)";
  out << "\n";
  return kExitOk;
}

}  // namespace kiln::conformance
