// protocol.schema.json is the machine-checked form of PROTOCOL.md's messages:
// every line the library writes, on either side, and every line of the worked
// transcript must satisfy it, and lines that break the protocol must not.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "kiln/adapter.hpp"
#include "kiln/protocol.hpp"
#include "seed_blocks.hpp"

namespace kiln::protocol {
namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ProtocolSchema : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const nlohmann::json document = nlohmann::json::parse(read_file(KILN_PROTOCOL_SCHEMA));
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), schema_);
  }

  // Empty when the line satisfies the schema; otherwise valijson's reasons.
  static std::string problems(const std::string& line) {
    // valijson's adapter takes nlohmann::json; the library writes ordered_json.
    const nlohmann::json message = nlohmann::json::parse(line);
    valijson::Validator validator;
    valijson::ValidationResults results;
    if (validator.validate(schema_, valijson::adapters::NlohmannJsonAdapter(message), &results))
      return {};
    std::string text;
    valijson::ValidationResults::Error error;
    while (results.popError(error)) {
      for (const auto& part : error.context) text += part;
      text += ": " + error.description + "\n";
    }
    return text.empty() ? "invalid" : text;
  }

  static valijson::Schema schema_;
};
valijson::Schema ProtocolSchema::schema_;

TEST_F(ProtocolSchema, EveryRequestTheRunnerWritesSatisfiesIt) {
  BlockDescription description;
  TensorDescription tensor;
  tensor.name = "x";
  tensor.dtype = 17;
  tensor.shape = {3};
  tensor.payload = {0x21, 0x03};
  description.tensors.push_back(tensor);
  TensorDescription odd = tensor;
  odd.name = std::string("\xff\xfe", 2);  // not UTF-8: travels as name_hex
  odd.layout = std::string("\xc0", 1);
  description.tensors.push_back(odd);
  const std::vector<Request> requests = {
      HelloRequest{},
      DecodeRequest{"kiln-v2-u4", std::string(kProfileKilnV2), from_hex(testing::kU4Hex).value()},
      DecodeRequest{"", std::string(kProfileKilnV2), {}},
      EncodeRequest{"kiln-v2-u4", std::string(kProfileKilnV2), description},
      // valijson reads a number as int64_t (2^64 - 1 as -1): 2^53 + 1 stands for a big one.
      ElementsDecodeRequest{"h", 73, {3, 9007199254740993u}, hurray::Mode::kStrict, {0xc5}},
      ElementsEncodeRequest{"h", 73, {0}, {"5"}},
  };
  for (const Request& request : requests) {
    for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString}) {
      const std::string line = to_line(request_to_json(request, form)).value();
      EXPECT_EQ(problems(line), "") << line;
    }
  }
}

TEST_F(ProtocolSchema, EveryReplyTheReferenceAdapterWritesSatisfiesIt) {
  const std::vector<std::string> requests = {
      R"({"op":"hello","protocol":1})",
      R"({"op":"hello","protocol":2})",
      R"({"op":"decode","case":"u4","block":")" + testing::kU4Hex + R"("})",
      R"({"op":"decode","block":")" + testing::kHighNibbleHex + R"("})",
      R"({"op":"decode","block":"4b494c4e"})",
      R"({"op":"encode","tensors":[)" + testing::kU4TensorJson + "]}",
      R"({"op":"encode","tensors":[{"name":"x","dtype":7,"shape":[2],"layout":null,"block_size":0,"payload":"0102"}]})",
      R"({"op":"decode","block":"4b49zz"})",
      R"({"op":"decode","profile":"hurray-elements","tag":73,"shape":["3"],"data":"c5f3"})",
      R"({"op":"transcode"})",
      "not json",
  };
  for (const Int64Form form : {Int64Form::kNumber, Int64Form::kString}) {
    ReferenceAdapter adapter(form);
    const Hello offered = adapter.hello();
    for (const std::string& request : requests) {
      const std::string reply = answer(adapter, offered, request);
      EXPECT_EQ(problems(reply), "") << request << "\n -> " << reply;
    }
  }
}

