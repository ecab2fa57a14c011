// serve() and answer() over std::stringstream: the JSON Lines loop on top of the
// Adapter interface, with the reference adapter and with small fake adapters.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kiln/adapter.hpp"
#include "seed_blocks.hpp"

namespace kiln::protocol {
namespace {

using testing::kHighNibbleHex;
using testing::kU4Hex;
using testing::kU4TensorJson;
using testing::lines_of;

const std::string kHelloRequest = R"({"op":"hello","protocol":1})";
const std::string kDecodeU4 = R"({"op":"decode","case":"kiln-v2-u4","block":")" + kU4Hex + "\"}";
const std::string kAcceptU4 = R"({"result":"accept","tensors":[)" + kU4TensorJson + "]}";

std::vector<std::string> serve_lines(Adapter& adapter, const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out;
  EXPECT_TRUE(serve(adapter, in, out));
  return lines_of(out.str());
}

Reject reject_in(const std::string& line, Op op) {
  auto outcome = parse_reply(line, op);
  EXPECT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_TRUE(outcome.ok() && std::holds_alternative<Reject>(outcome.value())) << line;
  return outcome.ok() && std::holds_alternative<Reject>(outcome.value())
             ? std::get<Reject>(outcome.value())
             : Reject{};
}

void expect_error_reply(const std::string& line, std::string_view message_start) {
  auto outcome = parse_reply(line, Op::kDecode);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  ASSERT_TRUE(std::holds_alternative<ProtocolError>(outcome.value())) << line;
  const std::string& message = std::get<ProtocolError>(outcome.value()).message;
  EXPECT_EQ(message.substr(0, message_start.size()), message_start) << line;
}

// PROTOCOL.md, "Replies": every reply, an error's and hello's too, carries its
// request's id, so the runner can tell an answer given twice from the next one.
TEST(Serve, EveryReplyEchoesItsRequestsId) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(
      adapter, R"({"op":"hello","protocol":1,"id":1})" "\n"
               R"({"op":"decode","block":")" + kU4Hex + R"(","id":2})" "\n"
               R"({"op":"decode","block":"zz","id":18446744073709551615})" "\n"
               R"({"op":"frobnicate","id":4})" "\n"
               R"({"op":"decode","block":"","id":"5"})" "\n"
               "not json\n");
  ASSERT_EQ(replies.size(), 6u);
  const auto id_of = [](const std::string& line) {
    auto json = parse_line(line);
    EXPECT_TRUE(json.ok()) << line;
    return json.ok() && json.value().contains("id") ? json.value()["id"].dump() : std::string("none");
  };
  EXPECT_EQ(id_of(replies[0]), "1");
  EXPECT_EQ(id_of(replies[1]), "2");
  EXPECT_EQ(id_of(replies[2]), "18446744073709551615");
  EXPECT_EQ(id_of(replies[3]), "4");
  // Only an id the runner would send (an unsigned integer) is echoed.
  EXPECT_EQ(id_of(replies[4]), "none");
  EXPECT_EQ(id_of(replies[5]), "none");
  EXPECT_TRUE(parse_hello_reply(replies[0]).ok());
  expect_error_reply(replies[3], "op: unknown op");
}

TEST(Serve, ReferenceTranscript) {
  ReferenceAdapter adapter;
  const std::string input = kHelloRequest + "\n" + kDecodeU4 + "\n" +
                            R"({"op":"decode","case":"kiln-v2-high-nibble","block":")" +
                            kHighNibbleHex + "\"}\n" +
                            R"({"op":"encode","case":"kiln-v2-u4","profile":"kiln-v2","tensors":[)" +
                            kU4TensorJson + "]}\n";
  const auto replies = serve_lines(adapter, input);
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[0], R"({"name":"kiln-reference","version":")" KILN_PROJECT_VERSION
                        R"(","protocol":1,"ops":["decode","encode"],"profiles":["kiln-v2","hurray-elements"],)"
                        R"("hurray_tier2":["float8_e4m3","float8_e5m2","float8_e8m0","float4_e2m1",)"
                        R"("float6_e2m3","float6_e3m2","float128","int4","uint4","int2","uint2"]})");
  EXPECT_EQ(replies[1], kAcceptU4);
  const Reject reject = reject_in(replies[2], Op::kDecode);
  EXPECT_EQ(reject.error_class, ErrorClass::kType);
  EXPECT_EQ(reject.rule, "TYPE-HIGH-NIBBLE");
  EXPECT_EQ(reject.offset, 129u);  // the payload's last byte
  EXPECT_FALSE(reject.message.empty());
  EXPECT_EQ(replies[3], R"({"result":"block","block":")" + kU4Hex + "\"}");
}

