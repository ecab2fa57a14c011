// The case loader's two YAML readers (cases/case_yaml.hpp): wherever the fast
// one (libyaml) vouches for a file, the checked one (yaml-cpp, the definition)
// reads it without complaint to the same tree. Held on every case of the suite,
// on mutants of them, and on the constructs the fast reader must leave alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cases/case_yaml.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/yaml_reading.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;

// The first difference of two trees as a path and what differs, or "".
// Scalar marks are compared; yaml-cpp marks nulls and block sequences where
// libyaml has no event, and no reader's verdict depends on those marks.
std::string difference(const yaml::Node& a, const yaml::Node& b, const std::string& path = "root") {
  if (a.IsMap() != b.IsMap() || a.IsSequence() != b.IsSequence() || a.IsScalar() != b.IsScalar() ||
      a.IsNull() != b.IsNull())
    return path + ": kinds differ";
  if (a.Tag() != b.Tag()) return path + ": tags '" + a.Tag() + "' and '" + b.Tag() + "'";
  if (a.IsScalar()) {
    if (a.Scalar() != b.Scalar()) return path + ": '" + a.Scalar() + "' and '" + b.Scalar() + "'";
    if (a.Mark().pos != b.Mark().pos || a.Mark().line != b.Mark().line ||
        a.Mark().column != b.Mark().column)
      return path + ": marks at " + std::to_string(a.Mark().pos) + " and " + std::to_string(b.Mark().pos);
    return "";
  }
  if (a.size() != b.size()) return path + ": sizes differ";
  auto left = a.begin();
  auto right = b.begin();
  for (std::size_t i = 0; left != a.end(); ++left, ++right, ++i) {
    const auto x = *left;
    const auto y = *right;
    const std::string at = path + "[" + std::to_string(i) + "]";
    std::string found = a.IsMap() ? difference(x.first, y.first, at + ".key") : difference(x, y, at);
    if (found.empty() && a.IsMap()) found = difference(x.second, y.second, at + ".value");
    if (!found.empty()) return found;
  }
  return "";
}

enum class Verdict { kFallBack, kSameTree };

// Fails the test when the fast reader vouches for text and the checked reader
// disagrees.
Verdict compare_readers(const std::string& text, const std::string& what) {
  yaml::Document fast;
  if (!case_yaml::read_fast(text, fast)) return Verdict::kFallBack;
  yaml::Document checked;
  try {
    EXPECT_TRUE(case_yaml::read_checked(text, checked)) << what << ": no document for yaml-cpp";
  } catch (const yaml_reading::Invalid& problem) {
    ADD_FAILURE() << what << ": the fast reader took a file the bounds refuse: " << problem.message
                  << "\n" << text;
    return Verdict::kSameTree;
  } catch (const YAML::Exception& problem) {
    ADD_FAILURE() << what << ": the fast reader took a file yaml-cpp refuses: " << problem.msg
                  << " at " << problem.mark.line + 1 << ":" << problem.mark.column + 1 << "\n" << text;
    return Verdict::kSameTree;
  }
  const std::string found = difference(fast.root(), checked.root());
  EXPECT_EQ(found, "") << what << "\n" << text;
  return Verdict::kSameTree;
}

std::vector<fs::path> suite_case_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(KILN_SOURCE_CASES_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CaseYaml, EverySuiteCaseReadsToTheSameTreeAndAlmostAllFast) {
  const auto files = suite_case_files();
  ASSERT_GT(files.size(), 1000u);
  std::size_t fell_back = 0;
  std::string first_fallback;
  for (const auto& file : files) {
    const std::string text = testing::read_text(file);
    if (compare_readers(text, file.filename().string()) == Verdict::kFallBack) {
      if (!fell_back++) first_fallback = file.filename().string();
    }
  }
  // The suite's own files are what loading time is spent on: all but a few
  // (hostile spellings kept on purpose) take the fast reader.
  EXPECT_LE(fell_back * 100, files.size()) << fell_back << " fell back, the first " << first_fallback;
}

