// The fuzz-only family: bugs that only a rare combination shows (a dtype pair
// side by side, a rank with a zero dimension and an odd name, the 5th tensor of
// one dtype, two long names that differ in their last byte, a line end after
// the block). Every golden case lets them through; `kiln-conformance fuzz` must
// find each (tests/fuzz_only_test.cpp). Most are the reference with one rule
// waived (or one value post-processed) and the implementer's own check in its
// place, which is right except in the combination; one is an I/O layer that
// reshapes the input before the reference sees it.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/utf8.hpp"
#include "relaxed.hpp"

namespace kiln::mutants {

// The hurray-elements members of the family (fuzz_only_hurray.cpp).
std::vector<Mutant> hurray_fuzz_only_mutants();

namespace {

using parts::Check;
using parts::reject;

std::uint16_t code_of(std::string_view dtype) { return find_dtype(dtype)->code; }

bool is_packed(std::uint16_t code) {
  const DtypeInfo* info = find_dtype(code);
  return info && info->packing == Packing::kNibble;
}

bool is_opaque(std::uint16_t code) { return classify_code(code) == CodeClass::kOpaque; }

// The reference's high-nibble rule for one tensor (n odd, last byte's high nibble 0).
bool high_nibble_set(const TensorView& tensor) {
  const auto shape = tensor.shape();
  const auto count = element_count(shape);
  return is_packed(tensor.dtype) && count && *count % 2 == 1 && !tensor.payload.empty() &&
         (tensor.payload.back() & 0xF0) != 0;
}

// The reference's byte-length rule for a closed dtype; true when the length is wrong.
bool wrong_byte_length(const TensorView& tensor) {
  const DtypeInfo* info = find_dtype(tensor.dtype);
  const auto shape = tensor.shape();
  const auto count = element_count(shape);
  if (!info || !count) return false;  // other rules judge these
  std::uint64_t want = 0;
  if (info->packing == Packing::kNibble) want = *count / 2 + *count % 2;
  else if (__builtin_mul_overflow(*count, std::uint64_t{info->width}, &want)) return true;
  return tensor.payload.size() != want;
}

Mutant nibble_after_opaque() {
  Mutant m = parts::missing(
      "fuzz-nibble-after-opaque", kFamilyFuzzOnly,
      "high nibble unchecked in a packed tensor from the 3rd on when an opaque tensor precedes it",
      Rule::kTypeHighNibble);
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    bool opaque_before = false;
    for (std::size_t i = 0; i < view.tensors.size(); ++i) {
      const auto& tensor = view.tensors[i];
      if (!(opaque_before && i >= 2) && high_nibble_set(tensor))
        return reject(Rule::kTypeHighNibble, "high nibble of the last byte set");
      opaque_before = opaque_before || is_opaque(tensor.dtype);
    }
    return std::nullopt;
  };
  return m;
}

Mutant high_rank_empty_length() {
  Mutant m = parts::missing(
      "fuzz-rank5-empty-odd-name", kFamilyFuzzOnly,
      "byte_length unchecked for an empty tensor (a 0 dimension) of rank 5 or more whose name "
      "has an odd length",
      Rule::kTypeByteLength);
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      const auto shape = tensor.shape();
      const bool empty = std::find(shape.begin(), shape.end(), 0u) != shape.end();
      if (tensor.rank >= 5 && empty && tensor.name.size() % 2 == 1) continue;
      if (wrong_byte_length(tensor)) return reject(Rule::kTypeByteLength, "byte_length is wrong");
    }
    return std::nullopt;
  };
  return m;
}

Mutant long_name_last_byte() {
  Mutant m = parts::make(
      "fuzz-long-names-last-byte", kFamilyFuzzOnly,
      "two names of one length above 40 bytes that differ only in their last byte are taken for "
      "duplicates when their dtypes differ (a name index that drops the last byte of long names, "
      "rechecked exactly only within one dtype)");
  m.extra_frame_check = [](const BlockView& view, ByteSpan) -> Check {
    for (std::size_t j = 0; j < view.tensors.size(); ++j)
      for (std::size_t i = 0; i < j; ++i) {
        const auto a = view.tensors[i].name, b = view.tensors[j].name;
        if (view.tensors[i].dtype != view.tensors[j].dtype && a.size() == b.size() && a.size() > 40 &&
            a.substr(0, a.size() - 1) == b.substr(0, b.size() - 1))
          return reject(Rule::kFrameNameUnique, "duplicate tensor name");
      }
    return std::nullopt;
  };
  return m;
}