TEST(Serve, EncodeRejectCarriesTheRule) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(
      adapter, R"({"op":"encode","tensors":[{"name":"x","dtype":7,"shape":[2],"layout":null,)"
               R"("block_size":0,"payload":"0102"}]})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  const Reject reject = reject_in(replies[0], Op::kEncode);
  EXPECT_EQ(reject.error_class, ErrorClass::kType);
  EXPECT_EQ(reject.rule, "TYPE-BOOL-BYTE");
}

TEST(Serve, FrameRejectOfTruncatedBlock) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(adapter, R"({"op":"decode","block":"4b494c"})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  const Reject reject = reject_in(replies[0], Op::kDecode);
  EXPECT_EQ(reject.error_class, ErrorClass::kFrame);
  EXPECT_EQ(reject.rule, "FRAME-TRUNCATED");
}

struct Garbage {
  std::string line;
  std::string message_start;
};

TEST(Serve, EveryBadLineGetsAnErrorReplyAndServingGoesOn) {
  const Garbage garbage[] = {
      {"this is not JSON", "the line is not JSON"},
      {"", "the line is empty"},
      {"[1,2]", "a request must be a JSON object"},
      {"{\"op\":\"hello\",\"protocol\":1,\"x\":\"\xc3\x28\"}", "the line is not valid UTF-8"},
      {R"({"op":"frobnicate"})", "op: unknown op \"frobnicate\""},
      {R"({"op":"decode","case":"kiln-v2-u4"})", "block: required field is missing"},
      {R"({"op":"decode","block":"4b49zz"})", "block: not hex"},
      {R"({"op":"decode","block":"4b4"})", "block: not hex: odd number of hex digits"},
      {R"({"op":"hello","protocol":2})", "protocol 2 is not supported"},
      {R"({"op":"decode","profile":"hurray","block":""})", "profile \"hurray\" is not supported"},
      {R"({"op":"encode","tensors":[{"name":"x"}]})", "tensors[0].dtype: required field"},
  };
  ReferenceAdapter adapter;
  std::string input;
  for (const Garbage& bad : garbage) input += bad.line + "\n" + kDecodeU4 + "\n";
  const auto replies = serve_lines(adapter, input);
  ASSERT_EQ(replies.size(), 2 * std::size(garbage));
  for (std::size_t i = 0; i < std::size(garbage); ++i) {
    SCOPED_TRACE(garbage[i].line);
    expect_error_reply(replies[2 * i], garbage[i].message_start);
    EXPECT_EQ(replies[2 * i + 1], kAcceptU4);
  }
}

TEST(Serve, OneShotRequestWithoutNewlineIsAnswered) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(adapter, kDecodeU4);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0], kAcceptU4);
}

TEST(Serve, EmptyInputGetsNoReply) {
  ReferenceAdapter adapter;
  EXPECT_TRUE(serve_lines(adapter, "").empty());
}

TEST(Serve, CarriageReturnBeforeNewlineIsWhiteSpace) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(adapter, kDecodeU4 + "\r\n");
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0], kAcceptU4);
}

TEST(Serve, DeepRequestsGetAnErrorReplyAndServingGoesOn) {
  // 50,000 levels: built and copied by nlohmann, they overflowed the stack.
  constexpr std::size_t kDeep = 50000;
  std::string deep_object;
  for (std::size_t i = 0; i < kDeep; ++i) deep_object += R"({"a":)";
  deep_object += "1" + std::string(kDeep, '}');
  const std::string deep_array = std::string(kDeep, '[') + std::string(kDeep, ']');
  ReferenceAdapter adapter;
  const auto replies =
      serve_lines(adapter, R"({"x":)" + deep_array + R"(,"op":"hello","protocol":1})" "\n" +
                               R"({"x":)" + deep_object + R"(,"op":"hello","protocol":1})" "\n" +
                               deep_array + "\n" + kDecodeU4 + "\n");
  ASSERT_EQ(replies.size(), 4u);
  const std::string too_deep = "the line nests arrays and objects more than 64 levels deep at byte ";
  expect_error_reply(replies[0], too_deep + "68");
  expect_error_reply(replies[1], too_deep + "320");
  expect_error_reply(replies[2], too_deep + "64");
  EXPECT_EQ(replies[3], kAcceptU4);
}

TEST(Serve, NulThenGarbageGetsAnErrorReply) {
  ReferenceAdapter adapter;
  const auto replies = serve_lines(
      adapter, kHelloRequest + std::string(1, '\0') + "garbage\n" + kDecodeU4 + "\n");
  ASSERT_EQ(replies.size(), 2u);
  expect_error_reply(replies[0], "the line has a raw control byte 0x00 at byte 27");
  EXPECT_EQ(replies[1], kAcceptU4);
}

TEST(Serve, ReportsAFailedOutputStream) {
  ReferenceAdapter adapter;
  std::istringstream in(kHelloRequest + "\n");
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  EXPECT_FALSE(serve(adapter, in, out));
}

