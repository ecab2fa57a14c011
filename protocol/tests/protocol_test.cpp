// JSON <-> reference types: exact integers, names with U+0000, layout null and
// "", every message kind in both directions, and bad fields named in messages.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

#include "kiln/protocol.hpp"
#include "kiln/utf8.hpp"
#include "seed_blocks.hpp"

namespace kiln::protocol {
namespace {

using testing::kU4TensorJson;

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

TensorDescription u4_tensor() { return TensorDescription{"x", 17, {3}, "", 0, {0x21, 0x03}}; }

Json parsed(std::string_view text) {
  auto json = parse_line(text);
  EXPECT_TRUE(json.ok()) << json.error();
  return json.ok() ? json.value() : Json();
}

TensorDescription tensor_from_text(std::string_view text) {
  auto tensor = tensor_from_json(parsed(text));
  EXPECT_TRUE(tensor.ok()) << tensor.error();
  return tensor.ok() ? tensor.value() : TensorDescription{};
}

std::string line_of(const Json& json) {
  auto line = to_line(json);
  EXPECT_TRUE(line.ok()) << line.error();
  return line.ok() ? line.value() : std::string();
}

TEST(TensorJson, WritesTheBriefsFieldsInOrder) {
  EXPECT_EQ(line_of(tensor_to_json(u4_tensor())), kU4TensorJson);
}

TEST(TensorJson, ReadsTheBriefsTensor) { EXPECT_EQ(tensor_from_text(kU4TensorJson), u4_tensor()); }

TEST(TensorJson, DimensionsAreExactUpTo2To64Minus1) {
  // 2^64 - 2 is not a double: reading it through one would give 2^64.
  const TensorDescription tensor{"big", 9, {kMaxU64, kMaxU64 - 1, 0, 1}, "", 0, {}};
  const std::string line = line_of(tensor_to_json(tensor));
  EXPECT_NE(line.find(R"("shape":[18446744073709551615,18446744073709551614,0,1])"),
            std::string::npos)
      << line;
  EXPECT_EQ(tensor_from_text(line), tensor);
}

TEST(TensorJson, NameWithU0000RoundTrips) {
  const TensorDescription tensor{std::string("a\0b", 3), 9, {1}, "", 0, {0x07}};
  const std::string line = line_of(tensor_to_json(tensor));
  EXPECT_NE(line.find(R"("name":"a\u0000b")"), std::string::npos) << line;
  EXPECT_EQ(tensor_from_text(line), tensor);
  EXPECT_EQ(tensor_from_text(R"({"name":"\u0000","dtype":9,"shape":[],"layout":null,)"
                             R"("block_size":0,"payload":"00"})")
                .name,
            std::string(1, '\0'));
}

TEST(TensorJson, NonAsciiNameIsWrittenAsUtf8) {
  const TensorDescription tensor{"\xc3\xa9\xf0\x9f\x94\xa5", 9, {1}, "", 0, {0x07}};
  const std::string line = line_of(tensor_to_json(tensor));
  EXPECT_NE(line.find("\"name\":\"\xc3\xa9\xf0\x9f\x94\xa5\""), std::string::npos) << line;
  EXPECT_EQ(tensor_from_text(line), tensor);
}

TEST(TensorJson, LayoutNullAndEmptyBothMeanNone) {
  const std::string base = R"({"name":"x","dtype":17,"shape":[3],"block_size":0,"payload":"2103",)";
  EXPECT_EQ(tensor_from_text(base + R"("layout":null})"), u4_tensor());
  EXPECT_EQ(tensor_from_text(base + R"("layout":""})"), u4_tensor());
  EXPECT_TRUE(tensor_to_json(u4_tensor())["layout"].is_null());
}

TEST(TensorJson, OpaqueTensorRoundTripsItsLayoutAndLargestBlockSize) {
  const TensorDescription tensor{"q", 4096, {32}, "Q4_K", 0xFFFFFFFFu, {}};
  const std::string line = line_of(tensor_to_json(tensor));
  EXPECT_NE(line.find(R"("layout":"Q4_K","block_size":4294967295)"), std::string::npos) << line;
  EXPECT_EQ(tensor_from_text(line), tensor);
}

TEST(TensorJson, UnknownFieldsAreIgnored) {
  std::string text = kU4TensorJson;
  text.insert(1, R"("comment":"from a newer runner","extra":[1,2],)");
  EXPECT_EQ(tensor_from_text(text), u4_tensor());
}

TEST(TensorJson, UppercaseHexIsRead) {
  std::string text = kU4TensorJson;
  text.replace(text.find("2103"), 4, "21AB");
  EXPECT_EQ(tensor_from_text(text).payload, (std::vector<std::uint8_t>{0x21, 0xAB}));
}

struct BadField {
  const char* replace;   // a field of kU4TensorJson, e.g. "\"dtype\":17"
  const char* with;      // its replacement (empty: the field is removed)
  const char* message;   // what the message must say
};

// ctest names parameterised tests by the printed parameter: print the expected
// message (unique per case) in characters that are safe in a test name.
void print_as_name(std::string_view message, std::ostream* out) {
  for (const char c : message)
    *out << (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '[' || c == ']' ||
                     c == '-'
                 ? c
                 : '_');
}

void PrintTo(const BadField& bad, std::ostream* out) { print_as_name(bad.message, out); }

class TensorJsonRejects : public ::testing::TestWithParam<BadField> {};

TEST_P(TensorJsonRejects, NamingTheField) {
  const BadField& bad = GetParam();
  std::string text = kU4TensorJson;
  const auto at = text.find(bad.replace);
  ASSERT_NE(at, std::string::npos);
  std::string with = bad.with;
  std::size_t length = std::string_view(bad.replace).size();
  std::size_t begin = at;
  if (with.empty()) {  // drop the field and one comma next to it
    if (text[at + length] == ',')
      ++length;
    else
      --begin, ++length;
  }
  text.replace(begin, length, with);
  auto tensor = tensor_from_json(parsed(text), "tensors[4]");
  ASSERT_FALSE(tensor.ok()) << text;
  EXPECT_EQ(tensor.error(), bad.message) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, TensorJsonRejects,
    ::testing::Values(
        BadField{R"("name":"x")", "", "tensors[4].name: required field is missing"},
        BadField{R"("name":"x")", R"("name":7)", "tensors[4].name: must be a string, got 7"},
        BadField{R"("dtype":17)", "", "tensors[4].dtype: required field is missing"},
        BadField{R"("dtype":17)", R"("dtype":65536)",
                 "tensors[4].dtype: must be an integer from 0 to 65535, got 65536"},
        BadField{R"("dtype":17)", R"("dtype":-1)",
                 "tensors[4].dtype: must be an integer from 0 to 65535, got the negative -1"},
        BadField{R"("dtype":17)", R"("dtype":17.0)",
                 "tensors[4].dtype: must be an integer from 0 to 65535, got 17.0"},
        BadField{R"("dtype":17)", R"("dtype":"17")",
                 "tensors[4].dtype: must be an integer from 0 to 65535, got a string"},
        BadField{R"("shape":[3])", "", "tensors[4].shape: required field is missing"},
        BadField{R"("shape":[3])", R"("shape":3)",
                 "tensors[4].shape: must be an array of integers, got 3"},
        BadField{R"("shape":[3])", R"("shape":[3,-2])",
                 "tensors[4].shape[1]: must be an integer from 0 to 18446744073709551615, "
                 "as a number or a decimal string, got "
                 "the negative -2"},
        BadField{R"("shape":[3])", R"("shape":[1e3])",
                 "tensors[4].shape[0]: must be an integer from 0 to 18446744073709551615, "
                 "as a number or a decimal string, got "
                 "1000.0"},
        BadField{R"("shape":[3])", R"("shape":[18446744073709551616])",
                 "tensors[4].shape[0]: must be an integer from 0 to 18446744073709551615, "
                 "as a number or a decimal string, got "
                 "a number above 2^64 - 1"},
        BadField{R"("shape":[3])", R"("shape":[[3]])",
                 "tensors[4].shape[0]: must be an integer from 0 to 18446744073709551615, "
                 "as a number or a decimal string, got "
                 "an array"},
        BadField{R"("layout":null)", "", "tensors[4].layout: required field is missing"},
        BadField{R"("layout":null)", R"("layout":false)",
                 "tensors[4].layout: must be a string or null, got false"},
        BadField{R"("block_size":0)", R"("block_size":4294967296)",
                 "tensors[4].block_size: must be an integer from 0 to 4294967295, got 4294967296"},
        BadField{R"("block_size":0)", "", "tensors[4].block_size: required field is missing"},
        BadField{R"("payload":"2103")", R"("payload":"210")",
                 "tensors[4].payload: not hex: odd number of hex digits at character 2"},
        BadField{R"("payload":"2103")", R"("payload":"21 03")",
                 "tensors[4].payload: not hex: ' ' is not a hex digit at character 2"},
        BadField{R"("payload":"2103")", "\"payload\":\"21\xc3\xa9\"",
                 "tensors[4].payload: not hex: '\xc3\xa9' is not a hex digit at character 2"},
        BadField{R"("payload":"2103")", "\"payload\":\"21\xf0\x9f\x94\xa5\"",
                 "tensors[4].payload: not hex: '\xf0\x9f\x94\xa5' is not a hex digit at "
                 "character 2"},
        BadField{R"("payload":"2103")", R"("payload":[33,3])",
                 "tensors[4].payload: must be a hex string, got an array"},
        BadField{R"("payload":"2103")", "", "tensors[4].payload: required field is missing"}));

TEST(TensorJson, ATensorMustBeAnObject) {
  auto tensors = tensors_from_json(parsed(R"({"t":[)" + kU4TensorJson + R"(,"x"]})")["t"]);
  ASSERT_FALSE(tensors.ok());
  EXPECT_EQ(tensors.error(), "tensors[1]: must be an object, got a string");
}

TEST(TensorJson, NamesThatAreNotUtf8TravelAsHex) {
  const TensorDescription tensor{"\xff", 4096, {1}, "Q\xc0\x80", 1, {0}};
  const Json json = tensor_to_json(tensor);
  EXPECT_FALSE(json.contains("name"));
  EXPECT_EQ(json.at("name_hex"), "ff");
  EXPECT_FALSE(json.contains("layout"));
  EXPECT_EQ(json.at("layout_hex"), "51c080");
  auto line = to_line(json);
  ASSERT_TRUE(line.ok()) << line.error();
  auto back = tensor_from_json(parse_line(line.value()).value());
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), tensor);
}

