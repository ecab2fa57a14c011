// Small helpers shared by the reference tests: describing tensors tersely,
// building canonical bytes, and checking a rejection's class, rule, offset and
// tensor in one assertion.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/kiln.hpp"

namespace kiln::testing {

using Bytes = std::vector<std::uint8_t>;

inline TensorDescription tensor(std::string name, std::uint16_t dtype,
                                std::vector<std::uint64_t> shape, Bytes payload,
                                std::string layout = {}, std::uint32_t block_size = 0) {
  return TensorDescription{std::move(name), dtype, std::move(shape), std::move(layout), block_size,
                           std::move(payload)};
}

inline BlockDescription block(std::vector<TensorDescription> tensors) {
  return BlockDescription{std::move(tensors)};
}

// Canonical framing with no content checks; throws (a test failure) only when the
// description cannot be placed at all.
inline BuiltBlock build_or_throw(const BlockDescription& description) {
  auto built = build(description);
  if (!built) throw std::runtime_error("build failed: " + built.error().describe());
  return std::move(built).value();
}

inline Bytes bytes_of(const BlockDescription& description) {
  return build_or_throw(description).bytes;
}

// Hex typed out in a test, white space allowed.
inline Bytes hex(std::string_view text) {
  HexError error{};
  auto bytes = from_hex(text, &error, /*allow_space=*/true);
  if (!bytes) throw std::runtime_error("bad hex in test at " + std::to_string(error.position));
  return *bytes;
}

// Writes a header field (entry = nullopt) or a field of directory entry `entry`.
inline Bytes with_field(Bytes bytes, std::optional<std::uint32_t> entry, const Field& field,
                        std::uint64_t value) {
  const std::uint64_t base = entry ? entry_start(*entry) : 0;
  if (!write_field(bytes, base, field, value))
    throw std::runtime_error("field " + std::string(field.name) + " lies outside the bytes");
  return bytes;
}

inline Bytes with_byte(Bytes bytes, std::size_t offset, std::uint8_t value) {
  bytes.at(offset) = value;
  return bytes;
}

inline Bytes truncated(Bytes bytes, std::size_t size) {
  bytes.resize(size);
  return bytes;
}

inline Bytes appended(Bytes bytes, std::uint8_t value) {
  bytes.push_back(value);
  return bytes;
}

// What a rejection must look like; offset and tensor are checked when given.
struct Expected {
  Rule rule;
  std::optional<std::uint64_t> offset;
  std::optional<std::uint32_t> tensor;  // nullopt: no tensor is named
  bool check_tensor = true;
};

inline ::testing::AssertionResult matches(const Error& error, const Expected& expected) {
  const RuleInfo& want = rule_info(expected.rule);
  if (error.rule != expected.rule || error.error_class() != want.error_class)
    return ::testing::AssertionFailure()
           << "expected " << to_string(want.error_class) << " " << want.id << ", got "
           << error.describe();
  if (expected.offset && error.offset != *expected.offset)
    return ::testing::AssertionFailure()
           << "expected offset " << *expected.offset << ", got " << error.describe();
  if (expected.check_tensor && error.tensor != expected.tensor)
    return ::testing::AssertionFailure()
           << "expected tensor "
           << (expected.tensor ? std::to_string(*expected.tensor) : std::string("none"))
           << ", got " << error.describe();
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult decode_rejects(const Bytes& bytes, const Expected& expected) {
  auto decoded = decode(bytes);
  if (decoded) return ::testing::AssertionFailure() << "decode accepted the block";
  return matches(decoded.error(), expected);
}

inline ::testing::AssertionResult decode_rejects(const Bytes& bytes, Rule rule) {
  return decode_rejects(bytes, Expected{rule, std::nullopt, std::nullopt, false});
}

// Accepted, and the oracle holds both ways: encode(decode(b)) == b and
// decode(encode(d)) == d for the decoded description d.
inline ::testing::AssertionResult round_trips(const Bytes& bytes) {
  auto decoded = decode(bytes);
  if (!decoded) return ::testing::AssertionFailure() << "rejected: " << decoded.error().describe();
  const BlockDescription description = decoded.value().to_description();
  auto encoded = encode(description);
  if (!encoded)
    return ::testing::AssertionFailure() << "re-encode refused: " << encoded.error().describe();
  if (encoded.value() != bytes)
    return ::testing::AssertionFailure() << "encode(decode(b)) != b:\n  b = " << to_hex(bytes)
                                         << "\n  e = " << to_hex(encoded.value());
  auto again = decode(encoded.value());
  if (!again || again.value().to_description() != description)
    return ::testing::AssertionFailure() << "decode(encode(d)) != d";
  return ::testing::AssertionSuccess();
}

// The description is valid: it encodes, and the block decodes back to it.
inline ::testing::AssertionResult description_round_trips(const BlockDescription& description) {
  auto encoded = encode(description);
  if (!encoded) return ::testing::AssertionFailure() << "encode refused: " << encoded.error().describe();
  auto decoded = decode(encoded.value());
  if (!decoded) return ::testing::AssertionFailure() << "rejected: " << decoded.error().describe();
  if (decoded.value().to_description() != description)
    return ::testing::AssertionFailure() << "decode(encode(d)) != d";
  return round_trips(encoded.value());
}

}  // namespace kiln::testing
