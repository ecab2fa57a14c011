// Truncation and trailing bytes, exhaustively over prefixes.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "check_support.hpp"
#include "generators.hpp"

namespace kiln::properties {
namespace {

RC_GTEST_PROP(Frame, EveryProperPrefixIsTruncated, ()) {
  const Bytes block = *valid_block_bytes();
  RC_ASSERT(decode(block.bytes).ok());
  const std::span<const std::uint8_t> all{block.bytes};
  for (std::size_t length = 0; length < block.bytes.size(); ++length) {
    const auto decoded = decode(all.first(length));
    RC_ASSERT(!decoded.ok());
    if (decoded.error().rule != Rule::kFrameTruncated) {
      RC_LOG() << "prefix of " << length << " bytes\n";
      require_error(decoded.error(), rule_info(Rule::kFrameTruncated), "decoder");
    }
  }
}

RC_GTEST_PROP(Frame, AnyAppendedByteIsTrailing, ()) {
  Bytes block = *valid_block_bytes();
  const auto extra = *rc::gen::nonEmpty(
      rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()));
  block.bytes.insert(block.bytes.end(), extra.begin(), extra.end());
  const auto decoded = decode(block.bytes);
  RC_ASSERT(!decoded.ok());
  require_error(decoded.error(), rule_info(Rule::kFrameTrailing), "decoder");
}

}  // namespace
}  // namespace kiln::properties
