#include "example_adapter.hpp"

kiln::protocol::Hello ExampleAdapter::hello() {
  kiln::protocol::Hello hello = implementation_.hello();  // ops and profiles offered
  hello.name = "kiln-gtest-example";
  hello.version = "1.0";
  return hello;
}

kiln::protocol::Outcome ExampleAdapter::decode(std::span<const std::uint8_t> block) {
  return implementation_.decode(block);
}

kiln::protocol::Outcome ExampleAdapter::encode(const kiln::BlockDescription& description) {
  return implementation_.encode(description);
}

kiln::protocol::Outcome ExampleAdapter::decode_elements(const kiln::protocol::ElementsDecodeRequest& request) {
  return implementation_.decode_elements(request);
}

kiln::protocol::Outcome ExampleAdapter::encode_elements(const kiln::protocol::ElementsEncodeRequest& request) {
  return implementation_.encode_elements(request);
}
