#include "blocks.hpp"
#include "safetensors_checks.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "kiln/builder.hpp"
#include "kiln/dtype.hpp"
#include "kiln/layout.hpp"

namespace kiln::bench {
namespace {

// safetensors' dtype names for the Kiln dtypes it also has. Widths come from
// Kiln's own table through the code.
struct SafetensorsDtype {
  std::string_view name;
  std::uint16_t kiln_code;
};
constexpr std::array<SafetensorsDtype, 15> kSafetensorsDtypes{{
    {"BF16", 4}, {"F32", 2}, {"F16", 3}, {"F8_E4M3", 5}, {"BOOL", 7},
    {"I8", 8}, {"U8", 9}, {"I16", 10}, {"U16", 11}, {"I32", 12},
    {"U32", 13}, {"I64", 14}, {"U64", 15}, {"F64", 1}, {"F8_E5M2", 6},
}};

const SafetensorsDtype* safetensors_dtype(std::string_view name) {
  for (const auto& dtype : kSafetensorsDtypes)
    if (dtype.name == name) return &dtype;
  return nullptr;
}

const SafetensorsDtype* safetensors_dtype(std::uint16_t code) {
  for (const auto& dtype : kSafetensorsDtypes)
    if (dtype.kiln_code == code) return &dtype;
  return nullptr;
}

constexpr std::size_t kExperts = 64;
constexpr std::array<std::string_view, 7> kLayerTensors{
    "self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
    "self_attn.o_proj.weight", "input_layernorm.weight",  "post_attention_layernorm.weight",
    "mlp.gate.weight"};
constexpr std::array<std::string_view, 3> kExpertTensors{"gate_proj.weight", "up_proj.weight",
                                                         "down_proj.weight"};
constexpr std::size_t kPerLayer = kLayerTensors.size() + kExperts * kExpertTensors.size();

std::string model_tensor_name(std::size_t index) {
  if (index == 0) return "model.embed_tokens.weight";
  const std::size_t layer = (index - 1) / kPerLayer;
  const std::size_t slot = (index - 1) % kPerLayer;
  std::string name = "model.layers." + std::to_string(layer) + ".";
  if (slot < kLayerTensors.size()) return name.append(kLayerTensors[slot]);
  const std::size_t expert = (slot - kLayerTensors.size()) / kExpertTensors.size();
  const std::size_t which = (slot - kLayerTensors.size()) % kExpertTensors.size();
  return name.append("mlp.experts.").append(std::to_string(expert)).append(".").append(
      kExpertTensors[which]);
}

long long reject(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return -1;
}

}  // namespace

BlockDescription model_directory(std::size_t count) {
  BlockDescription description;
  description.tensors.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    TensorDescription tensor;
    tensor.name = model_tensor_name(i);
    tensor.dtype = kSafetensorsDtypes[i % kSafetensorsDtypes.size()].kiln_code;
    const std::uint64_t width = find_dtype(tensor.dtype)->width;
    const std::size_t rank = 1 + i % 4;
    // Leading dimensions of 1 or 2, the last one 64 bytes' worth of elements.
    for (std::size_t axis = 0; axis + 1 < rank; ++axis) tensor.shape.push_back(1 + (i + axis) % 2);
    tensor.shape.push_back(64 / width);
    std::uint64_t bytes = width;
    for (const auto dimension : tensor.shape) bytes *= dimension;
    tensor.payload.assign(bytes, 0);
    description.tensors.push_back(std::move(tensor));
  }
  return description;
}

