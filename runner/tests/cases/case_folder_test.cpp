// The walk of the cases folder (issue 3 item 4): every entry it cannot use (a
// link that leads nowhere or to a folder, a pipe, an unreadable or too deep
// folder, a schema that cannot be read or is not JSON) is a load error that
// makes the set unusable rather than shorter; the schema beside the cases is
// the one applied; a case's topic is its folder however the root is spelled.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::read_text;
using testing::write_text;

bool has_error(const CaseSet& set, const std::string& text) {
  return std::any_of(set.errors.begin(), set.errors.end(),
                     [&](const CaseError& e) { return e.describe() == text; });
}

std::string all_errors(const CaseSet& set) {
  std::string text;
  for (const auto& error : set.errors) text += error.describe() + "\n";
  return text;
}

TEST(CaseSet, ALinkThatLeadsNowhereIsALoadErrorNamingIt) {
  // A link to itself once made a throwing is_regular_file abort every subcommand.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_symlink("loop.yaml", root / "type" / "loop.yaml");
  std::filesystem::create_symlink("loop", root / "other" / "loop");
  std::filesystem::create_symlink("no-such-file.yaml", root / "other" / "gone.yaml");

  CaseSet set;
  ASSERT_NO_THROW(set = load_case_set(root));
  EXPECT_TRUE(has_error(set, "cases/type/loop.yaml: a link that leads nowhere: Too many levels of "
                             "symbolic links"))
      << all_errors(set);
  EXPECT_TRUE(has_error(set, "cases/other/loop: a link that leads nowhere: Too many levels of "
                             "symbolic links"))
      << all_errors(set);
  EXPECT_TRUE(has_error(set, "cases/other/gone.yaml: a link that leads nowhere: No such file or "
                             "directory"))
      << all_errors(set);
  EXPECT_EQ(set.errors.size(), 3u) << all_errors(set);

  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitUsage);
  EXPECT_EQ(cases_regen(root, out, err), kExitUsage);
}

TEST(CaseSet, ALinkToAFolderIsALoadErrorAndALinkToAFileIsFollowed) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_symlink("..", root / "type" / "up");
  std::filesystem::rename(root / "other" / "kiln-v2-f32.yaml", scratch / "kiln-v2-f32.yaml");
  std::filesystem::create_symlink(scratch / "kiln-v2-f32.yaml", root / "other" / "kiln-v2-f32.yaml");

  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/type/up: a link to a folder: links to folders are not followed\n");
  EXPECT_EQ(set.cases.size(), 6u);
}

TEST(CaseSet, AYamlEntryThatIsNotAFileIsALoadErrorNotAHang) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  ASSERT_EQ(::mkfifo((root / "type" / "kiln-v2-pipe.yaml").c_str(), 0600), 0) << std::strerror(errno);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/type/kiln-v2-pipe.yaml: not a regular file\n");
  // load_case_file itself opens without blocking and refuses it.
  auto loaded = load_case_file(root / "type" / "kiln-v2-pipe.yaml", "pipe.yaml", testing::suite_schema());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().describe(), "pipe.yaml: not a regular file");
}

// Root reads any folder: CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH override its
// permissions. Capabilities belong to a thread, so this drops the two from the
// calling thread's effective set while it lives (the permitted set keeps them,
// and the destructor raises them again).
class WithoutPermissionOverride {
 public:
  WithoutPermissionOverride() {
    if (::geteuid() != 0) {
      works_ = true;
      return;
    }
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capget, &header, saved_) != 0) return;
    __user_cap_data_struct reduced[2];
    std::memcpy(reduced, saved_, sizeof reduced);
    for (unsigned cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
      reduced[cap / 32].effective &= ~(1u << (cap % 32));
    header = {_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capset, &header, reduced) != 0) return;
    dropped_ = works_ = true;
  }
  ~WithoutPermissionOverride() {
    if (!dropped_) return;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    ::syscall(SYS_capset, &header, saved_);
  }
  WithoutPermissionOverride(const WithoutPermissionOverride&) = delete;
  WithoutPermissionOverride& operator=(const WithoutPermissionOverride&) = delete;
  bool works() const { return works_; }

 private:
  __user_cap_data_struct saved_[2]{};
  bool dropped_ = false;
  bool works_ = false;
};

TEST(CaseSet, AnUnreadableFolderMakesTheSetUnusable) {
  // It once shortened the case set silently: check and run exited 0.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::permissions(root / "type", std::filesystem::perms::none);
  struct Restore {
    std::filesystem::path folder;
    ~Restore() { std::filesystem::permissions(folder, std::filesystem::perms::owner_all); }
  } restore{root / "type"};

  CaseSet set;
  std::string check_err;
  int check_code = -1;
  {
    WithoutPermissionOverride unprivileged;
    if (!unprivileged.works())
      GTEST_SKIP() << "running as root and cannot drop CAP_DAC_OVERRIDE from this thread, so no "
                      "folder is unreadable; AFolderWalkErrorMakesTheSetUnusable covers the path";
    set = load_case_set(root);
    std::ostringstream out, err;
    check_code = cases_check(root, out, err);
    check_err = err.str();
  }
  EXPECT_EQ(all_errors(set), "cases/type: cannot read the folder: Permission denied\n");
  EXPECT_EQ(check_code, kExitUsage);
  EXPECT_NE(check_err.find("cases/type: cannot read the folder"), std::string::npos) << check_err;
}

