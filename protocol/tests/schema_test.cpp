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
  };
  for (const Request& request : requests) {
    const std::string line = to_line(request_to_json(request)).value();
    EXPECT_EQ(problems(line), "") << line;
  }
}

TEST_F(ProtocolSchema, EveryReplyTheReferenceAdapterWritesSatisfiesIt) {
  ReferenceAdapter adapter;
  const Hello offered = adapter.hello();
  const std::vector<std::string> requests = {
      R"({"op":"hello","protocol":1})",
      R"({"op":"hello","protocol":2})",
      R"({"op":"decode","case":"u4","block":")" + testing::kU4Hex + R"("})",
      R"({"op":"decode","block":")" + testing::kHighNibbleHex + R"("})",
      R"({"op":"decode","block":"4b494c4e"})",
      R"({"op":"encode","tensors":[)" + testing::kU4TensorJson + "]}",
      R"({"op":"encode","tensors":[{"name":"x","dtype":7,"shape":[2],"layout":null,"block_size":0,"payload":"0102"}]})",
      R"({"op":"decode","block":"4b49zz"})",
      R"({"op":"transcode"})",
      "not json",
  };
  for (const std::string& request : requests) {
    const std::string reply = answer(adapter, offered, request);
    EXPECT_EQ(problems(reply), "") << request << "\n -> " << reply;
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
           R"([])",
       })
    EXPECT_NE(problems(line), "") << line;
}

}  // namespace
}  // namespace kiln::protocol