// ---- Requests ----

Request request_from_text(std::string_view text) {
  auto request = parse_request(text);
  EXPECT_TRUE(request.ok()) << request.error();
  return request.ok() ? request.value() : Request{};
}

TEST(RequestJson, EveryRequestRoundTrips) {
  const BlockDescription u4{{u4_tensor()}};
  const Request requests[] = {
      HelloRequest{},
      DecodeRequest{"kiln-v2-u4", "kiln-v2", {0x4b, 0x49}},
      DecodeRequest{"", "other-profile", {}},
      EncodeRequest{"kiln-v2-u4", "kiln-v2", u4},
      EncodeRequest{"empty", "kiln-v2", {}},
  };
  for (const Request& request : requests)
    EXPECT_EQ(request_from_text(line_of(request_to_json(request))), request);
}

TEST(RequestJson, WritesTheDocumentedForms) {
  EXPECT_EQ(line_of(request_to_json(HelloRequest{})), R"({"op":"hello","protocol":1})");
  EXPECT_EQ(line_of(request_to_json(DecodeRequest{"c", "kiln-v2", {0xab}})),
            R"({"op":"decode","case":"c","profile":"kiln-v2","block":"ab"})");
  EXPECT_EQ(line_of(request_to_json(EncodeRequest{"c", "kiln-v2", {{u4_tensor()}}})),
            R"({"op":"encode","case":"c","profile":"kiln-v2","tensors":[)" + kU4TensorJson +
                "]}");
}

