// What both JSON readers of the directory bench check once a header is
// parsed, so that nlohmann::json and simdjson race on the same work: each
// tensor's dtype is known, its shape times the dtype's width is its
// data_offsets span, and the spans tile [0, data_length) in some order. Name
// uniqueness is each reader's own, as each library exposes names differently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blocks.hpp"

namespace kiln::bench {

class SafetensorsChecks {
 public:
  explicit SafetensorsChecks(std::string* why) : why_(why) {}

  // One tensor; false (with the reason in why) when it fails a check.
  bool tensor(std::string_view name, std::string_view dtype_name,
              std::span<const std::uint64_t> shape, std::uint64_t first, std::uint64_t last);

  // The tensor count, or -1 when the spans do not tile the data.
  long long finish(std::uint64_t data_length);

  // Sets why (when given) and returns -1.
  long long reject(std::string reason);

 private:
  bool fail(std::string reason) { return reject(std::move(reason)) >= 0; }

  std::string* why_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> extents_;
};

// The JSON text after the 8-byte length prefix, or nullopt when it runs past.
std::optional<std::string_view> safetensors_json(const SafetensorsHeader& file);

}  // namespace kiln::bench
