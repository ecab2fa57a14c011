#include "kiln/encode.hpp"

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"

namespace kiln {

// The canonical framing comes from the builder; the strict decoder then decides
// whether the content is valid, so the encoder refuses exactly what a reader
// rejects, with the same rule.
Result<std::vector<std::uint8_t>> encode(const BlockDescription& description) {
  auto built = build(description);
  if (!built) return built.error();
  if (auto decoded = decode(built.value().bytes); !decoded) return decoded.error();
  return std::move(built.value().bytes);
}

}  // namespace kiln
