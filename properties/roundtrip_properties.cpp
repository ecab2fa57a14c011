// The oracle of the format: one value, one byte string, both ways.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators.hpp"

namespace kiln::properties {
namespace {

RC_GTEST_PROP(RoundTrip, DecodeOfEncodeIsTheDescriptionAndEncodeIsDeterministic, ()) {
  const BlockDescription description = *valid_block();
  classify(description);
  const auto encoded = encode(description);
  if (!encoded.ok()) RC_FAIL("valid content refused: " + encoded.error().describe());
  const auto again = encode(description);
  RC_ASSERT(again.ok());
  RC_ASSERT(again.value() == encoded.value());
  const auto decoded = decode(encoded.value());
  if (!decoded.ok()) RC_FAIL("encoder output rejected: " + decoded.error().describe());
  RC_ASSERT(decoded.value().to_description() == description);
}

RC_GTEST_PROP(RoundTrip, EncodeOfDecodeIsTheBlock, ()) {
  const Bytes block = *valid_block_bytes();
  const auto decoded = decode(block.bytes);
  if (!decoded.ok()) RC_FAIL("canonical block rejected: " + decoded.error().describe());
  const auto encoded = encode(decoded.value().to_description());
  RC_ASSERT(encoded.ok());
  RC_ASSERT(Bytes{encoded.value()} == block);
}

// Flips, truncations and insertions: whatever still decodes is canonical, so
// re-encoding its content gives back exactly the mutated bytes.
RC_GTEST_PROP(RoundTrip, EncodeOfDecodeIsTheBlockForEveryAcceptedMutant, ()) {
  // At least one tensor, and flips aimed at the payload half the time, so that
  // a fair share of mutants still decodes.
  const BlockDescription description = *valid_block(1, kMaxTensors);
  Bytes block{build(description).value().bytes};
  const std::size_t payload_offset = *read_field(block.bytes, 0, header::kPayloadOffset);
  const auto mutations = *rc::gen::inRange(1, 4);
  for (int m = 0; m < mutations; ++m) {
    const std::size_t size = block.bytes.size();
    switch (*rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}, {1, 3}})) {
      case 0:
      case 1: {
        if (size == 0) break;
        const bool in_payload = payload_offset < size && *rc::gen::arbitrary<bool>();
        const auto at = *rc::gen::inRange<std::size_t>(in_payload ? payload_offset : 0, size);
        const auto mask = static_cast<std::uint8_t>(*rc::gen::inRange(1, 256));
        block.bytes[at] ^= mask;
        RC_LOG() << "flip byte " << at << " with " << int{mask} << "\n";
        break;
      }
      case 2: {
        const auto length = *rc::gen::inRange<std::size_t>(0, size + 1);
        block.bytes.resize(length);
        RC_LOG() << "truncate to " << length << "\n";
        break;
      }
      default: {
        const auto at = *rc::gen::inRange<std::size_t>(0, size + 1);
        const auto inserted = *rc::gen::nonEmpty(
            rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()));
        block.bytes.insert(block.bytes.begin() + static_cast<std::ptrdiff_t>(at),
                           inserted.begin(), inserted.end());
        RC_LOG() << "insert " << to_hex(inserted) << " at " << at << "\n";
        break;
      }
    }
  }
  const auto decoded = decode(block.bytes);
  RC_TAG(decoded.ok() ? std::string("mutant accepted") : std::string(decoded.error().rule_id()));
  if (!decoded.ok()) return;
  const auto encoded = encode(decoded.value().to_description());
  RC_ASSERT(encoded.ok());
  RC_ASSERT(Bytes{encoded.value()} == block);
}

}  // namespace
}  // namespace kiln::properties
