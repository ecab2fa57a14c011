// Structure-aware fuzzing of the decoder. The custom mutator reads the input
// leniently as a Kiln block (any header, any offsets: everything is clamped to
// the bytes present), mutates the description (dtype codes, shapes, names and
// layout names in the heap, block sizes, payload bytes, the tensor list), writes
// it back with kiln::build so that every offset stays canonical, and now and then
// breaks one header or entry field on purpose. Most outputs therefore have a
// sound frame, which lets the fuzzer reach the TYPE rules behind it. Input it
// cannot read as a block goes to libFuzzer's own byte mutator.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "description_tools.hpp"
#include "kiln/builder.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "oracles.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size);

namespace {

namespace fz = kiln::fuzz;
using kiln::BlockDescription;
using kiln::TensorDescription;
using Random = std::minstd_rand;

// Bounds that keep one lenient read and one mutation cheap.
constexpr std::uint64_t kMaxLenientTensors = 64;
constexpr std::uint64_t kMaxLenientRank = 16;

// [offset, offset + length) of the input, clamped to the bytes present.
std::span<const std::uint8_t> clamped(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                      std::uint64_t length) {
  if (offset >= bytes.size()) return {};
  return bytes.subspan(offset, std::min<std::uint64_t>(length, bytes.size() - offset));
}

// Every field is taken as written and every region is cut to the input, so any
// block with the magic and a header gives a description (a wrong one, often).
std::optional<BlockDescription> read_leniently(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kiln::kHeaderSize ||
      !std::equal(kiln::kMagic.begin(), kiln::kMagic.end(), bytes.begin()))
    return std::nullopt;
  const auto header = [&](const kiln::Field& f) { return *kiln::read_field(bytes, 0, f); };
  const std::uint64_t declared = header(kiln::header::kTensorCount);
  const std::uint64_t present = (bytes.size() - kiln::kHeaderSize) / kiln::kEntrySize;
  const std::uint64_t count = std::min({declared, present, kMaxLenientTensors});
  const std::uint64_t heap_start = kiln::entry_start(declared);
  const std::uint64_t payload_offset = header(kiln::header::kPayloadOffset);

  BlockDescription block;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = kiln::entry_start(i);
    const auto field = [&](const kiln::Field& f) { return *kiln::read_field(bytes, at, f); };
    TensorDescription tensor;
    const auto name = clamped(bytes, heap_start + field(kiln::entry::kNameOffset),
                              field(kiln::entry::kNameLength));
    tensor.name.assign(name.begin(), name.end());
    tensor.dtype = static_cast<std::uint16_t>(field(kiln::entry::kDtype));
    const auto shape = clamped(bytes, heap_start + field(kiln::entry::kShapeOffset),
                               8 * std::min(field(kiln::entry::kRank), kMaxLenientRank));
    for (std::size_t axis = 0; axis + 8 <= shape.size(); axis += 8)
      tensor.shape.push_back(kiln::load_u64(shape.data() + axis));
    const auto layout = clamped(bytes, heap_start + field(kiln::entry::kLayoutOffset),
                                field(kiln::entry::kLayoutLength));
    tensor.layout.assign(layout.begin(), layout.end());
    tensor.block_size = static_cast<std::uint32_t>(field(kiln::entry::kBlockSize));
    const std::uint64_t data_offset = field(kiln::entry::kDataOffset);
    const auto payload =
        data_offset > bytes.size()
            ? std::span<const std::uint8_t>{}
            : clamped(bytes, payload_offset + data_offset, field(kiln::entry::kByteLength));
    tensor.payload.assign(payload.begin(), payload.end());
    block.tensors.push_back(std::move(tensor));
  }
  return block;
}

template <class T>
T pick(Random& rng, std::span<const T> values) {
  return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
}

std::size_t below(Random& rng, std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng);
}

// libFuzzer's byte mutator over a string or a byte vector, with room to grow.
template <class Bytes>
void mutate_bytes(Bytes& bytes, std::size_t max_size) {
  const std::size_t old_size = bytes.size();
  bytes.resize(std::max<std::size_t>(max_size, old_size + 1));
  const std::size_t new_size = LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(bytes.data()),
                                                old_size, bytes.size());
  bytes.resize(new_size);
}

TensorDescription fresh_tensor(const BlockDescription& block) {
  TensorDescription tensor;
  tensor.name = "t" + std::to_string(block.tensors.size());
  tensor.dtype = 2;  // f32 [1] 1.0: valid, so later mutations start from sound ground
  tensor.shape = {1};
  tensor.payload = {0x00, 0x00, 0x80, 0x3f};
  return tensor;
}

void fit_payload(TensorDescription& tensor, std::size_t max_size) {
  const auto length = fz::fitting_payload_length(tensor);
  if (length && *length <= max_size) tensor.payload.resize(*length, 0);
}

