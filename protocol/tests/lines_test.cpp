// The lines written and read without a Json (protocol.hpp, "Lines without a
// Json") against the Json path they stand in for: the same bytes written, the
// same values read, and every line they decline left to the Json path. Last, a
// differential run over mutated lines: whatever the fast readers take, the Json
// path takes too, with the same value.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kiln/protocol.hpp"
#include "seed_blocks.hpp"

namespace kiln::protocol {
namespace {

std::vector<std::uint8_t> bytes(std::string_view hex) { return from_hex(hex).value(); }

hurray::Element element(std::uint64_t low, std::uint64_t high) {
  hurray::Element e;
  e.low = low;
  e.high = high;
  return e;
}


TensorDescription tensor(std::string name, std::uint16_t dtype, std::vector<std::uint64_t> shape,
                         std::string layout, std::uint32_t block_size, std::string_view payload_hex) {
  TensorDescription t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.layout = std::move(layout);
  t.block_size = block_size;
  t.payload = bytes(payload_hex);
  return t;
}

BlockDescription description() {
  BlockDescription d;
  d.tensors.push_back(tensor("x", 17, {3}, "", 0, "2103"));
  // Every byte JSON escapes, a character beyond the BMP, a NUL, and U+007F.
  d.tensors.push_back(tensor(std::string("q\"\\/\b\f\n\r\t\x01\x1f\x7f\0z", 14) + "\xc3\xa9\xf0\x9f\x98\x80", 0,
                             {0, 18446744073709551615ull, 1}, "Q4_0", 4294967295u, ""));
  d.tensors.push_back(tensor("\xff\xfe not UTF-8", 1, {}, "\xc0\x80", 16, "00ff"));  // name_hex, layout_hex
  d.tensors.push_back(tensor("", 65535, {7}, "layout \"quoted\"", 1, "ab"));
  return d;
}

std::vector<Request> requests() {
  std::vector<Request> all;
  all.push_back(HelloRequest{});
  all.push_back(HelloRequest{18446744073709551615ull});
  all.push_back(DecodeRequest{"kiln-v2-u4", "kiln-v2", bytes(testing::kU4Hex)});
  all.push_back(DecodeRequest{"", "kiln-v2", {}});
  all.push_back(DecodeRequest{"a \"case\"\n\xe2\x82\xac", "some-other-profile", bytes("00")});
  all.push_back(EncodeRequest{"enc", "kiln-v2", description()});
  all.push_back(EncodeRequest{"", "kiln-v2", BlockDescription{}});
  all.push_back(ElementsDecodeRequest{"hurray-uint4-3", 73, {3}, hurray::Mode::kStrict, bytes("c503")});
  all.push_back(ElementsDecodeRequest{"", 255, {}, hurray::Mode::kPermissive, {}});
  all.push_back(ElementsEncodeRequest{"hurray-e", 73, {3, 18446744073709551615ull}, {"5", "C", "03"}});
  all.push_back(ElementsEncodeRequest{"", 0, {}, {}});
  return all;
}

std::vector<Outcome> outcomes() {
  std::vector<Outcome> all;
  all.push_back(Accept{description()});
  all.push_back(Accept{BlockDescription{}});
  all.push_back(Reject{ErrorClass::kType, "tensor 0: odd count \"3\"\t\x02", std::string("TYPE-HIGH-NIBBLE"), 129});
  all.push_back(Reject{ErrorClass::kFrame, "", std::nullopt, std::nullopt});
  all.push_back(Reject{ErrorClass::kFrame, "m", std::nullopt, 18446744073709551615ull});
  all.push_back(EncodedBlock{bytes(testing::kU4Hex)});
  all.push_back(EncodedBlock{{}});
  ElementsAccept sized;
  sized.bits = 4;
  sized.elements = {element(5, 0), element(12, 0), element(3, 0)};
  all.push_back(sized);
  ElementsAccept wide;  // no width: the fewest digits, at least one
  wide.elements = {element(0, 0), element(~0ull, 1), element(0, ~0ull)};
  all.push_back(wide);
  ElementsAccept float128;
  float128.bits = 128;
  float128.elements = {element(1, 2)};
  all.push_back(float128);
  all.push_back(ElementsAccept{});
  all.push_back(OpaqueAccept{});
  all.push_back(ElementsReject{hurray::ErrorClass::kData, "pad\\", std::string("HURRAY-PAD-4BIT"), 1});
  all.push_back(ElementsReject{hurray::ErrorClass::kTag, "", std::nullopt, std::nullopt});
  all.push_back(ElementData{bytes("c503")});
  all.push_back(ProtocolError{"block: not hex: 'z' \xe2\x80\xa8"});
  return all;
}

std::string json_request_line(const Request& request, Int64Form form, std::uint64_t id) {
  Json json = request_to_json(request, form);
  json["id"] = id;
  return to_line(json).value();
}

std::string json_outcome_line(const Outcome& outcome, Int64Form form, std::optional<std::uint64_t> id) {
  Json json = outcome_to_json(outcome, form);
  if (id) json["id"] = *id;
  return to_line(json).value();
}

// The Json path's reading of a request line: the request and its id, or nothing.
std::optional<ReadRequest> json_read_request(std::string_view line) {
  auto json = parse_line(line);
  if (!json) return std::nullopt;
  auto request = request_from_json(json.value());
  if (!request) return std::nullopt;
  ReadRequest read{std::move(request).value(), std::nullopt};
  const auto id = json.value().find("id");
  if (id != json.value().end() && id->is_number_unsigned()) read.id = id->get<std::uint64_t>();
  return read;
}

// The runner's reading of a reply the Json way: the id and case checks, then the outcome.
std::optional<Outcome> json_read_reply(std::string_view line, std::size_t max_values, Op op,
                                       std::string_view profile, std::uint64_t id,
                                       std::string_view case_id, bool& echoed_id) {
  echoed_id = false;
  auto json = parse_line(line, max_values);
  if (!json || !json.value().is_object()) return std::nullopt;
  const Json& reply = json.value();
  if (const auto echoed = reply.find("id"); echoed != reply.end()) {
    if (!echoed->is_number_unsigned() || echoed->get<std::uint64_t>() != id) return std::nullopt;
    echoed_id = true;
  }
  if (const auto named = reply.find("case"); named != reply.end())
    if (!named->is_string() || named->get_ref<const std::string&>() != case_id) return std::nullopt;
  auto outcome = outcome_from_json(reply, op, profile);
  if (!outcome) return std::nullopt;
  return outcome.value();
}

struct Answered {
  Op op;
  std::string_view profile;
};

// The op and profile each outcome answers, for reading it back.
Answered answered_by(const Outcome& outcome) {
  return std::visit(
      [](const auto& reply) -> Answered {
        using T = std::decay_t<decltype(reply)>;
        if constexpr (std::is_same_v<T, Accept> || std::is_same_v<T, Reject> || std::is_same_v<T, ProtocolError>)
          return {Op::kDecode, kProfileKilnV2};
        else if constexpr (std::is_same_v<T, EncodedBlock>) return {Op::kEncode, kProfileKilnV2};
        else if constexpr (std::is_same_v<T, ElementData>) return {Op::kEncode, kProfileHurrayElements};
        else return {Op::kDecode, kProfileHurrayElements};
      },
      outcome);
}

TEST(Lines, RequestLinesAreTheJsonPathsBytes) {
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString})
    for (const Request& request : requests()) {
      std::string line = "kept ";
      ASSERT_TRUE(append_request_line(line, request, form, 42));
      EXPECT_EQ(line, "kept " + json_request_line(request, form, 42));
    }
}

