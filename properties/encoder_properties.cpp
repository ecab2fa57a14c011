// The encoder refuses exactly what a strict reader rejects, with the same class
// and rule, and writes exactly what the reader accepts.
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "check_support.hpp"
#include "generators.hpp"

namespace kiln::properties {
namespace {

RC_GTEST_PROP(Encoder, RefusesExactlyWhatTheDecoderRejects, ()) {
  const BlockDescription description = *maybe_invalid_block();
  const auto encoded = encode(description);
  RC_TAG(encoded.ok() ? std::string("accepted") : std::string(encoded.error().rule_id()));
  const auto built = build(description);
  if (!built.ok()) {
    // Only a value that does not fit its field stops the builder.
    RC_ASSERT(!encoded.ok());
    require_error(encoded.error(), rule_info(built.error().rule), "encoder");
    return;
  }
  const auto decoded = decode(built.value().bytes);
  if (decoded.ok()) {
    if (!encoded.ok()) RC_FAIL("encoder refuses what the decoder accepts: " +
                               encoded.error().describe());
    RC_ASSERT(Bytes{encoded.value()} == Bytes{built.value().bytes});
    RC_ASSERT(decoded.value().to_description() == description);
    return;
  }
  RC_LOG() << "decoder: " << decoded.error().describe() << "\n";
  RC_ASSERT(!encoded.ok());
  require_error(encoded.error(), rule_info(decoded.error().rule), "encoder");
}

}  // namespace
}  // namespace kiln::properties
