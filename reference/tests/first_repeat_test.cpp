// detail::FirstRepeat, the decoder's name-uniqueness check: the hashed path,
// and the sorting fallback that bounds it when collisions pile up.
#include "first_repeat.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::detail {
namespace {

// Every name collides: the table degrades to one long probe chain, so the
// probe budget runs out and the answer must come from sorting.
struct CollidingHash {
  std::uint64_t operator()(std::string_view) const noexcept { return 42; }
};

template <class Set>
std::optional<std::uint32_t> first_repeat_of(const std::vector<std::string>& names) {
  Set set(names.size());
  for (const auto& name : names) set.add(name);
  return set.first_repeat();
}

std::vector<std::string> distinct_names(std::size_t count) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back("model.layers." + std::to_string(i));
  return names;
}

TEST(FirstRepeat, FindsTheFirstEntryThatRepeatsAnEarlierName) {
  auto names = distinct_names(5000);
  EXPECT_EQ(first_repeat_of<FirstRepeat>(names), std::nullopt);
  names[4000] = names[10];
  names[3000] = names[2999];
  EXPECT_EQ(first_repeat_of<FirstRepeat>(names), 3000u);
  // Equal up to a byte that the 16-byte strides and the overlapping tail read.
  EXPECT_EQ(first_repeat_of<FirstRepeat>({"a", "b", std::string("a\0", 2), "ab", "b"}), 4u);
  EXPECT_EQ(first_repeat_of<FirstRepeat>({std::string(33, 'x'), std::string(32, 'x') + "y",
                                          std::string(33, 'x')}),
            2u);
}

TEST(FirstRepeat, AllCollidingHashesFallBackToSortingWithTheSameAnswer) {
  auto names = distinct_names(3000);  // 3000^2 / 2 probes: far past the budget
  EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>(names), std::nullopt);
  names[2500] = names[7];
  names[2600] = names[1];
  EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>(names), 2500u);
  EXPECT_EQ(first_repeat_of<FirstRepeat>(names), 2500u);
  // Few names stay within the budget: found by probing alone.
  EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>({"a", "b", "c", "b", "a"}), 3u);
}

// Up to kFew names are compared in place; one more goes through the table.
// Both must give the same answers, at the boundary and past a capacity that
// promised too little.
TEST(FirstRepeat, FewNamesInPlaceAndManyInTheTableAgree) {
  for (std::size_t count : {std::size_t{2}, FirstRepeat::kFew - 1, FirstRepeat::kFew,
                            FirstRepeat::kFew + 1, 2 * FirstRepeat::kFew}) {
    auto names = distinct_names(count);
    EXPECT_EQ(first_repeat_of<FirstRepeat>(names), std::nullopt) << count;
    EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>(names), std::nullopt) << count;
    names[count - 1] = names[0];
    EXPECT_EQ(first_repeat_of<FirstRepeat>(names), count - 1) << count;
    EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>(names), count - 1) << count;
    if (count >= 3) {
      names[count / 2 + 1] = names[count / 2];
      EXPECT_EQ(first_repeat_of<FirstRepeat>(names), count / 2 + 1) << count;
      EXPECT_EQ(first_repeat_of<BasicFirstRepeat<CollidingHash>>(names), count / 2 + 1) << count;
    }
  }
}

TEST(FirstRepeat, MoreNamesThanTheCapacityStillCount) {
  for (std::size_t capacity : {std::size_t{0}, std::size_t{1}, FirstRepeat::kFew, std::size_t{40}}) {
    auto names = distinct_names(100);
    names[90] = names[3];
    FirstRepeat set(capacity);
    for (const auto& name : names) set.add(name);
    EXPECT_EQ(set.size(), 100u);
    EXPECT_EQ(set.first_repeat(), 90u) << capacity;
    EXPECT_EQ(set.first_repeat_by_sorting(), 90u) << capacity;
  }
}

}  // namespace
}  // namespace kiln::detail