TEST(Lines, RequestLinesReadAsTheJsonPathReadsThem) {
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString})
    for (const Request& request : requests()) {
      const std::string line = json_request_line(request, form, 7);
      const auto fast = read_request_line(line);
      ASSERT_TRUE(fast.has_value()) << line;
      EXPECT_EQ(fast->request, json_read_request(line)->request) << line;
      EXPECT_EQ(fast->id, std::optional<std::uint64_t>(7));
    }
  const auto without_id = read_request_line(R"( {"op":"decode" , "block":"AB"} )");
  ASSERT_TRUE(without_id.has_value());
  EXPECT_FALSE(without_id->id.has_value());
  EXPECT_EQ(without_id->request, Request(DecodeRequest{"", "kiln-v2", {0xab}}));
}

TEST(Lines, OutcomeLinesAreTheJsonPathsBytes) {
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString})
    for (const auto id : {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(18446744073709551615ull)})
      for (const Outcome& outcome : outcomes()) {
        std::string line;
        ASSERT_TRUE(append_outcome_line(line, outcome, form, id));
        EXPECT_EQ(line, json_outcome_line(outcome, form, id));
      }
}

TEST(Lines, RepliesReadAsTheJsonPathReadsThem) {
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString})
    for (const bool with_id : {false, true})
      for (const Outcome& outcome : outcomes()) {
        const std::string line = json_outcome_line(outcome, form, with_id ? std::optional<std::uint64_t>(9) : std::nullopt);
        const Answered answered = answered_by(outcome);
        bool fast_echoed = true, json_echoed = false;
        const auto fast = read_reply_line(line, 1 << 20, answered.op, answered.profile, 9, "c", fast_echoed);
        ASSERT_TRUE(fast.has_value()) << line;
        const auto json = json_read_reply(line, 1 << 20, answered.op, answered.profile, 9, "c", json_echoed);
        ASSERT_TRUE(json.has_value()) << line;
        EXPECT_EQ(*fast, *json) << line;
        EXPECT_EQ(fast_echoed, with_id);
        EXPECT_EQ(fast_echoed, json_echoed);
      }
}