void mutate_tensor(TensorDescription& tensor, const BlockDescription& block, Random& rng,
                   std::size_t max_size) {
  switch (below(rng, 10)) {
    case 0:
      tensor.dtype = below(rng, 4) == 0 ? static_cast<std::uint16_t>(rng())
                                        : pick(rng, fz::interesting_dtype_codes());
      if (below(rng, 2) == 0) fit_payload(tensor, max_size);
      break;
    case 1:  // shapes: grow, shrink or change one dimension
      if (tensor.shape.empty() || below(rng, 3) == 0) {
        tensor.shape.push_back(below(rng, 2) ? below(rng, 9) : pick(rng, fz::interesting_u64_values()));
      } else if (below(rng, 3) == 0) {
        tensor.shape.pop_back();
      } else {
        auto& dim = tensor.shape[below(rng, tensor.shape.size())];
        dim = below(rng, 2) ? pick(rng, fz::interesting_u64_values()) : dim + 1;
      }
      if (below(rng, 2) == 0) fit_payload(tensor, max_size);
      break;
    case 2:
      fit_payload(tensor, max_size);
      break;
    case 3:
      if (!tensor.payload.empty() && below(rng, 2) == 0) {
        // Aim at the value rules: a bool byte of 2, a high nibble in the last byte.
        auto& byte = tensor.payload[below(rng, tensor.payload.size())];
        byte = below(rng, 2) ? 2 : static_cast<std::uint8_t>(byte | 0x10);
      } else {
        mutate_bytes(tensor.payload, std::min<std::size_t>(max_size, tensor.payload.size() + 64));
      }
      break;
    case 4:
      mutate_bytes(tensor.name, tensor.name.size() + 8);
      break;
    case 5:
      if (!block.tensors.empty() && below(rng, 2) == 0)
        tensor.name = block.tensors[below(rng, block.tensors.size())].name;
      else
        tensor.name = std::string(pick(rng, fz::interesting_layout_names()));
      break;
    case 6:
      if (below(rng, 2) == 0) tensor.layout = std::string(pick(rng, fz::interesting_layout_names()));
      else if (below(rng, 2) == 0) tensor.layout.clear();
      else mutate_bytes(tensor.layout, tensor.layout.size() + 8);
      break;
    case 7: {
      const std::uint32_t sizes[] = {0, 1, 2, 18, 0xFFFFFFFF,
                                     static_cast<std::uint32_t>(tensor.payload.size()),
                                     static_cast<std::uint32_t>(rng())};
      tensor.block_size = sizes[below(rng, std::size(sizes))];
      break;
    }
    case 8:  // an opaque tensor that is valid apart from what other steps change
      tensor.dtype = static_cast<std::uint16_t>(kiln::kFirstOpaqueCode + below(rng, 3));
      tensor.layout = "Q4_K";
      tensor.block_size = 18;
      tensor.payload.resize(18 * below(rng, 3), 0);
      break;
    default:
      tensor.shape.clear();
      tensor.layout.clear();
      tensor.block_size = 0;
      fit_payload(tensor, max_size);
      break;
  }
}

void mutate_block(BlockDescription& block, Random& rng, std::size_t max_size) {
  auto& tensors = block.tensors;
  switch (tensors.empty() ? 0 : below(rng, 8)) {
    case 0:
      tensors.insert(tensors.begin() + below(rng, tensors.size() + 1),
                     tensors.empty() || below(rng, 2) ? fresh_tensor(block)
                                                      : tensors[below(rng, tensors.size())]);
      break;
    case 1:
      tensors.erase(tensors.begin() + below(rng, tensors.size()));
      break;
    case 2:
      std::swap(tensors[below(rng, tensors.size())], tensors[below(rng, tensors.size())]);
      break;
    default: {
      const std::size_t i = below(rng, tensors.size());
      TensorDescription changed = tensors[i];
      mutate_tensor(changed, block, rng, max_size);
      tensors[i] = std::move(changed);
      break;
    }
  }
}

// One header or entry field set to an edge value, after the canonical layout.
void break_one_field(kiln::BuiltBlock& built, Random& rng) {
  const auto& entries = built.placement.tensors;
  const bool in_entry = !entries.empty() && below(rng, 2) == 0;
  const kiln::Field field = in_entry ? pick(rng, std::span<const kiln::Field>(kiln::entry::kAll))
                                     : pick(rng, std::span<const kiln::Field>(kiln::header::kAll));
  const std::uint64_t base = in_entry ? entries[below(rng, entries.size())].entry : 0;
  const auto old = kiln::read_field(built.bytes, base, field);
  const std::uint64_t nearby = below(rng, 2) ? old.value_or(0) + 1 : old.value_or(0) - 1;
  const std::uint64_t value = below(rng, 2) ? pick(rng, fz::interesting_u64_values()) : nearby;
  kiln::write_field(built.bytes, base, field, value);
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  auto block = read_leniently({data, size});
  if (!block) return LLVMFuzzerMutate(data, size, max_size);
  Random rng(seed);
  const std::size_t steps = 1 + below(rng, 3);
  for (std::size_t i = 0; i < steps; ++i) mutate_block(*block, rng, max_size);
  auto built = kiln::build(*block);
  if (!built || built.value().bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  if (below(rng, 8) == 0) break_one_field(built.value(), rng);
  const auto& bytes = built.value().bytes;
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kiln::fuzz::check_decode({data, size});
  return 0;
}
