#include "kiln/mutate/mutate.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>

#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "kiln/mutate/description_tools.hpp"

namespace kiln::mutate {
namespace {

// Bounds that keep one lenient read and one mutation cheap.
constexpr std::uint64_t kMaxLenientTensors = 64;
constexpr std::uint64_t kMaxLenientRank = 16;
constexpr std::size_t kMaxGrownTensors = 64;

// Where implementations keep fixed tables, small-string buffers and 8-bit or
// 16-bit counters: the lengths, ranks and counts just around them.
constexpr std::array<std::size_t, 20> kEdgeLengths{1,  2,  7,  8,  9,  15,  16,  17,  31,  32,
                                                   33, 40, 41, 63, 64, 65, 127, 128, 200, 256};
constexpr std::array<std::size_t, 14> kEdgeRanks{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 255};
constexpr std::array<std::size_t, 10> kEdgeCounts{2, 3, 5, 8, 9, 16, 17, 32, 33, 64};

std::size_t below(Random& rng, std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng);
}

template <class T>
T pick(Random& rng, std::span<const T> values) {
  return values[below(rng, values.size())];
}

template <class T, std::size_t N>
T pick(Random& rng, const std::array<T, N>& values) {
  return values[below(rng, N)];
}

// [offset, offset + length) of the input, clamped to the bytes present.
std::span<const std::uint8_t> clamped(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                      std::uint64_t length) {
  if (offset >= bytes.size()) return {};
  return bytes.subspan(offset, std::min<std::uint64_t>(length, bytes.size() - offset));
}

// The byte mutator over a string or a byte vector, with room to grow.
template <class Container>
void mutate_container(Container& bytes, std::size_t max_size, const ByteMutator& mutator) {
  const std::size_t old_size = bytes.size();
  bytes.resize(std::max<std::size_t>(max_size, old_size + 1));
  const std::size_t new_size =
      mutator(reinterpret_cast<std::uint8_t*>(bytes.data()), old_size, bytes.size());
  bytes.resize(std::min(new_size, bytes.size()));
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
  const auto length = fitting_payload_length(tensor);
  if (length && *length <= max_size) tensor.payload.resize(*length, 0);
}

// A name of an edge length: cut, or grown with ASCII letters (valid UTF-8, and
// distinct from other grown names by the letters' phase).
void resize_name(TensorDescription& tensor, Random& rng) {
  const std::size_t length = pick(rng, kEdgeLengths);
  const std::size_t phase = below(rng, 26);
  while (tensor.name.size() < length)
    tensor.name += static_cast<char>('a' + (tensor.name.size() + phase) % 26);
  tensor.name.resize(length);
}

void mutate_name(TensorDescription& tensor, const BlockDescription& block, Random& rng,
                 const ByteMutator& bytes) {
  switch (below(rng, 5)) {
    case 0:
      mutate_container(tensor.name, tensor.name.size() + 8, bytes);
      break;
    case 1:
      resize_name(tensor, rng);
      break;
    case 2:  // another tensor's name, or a near copy of it (one byte changed)
      if (!block.tensors.empty()) {
        tensor.name = block.tensors[below(rng, block.tensors.size())].name;
        if (!tensor.name.empty() && below(rng, 2) == 0) {
          auto& byte = tensor.name[below(rng, 2) ? tensor.name.size() - 1
                                                 : below(rng, tensor.name.size())];
          byte = static_cast<char>(byte ^ (1 << below(rng, 7)));
        }
      }
      break;
    default:
      tensor.name = std::string(pick(rng, interesting_layout_names()));
      break;
  }
}

void mutate_shape(TensorDescription& tensor, Random& rng, std::size_t max_size) {
  switch (below(rng, 4)) {
    case 0:  // an edge rank; the new dimensions are 1, so the element count stays
      tensor.shape.resize(pick(rng, kEdgeRanks), 1);
      break;
    case 1:
      tensor.shape.push_back(below(rng, 2) ? below(rng, 9) : pick(rng, interesting_u64_values()));
      break;
    case 2:
      if (!tensor.shape.empty()) tensor.shape.pop_back();
      break;
    default:
      if (tensor.shape.empty()) {
        tensor.shape.push_back(below(rng, 9));
      } else {
        auto& dim = tensor.shape[below(rng, tensor.shape.size())];
        dim = below(rng, 2) ? pick(rng, interesting_u64_values()) : dim + 1;
      }
      break;
  }
  if (below(rng, 2) == 0) fit_payload(tensor, max_size);
}

// One element of the payload set to an edge bit pattern of the dtype's width:
// the smallest subnormal, a NaN, an infinity, -0, a bool of 2, nibbles 1 and 2.
void set_edge_element(TensorDescription& tensor, Random& rng) {
  static constexpr std::array<std::uint64_t, 8> kEdgeElements{
      0x01, 0x02, 0x21, 0x8001, 0x7c01, 0x7fc00001, 0x8000000000000001ull, 0xff};
  const DtypeInfo* info = find_dtype(tensor.dtype);
  const std::size_t width = info && info->width > 0 ? info->width : 1;
  if (tensor.payload.size() < width) return;
  const std::size_t element = below(rng, tensor.payload.size() / width);
  store_le(tensor.payload.data() + element * width, width, pick(rng, kEdgeElements));
}

void mutate_tensor(TensorDescription& tensor, const BlockDescription& block, Random& rng,
                   std::size_t max_size, const ByteMutator& bytes) {
  switch (below(rng, 11)) {
    case 10:
      set_edge_element(tensor, rng);
      break;
    case 0:
      tensor.dtype = below(rng, 4) == 0 ? static_cast<std::uint16_t>(rng())
                                        : pick(rng, interesting_dtype_codes());
      if (below(rng, 2) == 0) fit_payload(tensor, max_size);
      break;
    case 1:
      mutate_shape(tensor, rng, max_size);
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
        mutate_container(tensor.payload,
                         std::min<std::size_t>(max_size, tensor.payload.size() + 64), bytes);
      }
      break;
    case 4:
    case 5:
      mutate_name(tensor, block, rng, bytes);
      break;
    case 6:
      if (below(rng, 2) == 0) tensor.layout = std::string(pick(rng, interesting_layout_names()));
      else if (below(rng, 2) == 0) tensor.layout.clear();
      else mutate_container(tensor.layout, tensor.layout.size() + 8, bytes);
      break;
    case 7: {
      const std::uint32_t sizes[] = {0, 1, 2, 18, 0xFFFF, 0x10000, 0xFFFFFFFF,
                                     static_cast<std::uint32_t>(tensor.payload.size()),
                                     static_cast<std::uint32_t>(rng())};
      tensor.block_size = sizes[below(rng, std::size(sizes))];
      break;
    }
    case 8:  // an opaque tensor that is valid apart from what other steps change
      tensor.dtype = static_cast<std::uint16_t>(kFirstOpaqueCode + below(rng, 3));
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

// A name no tensor of the block has: base with a numbered suffix.
std::string fresh_name(const BlockDescription& block, const std::string& base) {
  for (std::size_t n = block.tensors.size();; ++n) {
    std::string name = base + "~" + std::to_string(n);
    if (std::none_of(block.tensors.begin(), block.tensors.end(),
                     [&](const TensorDescription& t) { return t.name == name; }))
      return name;
  }
}

// One to three copies of one tensor, payload and all, each under a fresh name:
// identical tensors repeated, beside the original or anywhere. Readers that
// share payloads, dedupe by content or index by anything but the name meet
// them in real files.
void clone_tensor(BlockDescription& block, Random& rng) {
  auto& tensors = block.tensors;
  const std::size_t original = below(rng, tensors.size());
  const TensorDescription model = tensors[original];
  const std::size_t copies = 1 + below(rng, 3);
  const bool beside = below(rng, 2) == 0;
  for (std::size_t i = 0; i < copies && tensors.size() < kMaxGrownTensors; ++i) {
    TensorDescription copy = model;
    copy.name = fresh_name(block, model.name);
    const std::size_t at = beside ? original + 1 + i : below(rng, tensors.size() + 1);
    tensors.insert(tensors.begin() + at, std::move(copy));
  }
}

// Two distinct tensors trade places (a lone tensor is cloned instead, so the
// step always changes the block).
void swap_two(BlockDescription& block, Random& rng) {
  auto& tensors = block.tensors;
  if (tensors.size() < 2) {
    clone_tensor(block, rng);
    return;
  }
  const std::size_t first = below(rng, tensors.size());
  std::size_t second = below(rng, tensors.size() - 1);
  if (second >= first) ++second;
  std::swap(tensors[first], tensors[second]);
}

// Copies of one tensor, renamed apart, until the count reaches an edge value.
void grow_to_edge_count(BlockDescription& block, Random& rng) {
  const std::size_t target = std::min(pick(rng, kEdgeCounts), kMaxGrownTensors);
  if (block.tensors.empty() || block.tensors.size() >= target) return;
  const TensorDescription model = block.tensors[below(rng, block.tensors.size())];
  while (block.tensors.size() < target) {
    TensorDescription copy = model;
    copy.name += "_" + std::to_string(block.tensors.size());
    block.tensors.insert(block.tensors.begin() + below(rng, block.tensors.size() + 1),
                         std::move(copy));
  }
}

void mutate_description_once(BlockDescription& block, Random& rng, std::size_t max_size,
                             const ByteMutator& bytes) {
  auto& tensors = block.tensors;
  switch (tensors.empty() ? 0 : below(rng, 10)) {
    case 0:
      tensors.insert(tensors.begin() + below(rng, tensors.size() + 1),
                     tensors.empty() || below(rng, 2) ? fresh_tensor(block)
                                                      : tensors[below(rng, tensors.size())]);
      break;
    case 1:
      tensors.erase(tensors.begin() + below(rng, tensors.size()));
      break;
    case 2:
      swap_two(block, rng);
      break;
    case 3:
      grow_to_edge_count(block, rng);
      break;
    case 4:
      clone_tensor(block, rng);
      break;
    default: {
      const std::size_t i = below(rng, tensors.size());
      TensorDescription changed = tensors[i];
      mutate_tensor(changed, block, rng, max_size, bytes);
      tensors[i] = std::move(changed);
      break;
    }
  }
}

constexpr std::array<std::uint8_t, 3> kUtf8Bom{0xef, 0xbb, 0xbf};
constexpr std::size_t kMaxTailBytes = 16;

static_assert(static_cast<std::size_t>(TextDamage::kStripTrailingLf) + 1 == kTextDamageKinds,
              "kTextDamageKinds counts every TextDamage");

std::size_t room_left(const Bytes& bytes, std::size_t max_size) {
  return max_size > bytes.size() ? max_size - bytes.size() : 0;
}

// A mark (a line end, a BOM) is appended whole or not at all.
void append_whole(Bytes& bytes, std::span<const std::uint8_t> mark, std::size_t max_size) {
  if (mark.size() <= room_left(bytes, max_size)) bytes.insert(bytes.end(), mark.begin(), mark.end());
}

// 1 to 16 bytes after the end, as many as fit: zero padding, newlines, noise,
// or the start of the block again (a second block, or a copy that ran on).
void append_tail(Bytes& bytes, Random& rng, std::size_t max_size) {
  const std::size_t count = std::min(1 + below(rng, kMaxTailBytes), room_left(bytes, max_size));
  const std::size_t fill = below(rng, 4);
  const std::size_t old_size = bytes.size();
  for (std::size_t i = 0; i < count; ++i) {
    switch (fill) {
      case 0: bytes.push_back(0x00); break;
      case 1: bytes.push_back(0x0a); break;
      case 2: bytes.push_back(static_cast<std::uint8_t>(rng())); break;
      default: bytes.push_back(old_size > 0 ? bytes[i % old_size] : 0x00); break;
    }
  }
}

}  // namespace

void damage_as_text(Bytes& bytes, TextDamage kind, Random& rng, std::size_t max_size) {
  static constexpr std::uint8_t kLf[] = {0x0a};
  static constexpr std::uint8_t kCrLf[] = {0x0d, 0x0a};
  static constexpr std::uint8_t kDosEof[] = {0x1a};
  switch (kind) {
    case TextDamage::kAppendBytes:
      append_tail(bytes, rng, max_size);
      break;
    case TextDamage::kCutEnd:
      if (bytes.size() >= 2)
        bytes.resize(bytes.size() - 1 - below(rng, std::min(bytes.size() - 1, kMaxTailBytes)));
      break;
    case TextDamage::kAppendLf:
      append_whole(bytes, kLf, max_size);
      break;
    case TextDamage::kAppendCrLf:
      append_whole(bytes, kCrLf, max_size);
      break;
    case TextDamage::kAppendDosEof:
      append_whole(bytes, kDosEof, max_size);
      break;
    case TextDamage::kPrependBom:
      if (kUtf8Bom.size() <= room_left(bytes, max_size))
        bytes.insert(bytes.begin(), kUtf8Bom.begin(), kUtf8Bom.end());
      break;
    case TextDamage::kAppendBom:
      append_whole(bytes, kUtf8Bom, max_size);
      break;
    case TextDamage::kLfToCrLf: {
      // All or nothing: a half-translated block is no text-mode write.
      const auto lines = static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), 0x0a));
      if (lines == 0 || lines > room_left(bytes, max_size)) break;
      Bytes translated;
      translated.reserve(bytes.size() + lines);
      for (std::uint8_t byte : bytes) {
        if (byte == 0x0a) translated.push_back(0x0d);
        translated.push_back(byte);
      }
      bytes = std::move(translated);
      break;
    }
    case TextDamage::kCrLfToLf: {
      Bytes translated;
      translated.reserve(bytes.size());
      for (std::size_t i = 0; i < bytes.size(); ++i)
        if (!(bytes[i] == 0x0d && i + 1 < bytes.size() && bytes[i + 1] == 0x0a))
          translated.push_back(bytes[i]);
      bytes = std::move(translated);
      break;
    }
    case TextDamage::kStripTrailingLf:
      if (!bytes.empty() && bytes.back() == 0x0a) bytes.pop_back();
      break;
  }
}