SafetensorsHeader safetensors_header(const BlockDescription& description) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::uint64_t offset = 0;
  for (const auto& tensor : description.tensors) {
    const auto* dtype = safetensors_dtype(tensor.dtype);
    if (!dtype) throw std::invalid_argument("no safetensors dtype for code " + std::to_string(tensor.dtype));
    // Kiln aligns each payload to 64; these payloads are multiples of 64, so
    // the offsets below are Kiln's data_offsets too.
    header[tensor.name] = {{"dtype", dtype->name},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.payload.size()}}};
    offset += tensor.payload.size();
  }
  std::string json = header.dump();
  json.resize((json.size() + 7) / 8 * 8, ' ');
  SafetensorsHeader file;
  // Room past the end for simdjson's padding (validate_safetensors_simdjson).
  file.bytes.reserve(8 + json.size() + kJsonPadding);
  file.bytes.resize(8);
  for (std::size_t i = 0; i < 8; ++i) file.bytes[i] = static_cast<char>((json.size() >> (8 * i)) & 0xFF);
  file.bytes += json;
  file.data_length = offset;
  return file;
}

long long SafetensorsChecks::reject(std::string reason) {
  if (why_) *why_ = std::move(reason);
  return -1;
}

bool SafetensorsChecks::tensor(std::string_view name, std::string_view dtype_name,
                               std::span<const std::uint64_t> shape, std::uint64_t first,
                               std::uint64_t last) {
  const auto* dtype = safetensors_dtype(dtype_name);
  if (!dtype) return fail(std::string(name) + ": unknown dtype");
  std::uint64_t length = find_dtype(dtype->kiln_code)->width;
  for (const std::uint64_t dimension : shape)
    if (__builtin_mul_overflow(length, dimension, &length))
      return fail(std::string(name) + ": byte length overflows");
  if (last < first || last - first != length)
    return fail(std::string(name) + ": data_offsets do not span shape * width bytes");
  extents_.emplace_back(first, last);
  return true;
}

long long SafetensorsChecks::finish(std::uint64_t data_length) {
  std::sort(extents_.begin(), extents_.end());
  std::uint64_t cursor = 0;
  for (const auto& [first, last] : extents_) {
    if (first != cursor) return reject("data_offsets leave a gap or overlap");
    cursor = last;
  }
  if (cursor != data_length) return reject("data_offsets do not end at the file's end");
  return static_cast<long long>(extents_.size());
}

std::optional<std::string_view> safetensors_json(const SafetensorsHeader& file) {
  const std::string& bytes = file.bytes;
  if (bytes.size() < 8) return std::nullopt;
  std::uint64_t header_length = 0;
  for (std::size_t i = 0; i < 8; ++i)
    header_length |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  if (header_length > bytes.size() - 8) return std::nullopt;
  return std::string_view(bytes).substr(8, header_length);
}

namespace {

// nlohmann's own DOM builder, counting the keys of the outermost object.
class KeyCountingParser : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  explicit KeyCountingParser(nlohmann::json& result)
      : json_sax_dom_parser(result, /*allow_exceptions=*/false) {}

  bool start_object(std::size_t elements) {
    ++depth_;
    return json_sax_dom_parser::start_object(elements);
  }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool key(string_t& name) {
    if (depth_ == 1) ++top_level_keys;
    return json_sax_dom_parser::key(name);
  }

  std::size_t top_level_keys = 0;

 private:
  int depth_ = 0;
};

}  // namespace

long long validate_safetensors(const SafetensorsHeader& file, std::string* why) {
  const auto json = safetensors_json(file);
  if (!json) return reject(why, "header runs past the file");
  // nlohmann::json keeps one value per key, so a repeated name would vanish:
  // count the top-level keys as the parser meets them. (A parse callback would
  // do it too, but nlohmann's callback parser rescans the enclosing object at
  // every object end: quadratic in the tensor count.)
  nlohmann::json header;
  KeyCountingParser parser(header);
  if (!nlohmann::json::sax_parse(json->begin(), json->end(), &parser) || parser.is_errored())
    return reject(why, "header is not JSON");
  if (!header.is_object()) return reject(why, "header is not a JSON object");
  if (parser.top_level_keys != header.size()) return reject(why, "a name repeats");

  SafetensorsChecks checks(why);
  std::vector<std::uint64_t> shape;
  for (const auto& [name, tensor] : header.items()) {
    if (name == "__metadata__") continue;
    if (!tensor.is_object()) return reject(why, name + ": not an object");
    const auto dtype_field = tensor.find("dtype");
    const auto shape_field = tensor.find("shape");
    const auto offsets_field = tensor.find("data_offsets");
    if (dtype_field == tensor.end() || !dtype_field->is_string() || shape_field == tensor.end() ||
        !shape_field->is_array() || offsets_field == tensor.end() || !offsets_field->is_array() ||
        offsets_field->size() != 2)
      return reject(why, name + ": dtype, shape or data_offsets missing");
    shape.clear();
    for (const auto& dimension : *shape_field) {
      if (!dimension.is_number_unsigned()) return reject(why, name + ": bad dimension");
      shape.push_back(dimension.get<std::uint64_t>());
    }
    const auto& begin = (*offsets_field)[0];
    const auto& end = (*offsets_field)[1];
    if (!begin.is_number_unsigned() || !end.is_number_unsigned())
      return reject(why, name + ": bad data_offsets");
    if (!checks.tensor(name, dtype_field->get_ref<const std::string&>(), shape,
                       begin.get<std::uint64_t>(), end.get<std::uint64_t>()))
      return -1;
  }
  return checks.finish(file.data_length);
}