Mutant late_bf16_name_utf8() {
  Mutant m = parts::missing(
      "fuzz-late-bf16-name-utf8", kFamilyFuzzOnly,
      "name UTF-8 unchecked for bf16 tensors from the 5th on (a fixed table of 4 validated "
      "entries, refilled for other dtypes only)",
      Rule::kFrameNameUtf8);
  m.extra_frame_check = [](const BlockView& view, ByteSpan) -> Check {
    for (std::size_t i = 0; i < view.tensors.size(); ++i) {
      const auto& tensor = view.tensors[i];
      if (i >= 4 && tensor.dtype == code_of("bf16")) continue;
      if (!is_valid_utf8(tensor.name)) return reject(Rule::kFrameNameUtf8, "name is not UTF-8");
    }
    return std::nullopt;
  };
  return m;
}

Mutant u4_after_byte_dtype() {
  Mutant m = parts::make(
      "fuzz-u4-after-byte-dtype", kFamilyFuzzOnly,
      "a u4 tensor right after one of a 1-byte dtype (bool, i8, u8, f8, e8m0) is read with its "
      "nibbles swapped (the byte unpacker's order left in place)");
  m.alter_accepted = [](BlockDescription& tensors, ByteSpan) {
    for (std::size_t i = 1; i < tensors.tensors.size(); ++i) {
      const DtypeInfo* previous = find_dtype(tensors.tensors[i - 1].dtype);
      if (tensors.tensors[i].dtype != code_of("u4") || !previous ||
          previous->packing != Packing::kWhole || previous->width != 1)
        continue;
      for (auto& byte : tensors.tensors[i].payload)
        byte = static_cast<std::uint8_t>((byte << 4) | (byte >> 4));
    }
  };
  return m;
}

Mutant wide_running_product() {
  Mutant m = parts::make(
      "fuzz-wide-running-product", kFamilyFuzzOnly,
      "an i64 or u64 tensor of rank 3 or more whose running product times 8 overflows before a "
      "later 0 dimension is rejected as an overflow (the integer path checks the product step by "
      "step, in bytes)");
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      const DtypeInfo* info = find_dtype(tensor.dtype);
      if (tensor.dtype != code_of("i64") && tensor.dtype != code_of("u64")) continue;
      if (!info || tensor.rank < 3) continue;
      std::uint64_t bytes = 8;
      for (std::size_t axis = 0; axis < tensor.rank; ++axis) {
        if (__builtin_mul_overflow(bytes, tensor.dimension(axis), &bytes))
          return reject(Rule::kTypeShapeOverflow, "the shape product overflows");
        if (bytes == 0) break;
      }
    }
    return std::nullopt;
  };
  return m;
}

Mutant opaque_block_size_16() {
  Mutant m = parts::missing(
      "fuzz-opaque-long-layout-block-16", kFamilyFuzzOnly,
      "byte_length checked against the low 16 bits of block_size (0: any length) for opaque "
      "tensors whose layout name has 4 bytes or more (a packed layout key)",
      Rule::kTypeOpaqueMultiple);
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      if (!is_opaque(tensor.dtype) || tensor.block_size == 0) continue;
      const std::uint64_t block =
          tensor.layout.size() >= 4 ? (tensor.block_size & 0xFFFFu) : tensor.block_size;
      if (block != 0 && tensor.payload.size() % block != 0)
        return reject(Rule::kTypeOpaqueMultiple, "byte_length is not a multiple of block_size");
    }
    return std::nullopt;
  };
  return m;
}

Mutant f16_subnormals_high_rank() {
  Mutant m = parts::make(
      "fuzz-f16-flush-not-vector", kFamilyFuzzOnly,
      "f16 subnormals flushed to zero in tensors of any rank but 1 (scalars and matrices take "
      "the batched conversion path)");
  m.alter_accepted = [](BlockDescription& tensors, ByteSpan) {
    for (auto& tensor : tensors.tensors) {
      if (tensor.dtype != code_of("f16") || tensor.shape.size() == 1) continue;
      for (std::size_t at = 0; at + 2 <= tensor.payload.size(); at += 2) {
        const std::uint16_t bits = load_u16(tensor.payload.data() + at);
        if ((bits & 0x7C00) == 0 && (bits & 0x03FF) != 0)
          store_le(tensor.payload.data() + at, 2, bits & 0x8000u);
      }
    }
  };
  return m;
}