TEST(Lines, WritersDeclineWhatJsonCannotCarry) {
  std::string line = "kept";
  EXPECT_FALSE(append_request_line(line, DecodeRequest{"bad \xff", "kiln-v2", {}}, Int64Form::kNumber, 1));
  EXPECT_FALSE(append_request_line(line, ElementsEncodeRequest{"", 1, {}, {"\xc3"}}, Int64Form::kNumber, 1));
  EXPECT_FALSE(append_outcome_line(line, ProtocolError{"\xed\xa0\x80"}, Int64Form::kNumber, 1));
  EXPECT_FALSE(append_outcome_line(line, Reject{ErrorClass::kFrame, "m", std::string("\x80"), 1}, Int64Form::kNumber, 1));
  EXPECT_EQ(line, "kept");
}

TEST(Lines, ReadersLeaveUnusualLinesToTheJsonPath) {
  const std::string declined[] = {
      R"({"op":"decode","block":"00","block":"01"})",        // repeated: the Json path keeps the last
      R"({"o\u0070":"decode","block":"00"})",                // an escape in a name
      R"({"op":"decode","block":"0\u0030"})",                // an escape in hex
      R"({"op":"decode","block":"00","x":1})",               // an unknown member
      R"({"op":"hello","protocol":1.0})",                    // a fraction
      R"({"op":"hello","protocol":01})",                     // a leading zero
      R"({"op":"hello","protocol":-1})",
      R"({"op":"hello","protocol":18446744073709551616})",   // above 2^64 - 1
      R"({"op":"hello","protocol":1,"id":-1})",
      R"({"op":"hello","protocol":1}x)",
      R"({"op":"hello","protocol":1,})",
      "\xef\xbb\xbf{\"op\":\"hello\",\"protocol\":1}",       // a byte order mark
      R"({"op":"decode","block":"0"})",                      // odd hex
      R"({"op":"decode","profile":"hurray-elements","tag":256,"shape":[],"data":""})",
      R"({"op":"decode","profile":"hurray-elements","tag":1,"shape":[],"mode":"lax","data":""})",
      R"({"op":"encode","profile":"hurray-elements","tag":1,"shape":["01"],"elements":[]})",
      R"({"op":"encode","profile":"hurray-elements","tag":1,"shape":[],"elements":["g"]})",
      R"({"op":"encode","tensors":[{"name":"x","dtype":65536,"shape":[],"layout":null,"block_size":0,"payload":""}]})",
      R"({"op":"encode","tensors":[{"name":"x","dtype":1,"shape":[],"block_size":0,"payload":""}]})",
      R"({"op":"encode","tensors":[{"name_hex":"ff","name":"x","dtype":1,"shape":[],"layout":null,"block_size":0,"payload":""}]})",
      R"({"op":"encode","tensors":[{"name":"x","dtype":1,"shape":[],"layout_hex":"f","block_size":0,"payload":""}]})",
      R"({"op":"transcode"})",
      R"({"op":"decode","case":"\ud800"})",                  // a lone surrogate
      R"(["op"])",
      R"({"op":"decode","block":"00"} {})",
  };
  for (const std::string& line : declined) EXPECT_FALSE(read_request_line(line).has_value()) << line;

  bool echoed = false;
  const auto reply = [&](std::string_view line, Op op = Op::kDecode, std::string_view profile = kProfileKilnV2) {
    return read_reply_line(line, 1 << 20, op, profile, 5, "c", echoed).has_value();
  };
  EXPECT_TRUE(reply(R"({"result":"reject","class":"TYPE","id":5,"case":"c"})"));
  EXPECT_TRUE(echoed);
  EXPECT_FALSE(reply(R"({"result":"reject","class":"TYPE","id":4})"));      // another request's
  EXPECT_FALSE(reply(R"({"result":"reject","class":"TYPE","case":"d"})"));  // another case's
  EXPECT_FALSE(reply(R"({"result":"reject","class":"type"})"));
  EXPECT_FALSE(reply(R"({"result":"block","block":"00"})"));                 // does not answer a decode
  EXPECT_FALSE(reply(R"({"result":"accept","tensors":[]})", Op::kEncode));
  EXPECT_FALSE(reply(R"({"result":"opaque"})", Op::kEncode, kProfileHurrayElements));
  EXPECT_FALSE(reply(R"({"result":"reject","class":"FRAME"})", Op::kDecode, kProfileHurrayElements));
  EXPECT_FALSE(reply(R"({"result":"accept","tensors":[],"extra":true})"));
  EXPECT_FALSE(reply(R"({"result":"reject","class":"TYPE","offset":"01"})"));
  // Past the bound on values, as parse_line refuses it.
  EXPECT_FALSE(read_reply_line(R"({"result":"accept","tensors":[]})", 1, Op::kDecode, kProfileKilnV2, 5, "c", echoed));
}