void damage_as_text(Bytes& bytes, Random& rng, std::size_t max_size) {
  damage_as_text(bytes, static_cast<TextDamage>(below(rng, kTextDamageKinds)), rng, max_size);
}

std::size_t mutate_bytes(std::uint8_t* data, std::size_t size, std::size_t max_size,
                         Random& rng) {
  static constexpr std::uint8_t kEdgeBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  const std::size_t changes = 1 + below(rng, 4);
  for (std::size_t i = 0; i < changes; ++i) {
    switch (below(rng, 7)) {
      case 0:
        if (size > 0) data[below(rng, size)] ^= static_cast<std::uint8_t>(1u << below(rng, 8));
        break;
      case 1:
        if (size > 0) data[below(rng, size)] = kEdgeBytes[below(rng, std::size(kEdgeBytes))];
        break;
      case 2: {
        const std::size_t width = std::size_t{2} << below(rng, 3);  // 2, 4 or 8
        if (size < width) break;
        store_le(data + below(rng, size - width + 1), width, pick(rng, interesting_u64_values()));
        break;
      }
      case 3:
        if (size < max_size) {
          const std::size_t at = below(rng, size + 1);
          std::memmove(data + at + 1, data + at, size - at);
          data[at] = static_cast<std::uint8_t>(rng());
          ++size;
        }
        break;
      case 4:
        if (size > 0) {
          const std::size_t at = below(rng, size);
          const std::size_t run = 1 + below(rng, std::min<std::size_t>(size - at, 8));
          std::memmove(data + at, data + at + run, size - at - run);
          size -= run;
        }
        break;
      case 5:
        if (size > 0) size = below(rng, size);
        break;
      default: {
        Bytes damaged(data, data + size);
        damage_as_text(damaged, rng, max_size);
        std::copy(damaged.begin(), damaged.end(), data);
        size = damaged.size();
        break;
      }
    }
  }
  return size;
}