Mutant layout_utf8_cached_by_block_size() {
  Mutant m = parts::missing(
      "fuzz-layout-utf8-cached", kFamilyFuzzOnly,
      "an opaque layout name's UTF-8 checked once per block size: a later opaque tensor with the "
      "block size of an earlier one is not checked",
      Rule::kTypeOpaqueLayoutUtf8);
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    std::set<std::uint32_t> checked;
    for (const auto& tensor : view.tensors) {
      if (!is_opaque(tensor.dtype) || !checked.insert(tensor.block_size).second) continue;
      if (!is_valid_utf8(tensor.layout))
        return reject(Rule::kTypeOpaqueLayoutUtf8, "layout name is not UTF-8");
    }
    return std::nullopt;
  };
  return m;
}

Mutant duplicate_names_window() {
  Mutant m = parts::missing(
      "fuzz-names-window-8", kFamilyFuzzOnly,
      "with more than 8 tensors, a name is compared with every earlier name of its dtype but "
      "with other dtypes' names only within the 8 before it, so far-apart duplicates of "
      "different dtypes pass",
      Rule::kFrameNameUnique);
  m.extra_frame_check = [](const BlockView& view, ByteSpan) -> Check {
    const std::size_t window = view.tensors.size() > 8 ? 8 : view.tensors.size();
    for (std::size_t j = 0; j < view.tensors.size(); ++j)
      for (std::size_t i = 0; i < j; ++i)
        if ((i + window >= j || view.tensors[i].dtype == view.tensors[j].dtype) &&
            view.tensors[i].name == view.tensors[j].name)
          return reject(Rule::kFrameNameUnique, "duplicate tensor name");
    return std::nullopt;
  };
  return m;
}

Mutant strips_trailing_newline() {
  Mutant m = parts::make(
      "fuzz-strips-trailing-newline", kFamilyFuzzOnly,
      "one trailing line end (0a, or 0d 0a) is stripped from the input before decoding (the "
      "bytes came through a text-mode stream or a line reader)");
  m.reshape_input = [](ByteSpan input) {
    Bytes copy(input.begin(), input.end());
    if (!copy.empty() && copy.back() == 0x0a) {
      copy.pop_back();
      if (!copy.empty() && copy.back() == 0x0d) copy.pop_back();
    }
    return copy;
  };
  return m;
}

// What a tensor's values and shape are, without its layout name and block size.
std::string content_key(const TensorView& tensor) {
  std::string key = std::to_string(tensor.dtype) + "/";
  for (const auto dim : tensor.shape()) key += std::to_string(dim) + ",";
  key += "/";
  key.append(reinterpret_cast<const char*>(tensor.payload.data()), tensor.payload.size());
  return key;
}

Mutant closed_verdict_per_content() {
  Mutant m = parts::make(
      "fuzz-closed-verdict-per-content", kFamilyFuzzOnly,
      "a closed dtype's layout and block_size checks are done once per identical tensor in a "
      "block (same dtype, shape and payload): a later copy with a layout name or a block size "
      "takes the verdict of the first");
  m.waived.add(Rule::kTypeClosedLayout);
  m.waived.add(Rule::kTypeClosedBlockSize);
  m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
    std::set<std::string> checked;  // the cache's keys: the content, not the layout fields
    for (const auto& tensor : view.tensors) {
      if (classify_code(tensor.dtype) != CodeClass::kClosed) continue;
      if (!checked.insert(content_key(tensor)).second) continue;
      if (!tensor.layout.empty())
        return reject(Rule::kTypeClosedLayout, "a closed dtype has a layout name");
      if (tensor.block_size != 0) return reject(Rule::kTypeClosedBlockSize, "a closed dtype has a block size");
    }
    return std::nullopt;
  };
  return m;
}