// Replies always satisfy the schema; a request does exactly when the
// adapter's reply to it is not an error (the transcript shows both kinds).
TEST_F(ProtocolSchema, TheWorkedTranscriptAgreesWithIt) {
  std::istringstream doc(read_file(KILN_PROTOCOL_DOC));
  std::size_t checked = 0;
  std::string request;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("-> ", 0) == 0) {
      request = line.substr(3);
      continue;
    }
    if (line.rfind("<- ", 0) != 0) continue;
    const std::string reply = line.substr(3);
    EXPECT_EQ(problems(reply), "") << reply;
    const bool error_reply = nlohmann::json::parse(reply).value("result", "") == "error";
    EXPECT_EQ(problems(request).empty(), !error_reply) << request << "\n<- " << reply;
    ++checked;
  }
  EXPECT_GE(checked, 7u) << "PROTOCOL.md's worked transcript is missing or shorter";
}

TEST_F(ProtocolSchema, LinesThatBreakTheProtocolDoNot) {
  for (const char* line : {
           R"({"op":"transcode"})",
           R"({"op":"decode"})",
           R"({"op":"decode","block":"abc"})",
           R"({"op":"decode","block":"4b 49"})",
           R"({"op":"encode","tensors":[{"name":"x","dtype":65536,"shape":[],"layout":null,"block_size":0,"payload":""}]})",
           R"({"op":"encode","tensors":[{"name":"x","dtype":1,"shape":[-1],"layout":null,"block_size":0,"payload":""}]})",
           R"({"op":"encode","tensors":[{"name":"x","dtype":1,"shape":[1.5],"layout":null,"block_size":0,"payload":""}]})",
           R"({"op":"encode","tensors":[{"dtype":1,"shape":[],"layout":null,"block_size":0,"payload":""}]})",
           R"({"result":"reject","class":"frame"})",
           R"({"result":"accept"})",
           R"({"result":"block","block":7})",
           R"({"result":"maybe"})",
           R"({"name":"x","version":"1","ops":["transcode"]})",
           R"({"name":"x","version":"1","protocol":2,"ops":["decode"]})",
           R"({"name":"x","version":"1","ops":["decode"],"int64":"bits"})",
           R"({"op":"hello","protocol":"1"})",
           R"({"op":"decode","block":"","id":"3"})",
           R"({"result":"reject","class":"TYPE","offset":"1e3"})",
           R"({"op":"encode","tensors":[{"name":"x","dtype":"1","shape":[],"layout":null,"block_size":0,"payload":""}]})",
           R"({"op":"encode","tensors":[{"name":"x","dtype":1,"shape":[],"layout":null,"block_size":"0","payload":""}]})",
           R"({"op":"decode","profile":"hurray-elements","tag":"73","shape":[3],"data":"c503"})",
           R"([])",
       })
    EXPECT_NE(problems(line), "") << line;
}

// The schema's pattern for a 64-bit integer's string form reads exactly the
// strings the library reads, around every boundary the pattern spells out.
TEST_F(ProtocolSchema, TheDecimalStringPatternAgreesWithTheLibrary) {
  std::vector<std::string> texts = {"", "0", "00", "01", "+1", "-1", "1e3", " 1", "1 ", "9", "10",
                                    "9999999999999999999", "10000000000000000000",
                                    "99999999999999999999", "100000000000000000000"};
  // Each prefix of 2^64 - 1 with its last digit moved by one either way, then padded
  // to 20 digits: the numbers just inside and outside each alternative of the pattern.
  const std::string max = "18446744073709551615";
  for (std::size_t length = 1; length <= max.size(); ++length) {
    for (const int step : {-1, 0, 1}) {
      std::string text = max.substr(0, length);
      const int digit = text.back() - '0' + step;
      if (digit < 0 || digit > 9) continue;
      text.back() = static_cast<char>('0' + digit);
      for (const char fill : {'0', '9'}) texts.push_back(text + std::string(max.size() - length, fill));
    }
  }
  for (const std::string& text : texts) {
    const std::string line = R"({"result":"reject","class":"TYPE","offset":")" + text + "\"}";
    const bool read = uint64_from_decimal(text).has_value();
    EXPECT_EQ(problems(line).empty(), read) << text;
    EXPECT_EQ(parse_reply(line, Op::kDecode).ok(), read) << text;
  }
}

}  // namespace
}  // namespace kiln::protocol