TEST(RequestJson, ProfileAndCaseAreOptional) {
  const Request request = request_from_text(R"({"op":"decode","block":"4b"})");
  const auto& decode = std::get<DecodeRequest>(request);
  EXPECT_EQ(decode.profile, "kiln-v2");
  EXPECT_EQ(decode.case_id, "");
  EXPECT_EQ(decode.block, std::vector<std::uint8_t>{0x4b});
}

TEST(RequestJson, HelloCarriesAnyProtocolNumber) {
  EXPECT_EQ(std::get<HelloRequest>(request_from_text(R"({"op":"hello","protocol":2})")).protocol,
            2u);
}

struct BadRequest {
  const char* line;
  const char* message;
};

void PrintTo(const BadRequest& bad, std::ostream* out) { print_as_name(bad.message, out); }

class RequestJsonRejects : public ::testing::TestWithParam<BadRequest> {};

TEST_P(RequestJsonRejects, WithAClearMessage) {
  auto request = parse_request(GetParam().line);
  ASSERT_FALSE(request.ok()) << GetParam().line;
  EXPECT_EQ(request.error().substr(0, std::string_view(GetParam().message).size()),
            GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, RequestJsonRejects,
    ::testing::Values(
        BadRequest{"", "the line is empty; expected one JSON object"},
        BadRequest{"  \r", "the line is empty; expected one JSON object"},
        BadRequest{"hello", "the line is not JSON at byte 0: syntax error while parsing value"},
        BadRequest{R"({"op":"hello")",
                   "the line is not JSON at byte 13 (the end of the line): syntax error"},
        BadRequest{"\"op\"", "a request must be a JSON object, got a string"},
        BadRequest{"[]", "a request must be a JSON object, got an array"},
        BadRequest{"{\"op\":\"dec\xff\"}", "the line is not valid UTF-8 at byte 10"},
        BadRequest{"{}", "op: required field is missing"},
        BadRequest{R"({"op":1})", "op: must be a string, got 1"},
        BadRequest{R"({"op":"frobnicate"})",
                   "op: unknown op \"frobnicate\"; protocol 1 has hello, decode and encode"},
        BadRequest{R"({"op":"hello"})", "protocol: required field is missing"},
        BadRequest{R"({"op":"hello","protocol":"1"})",
                   "protocol: must be an integer from 0 to 18446744073709551615, got a string"},
        BadRequest{R"({"op":"decode"})", "block: required field is missing"},
        BadRequest{R"({"op":"decode","block":"4g"})",
                   "block: not hex: 'g' is not a hex digit at character 1"},
        BadRequest{R"({"op":"decode","block":null})", "block: must be a hex string, got null"},
        BadRequest{R"({"op":"decode","case":3,"block":""})", "case: must be a string, got 3"},
        BadRequest{R"({"op":"decode","profile":null,"block":""})",
                   "profile: must be a string, got null"},
        BadRequest{R"({"op":"encode"})", "tensors: required field is missing"},
        BadRequest{R"({"op":"encode","tensors":{}})",
                   "tensors: must be an array of tensors, got an object"},
        BadRequest{R"({"op":"encode","tensors":[{"name":"x"}]})",
                   "tensors[0].dtype: required field is missing"}),
    [](const auto& info) { return "Case" + std::to_string(info.index); });

TEST(RequestJson, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = "{\"op\":" + std::string(200000, '[');
  EXPECT_FALSE(parse_request(deep).ok());
}

TEST(RequestJson, AnUnknownOpIsQuotedShortAndEscaped) {
  auto request = parse_request(R"({"op":")" + std::string(1 << 20, 'x') + "\"}");
  ASSERT_FALSE(request.ok());
  EXPECT_LT(request.error().size(), 2 * kMaxExcerptBytes);
  EXPECT_EQ(request.error().substr(0, 20), "op: unknown op \"xxxx");
  EXPECT_NE(request.error().find("more bytes cut]\"; protocol 1 has"), std::string::npos)
      << request.error();
  auto quoted = parse_request(R"({"op":"a\"b\u0000"})");
  ASSERT_FALSE(quoted.ok());
  EXPECT_EQ(quoted.error(),
            R"(op: unknown op "a\"b\u0000"; protocol 1 has hello, decode and encode)");
}

