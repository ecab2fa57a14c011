#include "kiln/mutate/generate.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <vector>

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"
#include "kiln/mutate/description_tools.hpp"

namespace kiln::mutate {
namespace {

using namespace std::string_view_literals;

// ---- catalogues ----

std::vector<std::uint64_t> values_of_width(std::size_t width) {
  const unsigned bits = static_cast<unsigned>(8 * width);
  const std::uint64_t max = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t top = std::uint64_t{1} << (bits - 1);
  std::vector<std::uint64_t> values{0, 1, 2, max, max - 1, top - 1, top, top + 1};
  // 01 02 .. as a big-endian number and its byte reversal, and each with the top bit.
  std::uint64_t forward = 0, reversed = 0;
  for (std::size_t i = 0; i < width; ++i) {
    forward = forward << 8 | (i + 1);
    reversed |= std::uint64_t{i + 1} << (8 * i);
  }
  values.insert(values.end(), {forward, reversed, forward | top, reversed | top});
  for (unsigned k = 1; k < bits; ++k) {
    const std::uint64_t power = std::uint64_t{1} << k;
    values.insert(values.end(), {power - 1, power, power + 1});
  }
  std::vector<std::uint64_t> unique;
  for (std::uint64_t value : values)
    if (std::find(unique.begin(), unique.end(), value) == unique.end()) unique.push_back(value);
  return unique;
}

constexpr std::array<std::string_view, 27> kNames{
    " a"sv, "a "sv, "a  "sv, "\ta"sv, "a\t"sv, "a\n"sv, "a\r\n"sv, "\n"sv, " "sv, "\t"sv,
    "a\0"sv, "\0a"sv, "a\0\0\0"sv, "\xef\xbb\xbf" "a"sv, "f32"sv, "bf16"sv, "int8"sv,
    "float32"sv, "u8"sv, "e2m1"sv, "KILN"sv, "0"sv, "-1"sv, "NaN"sv, "caf\xc3\xa9"sv,
    "cafe\xcc\x81"sv, "\xe2\x80\x8b"sv /* zero-width space */};

constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kLookAlikes{{
    {"\xc3\xa9"sv, "e\xcc\x81"sv},              // é: NFC and NFD
    {"\xc3\xb1" "o"sv, "n\xcc\x83o"sv},          // ño
    {"A\xcc\x8a"sv, "\xc3\x85"sv},               // Å: NFD and NFC
    {"\xc3\xbc" "ber"sv, "u\xcc\x88" "ber"sv},   // über
    {"a"sv, "a "sv},
    {"a"sv, " a"sv},
    {"a"sv, "a\0"sv},
    {"x"sv, "X"sv},
    {"w"sv, "w\n"sv},
    {"layer.0"sv, "layer.0\t"sv},
}};

constexpr std::array<std::string_view, 6> kWrappers{
    "\xef\xbb\xbf"sv, "\0"sv, "KILN"sv, "\n"sv, "\r\n"sv, "\0\0\0\0\0\0\0\0"sv};

constexpr std::array<std::string_view, 5> kBadUtf8{"\xc0\x80"sv, "\xed\xa0\x80"sv, "a\x80"sv,
                                                   "\xff"sv, "\xf4\x90\x80\x80"sv};

// Counts around the fixed tables and small-string buffers of real readers, and
// a few dozen at most: each count is met within the first hundred inputs.
constexpr std::array<std::size_t, 14> kCounts{1, 2, 3, 4, 5, 6, 8, 9, 12, 16, 17, 20, 33, 40};
constexpr std::array<std::size_t, 9> kRanks{1, 1, 0, 2, 3, 1, 4, 5, 9};
constexpr std::size_t kClosed = kDtypes.size();

std::size_t below(Random& rng, std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng);
}
template <class T>
T pick(Random& rng, std::span<const T> values) {
  return values[below(rng, values.size())];
}

// ---- payloads ----

// The element bit patterns of a dtype: its width's interesting values and,
// for a float, its specials (quiet and signalling NaN, infinity, -0, the
// least and greatest subnormal) from the dtype table's layout.
std::vector<std::uint64_t> element_values(const DtypeInfo& info) {
  std::vector<std::uint64_t> values;
  if (info.values == ValueRule::kBoolByte) return {0, 1};
  if (info.packing == Packing::kNibble) {
    for (std::uint64_t low = 0; low < 16; ++low) values.push_back(low << 4 | ((low + 1) & 15));
    return values;
  }
  const auto span = interesting_values(info.width);
  values.assign(span.begin(), span.end());
  if (const auto layout = float_layout(info)) {
    values.insert(values.end(),
                  {layout->exponent_mask | layout->quiet_bit, layout->exponent_mask | 1, layout->exponent_mask,
                   layout->sign_mask, 1, layout->fraction_mask, layout->sign_mask | layout->exponent_mask});
  }
  return values;
}

// n elements of a closed dtype, valid for it (bool bytes 0 or 1, an odd count's
// last high nibble 0), filled as the style says: 0 byte-asymmetric elements
// (element j's bytes are j * width + 1, + 2, ...: no element reads the same
// either way, and no two elements are equal), 1 the dtype's interesting values
// in turn, 2 random bits.
Bytes closed_payload(const DtypeInfo& info, std::uint64_t count, std::size_t style, Random& rng) {
  Bytes payload;
  const std::size_t length = info.packing == Packing::kNibble ? (count + 1) / 2 : count * info.width;
  payload.resize(length);
  const auto values = element_values(info);
  const std::size_t start = below(rng, values.size());
  const std::size_t unit = info.packing == Packing::kNibble ? 1 : info.width;
  for (std::size_t at = 0, j = 0; at + unit <= length; at += unit, ++j) {
    std::uint64_t value = 0;
    if (style == 0) {
      for (std::size_t k = 0; k < unit; ++k) value |= std::uint64_t{(j * unit + k + 1) & 0xFF} << (8 * k);
      if (info.packing == Packing::kNibble) value = (2 * j + 1) % 16 | ((2 * j + 2) % 16) << 4;
    } else if (style == 1) {
      value = values[(start + j) % values.size()];
    } else {
      value = static_cast<std::uint64_t>(rng()) << 33 ^ static_cast<std::uint64_t>(rng()) << 2 ^ rng();
    }
    if (info.values == ValueRule::kBoolByte) value = style == 0 ? ((j * 5 + 1) >> 1) & 1 : value & 1;
    store_le(payload.data() + at, unit, value);
  }
  if (info.packing == Packing::kNibble && count % 2 == 1 && !payload.empty()) payload.back() &= 0x0F;
  return payload;
}

// ---- tensors ----

std::vector<std::uint64_t> small_shape(std::size_t rank, std::uint64_t index, Random& rng) {
  std::vector<std::uint64_t> shape(rank, 1);
  if (rank == 0) return shape;
  shape[below(rng, rank)] = 1 + below(rng, 4);
  if (rank >= 2 && below(rng, 2) == 0) shape[below(rng, rank)] = 1 + below(rng, 3);
  // An empty tensor now and then, a huge dimension beside the zero half the time.
  if (index % 7 == 3) {
    // The zero after huge dimensions half the time: a product checked step by
    // step overflows before it meets the zero.
    const std::size_t zero = below(rng, 2) == 0 ? rank - 1 : below(rng, rank);
    shape[zero] = 0;
    const auto values = interesting_values(8);
    for (std::size_t axis = 0; axis < rank; ++axis)
      if (axis != zero && below(rng, 2) == 0) shape[axis] = pick(rng, values);
  }
  return shape;
}

TensorDescription opaque_tensor(Random& rng) {
  TensorDescription tensor;
  static constexpr std::array<std::uint16_t, 4> kCodes{kFirstOpaqueCode, kFirstOpaqueCode + 1, 0x4000,
                                                       kLastOpaqueCode};
  tensor.dtype = kCodes[below(rng, kCodes.size())];
  const auto layouts = interesting_layout_names();
  tensor.layout = std::string(layouts[below(rng, 6)]);  // the valid ones come first
  static constexpr std::array<std::uint32_t, 5> kBlocks{1, 2, 18, 32, 34};
  tensor.block_size = kBlocks[below(rng, kBlocks.size())];
  tensor.shape = {1 + below(rng, 4)};
  tensor.payload.resize(tensor.block_size * below(rng, 3));
  for (std::size_t i = 0; i < tensor.payload.size(); ++i) tensor.payload[i] = static_cast<std::uint8_t>(i + 1);
  return tensor;
}

// A name no tensor of the block has: base, or base with a numbered suffix.
std::string unused_name(const BlockDescription& block, std::string base) {
  const auto taken = [&](const std::string& name) {
    return std::any_of(block.tensors.begin(), block.tensors.end(),
                       [&](const TensorDescription& t) { return t.name == name; });
  };
  if (!taken(base)) return base;
  for (std::size_t n = 1;; ++n)
    if (std::string name = base + "." + std::to_string(n); !taken(name)) return name;
}

// ---- the schedule ----

// What the index-th input is made of. The parts cycle with coprime periods, so
// every combination of dtype order, count and defect kind comes round.
struct Plan {
  std::size_t count;
  std::size_t first_dtype;  // tensor t has dtype first + t * step (mod the closed dtypes)
  std::size_t step;         // 0: every tensor one dtype
  std::size_t payload_style;
  bool same_shape;          // repeated layouts: every tensor one shape
  bool same_payload;        // repeated payloads
  std::size_t names;        // 0 plain, 1 interesting names, 2 a look-alike pair
  std::size_t defect;       // see Defect
};

enum Defect : std::size_t { kNone, kTypeDefect, kNameDefect, kPair, kFieldDefect, kPadding, kWrapper, kVersion };

// The defect of each odd input in turn (even inputs are valid): fields most
// often, as they are the most (21 fields, each with its width's catalogue).
constexpr std::array<Defect, 16> kDefectSlots{
    kFieldDefect, kTypeDefect, kPair,        kFieldDefect, kNameDefect, kFieldDefect, kPadding, kPair,
    kFieldDefect, kTypeDefect, kWrapper,     kFieldDefect, kNameDefect, kPair,        kVersion, kFieldDefect};
constexpr std::size_t kFieldSlots =
    static_cast<std::size_t>(std::count(kDefectSlots.begin(), kDefectSlots.end(), kFieldDefect));

// The field-defect inputs before index: the number of this one, if it is one.
std::uint64_t field_defect_number(std::uint64_t index) {
  const std::uint64_t slot = (index / 2) % kDefectSlots.size();
  return (index / 2) / kDefectSlots.size() * kFieldSlots +
         static_cast<std::uint64_t>(std::count(kDefectSlots.begin(), kDefectSlots.begin() + slot, kFieldDefect));
}

Plan plan_for(std::uint64_t index) {
  Plan plan;
  plan.first_dtype = index % kClosed;
  plan.step = (index / kClosed) % kClosed;
  plan.count = kCounts[(index / 3) % kCounts.size()];
  plan.payload_style = index % 3;
  plan.same_shape = index % 5 == 1;
  plan.same_payload = index % 11 == 4;
  plan.names = (index / 2) % 3;
  plan.defect = index % 2 == 0 ? kNone : kDefectSlots[(index / 2) % kDefectSlots.size()];
  return plan;
}

// The TYPE defects a description can carry, each in one tensor; `turn` picks
// the kind, so that the kinds come round in turn.
void break_type(TensorDescription& tensor, std::uint64_t turn, Random& rng) {
  const DtypeInfo* info = find_dtype(tensor.dtype);
  switch (turn % 8) {
    case 0: {
      static constexpr std::array<std::uint16_t, 7> kBadCodes{0, kFirstReservedCode, kFirstReservedCode + 1,
                                                              kFirstOpaqueCode - 1, kLastOpaqueCode + 1,
                                                              0xFFFF, 0x100};
      // An opaque tensor's code just outside the opaque range: a reader with the range off by one accepts it.
      if (!info && below(rng, 2) == 0) tensor.dtype = below(rng, 2) ? kFirstOpaqueCode - 1 : kLastOpaqueCode + 1;
      else tensor.dtype = below(rng, 2) ? kBadCodes[0] : kBadCodes[below(rng, kBadCodes.size())];
      break;
    }
    case 1:
      if (info && below(rng, 2) == 0) {
        tensor.layout = "Q4_K";
        break;
      }
      if (info) {  // made opaque, with a whole block
        tensor.dtype = kFirstOpaqueCode;
        tensor.block_size = static_cast<std::uint32_t>(std::max<std::size_t>(tensor.payload.size(), 1));
        tensor.payload.resize(tensor.block_size);
      }
      tensor.layout = std::string(kBadUtf8[below(rng, kBadUtf8.size())]);
      break;
    case 2:
      if (info) {
        tensor.block_size = static_cast<std::uint32_t>(pick(rng, interesting_values(4)) | 1);
      } else if (below(rng, 2) == 0) {
        tensor.block_size = 0;
      } else {
        // Above 16 bits with the old block size below: the payload is a multiple of the low bits only.
        tensor.block_size = (std::uint32_t{1} << (16 + below(rng, 15))) + std::min<std::uint32_t>(tensor.block_size, 0xFFFF);
      }
      break;
    case 3:
      if (below(rng, 2) == 0 || tensor.payload.empty()) tensor.payload.push_back(0);
      else tensor.payload.pop_back();
      break;
    case 4:
      if (info && info->width >= 2 && below(rng, 2) == 0) {
        // n fits but n * width wraps to 0 (an empty payload): a byte count kept modulo 2^64 matches.
        tensor.shape = {std::uint64_t{1} << (64 - std::countr_zero(unsigned{info->width})), 1};
        tensor.payload.clear();
        break;
      }
      tensor.shape = below(rng, 2) ? std::vector<std::uint64_t>{std::uint64_t{1} << 32, std::uint64_t{1} << 32}
                                   : std::vector<std::uint64_t>{~std::uint64_t{0}, 2, 1};
      break;
    case 5:  // a value rule: a bool byte of 2 or 0x80, or an odd count's high nibble (the tensor made one)
      if (below(rng, 2) == 0) {
        if (!info || info->values != ValueRule::kBoolByte || tensor.payload.empty()) {
          tensor.dtype = find_dtype("bool")->code;
          tensor.shape = {3};
          tensor.payload = {1, 0, 1};
        }
        tensor.payload[below(rng, tensor.payload.size())] = below(rng, 2) ? 2 : 0x80;
      } else {
        if (!info || info->packing != Packing::kNibble) tensor.dtype = find_dtype("u4")->code;
        tensor.shape = {3};
        tensor.payload = {0x21, 0x43};
      }
      tensor.layout.clear();
      tensor.block_size = 0;
      break;
    default:
      if (!info) {
        tensor.layout.clear();  // an opaque tensor with no layout name
      } else {
        // An opaque code over a closed tensor's payload: a layout, and a block size it need not divide.
        tensor.dtype = kFirstOpaqueCode;
        tensor.layout = "Q8_0";
        tensor.block_size = below(rng, 2) ? 0 : static_cast<std::uint32_t>(tensor.payload.size() + 1);
      }
      break;
  }
}

// The name defects a description can carry (FRAME rules), in tensor `at`.
void break_name(BlockDescription& block, std::size_t at, Random& rng) {
  auto& tensors = block.tensors;
  switch (below(rng, 3)) {
    case 0: tensors[at].name.clear(); break;
    case 1: tensors[at].name = std::string(kBadUtf8[below(rng, kBadUtf8.size())]); break;
    default:
      if (tensors.size() < 2) {
        tensors[at].name.clear();
      } else {
        std::size_t other = below(rng, tensors.size() - 1);
        if (other >= at) ++other;
        tensors[at].name = tensors[other].name;
      }
  }
}

BlockDescription content(const Plan& plan, std::uint64_t index, Random& rng, std::size_t max_size) {
  BlockDescription block;
  const std::size_t rank = kRanks[(index / 7) % kRanks.size()];
  const std::vector<std::uint64_t> shared_shape = small_shape(rank, index, rng);
  std::size_t budget = max_size;
  for (std::size_t t = 0; t < plan.count; ++t) {
    TensorDescription tensor;
    const DtypeInfo& info = kDtypes[(plan.first_dtype + t * plan.step) % kClosed];
    // One in six an opaque tensor among the closed ones, at a place that moves.
    if ((t + index) % 6 == 5) {
      tensor = opaque_tensor(rng);
    } else {
      tensor.dtype = info.code;
      tensor.shape = plan.same_shape ? shared_shape : small_shape(kRanks[(index + t) % kRanks.size()], index + t, rng);
      const auto count = element_count(tensor.shape).value_or(0);
      tensor.payload = plan.same_payload && !block.tensors.empty() && block.tensors.back().dtype == tensor.dtype &&
                               block.tensors.back().shape == tensor.shape
                           ? block.tensors.back().payload
                           : closed_payload(info, count, plan.payload_style, rng);
    }
    tensor.name = "t" + std::to_string(t);
    const std::size_t cost = tensor.payload.size() + 8 * tensor.shape.size() + 160;
    if (cost > budget) break;
    budget -= cost;
    block.tensors.push_back(std::move(tensor));
  }
  // Names: some tensors get a name other tools read into, or both names of a look-alike pair.
  if (plan.names == 1) {
    for (std::size_t t = 0; t < block.tensors.size(); ++t)
      if (below(rng, 2) == 0) block.tensors[t].name = unused_name(block, std::string(kNames[below(rng, kNames.size())]));
  } else if (plan.names == 2 && block.tensors.size() >= 2) {
    const auto& [first, second] = kLookAlikes[(index / 6) % kLookAlikes.size()];
    const std::size_t a = below(rng, block.tensors.size());
    std::size_t b = below(rng, block.tensors.size() - 1);
    if (b >= a) ++b;
    block.tensors[a].name = std::string(first);
    block.tensors[b].name = std::string(second);
  } else if (below(rng, 8) == 0 && !block.tensors.empty()) {
    // A long name and a near copy: the same length, the last byte differs.
    const std::size_t length = 41 + below(rng, 24);
    std::string name(length, 'n');
    for (std::size_t i = 0; i < length; ++i) name[i] = static_cast<char>('a' + i % 26);
    block.tensors.front().name = name;
    name.back() = static_cast<char>(name.back() ^ 1);
    block.tensors.back().name = block.tensors.size() > 1 ? name : block.tensors.back().name;
  }
  return block;
}

// The tensor a defect goes in: first, last, or any, in turn.
std::size_t defect_place(std::uint64_t index, std::size_t count, Random& rng) {
  switch ((index / 16) % 3) {
    case 0: return 0;
    case 1: return count - 1;
    default: return below(rng, count);
  }
}

// Two distinct tensors for a pair of defects: the FRAME one after the TYPE one
// half the time (the reference then reports FRAME however far apart they are).
std::pair<std::size_t, std::size_t> pair_places(std::size_t count, Random& rng) {
  std::size_t frame = below(rng, count);
  std::size_t type = below(rng, count - 1);
  if (type >= frame) ++type;
  return {frame, type};
}

// The interesting value for a field of a built block: absolute (the width's
// catalogue) or relative to what the field holds (one off, 8 or 64 off).
std::uint64_t field_value(const Field& field, std::uint64_t old, Random& rng) {
  if (field.name == header::kMagicField.name) {
    Bytes magic(kMagic.begin(), kMagic.end());
    const std::size_t at = below(rng, 4);
    magic[at] = below(rng, 2) ? static_cast<std::uint8_t>(magic[at] ^ 0x20) : 0;
    return load_le(magic.data(), 4);
  }
  static constexpr std::array<std::uint64_t, 5> kVersions{0, 1, kVersion - 1, kVersion + 1, 255};
  if (field.name == header::kVersionField.name) return kVersions[below(rng, kVersions.size())];
  if (field.name == header::kFlags.name) {
    // No flag, one other bit alone, or one other bit beside the little-endian bit.
    const std::uint64_t other = std::uint64_t{1} << below(rng, 8);
    return below(rng, 3) == 0 ? 0 : below(rng, 2) ? other : other | kFlagLittleEndian;
  }
  switch (below(rng, 2)) {
    case 0: {
      static constexpr std::array<std::int64_t, 6> kSteps{1, -1, 8, -8, 64, -64};
      return old + static_cast<std::uint64_t>(kSteps[below(rng, kSteps.size())]);
    }
    default:
      return pick(rng, interesting_values(field.width));
  }
}

// One FRAME defect in tensor `at` of a built block: a field of its entry set
// to an interesting value, or the heap or payload padding after it made nonzero.
void break_entry(BuiltBlock& built, const BlockDescription& block, std::size_t at, Random& rng) {
  const TensorPlacement& place = built.placement.tensors[at];
  const std::size_t padding = below(rng, 5);
  const std::uint64_t heap_end = built.placement.heap_start + built.placement.heap_length;
  if (padding == 4 && heap_end < built.placement.payload_offset) {  // the gap before the payloads
    built.bytes[heap_end + below(rng, built.placement.payload_offset - heap_end)] = 0x20;
    return;
  }
  if (padding == 0) {
    const std::uint64_t end = at + 1 < built.placement.tensors.size() ? built.placement.tensors[at + 1].data
                                                                       : built.placement.size;
    if (place.data_end < end) {
      built.bytes[place.data_end + below(rng, end - place.data_end)] = 0x01;
      return;
    }
  } else if (padding == 1) {
    const std::uint64_t used = place.layout + block.tensors[at].layout.size();
    if (used < place.segment_end && place.segment_end <= built.bytes.size()) {
      built.bytes[place.segment_end - 1] = 0x80;
      return;
    }
  }
  const auto& fields = entry::kAll;
  const Field& field = fields[below(rng, fields.size())];
  const auto old = read_field(built.bytes, place.entry, field);
  std::uint64_t value = field_value(field, old.value_or(0), rng);
  if (value == old.value_or(0)) value ^= 1;
  write_field(built.bytes, place.entry, field, value);
}

}  // namespace

