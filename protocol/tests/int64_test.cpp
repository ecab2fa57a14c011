// 64-bit integers as numbers or decimal strings (PROTOCOL.md, "64-bit integers"):
// both forms written on request and read always, in every 64-bit field of every
// message; non-canonical strings refused naming the field; fields of 32 bits or
// fewer numbers only; hello's "int64".
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/adapter.hpp"
#include "kiln/protocol.hpp"
#include "seed_blocks.hpp"

namespace kiln::protocol {
namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr Int64Form kNumber = Int64Form::kNumber;
constexpr Int64Form kString = Int64Form::kString;

TensorDescription big_tensor() { return TensorDescription{"x", 4096, {kMaxU64, 0, 3}, "q", 7, {}}; }

std::string line_of(const Json& json) {
  auto line = to_line(json);
  EXPECT_TRUE(line.ok()) << line.error();
  return line.ok() ? line.value() : std::string();
}

// ---- the decimal string ----

TEST(DecimalString, TheEdgesAreExact) {
  EXPECT_EQ(uint64_from_decimal("0"), 0u);
  EXPECT_EQ(uint64_from_decimal("1"), 1u);
  EXPECT_EQ(uint64_from_decimal("9007199254740993"), 9007199254740993u);  // 2^53 + 1: no double
  EXPECT_EQ(uint64_from_decimal("18446744073709551614"), kMaxU64 - 1);
  EXPECT_EQ(uint64_from_decimal("18446744073709551615"), kMaxU64);
  EXPECT_EQ(uint64_to_json(kMaxU64, kString), Json("18446744073709551615"));
  EXPECT_EQ(uint64_to_json(0, kString), Json("0"));
  EXPECT_EQ(uint64_to_json(kMaxU64, kNumber).dump(), "18446744073709551615");
}

TEST(DecimalString, OnlyTheCanonicalFormIsRead) {
  for (const char* text : {"", "+1", "-1", "-0", "01", "00", "1e3", "1E3", " 1", "1 ", "\t1",
                           "1.0", "0x1f", "1_000", "\xd9\xa1" /* Arabic-Indic digit one */,
                           "18446744073709551616", "18446744073709551620", "99999999999999999999",
                           "100000000000000000000"})
    EXPECT_EQ(uint64_from_decimal(text), std::nullopt) << '"' << text << '"';
  EXPECT_EQ(uint64_from_decimal(std::string(1 << 20, '7')), std::nullopt);
  EXPECT_EQ(uint64_from_decimal(std::string_view("1\0", 2)), std::nullopt);
}

TEST(DecimalString, EveryValueRoundTrips) {
  for (std::uint64_t value : {std::uint64_t{0}, std::uint64_t{9}, std::uint64_t{10},
                              std::uint64_t{4294967295}, std::uint64_t{4294967296},
                              std::uint64_t{1} << 63, kMaxU64 - 9, kMaxU64}) {
    const Json written = uint64_to_json(value, kString);
    ASSERT_TRUE(written.is_string());
    EXPECT_EQ(uint64_from_json(written, "f").value(), value);
    EXPECT_EQ(uint64_from_json(uint64_to_json(value, kNumber), "f").value(), value);
  }
}

TEST(Int64Form, NamesItsForms) {
  EXPECT_EQ(to_string(kNumber), "number");
  EXPECT_EQ(to_string(kString), "string");
  EXPECT_EQ(int64_form_from_string("number"), kNumber);
  EXPECT_EQ(int64_form_from_string("string"), kString);
  EXPECT_EQ(int64_form_from_string("String"), std::nullopt);
  EXPECT_EQ(int64_form_from_string(""), std::nullopt);
}

// ---- writing both forms ----

TEST(Int64Writing, RequestsCarryTheFormAsked) {
  const EncodeRequest encode{"c", std::string(kProfileKilnV2), {{big_tensor()}}};
  EXPECT_EQ(line_of(request_to_json(encode)),
            R"({"op":"encode","case":"c","profile":"kiln-v2","tensors":[{"name":"x","dtype":4096,)"
            R"("shape":[18446744073709551615,0,3],"layout":"q","block_size":7,"payload":""}]})");
  EXPECT_EQ(line_of(request_to_json(encode, kString)),
            R"({"op":"encode","case":"c","profile":"kiln-v2","tensors":[{"name":"x","dtype":4096,)"
            R"("shape":["18446744073709551615","0","3"],"layout":"q","block_size":7,"payload":""}]})");
  const ElementsDecodeRequest decode{"h", 73, {kMaxU64, 0}, hurray::Mode::kStrict, {0xc5}};
  EXPECT_EQ(line_of(request_to_json(decode, kString)),
            R"({"op":"decode","profile":"hurray-elements","case":"h","tag":73,)"
            R"("shape":["18446744073709551615","0"],"mode":"strict","data":"c5"})");
  const ElementsEncodeRequest elements{"h", 73, {3}, {"5", "c", "3"}};
  EXPECT_EQ(line_of(request_to_json(elements, kString)),
            R"({"op":"encode","profile":"hurray-elements","case":"h","tag":73,"shape":["3"],)"
            R"("elements":["5","c","3"]})");
  EXPECT_EQ(line_of(request_to_json(elements)),
            R"({"op":"encode","profile":"hurray-elements","case":"h","tag":73,"shape":[3],)"
            R"("elements":["5","c","3"]})");
  // Nothing 64-bit in these: the same either way.
  EXPECT_EQ(line_of(request_to_json(HelloRequest{}, kString)), R"({"op":"hello","protocol":1})");
  EXPECT_EQ(line_of(request_to_json(DecodeRequest{"c", "kiln-v2", {0xab}}, kString)),
            R"({"op":"decode","case":"c","profile":"kiln-v2","block":"ab"})");
}

TEST(Int64Writing, RepliesCarryTheFormAsked) {
  EXPECT_EQ(line_of(outcome_to_json(Accept{{{big_tensor()}}}, kString)),
            R"({"result":"accept","tensors":[{"name":"x","dtype":4096,)"
            R"("shape":["18446744073709551615","0","3"],"layout":"q","block_size":7,"payload":""}]})");
  const Reject reject{ErrorClass::kType, "m", "TYPE-HIGH-NIBBLE", kMaxU64};
  EXPECT_EQ(line_of(outcome_to_json(reject, kString)),
            R"({"result":"reject","class":"TYPE","message":"m","rule":"TYPE-HIGH-NIBBLE",)"
            R"("offset":"18446744073709551615"})");
  EXPECT_EQ(line_of(outcome_to_json(reject)),
            R"({"result":"reject","class":"TYPE","message":"m","rule":"TYPE-HIGH-NIBBLE",)"
            R"("offset":18446744073709551615})");
  const ElementsReject elements_reject{hurray::ErrorClass::kData, "m", "HURRAY-PAD-4BIT", 0};
  EXPECT_EQ(line_of(outcome_to_json(elements_reject, kString)),
            R"({"result":"reject","class":"DATA","message":"m","rule":"HURRAY-PAD-4BIT","offset":"0"})");
  // A reject without offset has none to write.
  EXPECT_EQ(line_of(outcome_to_json(Reject{ErrorClass::kFrame, "m", std::nullopt, std::nullopt}, kString)),
            R"({"result":"reject","class":"FRAME","message":"m"})");
}

// ---- reading both forms ----

TEST(Int64Reading, RequestsInEitherFormReadTheSame) {
  const std::vector<Request> requests = {
      EncodeRequest{"c", std::string(kProfileKilnV2), {{big_tensor(), big_tensor()}}},
      ElementsDecodeRequest{"h", 73, {kMaxU64, 0}, hurray::Mode::kPermissive, {0xc5}},
      ElementsEncodeRequest{"h", 73, {3, 0}, {"5"}},
  };
  for (const Request& request : requests) {
    for (const Int64Form form : {kNumber, kString}) {
      const std::string line = line_of(request_to_json(request, form));
      auto parsed = parse_request(line);
      ASSERT_TRUE(parsed.ok()) << line << "\n" << parsed.error();
      EXPECT_EQ(parsed.value(), request) << line;
    }
  }
  // The forms may even be mixed, member by member.
  auto mixed = parse_request(
      R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":[2,"3"],"data":"c503c5"})");
  ASSERT_TRUE(mixed.ok()) << mixed.error();
  EXPECT_EQ(std::get<ElementsDecodeRequest>(mixed.value()).shape, (std::vector<std::uint64_t>{2, 3}));
}

TEST(Int64Reading, RepliesInEitherFormReadTheSame) {
  const struct {
    Outcome outcome;
    Op op;
    std::string_view profile;
  } replies[] = {
      {Accept{{{big_tensor()}}}, Op::kDecode, kProfileKilnV2},
      {Reject{ErrorClass::kType, "m", "TYPE-HIGH-NIBBLE", kMaxU64}, Op::kDecode, kProfileKilnV2},
      {Reject{ErrorClass::kFrame, "m", std::nullopt, 0}, Op::kEncode, kProfileKilnV2},
      {ElementsReject{hurray::ErrorClass::kData, "m", "HURRAY-PAD-4BIT", kMaxU64}, Op::kDecode,
       kProfileHurrayElements},
      {ElementsReject{hurray::ErrorClass::kTag, "m", std::nullopt, 0}, Op::kEncode, kProfileHurrayElements},
  };
  for (const auto& reply : replies) {
    for (const Int64Form form : {kNumber, kString}) {
      const std::string line = line_of(outcome_to_json(reply.outcome, form));
      auto parsed = parse_reply(line, reply.op, reply.profile);
      ASSERT_TRUE(parsed.ok()) << line << "\n" << parsed.error();
      EXPECT_EQ(parsed.value(), reply.outcome) << line;
    }
  }
}

// ---- non-canonical strings: an error naming the field ----

struct Int64Field {
  const char* name;         // for the test's name
  std::string line;         // a message with one 64-bit field written as @
  Op op;                    // for a reply: the op it answers (a request: kHello, unused)
  std::string_view profile;
  const char* field;        // how the message names the field
  bool request;
};

const std::string kTensorWithShape =
    R"({"name":"x","dtype":17,"shape":[3,@],"layout":null,"block_size":0,"payload":"2103"})";

const std::vector<Int64Field> kInt64Fields = {
    {"EncodeShape", R"({"op":"encode","tensors":[)" + kTensorWithShape + "]}", Op::kHello,
     kProfileKilnV2, "tensors[0].shape[1]", true},
    {"ElementsDecodeShape",
     R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":[@],"data":"c503"})", Op::kHello,
     kProfileHurrayElements, "shape[0]", true},
    {"ElementsEncodeShape",
     R"({"op":"encode","profile":"hurray-elements","tag":73,"shape":[1,@],"elements":["5"]})",
     Op::kHello, kProfileHurrayElements, "shape[1]", true},
    {"AcceptShape", R"({"result":"accept","tensors":[)" + kTensorWithShape + "," + kTensorWithShape + "]}",
     Op::kDecode, kProfileKilnV2, "tensors[0].shape[1]", false},
    {"RejectOffset", R"({"result":"reject","class":"TYPE","offset":@})", Op::kDecode, kProfileKilnV2,
     "offset", false},
    {"EncodeRejectOffset", R"({"result":"reject","class":"FRAME","offset":@})", Op::kEncode,
     kProfileKilnV2, "offset", false},
    {"ElementsRejectOffset", R"({"result":"reject","class":"DATA","offset":@})", Op::kDecode,
     kProfileHurrayElements, "offset", false},
};

std::string with_value(std::string line, const std::string& value) {
  std::string::size_type at = 0;
  while ((at = line.find('@', at)) != std::string::npos) {
    line.replace(at, 1, value);
    at += value.size();
  }
  return line;
}

// The message for the line with value in the field, or "(read)" when it was read.
std::string problem_with(const Int64Field& field, const std::string& value) {
  const std::string line = with_value(field.line, value);
  if (field.request) {
    auto parsed = parse_request(line);
    return parsed.ok() ? "(read)" : parsed.error();
  }
  auto parsed = parse_reply(line, field.op, field.profile);
  return parsed.ok() ? "(read)" : parsed.error();
}

class Int64Fields : public ::testing::TestWithParam<Int64Field> {};

TEST_P(Int64Fields, ReadEitherFormUpTo2To64Minus1) {
  for (const char* value : {"0", "\"0\"", "18446744073709551615", "\"18446744073709551615\"", "\"3\""})
    EXPECT_EQ(problem_with(GetParam(), value), "(read)") << value;
}

TEST_P(Int64Fields, RefuseEveryNonCanonicalStringNamingTheField) {
  const std::string range = std::string(GetParam().field) +
                            ": must be an integer from 0 to 18446744073709551615, as a number or a "
                            "decimal string, got the string ";
  const std::pair<std::string, std::string> refused[] = {
      {R"("+1")", R"("+1", which holds a character other than the digits 0 to 9)"},
      {R"("-1")", R"("-1", which holds a character other than the digits 0 to 9)"},
      {R"("01")", R"("01", which has a leading zero)"},
      {R"("00")", R"("00", which has a leading zero)"},
      {R"("1e3")", R"("1e3", which holds a character other than the digits 0 to 9)"},
      {R"(" 1")", R"(" 1", which holds a character other than the digits 0 to 9)"},
      {R"("1 ")", R"("1 ", which holds a character other than the digits 0 to 9)"},
      {R"("1.0")", R"("1.0", which holds a character other than the digits 0 to 9)"},
      {R"("\u0661")", "\"\xd9\xa1\", which holds a character other than the digits 0 to 9"},
      {R"("")", R"("", which is empty)"},
      {R"("18446744073709551616")", R"("18446744073709551616", which is above 2^64 - 1)"},
      {R"("99999999999999999999999")", R"("99999999999999999999999", which is above 2^64 - 1)"},
  };
  for (const auto& [value, said] : refused)
    EXPECT_EQ(problem_with(GetParam(), value), range + said) << value;
  // A huge string is quoted cut: the message stays short.
  const std::string huge = problem_with(GetParam(), "\"" + std::string(1 << 20, '9') + "\"");
  EXPECT_EQ(huge.substr(0, range.size()), range);
  EXPECT_LT(huge.size(), range.size() + 2 * kMaxExcerptBytes);
  EXPECT_NE(huge.find("which is above 2^64 - 1"), std::string::npos) << huge.substr(0, 300);
}

TEST_P(Int64Fields, RefuseNumbersOutsideTheRangeNamingTheField) {
  for (const char* value : {"-1", "1.5", "1e3", "18446744073709551616", "true", "null", "[1]"}) {
    const std::string problem = problem_with(GetParam(), value);
    EXPECT_EQ(problem.substr(0, std::string_view(GetParam().field).size() + 1),
              std::string(GetParam().field) + ":")
        << value << ": " << problem;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryField, Int64Fields, ::testing::ValuesIn(kInt64Fields),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- fields of 32 bits or fewer stay numbers ----

TEST(Int64Reading, AStringInAFieldOf32BitsOrFewerIsRefused) {
  const struct {
    std::string line;
    const char* message;
  } requests[] = {
      {R"({"op":"encode","tensors":[{"name":"x","dtype":"17","shape":[3],"layout":null,"block_size":0,"payload":"2103"}]})",
       "tensors[0].dtype: must be an integer from 0 to 65535, got a string"},
      {R"({"op":"encode","tensors":[{"name":"x","dtype":17,"shape":[3],"layout":null,"block_size":"0","payload":"2103"}]})",
       "tensors[0].block_size: must be an integer from 0 to 4294967295, got a string"},
      {R"({"op":"decode","profile":"hurray-elements","tag":"73","shape":[3],"data":"c503"})",
       "tag: must be an integer from 0 to 255, got a string"},
      {R"({"op":"hello","protocol":"1"})",
       "protocol: must be an integer from 0 to 18446744073709551615, got a string"},
  };
  for (const auto& request : requests) {
    auto parsed = parse_request(request.line);
    ASSERT_FALSE(parsed.ok()) << request.line;
    EXPECT_EQ(parsed.error(), request.message);
  }
  auto accept = parse_reply(
      R"({"result":"accept","tensors":[{"name":"x","dtype":"17","shape":["3"],"layout":null,"block_size":0,"payload":"2103"}]})",
      Op::kDecode);
  ASSERT_FALSE(accept.ok());
  EXPECT_EQ(accept.error(), "tensors[0].dtype: must be an integer from 0 to 65535, got a string");
  auto hello = parse_hello_reply(R"({"name":"n","version":"v","protocol":"1","ops":[]})");
  ASSERT_FALSE(hello.ok());
  EXPECT_EQ(hello.error(), "protocol: must be an integer from 0 to 18446744073709551615, got a string");
}

// ---- hello's "int64" ----

TEST(HelloInt64, AbsentOrNumberMeansNumbersAndStringMeansStrings) {
  const std::string start = R"({"name":"n","version":"v","ops":["decode"])";
  EXPECT_EQ(parse_hello_reply(start + "}").value().int64, kNumber);
  EXPECT_EQ(parse_hello_reply(start + R"(,"int64":"number"})").value().int64, kNumber);
  EXPECT_EQ(parse_hello_reply(start + R"(,"int64":"string"})").value().int64, kString);
}

TEST(HelloInt64, AnyOtherValueMakesTheHelloMalformed) {
  const std::string start = R"({"name":"n","version":"v","ops":["decode"],"int64":)";
  const std::pair<const char*, const char*> refused[] = {
      {R"("bits")", R"(int64: must be "number" or "string", got "bits")"},
      {R"("String")", R"(int64: must be "number" or "string", got "String")"},
      {R"("")", R"(int64: must be "number" or "string", got "")"},
      {"64", "int64: must be a string, got 64"},
      {"null", "int64: must be a string, got null"},
      {R"(["string"])", "int64: must be a string, got an array"},
  };
  for (const auto& [value, message] : refused) {
    auto hello = parse_hello_reply(start + value + "}");
    ASSERT_FALSE(hello.ok()) << value;
    EXPECT_EQ(hello.error(), message);
  }
  auto long_value = parse_hello_reply(start + "\"" + std::string(1 << 20, 's') + "\"}");
  ASSERT_FALSE(long_value.ok());
  EXPECT_LT(long_value.error().size(), 2 * kMaxExcerptBytes);
}

TEST(HelloInt64, WrittenOnlyForStrings) {
  Hello hello{"n", "v", 1, {"decode"}, {"kiln-v2"}, {}, kNumber};
  EXPECT_EQ(line_of(hello_to_json(hello)),
            R"({"name":"n","version":"v","protocol":1,"ops":["decode"],"profiles":["kiln-v2"]})");
  hello.int64 = kString;
  const std::string line = line_of(hello_to_json(hello));
  EXPECT_EQ(line, R"({"name":"n","version":"v","protocol":1,"ops":["decode"],"profiles":["kiln-v2"],)"
                  R"("int64":"string"})");
  EXPECT_EQ(parse_hello_reply(line).value(), hello);
}

// ---- serve(): requests in either form, replies in the hello's ----

TEST(ServeInt64, AnAdapterOfStringsReadsBothFormsAndWritesStrings) {
  ReferenceAdapter adapter(kString);
  const Hello offered = adapter.hello();
  EXPECT_EQ(offered.int64, kString);
  const std::string hello = answer(adapter, offered, R"({"op":"hello","protocol":1})");
  EXPECT_NE(hello.find(R"("int64":"string")"), std::string::npos) << hello;
  const std::string accept = answer(adapter, offered, R"({"op":"decode","block":")" + testing::kU4Hex + "\"}");
  EXPECT_NE(accept.find(R"("dtype":17,"shape":["3"],"layout":null,"block_size":0)"), std::string::npos) << accept;
  const std::string reject = answer(adapter, offered, R"({"op":"decode","block":")" + testing::kHighNibbleHex + "\"}");
  EXPECT_NE(reject.find(R"("offset":"129")"), std::string::npos) << reject;
  for (const char* shape : {"3", "\"3\""}) {
    const std::string block = answer(
        adapter, offered,
        std::string(R"({"op":"encode","tensors":[{"name":"x","dtype":17,"shape":[)") + shape +
            R"(],"layout":null,"block_size":0,"payload":"2103"}]})");
    EXPECT_EQ(block, R"({"result":"block","block":")" + testing::kU4Hex + "\"}") << shape;
  }
  const std::string elements = answer(
      adapter, offered, R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":["3"],"data":"c5f3"})");
  EXPECT_NE(elements.find(R"("offset":"1")"), std::string::npos) << elements;
}

TEST(ServeInt64, AnAdapterOfNumbersReadsStringsAndWritesNumbers) {
  ReferenceAdapter adapter;
  const Hello offered = adapter.hello();
  EXPECT_EQ(offered.int64, kNumber);
  EXPECT_EQ(answer(adapter, offered, R"({"op":"hello","protocol":1})").find("int64"), std::string::npos);
  const std::string reject = answer(
      adapter, offered, R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":["3"],"data":"c5f3"})");
  EXPECT_NE(reject.find(R"("offset":1})"), std::string::npos) << reject;
  const std::string error = answer(
      adapter, offered, R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":["03"],"data":"c5f3"})");
  EXPECT_NE(error.find(R"("result":"error","message":"shape[0]: must be an integer)"), std::string::npos) << error;
}

}  // namespace
}  // namespace kiln::protocol
