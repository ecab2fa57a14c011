// SHA-256 (FIPS 180-4), to name a case set by its content in reports and exports.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::conformance {

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view text);
  std::string hex_digest();  // finishes; lower-case hex of the 32-byte digest

 private:
  void compress(const std::uint8_t* block);
  std::uint32_t state_[8];
  std::uint8_t buffer_[64];
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

}  // namespace kiln::conformance