TEST(CaseSet, AFolderWalkErrorMakesTheSetUnusable) {
  // Whoever runs the tests: folders nested past the bound stop the walk there,
  // and the set is unusable rather than shorter.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::path deep = root;
  std::string shown = "cases";
  for (int i = 0; i <= kMaxFolderDepth; ++i) {
    deep /= "d";
    shown += "/d";
  }
  std::filesystem::create_directories(deep);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), shown + ": folders nest more than 32 deep below the cases root\n");

  std::ostringstream out, err;
  EXPECT_EQ(cases_check(root, out, err), kExitUsage);
  EXPECT_EQ(cases_check(root / "other" / "kiln-v2-f32.yaml", out, err), kExitUsage)
      << "a file where the cases folder is expected";
}

TEST(CaseSet, AFolderWithoutASchemaIsCheckedWithTheBuiltInOne) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::remove(root / kCaseSchemaFile);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "");
  EXPECT_EQ(set.cases.size(), 6u);
  // The built-in schema is the suite's file as it is now.
  EXPECT_EQ(builtin_case_schema_text(), read_text(testing::suite_schema_path()));
}

TEST(CaseSet, ASchemaThatCannotBeReadMakesTheSetUnusable) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::remove(root / kCaseSchemaFile);
  std::filesystem::create_symlink("nowhere.json", root / kCaseSchemaFile);
  const CaseSet set = load_case_set(root);
  EXPECT_EQ(all_errors(set), "cases/case.schema.json: cannot open: No such file or directory\n");
  EXPECT_TRUE(set.cases.empty());
}

TEST(CaseSet, ASchemaThatIsNotJsonIsReportedAtItsLineAndColumn) {
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  write_text(root / kCaseSchemaFile, "{\n  \"type\": \"object\",\n  oops\n}\n");
  const CaseSet set = load_case_set(root);
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(set.errors[0].where.describe(), "cases/case.schema.json:3:3") << all_errors(set);
  EXPECT_NE(set.errors[0].message.find("not JSON"), std::string::npos) << all_errors(set);
}

TEST(CaseSet, TheSchemaBesideTheCasesIsTheOneApplied) {
  // One source of truth: a rule only the schema states is enforced, at the node.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  auto schema = nlohmann::json::parse(read_text(root / kCaseSchemaFile));
  schema["properties"]["summary"]["maxLength"] = 20;
  write_text(root / kCaseSchemaFile, schema.dump(2));

  const CaseSet set = load_case_set(root);
  // The u4 case's summary, "u4 [3] holds 1, 2, 3 as 21 03", is longer.
  EXPECT_TRUE(has_error(set, "cases/other/kiln-v2-u4.yaml:2:10: summary (a string) does not satisfy "
                             "cases/case.schema.json: String should be no more than 20 characters "
                             "in length"))
      << all_errors(set);
}

TEST(CaseSet, EveryCaseOfTheSuiteSatisfiesTheSchema) {
  const auto cases = testing::suite_schema_path().parent_path();
  const CaseSet set = load_case_set(cases);
  EXPECT_EQ(all_errors(set), "");
  EXPECT_GE(set.cases.size(), 558u);
}

TEST(CaseSet, TheTopicIsTheFolderBelowTheRootHoweverTheRootIsSpelled) {
  // `--cases cases/` once put every case in "(top)".
  ScratchDir scratch;
  const auto root = scratch / "cases";
  ASSERT_NO_FATAL_FAILURE(testing::write_seed_cases(root));
  std::filesystem::create_directories(root / "a" / "b");
  std::filesystem::rename(root / "other" / "kiln-v2-f32.yaml", root / "a" / "b" / "kiln-v2-f32.yaml");
  std::filesystem::rename(root / "other" / "kiln-v2-u4.yaml", root / "kiln-v2-u4.yaml");

  for (const std::string& spelling :
       {root.string(), root.string() + "/", (root / ".").string(), root.string() + "//"}) {
    const CaseSet set = load_case_set(spelling);
    ASSERT_EQ(all_errors(set), "") << spelling;
    std::map<std::string, std::string> topic_of_id;
    for (const Case& c : set.cases) topic_of_id[c.id] = c.topic;
    EXPECT_EQ(topic_of_id["kiln-v2-f32"], "a/b") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-u4"], "") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-bool-byte"], "type") << spelling;
    EXPECT_EQ(topic_of_id["kiln-v2-le-clear"], "other") << spelling;

    RunOptions options;
    options.cases_dir = spelling;
    options.adapter = "builtin:reference";
    options.quiet_progress = true;
    std::ostringstream out, err;
    const RunSummary summary = run_suite(options, out, err);
    ASSERT_EQ(summary.exit_code, kExitOk) << err.str();
    std::set<std::string> topics;
    for (const auto& result : summary.results) topics.insert(result.topic);
    EXPECT_EQ(topics, (std::set<std::string>{"(top)", "a/b", "other", "type"})) << spelling;
  }
}

}  // namespace
}  // namespace kiln::conformance