std::span<const std::uint64_t> interesting_values(std::size_t width) {
  static const std::array<std::vector<std::uint64_t>, 4> kByWidth{values_of_width(1), values_of_width(2),
                                                                  values_of_width(4), values_of_width(8)};
  switch (width) {
    case 1: return kByWidth[0];
    case 2: return kByWidth[1];
    case 4: return kByWidth[2];
    default: return kByWidth[3];
  }
}

std::span<const std::string_view> interesting_names() { return kNames; }
std::span<const std::pair<std::string_view, std::string_view>> look_alike_names() { return kLookAlikes; }
std::span<const std::string_view> interesting_wrappers() { return kWrappers; }

BlockDescription generate_description(std::uint64_t index, Random& rng, std::size_t max_size) {
  const Plan plan = plan_for(index);
  BlockDescription block = content(plan, index, rng, max_size);
  if (block.tensors.empty()) return block;
  const std::size_t at = defect_place(index, block.tensors.size(), rng);
  switch (plan.defect) {
    case kNone: break;
    case kNameDefect:
    case kFieldDefect:  // a description has no fields: a name defect in its place
      break_name(block, at, rng);
      break;
    case kPair:
      if (block.tensors.size() >= 2) {
        const auto [frame, type] = pair_places(block.tensors.size(), rng);
        break_type(block.tensors[type], index / (2 * kDefectSlots.size()), rng);
        break_name(block, frame, rng);
        break;
      }
      [[fallthrough]];
    default:
      break_type(block.tensors[at], index / (2 * kDefectSlots.size()), rng);
  }
  return block;
}