// Mutants of suite cases, made of YAML's own characters, where readers differ
// if anywhere: each either falls back or reads to the checked reader's tree.
TEST(CaseYaml, MutantsOfSuiteCasesFallBackOrReadTheSame) {
  const auto files = suite_case_files();
  std::mt19937_64 random(20261204);
  const std::string alphabet = ":#-?[]{},&*!|>'\"%@` \n\t\r\\~.0aZ\xc3\xa9";
  const std::vector<std::string> pieces = {"\n  ", ": ", " #", "- ", "|\n", "|-\n", ">\n", "---\n",
                                           "...\n", "null", "~", "\"\\x41\"", "'it''s'", "[", "]",
                                           "{", "}", ", ", "\xef\xbb\xbf", "\xc2\x85", "!!str "};
  const std::string_view value_chars = "aZ09_-+. \"'[],";  // what values hold
  std::size_t vouched = 0;
  // KILN_CASE_YAML_MUTANTS asks for a longer search than the default's seconds.
  const char* asked = std::getenv("KILN_CASE_YAML_MUTANTS");
  const int kMutants = asked ? std::max(1, std::atoi(asked)) : 6000;
  for (int i = 0; i < kMutants; ++i) {
    std::string text = testing::read_text(files[random() % files.size()]);
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 6) {
        case 0: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
        case 1: text.insert(at, pieces[random() % pieces.size()]); break;
        case 2: text.erase(at, 1 + random() % 4); break;
        case 3: text[at] = alphabet[random() % alphabet.size()]; break;
        default: text.insert(at, 1, value_chars[random() % value_chars.size()]); break;
      }
    }
    if (compare_readers(text, "mutant " + std::to_string(i)) == Verdict::kSameTree) ++vouched;
    if (::testing::Test::HasFailure()) break;
  }
  // Most single edits leave a readable file: the fast reader must have been tried.
  EXPECT_GT(vouched, static_cast<std::size_t>(kMutants / 10));
}

TEST(CaseYaml, LeavesWhatTheReadersMightReadDifferentlyToYamlCpp) {
  const std::string good = "id: x\nsummary: a b\nlist: [1, 2]\n";
  ASSERT_EQ(compare_readers(good, "good"), Verdict::kSameTree);
  const std::vector<std::pair<std::string, std::string>> leave = {
      {"a tab", "id: x\nsummary:\ta\n"},
      {"a CR", "id: x\r\nsummary: a\r\n"},
      {"a byte-order mark", "\xef\xbb\xbfid: x\n"},
      {"a NEL", "id: x\nsummary: a\xc2\x85 b\n"},
      {"a directive", "%YAML 1.2\n---\nid: x\n"},
      {"a tag", "id: !!str x\n"},
      {"an anchor", "id: &a x\nother: b\n"},
      {"an alias", "id: &a x\nother: *a\n"},
      {"a second document", "id: x\n---\nid: y\n"},
      {"a folded block", "summary: >\n  a\n  b\n"},
      {"a kept block", "block: |+\n  00\n\n"},
      {"a stripped block", "block: |-\n  00\n"},
      {"a block with a blank line", "block: |\n  00\n\n  11\n"},
      {"a block indented unevenly", "block: |\n  00\n   11\n"},
      {"an escape", "name: \"a\\x41\"\n"},
      {"a colon in a plain scalar", "list: [a:b]\n"},
      {"a hash in a plain scalar", "summary: a#b\n"},
      {"a plain scalar over two lines", "summary: a\n  b\n"},
      {"a quoted scalar over two lines", "summary: \"a\n  b\"\n"},
      {"no document", "# only a comment\n"},
      {"a syntax error", "list: [1, 2\n"},
      {"too deep", "shape: " + std::string(31, '[') + std::string(31, ']') + "\n"},
  };
  for (const auto& [what, text] : leave)
    EXPECT_EQ(compare_readers(text, what), Verdict::kFallBack) << what;
}

TEST(CaseYaml, NullsAndStringsAreTypedAsYamlCppTypesThem) {
  const std::string text =
      "a: null\nb: ~\nc:\nd: 'null'\ne: NULL\nf: Null\ng: nULL\nh: \"\"\ni: [x, \"y\", 'z']\n"
      "j: {k: 1}\nl: |\n  00ff\n  aa\nm:\n  - 1\n  - q\nn\xc3\xa9: \"\xc3\xa9\"\n";
  ASSERT_EQ(compare_readers(text, "typed"), Verdict::kSameTree);
  yaml::Document document;
  ASSERT_TRUE(case_yaml::read_fast(text, document));
  const yaml::Node root = document.root();
  EXPECT_TRUE(root["a"].IsNull());
  EXPECT_TRUE(root["c"].IsNull());
  EXPECT_TRUE(root["d"].IsScalar());
  EXPECT_EQ(root["d"].Tag(), "!");
  EXPECT_EQ(root["g"].Tag(), "?");
  EXPECT_EQ(root["h"].Scalar(), "");
  EXPECT_EQ(root["l"].Scalar(), "00ff\naa\n");
  EXPECT_EQ(root["i"].size(), 3u);
  EXPECT_EQ(root["i"][1].Scalar(), "y");
  EXPECT_FALSE(root["i"][3]);
  EXPECT_FALSE(root["missing"]);
  EXPECT_THROW(root["j"]["k"]["no"], YAML::BadSubscript);
}

}  // namespace
}  // namespace kiln::conformance