// ---- Replies ----

TEST(OutcomeJson, EveryOutcomeRoundTrips) {
  const std::pair<Outcome, Op> outcomes[] = {
      {Accept{{{u4_tensor()}}}, Op::kDecode},
      {Accept{}, Op::kDecode},
      {Reject{ErrorClass::kType, "tensor 0: high nibble", "TYPE-HIGH-NIBBLE", 129}, Op::kDecode},
      {Reject{ErrorClass::kFrame, "no magic", std::nullopt, std::nullopt}, Op::kEncode},
      {EncodedBlock{{0x4b, 0x49, 0x4c, 0x4e}}, Op::kEncode},
      {ProtocolError{"what?"}, Op::kDecode},
  };
  for (const auto& [outcome, op] : outcomes) {
    auto parsed_back = parse_reply(line_of(outcome_to_json(outcome)), op);
    ASSERT_TRUE(parsed_back.ok()) << parsed_back.error();
    EXPECT_EQ(parsed_back.value(), outcome);
  }
}

TEST(OutcomeJson, WritesTheDocumentedForms) {
  EXPECT_EQ(line_of(outcome_to_json(Accept{{{u4_tensor()}}})),
            R"({"result":"accept","tensors":[)" + kU4TensorJson + "]}");
  EXPECT_EQ(line_of(outcome_to_json(Reject{ErrorClass::kFrame, "m", "FRAME-MAGIC", 0})),
            R"({"result":"reject","class":"FRAME","message":"m","rule":"FRAME-MAGIC","offset":0})");
  EXPECT_EQ(line_of(outcome_to_json(EncodedBlock{{0x4b, 0x0a}})),
            R"({"result":"block","block":"4b0a"})");
  EXPECT_EQ(line_of(outcome_to_json(ProtocolError{"m"})), R"({"result":"error","message":"m"})");
}

