#include "generators.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <utility>

#include "nibble.hpp"

namespace kiln::properties {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

void append_code_point(std::string& out, std::uint32_t cp) {
  auto byte = [&](std::uint32_t value) { out.push_back(static_cast<char>(value)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18));
    byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

rc::Gen<std::uint32_t> code_point() {
  using rc::gen::inRange;
  return rc::gen::weightedOneOf<std::uint32_t>({
      {8, inRange<std::uint32_t>(0x20, 0x7F)},  // printable ASCII
      {1, rc::gen::just<std::uint32_t>(0)},     // U+0000: names are not C strings
      {1, inRange<std::uint32_t>(0x01, 0x20)},
      {2, inRange<std::uint32_t>(0x80, 0x800)},
      // Three-byte forms, around the surrogate hole that is not valid UTF-8.
      {1, inRange<std::uint32_t>(0x800, 0xD800)},
      {1, inRange<std::uint32_t>(0xE000, 0x10000)},
      {1, inRange<std::uint32_t>(0x10000, 0x110000)},
  });
}

rc::Gen<std::string> utf8_of_length(std::size_t min_points, std::size_t max_points) {
  return rc::gen::exec([=] {
    const auto count = *rc::gen::inRange(min_points, max_points + 1);
    std::string text;
    for (std::size_t i = 0; i < count; ++i) append_code_point(text, *code_point());
    return text;
  });
}

// Bit patterns worth hitting at each element width: zero, the sign bit alone
// (-0.0), all ones, quiet NaNs with a payload, a signalling NaN, infinity.
// They are bits, valid for every dtype of that width.
std::vector<std::uint64_t> special_patterns(std::uint8_t width) {
  switch (width) {
    case 8:
      return {0, 0x8000000000000000ull, kU64Max, 0x7FF8000000000001ull, 0x7FF0000000000001ull,
              0x7FF0000000000000ull, 0xFFF8000000000000ull};
    case 4:
      return {0, 0x80000000u, 0xFFFFFFFFu, 0x7FC00001u, 0x7F800001u, 0x7F800000u, 0xFFC00000u};
    case 2:
      return {0, 0x8000u, 0xFFFFu, 0x7E01u, 0x7C01u, 0x7C00u, 0x7FC1u, 0xFF80u};
    default:
      return {0, 0x80u, 0xFFu, 0x7Fu, 0x01u};
  }
}

rc::Gen<std::vector<std::uint8_t>> whole_elements(std::uint8_t width, std::uint64_t count) {
  return rc::gen::exec([=] {
    const auto patterns = special_patterns(width);
    std::vector<std::uint8_t> payload(count * width);
    for (std::uint64_t i = 0; i < count; ++i) {
      const bool special = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
      const std::uint64_t bits = special ? *rc::gen::elementOf(patterns)
                                         : *rc::gen::arbitrary<std::uint64_t>();
      store_le(payload.data() + i * width, width, bits);
    }
    return payload;
  });
}

}  // namespace

rc::Gen<std::string> utf8_text() { return utf8_of_length(1, 6); }

rc::Gen<std::string> invalid_utf8_text() {
  static const std::vector<std::string> kBadSequences{
      "\x80",              // stray continuation byte
      "\xBF",              //
      "\xC0\x80",          // overlong U+0000
      "\xC1\xBF",          // overlong U+007F
      "\xE0\x80\xAF",      // overlong '/'
      "\xF0\x80\x80\x80",  // overlong four-byte form
      "\xED\xA0\x80",      // surrogate U+D800
      "\xED\xBF\xBF",      // surrogate U+DFFF
      "\xF4\x90\x80\x80",  // U+110000
      "\xF5\x80\x80\x80",  // lead byte above F4
      "\xFE",              //
      "\xFF",              //
      "\xC3",              // truncated two-byte form
      "\xE2\x82",          // truncated three-byte form
      "\xF0\x9F\x98",      // truncated four-byte form
  };
  return rc::gen::exec([] {
    // A valid prefix and suffix: the suffix starts with a lead byte or ASCII,
    // so it never completes a truncated sequence.
    std::string text = *utf8_of_length(0, 3);
    text += *rc::gen::elementOf(kBadSequences);
    text += *utf8_of_length(0, 3);
    return text;
  });
}

rc::Gen<std::uint16_t> closed_dtype_code() {
  return closed_dtype_code_where([](const DtypeInfo&) { return true; });
}

rc::Gen<std::uint16_t> closed_dtype_code_where(bool (*condition)(const DtypeInfo&)) {
  std::vector<std::uint16_t> codes;
  for (const DtypeInfo& info : kDtypes)
    if (condition(info)) codes.push_back(info.code);
  return rc::gen::elementOf(codes);
}

rc::Gen<std::uint16_t> opaque_dtype_code() {
  return rc::gen::weightedOneOf<std::uint16_t>({
      {1, rc::gen::element(kFirstOpaqueCode, kLastOpaqueCode)},
      {3, rc::gen::inRange<std::uint16_t>(kFirstOpaqueCode, kLastOpaqueCode + 1)},
  });
}

rc::Gen<std::vector<std::uint64_t>> bounded_shape(std::uint64_t max_elements) {
  return rc::gen::exec([=] {
    const auto rank = *rc::gen::inRange<std::size_t>(0, kMaxRank + 1);
    std::vector<std::uint64_t> shape(rank, 1);
    if (rank > 0 && *rc::gen::weightedElement<bool>({{4, false}, {1, true}})) {
      // A zero dimension makes the product 0 whatever the others are, even 2^64 - 1.
      for (auto& dim : shape)
        dim = *rc::gen::weightedOneOf<std::uint64_t>({
            {3, rc::gen::inRange<std::uint64_t>(0, 5)},
            {1, rc::gen::elementOf(std::vector<std::uint64_t>{
                    kU64Max, std::uint64_t{1} << 63, std::uint64_t{1} << 32})},
            {1, rc::gen::arbitrary<std::uint64_t>()},
        });
      shape[*rc::gen::inRange<std::size_t>(0, rank)] = 0;
      return shape;
    }
    std::uint64_t remaining = std::max<std::uint64_t>(max_elements, 1);
    for (auto& dim : shape) {
      const std::uint64_t small_limit = std::min<std::uint64_t>(remaining, 4);
      dim = *rc::gen::weightedOneOf<std::uint64_t>({
          {3, rc::gen::inRange<std::uint64_t>(1, small_limit + 1)},
          {1, rc::gen::inRange<std::uint64_t>(1, remaining + 1)},
      });
      remaining /= dim;
    }
    return shape;
  });
}

rc::Gen<std::vector<std::uint64_t>> any_shape() {
  return rc::gen::exec([] {
    const auto rank = *rc::gen::inRange<std::size_t>(0, kMaxRank + 1);
    std::vector<std::uint64_t> shape(rank);
    for (auto& dim : shape)
      dim = *rc::gen::weightedOneOf<std::uint64_t>({
          {3, rc::gen::inRange<std::uint64_t>(0, 9)},
          {1, rc::gen::arbitrary<std::uint64_t>()},
      });
    return shape;
  });
}

rc::Gen<std::vector<std::uint8_t>> valid_payload(const DtypeInfo& info, std::uint64_t count) {
  if (info.values == ValueRule::kBoolByte)
    return rc::gen::container<std::vector<std::uint8_t>>(
        count, rc::gen::inRange<std::uint8_t>(0, 2));
  if (info.packing == Packing::kNibble)
    return rc::gen::map(
        rc::gen::container<std::vector<std::uint8_t>>(count, rc::gen::inRange<std::uint8_t>(0, 16)),
        [](const std::vector<std::uint8_t>& values) { return pack_nibbles(values); });
  return whole_elements(info.width, count);
}

rc::Gen<TensorDescription> valid_closed_tensor(std::string name, std::uint16_t code) {
  return rc::gen::exec([name, code] {
    const DtypeInfo& info = *find_dtype(code);
    const std::uint64_t max_elements = info.packing == Packing::kNibble
                                           ? 2 * kMaxPayloadBytes
                                           : kMaxPayloadBytes / info.width;
    TensorDescription tensor;
    tensor.name = name;
    tensor.dtype = code;
    tensor.shape = *bounded_shape(max_elements);
    const std::uint64_t count = *element_count(tensor.shape);
    tensor.payload = *valid_payload(info, count);
    return tensor;
  });
}

rc::Gen<TensorDescription> valid_opaque_tensor(std::string name) {
  return rc::gen::exec([name] {
    TensorDescription tensor;
    tensor.name = name;
    tensor.dtype = *opaque_dtype_code();
    tensor.shape = *any_shape();
    tensor.layout = *utf8_text();
    tensor.block_size = *rc::gen::weightedOneOf<std::uint32_t>({
        {6, rc::gen::inRange<std::uint32_t>(1, 65)},
        {1, rc::gen::element<std::uint32_t>(255, 256, std::uint32_t{1} << 31, 0xFFFFFFFFu)},
    });
    const std::uint64_t max_blocks =
        tensor.block_size > kMaxPayloadBytes ? 0 : kMaxPayloadBytes / tensor.block_size;
    const auto blocks = *rc::gen::inRange<std::uint64_t>(0, max_blocks + 1);
    tensor.payload = *rc::gen::container<std::vector<std::uint8_t>>(
        blocks * tensor.block_size, rc::gen::arbitrary<std::uint8_t>());
    return tensor;
  });
}

rc::Gen<TensorDescription> valid_tensor(std::string name) {
  return rc::gen::weightedOneOf<TensorDescription>({
      {4, rc::gen::mapcat(closed_dtype_code(),
                          [name](std::uint16_t code) { return valid_closed_tensor(name, code); })},
      {1, valid_opaque_tensor(name)},
  });
}

rc::Gen<std::vector<std::string>> unique_names(std::size_t count) {
  return rc::gen::exec([count] {
    std::vector<std::string> names;
    std::set<std::string> used;
    while (names.size() < count) {
      // The predicate runs again while shrinking, after this lambda returns: copy the set.
      auto name = *rc::gen::suchThat(utf8_text(), [used](const std::string& candidate) {
        return used.count(candidate) == 0;
      });
      used.insert(name);
      names.push_back(std::move(name));
    }
    return names;
  });
}

rc::Gen<BlockDescription> valid_block(std::size_t min_tensors, std::size_t max_tensors) {
  return rc::gen::exec([=] {
    const auto count = *rc::gen::inRange(min_tensors, max_tensors + 1);
    BlockDescription block;
    for (auto& name : *unique_names(count)) block.tensors.push_back(*valid_tensor(name));
    return block;
  });
}

rc::Gen<Bytes> valid_block_bytes() {
  // The builder's canonical framing, unchecked: the properties assert that these decode.
  return rc::gen::map(valid_block(), [](const BlockDescription& block) {
    return Bytes{build(block).value().bytes};
  });
}

namespace {

rc::Gen<std::uint16_t> any_range_dtype_code() {
  using rc::gen::inRange;
  return rc::gen::weightedOneOf<std::uint16_t>({
      {1, rc::gen::just<std::uint16_t>(0)},
      {4, closed_dtype_code()},
      {1, inRange<std::uint16_t>(kFirstReservedCode, kFirstOpaqueCode)},
      {2, opaque_dtype_code()},
      {1, rc::gen::map(inRange<std::uint32_t>(kLastOpaqueCode + 1, 0x10000),
                       [](std::uint32_t code) { return static_cast<std::uint16_t>(code); })},
  });
}

// A closed-dtype payload that is valid for the shape, then maybe spoilt.
std::vector<std::uint8_t> maybe_spoilt_payload(const DtypeInfo& info, std::uint64_t count) {
  auto payload = *valid_payload(info, count);
  switch (*rc::gen::inRange(0, 5)) {
    case 0:  // a bool-like byte 2 (only a defect for bool)
      if (!payload.empty()) payload[*rc::gen::inRange<std::size_t>(0, payload.size())] = 2;
      break;
    case 1:  // the high nibble of the last byte (only a defect for odd packed counts)
      if (!payload.empty()) payload.back() |= 0x10;
      break;
    case 2:
      payload.push_back(*rc::gen::arbitrary<std::uint8_t>());
      break;
    case 3:
      if (!payload.empty()) payload.pop_back();
      break;
    default:
      break;
  }
  return payload;
}

rc::Gen<TensorDescription> maybe_invalid_tensor(std::string name) {
  auto arbitrary_content = rc::gen::exec([name] {
    TensorDescription tensor;
    tensor.name = name;
    tensor.dtype = *any_range_dtype_code();
    tensor.shape = *rc::gen::weightedOneOf<std::vector<std::uint64_t>>({
        {3, bounded_shape(64)},
        {1, any_shape()},
    });
    tensor.layout = *rc::gen::weightedOneOf<std::string>({
        {3, rc::gen::just(std::string())},
        {2, utf8_text()},
        {1, invalid_utf8_text()},
    });
    tensor.block_size = *rc::gen::weightedOneOf<std::uint32_t>({
        {3, rc::gen::just<std::uint32_t>(0)},
        {2, rc::gen::inRange<std::uint32_t>(1, 9)},
        {1, rc::gen::arbitrary<std::uint32_t>()},
    });
    const DtypeInfo* info = find_dtype(tensor.dtype);
    const auto count = element_count(tensor.shape);
    if (info && count && *count <= 64 && *rc::gen::arbitrary<bool>()) {
      tensor.payload = maybe_spoilt_payload(*info, *count);
    } else {
      const auto length = *rc::gen::inRange<std::size_t>(0, 65);
      tensor.payload = *rc::gen::container<std::vector<std::uint8_t>>(
          length, rc::gen::weightedOneOf<std::uint8_t>({
                      {3, rc::gen::inRange<std::uint8_t>(0, 3)},
                      {1, rc::gen::arbitrary<std::uint8_t>()},
                  }));
    }
    return tensor;
  });
  return rc::gen::weightedOneOf<TensorDescription>({
      {2, valid_tensor(name)},
      {3, arbitrary_content},
  });
}

}  // namespace

rc::Gen<BlockDescription> maybe_invalid_block() {
  return rc::gen::exec([] {
    const auto count = *rc::gen::inRange<std::size_t>(0, kMaxTensors + 1);
    auto names = *unique_names(count);
    for (std::size_t i = 0; i < names.size(); ++i) {
      switch (*rc::gen::weightedElement<int>({{12, 0}, {1, 1}, {1, 2}, {1, 3}})) {
        case 1: names[i].clear(); break;
        case 2: names[i] = *invalid_utf8_text(); break;
        case 3: if (i > 0) names[i] = names[*rc::gen::inRange<std::size_t>(0, i)]; break;
        default: break;
      }
    }
    BlockDescription block;
    for (auto& name : names) block.tensors.push_back(*maybe_invalid_tensor(name));
    return block;
  });
}

void classify(const BlockDescription& description) {
  bool rank_zero = false, zero_dim = false, odd_packed = false, opaque = false, nul_name = false;
  for (const auto& tensor : description.tensors) {
    rank_zero |= tensor.shape.empty();
    zero_dim |= std::find(tensor.shape.begin(), tensor.shape.end(), 0) != tensor.shape.end();
    opaque |= classify_code(tensor.dtype) == CodeClass::kOpaque;
    nul_name |= tensor.name.find('\0') != std::string::npos;
    if (const DtypeInfo* info = find_dtype(tensor.dtype); info && info->packing == Packing::kNibble)
      if (auto count = element_count(tensor.shape); count && *count % 2 == 1) odd_packed = true;
  }
  RC_CLASSIFY(description.tensors.empty(), "empty block");
  RC_CLASSIFY(description.tensors.size() > 1, "multi-tensor");
  RC_CLASSIFY(rank_zero, "rank 0");
  RC_CLASSIFY(zero_dim, "zero dim");
  RC_CLASSIFY(odd_packed, "odd packed count");
  RC_CLASSIFY(opaque, "opaque");
  RC_CLASSIFY(nul_name, "U+0000 in a name");
}

std::string dtype_label(std::uint16_t code) {
  const DtypeInfo* info = find_dtype(code);
  std::string label{info ? info->name : to_string(classify_code(code))};
  return label + " (" + std::to_string(code) + ")";
}

std::string escaped(const std::string& text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && c != '"' && c != '\\') {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kDigits[byte >> 4]);
      out.push_back(kDigits[byte & 0x0F]);
    }
  }
  return out;
}

void showValue(const Bytes& block, std::ostream& os) {
  os << block.bytes.size() << " bytes: " << to_hex(block.bytes);
}

}  // namespace kiln::properties

namespace kiln {

void showValue(const TensorDescription& tensor, std::ostream& os) {
  os << "{name \"" << properties::escaped(tensor.name) << "\", "
     << properties::dtype_label(tensor.dtype) << ", shape [";
  for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis)
    os << (axis ? ", " : "") << tensor.shape[axis];
  os << "]";
  if (!tensor.layout.empty()) os << ", layout \"" << properties::escaped(tensor.layout) << "\"";
  if (tensor.block_size != 0) os << ", block_size " << tensor.block_size;
  os << ", payload " << tensor.payload.size() << " bytes: " << to_hex(tensor.payload) << "}";
}

void showValue(const BlockDescription& block, std::ostream& os) {
  os << "block of " << block.tensors.size() << " tensor(s)";
  for (const auto& tensor : block.tensors) {
    os << "\n  ";
    showValue(tensor, os);
  }
}

}  // namespace kiln