std::optional<BlockDescription> read_leniently(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderSize || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    return std::nullopt;
  const auto header = [&](const Field& f) { return *read_field(bytes, 0, f); };
  const std::uint64_t declared = header(header::kTensorCount);
  const std::uint64_t present = (bytes.size() - kHeaderSize) / kEntrySize;
  const std::uint64_t count = std::min({declared, present, kMaxLenientTensors});
  const std::uint64_t heap_start = entry_start(declared);
  const std::uint64_t payload_offset = header(header::kPayloadOffset);

  BlockDescription block;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = entry_start(i);
    const auto field = [&](const Field& f) { return *read_field(bytes, at, f); };
    TensorDescription tensor;
    const auto name =
        clamped(bytes, heap_start + field(entry::kNameOffset), field(entry::kNameLength));
    tensor.name.assign(name.begin(), name.end());
    tensor.dtype = static_cast<std::uint16_t>(field(entry::kDtype));
    const auto shape = clamped(bytes, heap_start + field(entry::kShapeOffset),
                               8 * std::min(field(entry::kRank), kMaxLenientRank));
    for (std::size_t axis = 0; axis + 8 <= shape.size(); axis += 8)
      tensor.shape.push_back(load_u64(shape.data() + axis));
    const auto layout =
        clamped(bytes, heap_start + field(entry::kLayoutOffset), field(entry::kLayoutLength));
    tensor.layout.assign(layout.begin(), layout.end());
    tensor.block_size = static_cast<std::uint32_t>(field(entry::kBlockSize));
    const std::uint64_t data_offset = field(entry::kDataOffset);
    const auto payload = data_offset > bytes.size()
                             ? std::span<const std::uint8_t>{}
                             : clamped(bytes, payload_offset + data_offset,
                                       field(entry::kByteLength));
    tensor.payload.assign(payload.begin(), payload.end());
    block.tensors.push_back(std::move(tensor));
  }
  return block;
}