TEST(OutcomeJson, ARejectNeedsOnlyItsClass) {
  auto outcome = parse_reply(R"({"result":"reject","class":"TYPE"})", Op::kDecode);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(std::get<Reject>(outcome.value()).error_class, ErrorClass::kType);
}

TEST(OutcomeJson, RejectsRepliesThatDoNotAnswerTheOp) {
  struct Case {
    const char* line;
    Op op;
    const char* message;
  };
  const Case cases[] = {
      {R"({"result":"block","block":"00"})", Op::kDecode,
       "result: \"block\" does not answer decode"},
      {R"({"result":"accept","tensors":[]})", Op::kEncode,
       "result: \"accept\" does not answer encode"},
      {R"({"result":"reject","class":"frame"})", Op::kDecode,
       "class: must be \"FRAME\" or \"TYPE\", got \"frame\""},
      {R"({"result":"reject","message":"m"})", Op::kDecode, "class: required field is missing"},
      {R"({"result":"reject","class":"TYPE","offset":-1})", Op::kDecode,
       "offset: must be an integer from 0 to 18446744073709551615, as a number or a decimal string, "
       "got the negative -1"},
      {R"({"result":"maybe"})", Op::kDecode,
       "result: unknown result \"maybe\"; expected accept, reject, block or error"},
      {R"({"tensors":[]})", Op::kDecode, "result: required field is missing"},
      {R"({"result":"accept","tensors":[{"name":"x","dtype":17,"shape":[3],"layout":null,"block_size":0}]})",
       Op::kDecode, "tensors[0].payload: required field is missing"},
  };
  for (const Case& bad : cases) {
    auto outcome = parse_reply(bad.line, bad.op);
    ASSERT_FALSE(outcome.ok()) << bad.line;
    EXPECT_EQ(outcome.error(), bad.message) << bad.line;
  }
}

TEST(HelloJson, RoundTripsAndWritesTheDocumentedForm) {
  const Hello hello{"mine", "1.2", 1, {"decode"}, {"kiln-v2", "other"}, {}};
  const std::string line = line_of(hello_to_json(hello));
  EXPECT_EQ(line,
            R"({"name":"mine","version":"1.2","protocol":1,"ops":["decode"],)"
            R"("profiles":["kiln-v2","other"]})");
  auto back = parse_hello_reply(line);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), hello);
}

TEST(HelloJson, ProtocolAndProfilesDefaultForBriefStyleAdapters) {
  auto hello = parse_hello_reply(R"({"name":"n","version":"v","ops":["decode","encode"]})");
  ASSERT_TRUE(hello.ok()) << hello.error();
  EXPECT_EQ(hello.value().protocol, 1u);
  EXPECT_EQ(hello.value().profiles, std::vector<std::string>{"kiln-v2"});
  EXPECT_TRUE(hello.value().offers_op(Op::kEncode));
  EXPECT_TRUE(hello.value().offers_profile("kiln-v2"));
  EXPECT_FALSE(hello.value().offers_profile("hurray"));
}

TEST(HelloJson, ErrorsAndMissingFieldsAreReported) {
  auto error = parse_hello_reply(R"({"result":"error","message":"no"})");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error(), "the adapter answered hello with an error: no");
  auto missing = parse_hello_reply(R"({"name":"n","ops":[]})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "version: required field is missing");
  auto bad_ops = parse_hello_reply(R"({"name":"n","version":"v","ops":["decode",2]})");
  ASSERT_FALSE(bad_ops.ok());
  EXPECT_EQ(bad_ops.error(), "ops[1]: must be a string, got 2");
}