Frame frame_for(const BlockDescription& tensors_without_payload,
                std::span<const std::uint64_t> payload_lengths) {
  auto built = build(tensors_without_payload);
  if (!built) throw std::invalid_argument(built.error().describe());
  Frame frame;
  frame.bytes = std::move(built.value().bytes);
  std::uint64_t cursor = 0;
  for (std::size_t i = 0; i < payload_lengths.size(); ++i) {
    const std::uint64_t data_offset = align_up(cursor, kPayloadAlign);
    write_field(frame.bytes, entry_start(i), entry::kDataOffset, data_offset);
    write_field(frame.bytes, entry_start(i), entry::kByteLength, payload_lengths[i]);
    frame.data_offsets.push_back(data_offset);
    cursor = data_offset + payload_lengths[i];
  }
  write_field(frame.bytes, 0, header::kPayloadLength, cursor);
  frame.payload_length = cursor;
  return frame;
}

const char* to_string(LargeKind kind) {
  switch (kind) {
    case LargeKind::kBool: return "bool";
    case LargeKind::kU4Odd: return "u4_odd";
    case LargeKind::kF32: return "f32";
    case LargeKind::kF16: return "f16";
    case LargeKind::kOpaque: return "opaque";
  }
  return "?";
}

Frame large_tensor_frame(LargeKind kind, std::uint64_t payload_bytes) {
  TensorDescription tensor;
  tensor.name = "weight";
  switch (kind) {
    case LargeKind::kBool: tensor.dtype = 7; tensor.shape = {payload_bytes}; break;
    case LargeKind::kU4Odd: tensor.dtype = 17; tensor.shape = {2 * payload_bytes - 1}; break;
    case LargeKind::kF32: tensor.dtype = 2; tensor.shape = {payload_bytes / 4}; break;
    case LargeKind::kF16: tensor.dtype = 3; tensor.shape = {payload_bytes / 2}; break;
    case LargeKind::kOpaque:
      tensor.dtype = kFirstOpaqueCode;
      tensor.layout = "Q4_0";
      tensor.block_size = 16;
      tensor.shape = {payload_bytes / 16 * 32};
      break;
  }
  const std::uint64_t length[] = {payload_bytes};
  return frame_for(BlockDescription{{std::move(tensor)}}, length);
}

void fill_zero_one(std::span<std::uint8_t> bytes) {
  // A mix the word loop cannot shortcut, and nothing above 1: one MiB of
  // xorshift bits, then copies of it.
  constexpr std::size_t kTile = std::size_t{1} << 20;
  const std::size_t tile = std::min(kTile, bytes.size());
  std::uint32_t state = 2463534242u;
  for (std::size_t i = 0; i < tile; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    bytes[i] = static_cast<std::uint8_t>(state & 1);
  }
  for (std::size_t at = tile; at < bytes.size(); at += tile)
    std::memcpy(bytes.data() + at, bytes.data(), std::min(tile, bytes.size() - at));
}

}  // namespace kiln::bench