Bytes generate_block(std::uint64_t index, Random& rng, std::size_t max_size) {
  const Plan plan = plan_for(index);
  BlockDescription block = content(plan, index, rng, max_size / 2);
  const std::size_t count = block.tensors.size();
  std::size_t frame_at = count ? defect_place(index, count, rng) : 0;
  const std::uint64_t cycle = index / (2 * kDefectSlots.size());  // how often this slot came round
  if (plan.defect == kTypeDefect && count) break_type(block.tensors[frame_at], cycle, rng);
  if (plan.defect == kNameDefect && count) break_name(block, frame_at, rng);
  bool entry_defect = false;
  if (plan.defect == kPair && count >= 2) {
    const auto [frame, type] = pair_places(count, rng);
    break_type(block.tensors[type], cycle, rng);
    frame_at = frame;
    // The FRAME half: a name defect, or (below, once built) an entry field or padding.
    if (below(rng, 3) == 0) break_name(block, frame, rng);
    else entry_defect = true;
  }
  auto built = build(block);
  if (!built) return build(BlockDescription{}).value().bytes;
  BuiltBlock& out = built.value();
  if (entry_defect || (plan.defect == kPadding && count)) break_entry(out, block, frame_at, rng);
  if (plan.defect == kFieldDefect) {
    // Header and entry fields in turn; on each field's first rounds its
    // catalogue in order (the edges and the byte patterns first), then at random.
    constexpr std::size_t kFields = header::kAll.size() + entry::kAll.size();
    const std::uint64_t number = field_defect_number(index);
    const std::size_t which = number % kFields;
    const bool in_header = which < header::kAll.size() || count == 0;
    const Field& field = in_header ? header::kAll[which % header::kAll.size()] : entry::kAll[which - header::kAll.size()];
    const std::uint64_t base = in_header ? 0 : out.placement.tensors[frame_at].entry;
    const auto catalogue = interesting_values(field.width);
    const std::uint64_t round = number / kFields;
    const std::uint64_t old = read_field(out.bytes, base, field).value_or(0);
    // Even rounds walk the catalogue, odd rounds draw (relative steps, the field's own edges).
    std::uint64_t value = round % 2 == 0 && round / 2 < catalogue.size() ? catalogue[round / 2]
                                                                         : field_value(field, old, rng);
    // A longer payload region with its bytes there: spare payload bytes, not a truncation.
    if (field.name == header::kPayloadLength.name && round % 4 == 1) {
      const std::size_t spare = 1 + below(rng, 64);
      value = old + spare;
      out.bytes.resize(out.bytes.size() + spare, 0);
    }
    // A heap 8 bytes longer than its segments, taken from the zero gap when there is one.
    if (field.name == header::kHeapLength.name && round % 4 == 1) value = old + kHeapAlign;
    // An offset moved with what it points to: zero bytes put before the part, so
    // a reader that accepts the offset reads the right bytes from where it points.
    if (round % 4 == 3 && (field.name == header::kPayloadOffset.name || field.name == entry::kDataOffset.name)) {
      static constexpr std::array<std::uint64_t, 4> kMoves{1, 8, 64, 128};
      const std::uint64_t move = kMoves[below(rng, kMoves.size())];
      const bool payload_region = field.name == header::kPayloadOffset.name;
      const std::uint64_t at = payload_region ? out.placement.payload_offset : out.placement.tensors[frame_at].data;
      if (at <= out.bytes.size()) {
        out.bytes.insert(out.bytes.begin() + static_cast<std::ptrdiff_t>(at), move, 0);
        if (!payload_region) {
          // Every later payload moves too, and the region grows by the move.
          for (std::size_t t = frame_at + 1; t < out.placement.tensors.size(); ++t) {
            const std::uint64_t entry_at = out.placement.tensors[t].entry;
            write_field(out.bytes, entry_at, entry::kDataOffset,
                        read_field(out.bytes, entry_at, entry::kDataOffset).value_or(0) + move);
          }
          write_field(out.bytes, 0, header::kPayloadLength,
                      read_field(out.bytes, 0, header::kPayloadLength).value_or(0) + move);
        }
        value = old + move;
      }
    }
    if (value == old) value = old ^ 1;
    write_field(out.bytes, base, field, value);
  }
  if (plan.defect == kVersion) {
    static constexpr std::array<std::uint8_t, 4> kOlder{0, 1, kVersion - 1, kVersion + 1};
    out.bytes[header::kVersionField.offset] = kOlder[cycle % kOlder.size()];
  }
  if (plan.defect == kWrapper) {
    const std::string_view wrapper = kWrappers[cycle % kWrappers.size()];
    if (below(rng, 2) == 0) out.bytes.insert(out.bytes.begin(), wrapper.begin(), wrapper.end());
    else out.bytes.insert(out.bytes.end(), wrapper.begin(), wrapper.end());
  }
  if (out.bytes.size() > max_size) out.bytes.resize(max_size);
  return std::move(out.bytes);
}

}  // namespace kiln::mutate
