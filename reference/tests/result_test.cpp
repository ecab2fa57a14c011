// Result, the one value-or-error type (error.hpp): in particular the forms where
// an error could be taken for a value, and Result<void, E>.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/error.hpp"

namespace kiln {
namespace {

// A value type that a message converts to, as nlohmann::json does.
struct Text {
  Text(std::string text) : text(std::move(text)) {}  // NOLINT: implicit, like json's
  std::string text;
};

Checked<std::string> echo(bool fail) {
  if (fail) return Failure("no: " + std::string("reason"));
  return std::string("yes");
}

Checked<Text> text(bool fail) {
  const std::string message = "a message";
  if (fail) return Failure(message);
  return Text(message);
}

Checked<void> act(bool fail) {
  if (fail) return Failure("could not");
  return {};
}

TEST(Result, AStringIsAValueAndFailureAnErrorWhenBothAreStrings) {
  const auto value = echo(false);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value.value(), "yes");
  const auto error = echo(true);
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error(), "no: reason");
}

TEST(Result, AMessageGoesInOnlyThroughFailureWhereTheValueTakesAString) {
  // Neither Result<std::string, std::string> nor Result<Text, std::string> can
  // be made from a bare message as an error, so `return message;` is a value.
  static_assert(std::is_constructible_v<Checked<Text>, Failure<std::string>>);
  static_assert(std::is_constructible_v<Checked<std::filesystem::path>, Failure<const char*>>);
  const Checked<Text> value(std::string("plain"));
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value.value().text, "plain");
  const auto error = text(true);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error(), "a message");
  EXPECT_EQ(text(false).value().text, "a message");
}

TEST(Result, AnErrorThatCannotBeTakenForAValueConvertsByItself) {
  const Result<int> failed = Error{Rule::kFrameMagic, 0, std::nullopt, "bad magic"};
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().rule, Rule::kFrameMagic);
  const Result<int> value = 7;
  EXPECT_EQ(value.value(), 7);
}

TEST(Result, VoidSucceedsWithNothingOrHoldsTheError) {
  EXPECT_TRUE(act(false).ok());
  auto failed = act(true);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), "could not");
  const std::string moved = std::move(failed).error();
  EXPECT_EQ(moved, "could not");
  const Result<void> error = Error{Rule::kFrameMagic, 0, std::nullopt, "m"};
  EXPECT_FALSE(error.ok());
}

TEST(Result, AnythingThatConvertsToTheValueIsAValue) {
  const Checked<std::optional<std::vector<int>>> none = std::nullopt;
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().has_value());
  const Checked<std::string> literal = "literal";
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal.value(), "literal");
}

TEST(Result, TheValueIsReachedAsAnOptionalsIs) {
  const Checked<std::string> value = std::string("text");
  EXPECT_EQ(*value, "text");
  EXPECT_EQ(value->size(), 4u);
}

TEST(Result, TheValueCanBeMovedOut) {
  auto result = echo(false);
  const std::string taken = std::move(result).value();
  EXPECT_EQ(taken, "yes");
}

}  // namespace
}  // namespace kiln
