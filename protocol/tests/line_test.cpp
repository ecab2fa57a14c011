// parse_line, the one reader of every line from outside (replies in the runner,
// requests in an adapter), and the parse_* conveniences over it: the nesting and
// width limits, raw control bytes (NUL above all), bytes after the value, and
// messages that say what is wrong and at which byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "kiln/protocol.hpp"

namespace kiln::protocol {
namespace {

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// {"a":{"a":...1...}}: each level opens at a multiple of 5 bytes.
std::string nested_objects(std::size_t depth) {
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) text += R"({"a":)";
  return text + '1' + std::string(depth, '}');
}

// {"k0":0,"k1":0,...}
std::string wide_object(std::size_t members) {
  std::string text = "{";
  for (std::size_t i = 0; i < members; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  return text + "}";
}

std::string error_of(std::string_view line) {
  auto json = parse_line(line);
  EXPECT_FALSE(json.ok()) << line.substr(0, 200);
  return json.ok() ? std::string() : json.error();
}

std::string nul_error(std::size_t at) {
  return "the line has a raw control byte 0x00 at byte " + std::to_string(at) +
         "; JSON allows only space, tab, CR and LF between tokens";
}

std::string depth_error(std::size_t at) {
  return "the line nests arrays and objects more than 64 levels deep at byte " + std::to_string(at);
}

// ---- Nesting depth ----

TEST(LineDepth, ExactlyTheLimitIsRead) {
  auto arrays = parse_line(nested_arrays(kMaxJsonDepth));
  ASSERT_TRUE(arrays.ok()) << arrays.error();
  std::size_t depth = 0;
  for (const Json* level = &arrays.value(); level && level->is_array(); ++depth)
    level = level->empty() ? nullptr : &(*level)[0];
  EXPECT_EQ(depth, kMaxJsonDepth);
  auto objects = parse_line(nested_objects(kMaxJsonDepth));
  ASSERT_TRUE(objects.ok()) << objects.error();
  // A reply object counts as the first level.
  auto reply = parse_reply(R"({"result":"error","message":"m","x":)" +
                               nested_arrays(kMaxJsonDepth - 1) + "}",
                           Op::kDecode);
  ASSERT_TRUE(reply.ok()) << reply.error();
}

TEST(LineDepth, OneLevelAboveTheLimitIsRejectedWhereItOpens) {
  EXPECT_EQ(error_of(nested_arrays(kMaxJsonDepth + 1)), depth_error(64));
  EXPECT_EQ(error_of(nested_objects(kMaxJsonDepth + 1)), depth_error(5 * 64));
  auto reply = parse_reply(R"({"result":"error","message":"m","x":)" +
                               nested_arrays(kMaxJsonDepth) + "}",
                           Op::kDecode);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error(), depth_error(36 + 63));  // the object, then 63 arrays
}

TEST(LineDepth, ClosedLevelsDoNotCount) {
  // Many levels in a row, never more than 64 open at once.
  std::string line = "[";
  for (int i = 0; i < 1000; ++i) line += (i ? "," : "") + nested_arrays(kMaxJsonDepth - 1);
  auto json = parse_line(line + "]");
  ASSERT_TRUE(json.ok()) << json.error();
  EXPECT_EQ(json.value().size(), 1000u);
}

TEST(LineDepth, BracketsInStringsAreText) {
  const std::string brackets(1000, '[');
  auto json = parse_line(R"({"a":")" + brackets + R"(","b":"\"{{{{"})");
  ASSERT_TRUE(json.ok()) << json.error();
  EXPECT_EQ(json.value()["a"], brackets);
  EXPECT_EQ(json.value()["b"], "\"{{{{");
  // An escaped backslash ends the escape: the string closes and the brackets count.
  EXPECT_EQ(error_of(R"({"a":"\\","b":)" + nested_arrays(kMaxJsonDepth)), depth_error(14 + 63));
}