// ---- Adapter text is bounded (free text kept per result, values quoted in messages) ----

const std::string kHuge(std::size_t{3} << 20, 'm');  // a 3 MiB message

TEST(OutcomeJson, RejectMessageAndRuleAreCut) {
  auto outcome = parse_reply(R"({"result":"reject","class":"TYPE","message":")" + kHuge +
                                 R"(","rule":")" + kHuge + "\"}",
                             Op::kDecode);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  const Reject& reject = std::get<Reject>(outcome.value());
  EXPECT_EQ(reject.message, bounded_message(kHuge));
  EXPECT_EQ(reject.rule, bounded_message(kHuge, kMaxNameBytes));
  EXPECT_LT(reject.message.size(), kMaxMessageBytes + 64);
}

TEST(OutcomeJson, ErrorMessageIsCut) {
  auto outcome = parse_reply(R"({"result":"error","message":")" + kHuge + "\"}", Op::kEncode);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(std::get<ProtocolError>(outcome.value()).message, bounded_message(kHuge));
}

TEST(OutcomeJson, ShortMessagesAreKeptWhole) {
  const std::string exactly(kMaxMessageBytes, 'm');
  auto outcome = parse_reply(R"({"result":"error","message":")" + exactly + "\"}", Op::kEncode);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(std::get<ProtocolError>(outcome.value()).message, exactly);
}

TEST(OutcomeJson, ValuesQuotedInMessagesAreExcerpted) {
  for (const std::string& line :
       {R"({"result":")" + kHuge + "\"}", R"({"result":"reject","class":")" + kHuge + "\"}"}) {
    auto outcome = parse_reply(line, Op::kDecode);
    ASSERT_FALSE(outcome.ok());
    EXPECT_LT(outcome.error().size(), 2 * kMaxExcerptBytes) << outcome.error().substr(0, 200);
    EXPECT_NE(outcome.error().find("more bytes cut]\""), std::string::npos) << outcome.error();
  }
}

TEST(HelloJson, NameVersionAndErrorMessageAreCut) {
  auto hello = parse_hello_reply(R"({"name":")" + kHuge + R"(","version":")" + kHuge +
                                 R"(","ops":["decode",")" + kHuge + "\"]}");
  ASSERT_TRUE(hello.ok()) << hello.error();
  EXPECT_EQ(hello.value().name, bounded_message(kHuge, kMaxNameBytes));
  EXPECT_EQ(hello.value().version, bounded_message(kHuge, kMaxNameBytes));
  EXPECT_EQ(hello.value().ops,
            (std::vector<std::string>{"decode", bounded_message(kHuge, kMaxNameBytes)}));
  auto error = parse_hello_reply(R"({"result":"error","message":")" + kHuge + "\"}");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error(), "the adapter answered hello with an error: " + bounded_message(kHuge));
}

TEST(HelloJson, OpsAndProfilesHaveAtMost64Entries) {
  std::string at_limit = R"({"name":"n","version":"v","ops":["decode")";
  for (std::size_t i = 1; i < kMaxListEntries; ++i) at_limit += R"(,"x")";
  EXPECT_TRUE(parse_hello_reply(at_limit + "]}").ok());
  auto over = parse_hello_reply(at_limit + R"(,"x"]})");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error(), "ops: must have at most 64 entries, got 65");
  std::string profiles = R"({"name":"n","version":"v","ops":[],"profiles":[)";
  for (std::size_t i = 0; i < 100000; ++i) profiles += i ? R"(,"p")" : R"("p")";
  auto many = parse_hello_reply(profiles + "]}");
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error(), "profiles: must have at most 64 entries, got 100000");
}

// ---- bounded_message and quoted_excerpt ----

TEST(BoundedMessage, TextWithinTheLimitIsUnchanged) {
  EXPECT_EQ(bounded_message("", 0), "");
  EXPECT_EQ(bounded_message("abc", 3), "abc");
  EXPECT_EQ(bounded_message("abc", 4), "abc");
  const std::string exactly(kMaxMessageBytes, 'x');
  EXPECT_EQ(bounded_message(exactly), exactly);
}