// A stream buffer whose reads fail (an I/O error on stdin).
class FailingInput : public std::streambuf {
 protected:
  int_type underflow() override { throw std::runtime_error("read error"); }
};

TEST(Serve, ReportsAnInputThatCannotBeRead) {
  // getline turns the failure into badbit and stops, like end of input did.
  ReferenceAdapter adapter;
  FailingInput failing;
  std::istream in(&failing);
  std::ostringstream out;
  EXPECT_FALSE(serve(adapter, in, out));
  EXPECT_EQ(out.str(), "");
}

// Answers decode with whatever it was given and offers only decode.
class FakeAdapter : public Adapter {
 public:
  explicit FakeAdapter(Outcome decoded) : decoded_(std::move(decoded)) {}
  Hello hello() override { return Hello{"fake", "0", 1, {"decode"}, {"kiln-v2"}, {}}; }
  Outcome decode(std::span<const std::uint8_t>) override {
    if (std::holds_alternative<ProtocolError>(decoded_) &&
        std::get<ProtocolError>(decoded_).message == "throw")
      throw std::runtime_error("boom");
    return decoded_;
  }
  Outcome encode(const BlockDescription&) override { return EncodedBlock{}; }

 private:
  Outcome decoded_;
};

TEST(Serve, OpsNotOfferedAreRefused) {
  FakeAdapter adapter(Accept{});
  const auto replies = serve_lines(
      adapter, R"({"op":"encode","tensors":[]})" "\n" R"({"op":"decode","block":""})" "\n");
  ASSERT_EQ(replies.size(), 2u);
  expect_error_reply(replies[0], "this adapter does not offer encode (it offers decode)");
  EXPECT_EQ(replies[1], R"({"result":"accept","tensors":[]})");
}

TEST(Serve, AThrowingAdapterGetsAnErrorReplyAndServingGoesOn) {
  FakeAdapter adapter(ProtocolError{"throw"});
  const auto replies =
      serve_lines(adapter, R"({"op":"decode","block":""})" "\n" + kHelloRequest + "\n");
  ASSERT_EQ(replies.size(), 2u);
  expect_error_reply(replies[0], "the adapter failed: boom");
  EXPECT_TRUE(parse_hello_reply(replies[1]).ok());
}

// Throws an exception whose message is megabytes long.
class LoudAdapter : public FakeAdapter {
 public:
  LoudAdapter() : FakeAdapter(Accept{}) {}
  Outcome decode(std::span<const std::uint8_t>) override {
    throw std::runtime_error(std::string(std::size_t{3} << 20, 'w'));
  }
};

TEST(Serve, LongTextInAnErrorReplyIsCut) {
  LoudAdapter adapter;
  const std::string huge_profile(std::size_t{1} << 20, 'p');
  const auto replies = serve_lines(adapter, R"({"op":"decode","block":""})" "\n"
                                            R"({"op":"decode","profile":")" + huge_profile +
                                                R"(","block":""})" "\n");
  ASSERT_EQ(replies.size(), 2u);
  expect_error_reply(replies[0], "the adapter failed: www");
  EXPECT_LT(replies[0].size(), kMaxMessageBytes + 100);
  expect_error_reply(replies[1], "profile \"ppp");
  EXPECT_LT(replies[1].size(), 2 * kMaxExcerptBytes + 100);
}

TEST(Serve, AnOutcomeThatDoesNotAnswerTheOpIsAnError) {
  FakeAdapter adapter(EncodedBlock{{0x00}});
  const auto replies = serve_lines(adapter, R"({"op":"decode","block":""})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  expect_error_reply(replies[0], "adapter bug: its decode produced a result");
}

TEST(Serve, AReplyThatCannotBeJsonIsAnErrorReplyNotAThrow) {
  // A message is free text but must be UTF-8 to travel in JSON.
  FakeAdapter adapter(Reject{ErrorClass::kFrame, "bad \xff byte", std::nullopt, std::nullopt});
  const auto replies = serve_lines(adapter, R"({"op":"decode","block":""})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  expect_error_reply(replies[0], "the reply cannot be written as JSON");
}

TEST(Serve, ALargeBlockOnOneLine) {
  // Four MiB of trailing bytes after the worked example: a long line, one FRAME reply.
  ReferenceAdapter adapter;
  const std::string line =
      R"({"op":"decode","block":")" + kU4Hex + std::string(std::size_t{8} << 20, '0') + "\"}";
  const auto replies = serve_lines(adapter, line + "\n");
  ASSERT_EQ(replies.size(), 1u);
  const Reject reject = reject_in(replies[0], Op::kDecode);
  EXPECT_EQ(reject.rule, "FRAME-TRAILING");
  EXPECT_EQ(reject.offset, 130u);
}

}  // namespace
}  // namespace kiln::protocol
