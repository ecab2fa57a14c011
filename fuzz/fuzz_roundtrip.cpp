// Structured round trip: the input drives a FuzzedDataProvider that builds a
// description (any dtype code, shapes with edge dimensions, names that may be
// empty, repeated or invalid UTF-8, layouts, block sizes, payloads that often fit
// the dtype exactly so that the value rules are reached), then the round-trip
// oracle runs on it.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/mutate/description_tools.hpp"
#include "kiln/dtype.hpp"
#include "oracles.hpp"

namespace {

using kiln::TensorDescription;
namespace fz = kiln::mutate;

constexpr std::size_t kMaxTensors = 6;
constexpr std::size_t kMaxRank = 6;
constexpr std::size_t kMaxNameBytes = 24;
constexpr std::uint64_t kMaxFittedPayload = 4096;

std::uint64_t pick_dimension(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return in.PickValueInArray<std::uint64_t>({0, 1, 2, 3, 5, 8});
    case 1: return in.ConsumeIntegralInRange<std::uint64_t>(0, 64);
    case 2: {
      const auto edges = fz::interesting_u64_values();
      return edges[in.ConsumeIntegralInRange<std::size_t>(0, edges.size() - 1)];
    }
    default: return in.ConsumeIntegral<std::uint64_t>();
  }
}

std::uint16_t pick_dtype(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange(0, 3) == 0) return in.ConsumeIntegral<std::uint16_t>();
  const auto codes = fz::interesting_dtype_codes();
  return codes[in.ConsumeIntegralInRange<std::size_t>(0, codes.size() - 1)];
}

std::string pick_name(FuzzedDataProvider& in, const kiln::BlockDescription& so_far) {
  if (!so_far.tensors.empty() && in.ConsumeIntegralInRange(0, 15) == 0)  // a repeated name
    return so_far.tensors[in.ConsumeIntegralInRange<std::size_t>(0, so_far.tensors.size() - 1)]
        .name;
  return in.ConsumeRandomLengthString(kMaxNameBytes);
}

std::string pick_layout(FuzzedDataProvider& in, std::uint16_t dtype) {
  const bool opaque = kiln::classify_code(dtype) == kiln::CodeClass::kOpaque;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return opaque ? std::string("Q4_K") : std::string();
    case 1: {
      const auto names = fz::interesting_layout_names();
      return std::string(names[in.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)]);
    }
    case 2: return in.ConsumeRandomLengthString(kMaxNameBytes);
    default: return std::string();
  }
}

std::uint32_t pick_block_size(FuzzedDataProvider& in, std::uint16_t dtype) {
  const bool opaque = kiln::classify_code(dtype) == kiln::CodeClass::kOpaque;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return opaque ? 18 : 0;
    case 1: return in.ConsumeIntegralInRange<std::uint32_t>(0, 64);
    case 2: return in.PickValueInArray<std::uint32_t>({0, 1, 0x7FFFFFFF, 0xFFFFFFFF});
    default: return in.ConsumeIntegral<std::uint32_t>();
  }
}

std::vector<std::uint8_t> pick_payload(FuzzedDataProvider& in, const TensorDescription& tensor) {
  const auto fitting = fz::fitting_payload_length(tensor);
  if (fitting && *fitting <= kMaxFittedPayload && in.ConsumeBool()) {
    auto payload = in.ConsumeBytes<std::uint8_t>(*fitting);
    payload.resize(*fitting, 0);  // keep the length right when the input runs out
    return payload;
  }
  return in.ConsumeBytes<std::uint8_t>(in.ConsumeIntegralInRange<std::size_t>(0, 64));
}

kiln::BlockDescription make_description(FuzzedDataProvider& in) {
  kiln::BlockDescription block;
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, kMaxTensors);
  for (std::size_t i = 0; i < count; ++i) {
    TensorDescription tensor;
    tensor.dtype = pick_dtype(in);
    tensor.name = pick_name(in, block);
    const std::size_t rank = in.ConsumeIntegralInRange<std::size_t>(0, kMaxRank);
    for (std::size_t axis = 0; axis < rank; ++axis) tensor.shape.push_back(pick_dimension(in));
    tensor.layout = pick_layout(in, tensor.dtype);
    tensor.block_size = pick_block_size(in, tensor.dtype);
    tensor.payload = pick_payload(in, tensor);
    block.tensors.push_back(std::move(tensor));
  }
  return block;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  kiln::fuzz::check_round_trip(make_description(in));
  return 0;
}