TEST(BoundedMessage, LongerTextIsCutAndSaysHowMuch) {
  EXPECT_EQ(bounded_message("abcd", 3), "abc... [1 more bytes cut]");
  EXPECT_EQ(bounded_message("abcd", 0), "... [4 more bytes cut]");
  const std::string over(kMaxMessageBytes + 1, 'x');
  EXPECT_EQ(bounded_message(over), std::string(kMaxMessageBytes, 'x') + "... [1 more bytes cut]");
  const std::string huge(std::size_t{30} << 20, 'x');  // the 30 MB message of the finding
  EXPECT_EQ(bounded_message(huge),
            std::string(kMaxMessageBytes, 'x') + "... [" +
                std::to_string(huge.size() - kMaxMessageBytes) + " more bytes cut]");
}

TEST(BoundedMessage, NeverSplitsAUtf8Character) {
  const std::string e_acute = "\xc3\xa9";          // 2 bytes
  const std::string fire = "\xf0\x9f\x94\xa5";     // 4 bytes
  // The limit falls inside the character: the whole character goes.
  EXPECT_EQ(bounded_message("a" + e_acute + "z", 2), "a... [3 more bytes cut]");
  EXPECT_EQ(bounded_message("a" + e_acute + "z", 3), "a" + e_acute + "... [1 more bytes cut]");
  for (std::size_t limit = 1; limit <= 4; ++limit)
    EXPECT_EQ(bounded_message("a" + fire + "z", limit), "a... [5 more bytes cut]") << limit;
  EXPECT_EQ(bounded_message("a" + fire + "z", 5), "a" + fire + "... [1 more bytes cut]");
  // Whatever the limit, what comes back is valid UTF-8.
  std::string mixed;
  for (int i = 0; i < 100; ++i) mixed += "a" + e_acute + fire;
  for (std::size_t limit = 0; limit <= mixed.size(); ++limit)
    EXPECT_TRUE(is_valid_utf8(bounded_message(mixed, limit))) << limit;
}

TEST(QuotedExcerpt, QuotesEscapesAndCuts) {
  EXPECT_EQ(quoted_excerpt("frame"), "\"frame\"");
  EXPECT_EQ(quoted_excerpt(std::string("a\"\n\0", 4)), R"("a\"\n\u0000")");
  EXPECT_EQ(quoted_excerpt("abcd", 2), "\"ab... [2 more bytes cut]\"");
  EXPECT_EQ(quoted_excerpt(std::string(1000, 'q')),
            "\"" + std::string(kMaxExcerptBytes, 'q') + "... [872 more bytes cut]\"");
  // Bytes that are not UTF-8 are replaced, never thrown about.
  EXPECT_EQ(quoted_excerpt("\xff"), "\"\xef\xbf\xbd\"");
}

TEST(RejectFrom, CarriesClassRuleOffsetAndTensor) {
  const Reject reject =
      reject_from(Error{Rule::kTypeBoolByte, 129, 0u, "bool byte is 2, not 0 or 1"});
  EXPECT_EQ(reject.error_class, ErrorClass::kType);
  EXPECT_EQ(reject.rule, "TYPE-BOOL-BYTE");
  EXPECT_EQ(reject.offset, 129u);
  EXPECT_EQ(reject.message, "tensor 0: bool byte is 2, not 0 or 1");
}

}  // namespace
}  // namespace kiln::protocol

namespace kiln::protocol {
namespace {

TEST(Printable, KeepsUtf8AndEscapesControlsAndStrayBytes) {
  EXPECT_EQ(printable("plain é ✓ 𝄞"), "plain é ✓ 𝄞");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("\x00\x1b[2J\x7f", 6)), "\\x00\\x1b[2J\\x7f");
  // Stray and cut bytes, an overlong form and a surrogate: each byte escaped.
  EXPECT_EQ(printable("ab\xff\x01" "cd"), "ab\\xff\\x01cd");
  EXPECT_EQ(printable("\xe2\x9c"), "\\xe2\\x9c");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable(""), "");
  // Never more than one line, always UTF-8.
  const std::string hostile = "x\nCONFORMANT: forged\r\n\xfe\xff";
  const std::string shown = printable(hostile);
  EXPECT_EQ(shown.find('\n'), std::string::npos);
  EXPECT_EQ(shown.find('\r'), std::string::npos);
  EXPECT_TRUE(is_valid_utf8(shown));
}

// ---- profile hurray-elements ----

