// The directory bench's strongest JSON peer: the safetensors header read with
// simdjson's on-demand API. Its own file so that it alone is compiled for
// AVX2 on x86-64 (see bench/CMakeLists.txt): without such flags simdjson's
// on-demand API falls back to its portable, slower kernel, which is not what a
// reader who cares about speed would run.
#include <simdjson.h>

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "blocks.hpp"
#include "safetensors_checks.hpp"

namespace kiln::bench {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

long long validate_safetensors_simdjson(const SafetensorsHeader& file, std::string* why) {
  SafetensorsChecks checks(why);
  const auto json = safetensors_json(file);
  if (!json) return checks.reject("header runs past the file");
  // One parser per thread, reused as a speed-minded reader would: its buffers
  // grow to the largest header and stay. simdjson reads up to SIMDJSON_PADDING
  // bytes past the text: safetensors_header() reserves them, and a header
  // without them is copied into a padded buffer first.
  thread_local simdjson::ondemand::parser parser;
  thread_local std::vector<char> padded;
  const char* text = json->data();
  std::size_t allocated = file.bytes.capacity() - 8;
  if (allocated < json->size() + simdjson::SIMDJSON_PADDING) {
    padded.resize(json->size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(padded.data(), json->data(), json->size());
    text = padded.data();
    allocated = padded.size();
  }
  simdjson::ondemand::document document;
  simdjson::ondemand::object header;
  if (parser.iterate(text, json->size(), allocated).get(document) ||
      document.get_object().get(header))
    return checks.reject("header is not a JSON object");

  // Views into the parser's string buffer, which lives as long as the document.
  std::unordered_set<std::string_view> names;
  std::vector<std::uint64_t> shape;
  for (auto field : header) {
    std::string_view name;
    if (field.unescaped_key().get(name)) return checks.reject("bad name");
    if (!names.insert(name).second) return checks.reject(std::string(name) + ": name repeats");
    if (name == "__metadata__") continue;
    simdjson::ondemand::object tensor;
    if (field.value().get_object().get(tensor)) return checks.reject(std::string(name) + ": not an object");
    std::string_view dtype;
    simdjson::ondemand::array dimensions;
    simdjson::ondemand::array offsets;
    if (tensor["dtype"].get_string().get(dtype) || tensor["shape"].get_array().get(dimensions))
      return checks.reject(std::string(name) + ": dtype or shape missing");
    shape.clear();
    for (auto dimension : dimensions) {
      std::uint64_t value;
      if (dimension.get_uint64().get(value)) return checks.reject(std::string(name) + ": bad dimension");
      shape.push_back(value);
    }
    if (tensor["data_offsets"].get_array().get(offsets))
      return checks.reject(std::string(name) + ": data_offsets missing");
    std::uint64_t bounds[2];
    std::size_t found = 0;
    for (auto bound : offsets) {
      std::uint64_t value;
      if (found == 2 || bound.get_uint64().get(value))
        return checks.reject(std::string(name) + ": bad data_offsets");
      bounds[found++] = value;
    }
    if (found != 2) return checks.reject(std::string(name) + ": bad data_offsets");
    if (!checks.tensor(name, dtype, shape, bounds[0], bounds[1])) return -1;
  }
  // on-demand parsing validates as it goes: anything left unread must still be
  // the end of a well-formed document.
  // (current_location() fails with OUT_OF_BOUNDS once every token is read.)
  if (!document.current_location().error())
    return checks.reject("text after the header object");
  return checks.finish(file.data_length);
}

}  // namespace kiln::bench