Mutant bool_verdict_kept() {
  Mutant m = parts::missing(
      "fuzz-bool-verdict-kept", kFamilyFuzzOnly,
      "bool values checked once per identical tensor (name, shape, payload) for the life of the "
      "process, the cache entry made before the check: the same tensor sent again is taken as "
      "checked (the encoder's read-back does not use the cache)",
      Rule::kTypeBoolByte);
  struct State {
    std::set<std::string> checked;
    bool reading_back = false;
  };
  auto state = std::make_shared<State>();
  m.on_read = [state](bool reading_back) { state->reading_back = reading_back; };
  m.extra_type_check = [state](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      if (tensor.dtype != code_of("bool")) continue;
      if (!state->reading_back) {
        std::string key = std::string(tensor.name) + "/" + content_key(tensor);
        if (state->checked.size() >= 65536) state->checked.clear();  // bounded, as a real cache
        if (!state->checked.insert(std::move(key)).second) continue;
      }
      for (const auto byte : tensor.payload)
        if (byte > 1) return reject(Rule::kTypeBoolByte, "a bool byte is neither 0 nor 1");
    }
    return std::nullopt;
  };
  return m;
}


// The canonical composition of a Latin letter and one combining mark (U+0300
// grave, U+0301 acute, U+0302 circumflex, U+0303 tilde, U+0308 diaeresis,
// U+0327 cedilla) into its Latin-1 letter, as NFC does; the rest is kept.
std::string composed_latin(std::string_view name) {
  struct Composition {
    char base;
    std::uint8_t mark;  // the second byte of the mark's UTF-8 form, cc xx
    std::uint8_t composed;  // the Latin-1 code point (lower case; upper case is 0x20 below)
  };
  static constexpr Composition kTable[] = {
      {'a', 0x80, 0xE0}, {'a', 0x81, 0xE1}, {'a', 0x82, 0xE2}, {'a', 0x83, 0xE3}, {'a', 0x88, 0xE4},
      {'c', 0xA7, 0xE7}, {'e', 0x80, 0xE8}, {'e', 0x81, 0xE9}, {'e', 0x82, 0xEA}, {'e', 0x88, 0xEB},
      {'i', 0x80, 0xEC}, {'i', 0x81, 0xED}, {'i', 0x82, 0xEE}, {'i', 0x88, 0xEF}, {'n', 0x83, 0xF1},
      {'o', 0x80, 0xF2}, {'o', 0x81, 0xF3}, {'o', 0x82, 0xF4}, {'o', 0x83, 0xF5}, {'o', 0x88, 0xF6},
      {'u', 0x80, 0xF9}, {'u', 0x81, 0xFA}, {'u', 0x82, 0xFB}, {'u', 0x88, 0xFC}, {'y', 0x81, 0xFD},
  };
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i + 2 < name.size() && static_cast<std::uint8_t>(name[i + 1]) == 0xCC) {
      const char letter = name[i];
      const bool upper = letter >= 'A' && letter <= 'Z';
      const char lower = upper ? static_cast<char>(letter + 0x20) : letter;
      const auto mark = static_cast<std::uint8_t>(name[i + 2]);
      const auto* found = std::find_if(std::begin(kTable), std::end(kTable), [&](const Composition& c) {
        return c.base == lower && c.mark == mark;
      });
      if (found != std::end(kTable)) {
        const unsigned code = found->composed - (upper ? 0x20u : 0u);
        out += static_cast<char>(0xC0 | code >> 6);
        out += static_cast<char>(0x80 | (code & 0x3F));
        i += 2;
        continue;
      }
    }
    out += name[i];
  }
  return out;
}

Mutant names_nfc_in_large_directory() {
  Mutant m = parts::missing(
      "fuzz-names-nfc-large-directory", kFamilyFuzzOnly,
      "with more than 8 tensors the name index is a hash map keyed by the name's NFC form (a "
      "Unicode-aware string class), so two names that differ only in normal form (U+00E9 and e "
      "U+0301) are taken for duplicates; small directories compare bytes",
      Rule::kFrameNameUnique);
  m.extra_frame_check = [](const BlockView& view, ByteSpan) -> Check {
    const bool hashed = view.tensors.size() > 8;
    std::set<std::string> seen;
    for (const auto& tensor : view.tensors) {
      const std::string key = hashed ? composed_latin(tensor.name) : std::string(tensor.name);
      if (!seen.insert(key).second) return reject(Rule::kFrameNameUnique, "duplicate tensor name");
    }
    return std::nullopt;
  };
  return m;
}

Mutant names_trailing_spaces_trimmed() {
  Mutant m = parts::make(
      "fuzz-names-trailing-spaces-trimmed", kFamilyFuzzOnly,
      "names are handed out with trailing spaces (U+0020) trimmed, as from a fixed-width, "
      "space-padded name field; every check sees the bytes as written");
  m.alter_accepted = [](BlockDescription& tensors, ByteSpan) {
    for (auto& tensor : tensors.tensors)
      while (!tensor.name.empty() && tensor.name.back() == ' ') tensor.name.pop_back();
  };
  return m;
}