TEST(ElementsMessages, TheBriefsRequestsRoundTrip) {
  const std::string decode_line =
      R"({"op":"decode","profile":"hurray-elements","case":"hurray-uint4-3","tag":73,"shape":[3],"mode":"strict","data":"c503"})";
  auto decode = parse_request(decode_line);
  ASSERT_TRUE(decode.ok()) << decode.error();
  const auto& request = std::get<ElementsDecodeRequest>(decode.value());
  EXPECT_EQ(request.tag, 73);
  EXPECT_EQ(request.shape, (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(request.data, (std::vector<std::uint8_t>{0xC5, 0x03}));
  EXPECT_EQ(to_line(request_to_json(decode.value())).value(), decode_line);

  const std::string encode_line =
      R"({"op":"encode","profile":"hurray-elements","case":"hurray-uint4-3","tag":73,"shape":[3],"elements":["5","c","3"]})";
  auto encode = parse_request(encode_line);
  ASSERT_TRUE(encode.ok()) << encode.error();
  EXPECT_EQ(std::get<ElementsEncodeRequest>(encode.value()).elements,
            (std::vector<std::string>{"5", "c", "3"}));
  EXPECT_EQ(to_line(request_to_json(encode.value())).value(), encode_line);
}

TEST(ElementsMessages, AModelessDecodeIsStrictAndBadMembersAreNamed) {
  auto modeless = parse_request(R"({"op":"decode","profile":"hurray-elements","tag":32,"shape":[],"data":"01"})");
  ASSERT_TRUE(modeless.ok()) << modeless.error();
  EXPECT_EQ(std::get<ElementsDecodeRequest>(modeless.value()).mode, hurray::Mode::kStrict);

  const auto error_of = [](const std::string& line) {
    auto parsed = parse_request(line);
    return parsed.ok() ? std::string("(parsed)") : parsed.error();
  };
  EXPECT_NE(error_of(R"({"op":"decode","profile":"hurray-elements","tag":256,"shape":[1],"data":""})").find("tag"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op":"decode","profile":"hurray-elements","tag":1,"shape":[1],"mode":"lax","data":""})")
                .find("mode"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op":"encode","profile":"hurray-elements","tag":73,"shape":[2],"elements":["5","x"]})")
                .find("elements[1]"),
            std::string::npos);
}

TEST(ElementsMessages, RepliesAreReadByTheRequestsProfile) {
  auto accept = parse_reply(R"({"result":"accept","elements":["5","C","003"]})", Op::kDecode,
                            kProfileHurrayElements);
  ASSERT_TRUE(accept.ok()) << accept.error();
  // By value: case and leading zeros do not matter.
  EXPECT_EQ(std::get<ElementsAccept>(accept.value()).elements,
            (std::vector<hurray::Element>{{5, 0}, {12, 0}, {3, 0}}));
  EXPECT_TRUE(std::holds_alternative<OpaqueAccept>(
      parse_reply(R"({"result":"opaque"})", Op::kDecode, kProfileHurrayElements).value()));
  auto tag = parse_reply(R"({"result":"reject","class":"TAG","message":"no"})", Op::kDecode, kProfileHurrayElements);
  ASSERT_TRUE(tag.ok()) << tag.error();
  EXPECT_EQ(std::get<ElementsReject>(tag.value()).error_class, hurray::ErrorClass::kTag);
  // Kiln's classes and results do not answer a hurray request, nor an opaque an encode.
  EXPECT_FALSE(parse_reply(R"({"result":"reject","class":"FRAME"})", Op::kDecode, kProfileHurrayElements).ok());
  EXPECT_FALSE(parse_reply(R"({"result":"block","block":"00"})", Op::kEncode, kProfileHurrayElements).ok());
  EXPECT_FALSE(parse_reply(R"({"result":"opaque"})", Op::kEncode, kProfileHurrayElements).ok());
  auto data = parse_reply(R"({"result":"data","data":"c503"})", Op::kEncode, kProfileHurrayElements);
  ASSERT_TRUE(data.ok()) << data.error();
  EXPECT_EQ(std::get<ElementData>(data.value()).bytes, (std::vector<std::uint8_t>{0xC5, 0x03}));
  // A parsed accept is written with the fewest digits, never none.
  EXPECT_EQ(to_line(outcome_to_json(ElementsAccept{{{0, 0}, {0x1f, 0}}, 0})).value(),
            R"({"result":"accept","elements":["0","1f"]})");
}

}  // namespace
}  // namespace kiln::protocol
