// The reference decoder against the lazy reader of lazy_reader.hpp: both must
// accept or reject the same bytes, with the same class, and an accepted block
// must decode to the same tensors (same bytes of the input, not just equal
// values). An entry the lazy reader is asked for out of order first (chosen by
// the input) also checks the lazy path: a frame defect it finds in a prefix of
// the directory is a frame defect of the whole block.
#include <cstddef>
#include <cstdint>

#include "kiln/decode.hpp"
#include "lazy_reader.hpp"
#include "oracles.hpp"

namespace {

using kiln::fuzz::require;

void compare_tensor(const kiln::TensorView& expected, const kiln::fuzz::LazyTensor& actual) {
  require(expected.name.data() == actual.name.data() && expected.name.size() == actual.name.size(),
          "the readers see different names");
  require(expected.dtype == actual.dtype, "the readers see different dtypes");
  require(expected.rank == actual.rank(), "the readers see different ranks");
  for (std::size_t axis = 0; axis < actual.rank(); ++axis)
    require(expected.dimension(axis) == actual.dimension(axis),
            "the readers see different dimensions");
  require(expected.layout == actual.layout, "the readers see different layout names");
  require(expected.block_size == actual.block_size, "the readers see different block sizes");
  require(expected.payload.data() == actual.payload.data() &&
              expected.payload.size() == actual.payload.size(),
          "the readers see different payloads");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  const auto reference = kiln::decode(input);
  if (!reference) kiln::fuzz::check_error_sound(reference.error(), size);

  // On-demand access first: one entry, picked by the last input byte.
  kiln::fuzz::LazyBlock probe;
  if (!kiln::fuzz::LazyBlock::open(input, probe) && probe.declared_count() > 0 && size > 0) {
    const std::uint64_t index = data[size - 1] % probe.declared_count();
    const kiln::fuzz::LazyTensor* tensor = nullptr;
    if (auto failure = probe.tensor(index, tensor)) {
      require(failure->error_class == kiln::ErrorClass::kFrame, "an entry lookup reported TYPE");
      require(!reference.ok() && reference.error().error_class() == kiln::ErrorClass::kFrame,
              "the lazy reader finds a frame defect in an entry the reference accepts");
    } else if (reference) {
      compare_tensor(reference.value().tensors[index], *tensor);
    }
  }

  kiln::fuzz::LazyBlock block;
  const auto lazy = kiln::fuzz::lazy_read_all(input, block);
  require(reference.ok() == !lazy.has_value(), "the readers disagree on accept or reject");
  if (lazy) {
    require(reference.error().error_class() == lazy->error_class,
            "the readers reject with different classes");
    return 0;
  }
  const auto& tensors = reference.value().tensors;
  require(tensors.size() == block.validated().size(), "the readers see different tensor counts");
  for (std::size_t i = 0; i < tensors.size(); ++i) compare_tensor(tensors[i], block.validated()[i]);
  return 0;
}