bool is_u32(std::uint16_t code) { return code == code_of("u32"); }

void swap_u32_elements(std::span<std::uint8_t> payload) {
  for (std::size_t at = 0; at + 4 <= payload.size(); at += 4) std::reverse(payload.begin() + at, payload.begin() + at + 4);
}

Mutant u32_big_endian() {
  Mutant m = parts::make(
      "fuzz-u32-elements-big-endian", kFamilyFuzzOnly,
      "u32 elements are converted with the network-order routine, in the reader and the writer "
      "alike: each 4-byte element's bytes reversed (i32, f32 and the other widths are right)");
  m.alter_accepted = [](BlockDescription& tensors, ByteSpan) {
    for (auto& tensor : tensors.tensors)
      if (is_u32(tensor.dtype)) swap_u32_elements(tensor.payload);
  };
  m.rewrite_encoded = [](Bytes& bytes, const Placement& placement, const BlockDescription& description) {
    for (std::size_t i = 0; i < description.tensors.size() && i < placement.tensors.size(); ++i) {
      const auto& at = placement.tensors[i];
      if (!is_u32(description.tensors[i].dtype) || at.data_end > bytes.size() || at.data > at.data_end) continue;
      swap_u32_elements(std::span<std::uint8_t>(bytes).subspan(at.data, at.data_end - at.data));
    }
  };
  return m;
}

// The first entry whose name breaks a name rule (UTF-8, uniqueness), or the count.
std::size_t first_bad_name(const BlockDescription& tensors) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < tensors.tensors.size(); ++i)
    if (!is_valid_utf8(tensors.tensors[i].name) || !seen.insert(tensors.tensors[i].name).second) return i;
  return tensors.tensors.size();
}

Mutant types_checked_per_page() {
  Mutant m = parts::make(
      "fuzz-types-checked-per-page", kFamilyFuzzOnly,
      "a streaming reader reads the directory in pages of 4 entries (a 256-byte buffer) and "
      "type-checks each page's tensors before it reads the next page, so a TYPE defect wins over a "
      "FRAME defect in a later page (one in the same page is reported as the reference does)");
  m.read_frame = [](ByteSpan input) -> std::variant<protocol::Reject, BlockDescription> {
    constexpr std::size_t kPage = 4;
    BlockDescription before;
    auto read = relaxed::read_frame(input, {}, &before);
    std::size_t defect = before.tensors.size();
    if (const auto* tensors = std::get_if<BlockDescription>(&read)) {
      defect = first_bad_name(*tensors);
      if (defect == tensors->tensors.size()) return read;  // no entry defect: the reference judges the rest
      before = *tensors;
    }
    // The pages read in full before the defect's page, type-checked as they were read.
    BlockDescription pages;
    pages.tensors.assign(before.tensors.begin(),
                         before.tensors.begin() + static_cast<std::ptrdiff_t>(defect / kPage * kPage));
    if (pages.tensors.empty()) return read;
    const auto built = kiln::build(pages);
    if (!built) return read;
    const auto judged = kiln::decode(built.value().bytes);
    if (!judged && judged.error().error_class() == ErrorClass::kType) return protocol::reject_from(judged.error());
    return read;
  };
  return m;
}

std::vector<Mutant> build_fuzz_only() {
  std::vector<Mutant> all;
  for (auto make : {nibble_after_opaque, high_rank_empty_length,
                    long_name_last_byte, late_bf16_name_utf8, u4_after_byte_dtype, wide_running_product,
                    opaque_block_size_16, f16_subnormals_high_rank,
                    layout_utf8_cached_by_block_size, duplicate_names_window,
                    strips_trailing_newline, closed_verdict_per_content, bool_verdict_kept,
                    names_nfc_in_large_directory, names_trailing_spaces_trimmed, u32_big_endian,
                    types_checked_per_page})
    all.push_back(make());
  for (Mutant& mutant : hurray_fuzz_only_mutants()) all.push_back(std::move(mutant));
  return all;
}

}  // namespace

const std::vector<Mutant>& fuzz_only_mutants() {
  static const std::vector<Mutant> all = build_fuzz_only();
  return all;
}

}  // namespace kiln::mutants
