// The case model: the ops a case derives (one with faults is never an encode
// test), an accept case that can have no block makes the set unusable for run,
// and an anchor offset that would wrap is an error.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include "kiln/builder.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/conformance/run.hpp"
#include "test_support.hpp"

namespace kiln::conformance {
namespace {

using testing::ScratchDir;
using testing::write_text;

TEST(CaseModel, ACaseWithFaultsIsNeverAnEncodeTest) {
  Case c;
  kiln_v2::body(c).faults.push_back(Append{{0}});
  // Once [encode], for want of a block; a decode test, which run reports as
  // unjudgeable until regen has written the block.
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kDecode});
  kiln_v2::body(c).block = std::vector<std::uint8_t>{1, 2};
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kDecode});
  kiln_v2::body(c).faults.clear();
  EXPECT_EQ(c.derived_ops(), (std::vector<Operation>{Operation::kDecode, Operation::kEncode}));
  kiln_v2::body(c).block.reset();
  EXPECT_EQ(c.derived_ops(), std::vector<Operation>{Operation::kEncode});
}

TEST(CaseModel, AnAcceptCaseWithoutABlockMakesTheSetUnusableForRun) {
  // judge() once compared an encoder's bytes with the empty optional.
  ScratchDir scratch;
  const auto root = scratch / "cases";
  testing::write_schema(root);
  write_text(root / "kiln-v2-wide.yaml",
             "id: kiln-v2-wide\n"
             "summary: an accept case that can have no block\n"
             "rules: [FRAME-FIELD-RANGE]\n"
             "source: suite\n"
             "level: required\n"
             "tensors:\n"
             "  - {name: x, dtype: u8, shape: {rank: 65536, fill: 1}, payload: \"00\"}\n"
             "expect: {result: accept}\n"
             "ops: [encode]\n");
  RunOptions options;
  options.cases_dir = root;
  options.adapter = "builtin:reference";
  options.quiet_progress = true;
  std::ostringstream out, err;
  EXPECT_EQ(run_suite(options, out, err).exit_code, kExitUsage);
  EXPECT_NE(err.str().find("cases/kiln-v2-wide.yaml:8:18: an accept case must have a block"),
            std::string::npos)
      << err.str();
}

TEST(Materialize, AnAnchorOffsetThatWouldWrapIsAnError) {
  // end+18446744073709551615 once wrote at end-1.
  Placement placement{16, 8, 64, 2, 66, {}};
  auto resolved = resolve_anchor(Anchor{"end+18446744073709551615"}, placement);
  ASSERT_FALSE(resolved.ok()) << resolved.value();
  EXPECT_EQ(resolved.error(), "anchor 'end+18446744073709551615' lies beyond 2^64 - 1");
  EXPECT_EQ(resolve_anchor(Anchor{"end+2"}, placement).value(), 68u);

  Placement huge_heap{~std::uint64_t{0}, 1, 0, 0, 0, {}};
  auto heap_end = resolve_anchor(Anchor{"heap_end"}, huge_heap);
  ASSERT_FALSE(heap_end.ok());
  EXPECT_EQ(heap_end.error(), "the heap's end lies beyond 2^64 - 1");
}

}  // namespace
}  // namespace kiln::conformance