void mutate_description(BlockDescription& block, Random& rng, std::size_t max_size,
                        const ByteMutator& bytes) {
  const std::size_t steps = 1 + below(rng, 3);
  for (std::size_t i = 0; i < steps; ++i) mutate_description_once(block, rng, max_size, bytes);
}

void break_one_field(BuiltBlock& built, Random& rng) {
  const auto& entries = built.placement.tensors;
  const bool in_entry = !entries.empty() && below(rng, 2) == 0;
  const Field field = in_entry ? pick(rng, std::span<const Field>(entry::kAll))
                               : pick(rng, std::span<const Field>(header::kAll));
  const std::uint64_t base = in_entry ? entries[below(rng, entries.size())].entry : 0;
  const auto old = read_field(built.bytes, base, field);
  const std::uint64_t nearby = below(rng, 2) ? old.value_or(0) + 1 : old.value_or(0) - 1;
  const std::uint64_t value = below(rng, 2) ? pick(rng, interesting_u64_values()) : nearby;
  write_field(built.bytes, base, field, value);
}

std::optional<Bytes> mutate_block(std::span<const std::uint8_t> input, Random& rng,
                                  std::size_t max_size, const ByteMutator& bytes) {
  auto block = read_leniently(input);
  if (!block) return std::nullopt;
  mutate_description(*block, rng, max_size, bytes);
  auto built = build(*block);
  if (!built || built.value().bytes.size() > max_size) return std::nullopt;
  if (below(rng, 8) == 0) break_one_field(built.value(), rng);
  // The block as a careless copy or a text-mode stream leaves it.
  if (below(rng, 8) == 0) damage_as_text(built.value().bytes, rng, max_size);
  return std::move(built.value().bytes);
}

std::size_t mutate_block_in_place(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                  unsigned int seed, const ByteMutator& bytes) {
  Random rng(seed);
  const auto mutated = mutate_block({data, size}, rng, max_size, bytes);
  if (!mutated) return bytes(data, size, max_size);
  std::copy(mutated->begin(), mutated->end(), data);
  return mutated->size();
}

}  // namespace kiln::mutate