TEST(LineDepth, FiftyThousandLevelsAreRejectedBeforeAnythingIsBuilt) {
  // nlohmann builds any depth, then copies the deep member recursively when the
  // object around it grows (the members after it), dumps and compares it
  // recursively: a stack overflow in the runner and in the reference adapter.
  constexpr std::size_t kDeep = 50000;
  for (const std::string& deep : {nested_arrays(kDeep), nested_objects(kDeep)}) {
    SCOPED_TRACE(deep.substr(0, 10));
    const std::size_t at = 5 + 63 * (deep[0] == '[' ? 1 : 5);  // after {"x":
    auto reply = parse_reply(R"({"x":)" + deep + R"(,"result":"error","message":"m","y":1})",
                             Op::kDecode);
    ASSERT_FALSE(reply.ok());
    EXPECT_EQ(reply.error(), depth_error(at));
    auto hello =
        parse_hello_reply(R"({"x":)" + deep + R"(,"name":"n","version":"v","ops":[],"y":1})");
    ASSERT_FALSE(hello.ok());
    EXPECT_EQ(hello.error(), depth_error(at));
    auto request = parse_request(R"({"x":)" + deep + R"(,"op":"hello","protocol":1,"y":1})");
    ASSERT_FALSE(request.ok());
    EXPECT_EQ(request.error(), depth_error(at));
    EXPECT_EQ(error_of(deep), depth_error(deep[0] == '[' ? 64 : 5 * 64));
  }
  EXPECT_EQ(error_of(std::string(kDeep, '[')), depth_error(64));  // never closed
}

// ---- Object width ----

TEST(LineWidth, ExactlyTheLimitOfMembersIsRead) {
  auto json = parse_line(wide_object(kMaxObjectMembers));
  ASSERT_TRUE(json.ok()) << json.error();
  EXPECT_EQ(json.value().size(), kMaxObjectMembers);
  // The limit is per object: many full objects are fine.
  std::string many = "[";
  for (int i = 0; i < 1000; ++i) many += (i ? "," : "") + wide_object(kMaxObjectMembers);
  EXPECT_TRUE(parse_line(many + "]").ok());
  // Colons in strings and in nested objects are not this object's members.
  auto colons = parse_line(R"({"a":")" + std::string(1000, ':') + R"(","b":)" +
                           wide_object(kMaxObjectMembers) + "}");
  EXPECT_TRUE(colons.ok()) << colons.error();
}

TEST(LineWidth, OneMemberAboveTheLimitIsRejectedAtItsColon) {
  const std::string line = wide_object(kMaxObjectMembers + 1);
  EXPECT_EQ(error_of(line), "the line has an object with more than 64 members at byte " +
                                std::to_string(line.rfind(':')));
}

TEST(LineWidth, AHundredThousandMembersAreRejectedNotSearched) {
  // An ordered object finds each new member by a linear search: 100,000
  // members of a 1.2 MB line took nlohmann about a minute.
  const std::string reply = wide_object(100000).insert(1, R"("result":"error",)");
  auto outcome = parse_reply(reply, Op::kDecode);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(outcome.error().starts_with("the line has an object with more than 64 members at "))
      << outcome.error();
}

// ---- How many values a reply may hold ----

