// Blocks the benchmarks decode: a model-like directory (and the safetensors
// header a C++ user would parse for the same tensors), and frames for large
// payloads that live in a buffer or file of their own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/description.hpp"

namespace kiln::bench {

// count tensors named like a mixture-of-experts checkpoint
// ("model.layers.17.self_attn.q_proj.weight", "model.layers.3.mlp.experts.41.up_proj.weight"),
// ranks 1 to 4 in turn, the fifteen dtypes safetensors also has in turn, and
// zero payloads of 64 or 128 bytes: every payload a multiple of 64, so Kiln's
// aligned data offsets are also safetensors' contiguous ones.
BlockDescription model_directory(std::size_t count);

// The safetensors file for the same tensors: the 8-byte header length, the
// JSON header (names, dtypes, shapes, data_offsets equal to Kiln's), padded
// with spaces to a multiple of 8. The data bytes are not stored: data_length
// is what a reader would take from the file size.
inline constexpr std::size_t kJsonPadding = 64;  // simdjson::SIMDJSON_PADDING
struct SafetensorsHeader {
  std::string bytes;  // length prefix + JSON; capacity kJsonPadding bytes beyond
  std::uint64_t data_length = 0;
};
SafetensorsHeader safetensors_header(const BlockDescription& description);

// What a C++ reader of safetensors does before trusting the offsets: parse the
// header with nlohmann::json, then check that no name repeats, each tensor's
// dtype, shape product and byte length, and that the data_offsets tile
// [0, data_length) without gaps. Returns the number of tensors, or -1 with the
// reason in why.
long long validate_safetensors(const SafetensorsHeader& file, std::string* why = nullptr);

// The same checks with simdjson's on-demand API (a reused parser; names unique
// through a hash set of views): what a reader who cares about speed does.
long long validate_safetensors_simdjson(const SafetensorsHeader& file,
                                        std::string* why = nullptr);

// The header, directory and heap of a block whose payloads are not stored
// with it: tensors carry no payload bytes, payload_lengths gives each one's
// byte_length, and the payload region (which starts right after frame) is
// the caller's to fill. data_offsets, byte_lengths and payload_length are
// written through the builder's field access.
struct Frame {
  std::vector<std::uint8_t> bytes;         // ends at payload_offset
  std::vector<std::uint64_t> data_offsets; // payload-relative, canonical
  std::uint64_t payload_length = 0;
};
Frame frame_for(const BlockDescription& tensors_without_payload,
                std::span<const std::uint64_t> payload_lengths);

// A one-tensor frame ("weight", rank 1) whose payload of payload_bytes holds
// valid data for dtype when every byte is 0 or 1: bool [L], f32 [L/4],
// f16 [L/2], u4 [2L - 1] (an odd count), opaque "Q4_0" with block_size 16.
enum class LargeKind { kBool, kU4Odd, kF32, kF16, kOpaque };
const char* to_string(LargeKind kind);
Frame large_tensor_frame(LargeKind kind, std::uint64_t payload_bytes);

// The pattern every large payload holds: bytes 0 and 1 in a mix, valid for
// all the kinds above, with no byte 2 (what memchr looks for and never finds).
void fill_zero_one(std::span<std::uint8_t> bytes);

}  // namespace kiln::bench