// The line scan passes over a string's plain bytes eight at a time: what it
// finds, and where, is as a byte at a time.
TEST(Lines, TheScanFindsWhatIsInALongStringAtItsByte) {
  for (std::size_t before = 0; before < 40; ++before) {
    for (const char raw : {'\x01', '\x1f', '\0'}) {
      std::string line = "{\"block\":\"" + std::string(before, 'a') + raw + std::string(40, 'b') + "\"}";
      const auto problem = line_problem(line);
      ASSERT_TRUE(problem.has_value());
      EXPECT_NE(problem->find("inside a string at byte " + std::to_string(10 + before) + ";"), std::string::npos)
          << *problem;
    }
    // An escaped quote and a backslash inside, then values past the bound.
    const std::string line = "{\"a\":\"" + std::string(before, '0') + "\\\"" + std::string(before, '1') +
                             "\\\\" + "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" + "\",\"b\":[1,2]}";
    const std::size_t comma = line.find("\",\"b") + 1;
    const auto problem = line_problem(line, 2);  // the object, then its first member
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->find("(at byte " + std::to_string(comma) + ")"), std::string::npos) << *problem;
  }
}

// Mutated lines: each one a fast reader takes, the Json path takes, with the same value.
TEST(Lines, WhatTheFastReadersTakeTheJsonPathTakesAlike) {
  std::vector<std::string> request_lines, reply_lines;
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString}) {
    for (const Request& request : requests()) request_lines.push_back(json_request_line(request, form, 3));
    for (const Outcome& outcome : outcomes()) reply_lines.push_back(json_outcome_line(outcome, form, 3));
  }
  std::mt19937 random(12345);
  const std::string alphabet = "{}[]:,\"\\ 0123456789abcdefABCDEF-+.eEnulltrue\t\r\n/uxyz";
  const auto mutate = [&](std::string line) {
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int i = 0; i < edits && !line.empty(); ++i) {
      const std::size_t at = random() % line.size();
      const char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0: line[at] = c; break;
        case 1: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: line.erase(at, 1 + random() % 4);
      }
    }
    return line;
  };
  std::size_t taken = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string request_line = mutate(request_lines[random() % request_lines.size()]);
    if (const auto fast = read_request_line(request_line)) {
      ++taken;
      const auto json = json_read_request(request_line);
      ASSERT_TRUE(json.has_value()) << request_line;
      EXPECT_EQ(fast->request, json->request) << request_line;
      EXPECT_EQ(fast->id, json->id) << request_line;
    }
    const std::string reply_line = mutate(reply_lines[random() % reply_lines.size()]);
    for (const Op op : {Op::kDecode, Op::kEncode})
      for (const std::string_view profile : {kProfileKilnV2, kProfileHurrayElements}) {
        bool fast_echoed = false, json_echoed = false;
        if (const auto fast = read_reply_line(reply_line, 1 << 20, op, profile, 3, "", fast_echoed)) {
          ++taken;
          const auto json = json_read_reply(reply_line, 1 << 20, op, profile, 3, "", json_echoed);
          ASSERT_TRUE(json.has_value()) << reply_line;
          EXPECT_EQ(*fast, *json) << reply_line;
          EXPECT_EQ(fast_echoed, json_echoed) << reply_line;
        }
      }
  }
  EXPECT_GT(taken, 1000u);  // the mutations leave many lines valid
}

}  // namespace
}  // namespace kiln::protocol