TEST(LineValues, ExactlyTheBoundIsReadAndOneMoreIsRejectedWhereItStarts) {
  // Counted as 1 + commas + containers, never fewer than there are: [0,0,0]
  // holds four.
  EXPECT_TRUE(parse_line("[0,0,0]", 4).ok());
  EXPECT_TRUE(parse_line(R"({"a":[0],"b":{}})", 5).ok());
  auto json = parse_line("[0,0,0]", 3);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.error(), "the line holds more than 3 JSON values (at byte 4), more than any answer to its "
                          "request can hold");
  // Commas and brackets in strings are text.
  EXPECT_TRUE(parse_line(R"(["[,{,[,{"])", 2).ok());
}

TEST(LineValues, TheReplyBoundLeavesRoomForEveryAnswerAndNoMore) {
  EXPECT_EQ(max_reply_values(0), 64u);
  EXPECT_EQ(max_reply_values(1000), 4064u);
  EXPECT_EQ(max_reply_values(std::numeric_limits<std::size_t>::max()), std::numeric_limits<std::size_t>::max());
  // A million-element array for a 100-byte request is refused before it is built.
  std::string line = "{\"result\":\"accept\",\"elements\":[\"0\"";
  for (int i = 1; i < 1000000; ++i) line += ",\"0\"";
  line += "]}";
  auto json = parse_line(line, max_reply_values(100));
  ASSERT_FALSE(json.ok());
  EXPECT_TRUE(json.error().starts_with("the line holds more than 464 JSON values")) << json.error();
}

// ---- Control bytes, NUL and bytes after the value ----

TEST(LineBytes, NulThenGarbageIsRejected) {
  // nlohmann stops reading at a NUL byte, so the object before it parsed.
  const std::string nul_garbage = std::string(1, '\0') + "garbage";
  auto request = parse_request(R"({"op":"hello","protocol":1})" + nul_garbage);
  ASSERT_FALSE(request.ok());
  EXPECT_EQ(request.error(), nul_error(27));
  auto reply = parse_reply(R"({"result":"error","message":""})" + nul_garbage, Op::kDecode);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error(), nul_error(31));
  auto hello = parse_hello_reply(R"({"name":"n","version":"v","ops":[]})" + nul_garbage);
  ASSERT_FALSE(hello.ok());
  EXPECT_EQ(hello.error(), nul_error(35));
  EXPECT_EQ(error_of(std::string("{}\0", 3)), nul_error(2));
  EXPECT_EQ(error_of(std::string("\0{}", 3)), nul_error(0));
}

TEST(LineBytes, EveryRawControlByteIsRejectedWithItsOffset) {
  for (int byte = 0; byte < 0x20; ++byte) {
    SCOPED_TRACE(byte);
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02X", byte);
    const std::string inside = R"({"a":"x)" + std::string(1, static_cast<char>(byte)) + R"(y"})";
    EXPECT_EQ(error_of(inside), std::string("the line has a raw control byte 0x") + hex +
                                    " inside a string at byte 7; JSON writes it as an escape "
                                    "such as \\u00" + hex);
    if (byte == '\t' || byte == '\n' || byte == '\r') continue;
    const std::string between =
        R"({"a":1,)" + std::string(1, static_cast<char>(byte)) + R"("b":2})";
    EXPECT_EQ(error_of(between), std::string("the line has a raw control byte 0x") + hex +
                                     " at byte 7; JSON allows only space, tab, CR and LF "
                                     "between tokens");
  }
}

TEST(LineBytes, TabCrAndLfAreWhiteSpaceAndEscapesAreText) {
  auto json = parse_line("\t{\r\n\"a\"\t:\n\"\\u0000\\t\\u001f\" }\r\n\t");
  ASSERT_TRUE(json.ok()) << json.error();
  EXPECT_EQ(json.value()["a"], std::string("\0\t\x1f", 3));
  // DEL and characters beyond ASCII are not control bytes.
  auto text = parse_line("{\"a\":\"\x7f\xc3\xa9\"}");
  ASSERT_TRUE(text.ok()) << text.error();
}

TEST(LineEnds, NothingButWhiteSpaceMayFollowTheValue) {
  struct Case {
    const char* line;
    std::size_t at;  // where nlohmann noticed: a string or number token's last byte
  };
  const Case cases[] = {
      {R"({} x)", 3},         {R"({}{})", 2},          {R"({"a":1}})", 7},  {R"({}])", 2},
      {R"({},)", 2},          {R"({} // comment)", 3}, {R"({}/**/)", 2},    {R"({} "s")", 5},
      {R"({"a":1} 2)", 8},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.line);
    EXPECT_EQ(error_of(bad.line).substr(0, 34 + std::to_string(bad.at).size()),
              "the line is not JSON at byte " + std::to_string(bad.at) + ": syn");
  }
  const std::string garbage = " garbage";
  EXPECT_FALSE(parse_request(R"({"op":"hello","protocol":1})" + garbage).ok());
  EXPECT_FALSE(parse_reply(R"({"result":"error","message":""})" + garbage, Op::kDecode).ok());
  EXPECT_FALSE(parse_hello_reply(R"({"name":"n","version":"v","ops":[]})" + garbage).ok());
  EXPECT_TRUE(parse_request(R"({"op":"hello","protocol":1} )" "\t\r").ok());
}

TEST(LineErrors, NotJsonSaysWhereAndStaysShort) {
  // nlohmann's message quotes the token it was reading: here 3 MiB of it.
  const std::string line = R"({"result":"error","message":")" + std::string(3 << 20, 'x');
  const std::string error = error_of(line);
  const std::string where =
      "the line is not JSON at byte " + std::to_string(line.size()) + " (the end of the line): ";
  EXPECT_EQ(error.substr(0, where.size()), where);
  EXPECT_LT(error.size(), 2 * kMaxExcerptBytes + 100) << error.substr(0, 300);
  EXPECT_NE(error.find("more bytes cut]"), std::string::npos) << error;
}

}  // namespace
}  // namespace kiln::protocol
