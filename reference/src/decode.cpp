#include "kiln/decode.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <random>
#include <string>

#include "first_repeat.hpp"
#include "kiln/dtype.hpp"
#include "kiln/utf8.hpp"

namespace kiln {
namespace {

// A decimal number on the stack (std::to_string's digits), so that cat()
// builds a message in one allocation: a rejection builds one, and under
// ASan each allocation was a large share of a fuzzed input's cost.
struct Num {
  char digits[20];  // 2^64 - 1 has 20
  std::size_t size;
  operator std::string_view() const noexcept { return {digits + sizeof digits - size, size}; }
};

Num num(std::uint64_t value) noexcept {
  Num number;
  char* first = number.digits + sizeof number.digits;
  do {
    *--first = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  number.size = static_cast<std::size_t>(number.digits + sizeof number.digits - first);
  return number;
}

template <class... Parts>
std::string cat(const Parts&... parts) {
  const std::string_view views[] = {std::string_view(parts)...};
  std::size_t size = 0;
  for (const std::string_view view : views) size += view.size();
  std::string text(size, '\0');
  char* out = text.data();
  for (const std::string_view view : views) {
    std::memcpy(out, view.data(), view.size());
    out += view.size();
  }
  return text;
}

std::string_view as_chars(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The offset of the first nonzero byte of [begin, end), or nullopt when all are zero.
std::optional<std::uint64_t> find_nonzero(const std::uint8_t* base, std::uint64_t begin,
                                          std::uint64_t end) {
  for (std::uint64_t i = begin; i < end; ++i)
    if (base[i] != 0) return i;
  return std::nullopt;
}

// Whether [from, to) is all zero, for a range that ends on a 64-byte boundary
// to >= 64 and is shorter than 64 bytes (the gap before payload_offset): the
// 64 bytes before to, in eight word loads, with the bytes before from masked
// off. No loop and no branch but the last: find_nonzero's byte loop over this
// gap was a third of a one-tensor decode (perf annotate).
bool zero_before_boundary(const std::uint8_t* base, std::uint64_t from, std::uint64_t to) {
  const std::uint8_t* window = base + to - 64;
  const std::uint64_t skip = 64 - (to - from);  // window bytes before from
  std::uint64_t any = 0;
  for (unsigned k = 0; k < 8; ++k) {
    const std::uint64_t before = skip > 8 * k ? std::min<std::uint64_t>(skip - 8 * k, 8) : 0;
    const std::uint64_t keep = before == 8 ? 0 : ~std::uint64_t{0} << (8 * before);
    any |= load_u64(window + 8 * k) & keep;
  }
  return any == 0;
}

// First byte above 1, word at a time: the bool rule runs over whole payloads.
std::optional<std::size_t> find_non_bool(std::span<const std::uint8_t> bytes) {
  constexpr std::uint64_t kHighBits = 0xFEFEFEFEFEFEFEFEull;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    if (word & kHighBits) break;
  }
  for (; i < bytes.size(); ++i)
    if (bytes[i] > 1) return i;
  return std::nullopt;
}

// The exact product: a zero dimension makes it 0 whatever the others are, so
// only a nonzero product above 2^64 - 1 overflows (nullopt).
template <class Dimension>
std::optional<std::uint64_t> shape_product(std::size_t rank, Dimension dimension) noexcept {
  for (std::size_t axis = 0; axis < rank; ++axis)
    if (dimension(axis) == 0) return 0;
  std::uint64_t count = 1;
  for (std::size_t axis = 0; axis < rank; ++axis)
    if (__builtin_mul_overflow(count, dimension(axis), &count)) return std::nullopt;
  return count;
}

// The byte length a closed dtype's count requires (TYPE-BYTE-LENGTH): count x
// width, or ceil(count / 2) for nibble types; nullopt above 2^64 - 1.
std::optional<std::uint64_t> closed_byte_length(const DtypeInfo& info,
                                                std::uint64_t count) noexcept {
  if (info.packing == Packing::kNibble) return count / 2 + count % 2;
  std::uint64_t length = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{info.width}, &length)) return std::nullopt;
  return length;
}

template <class Dimension>
std::uint64_t wrapped_product(std::size_t rank, Dimension dimension) noexcept {
  std::uint64_t count = 1;
  for (std::size_t axis = 0; axis < rank; ++axis) count *= dimension(axis);
  return count;
}

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> input, const DecodeOptions& options)
      : in_(input), waived_(options.waived) {}

  // The views are written straight into the result, which is returned as it
  // is (NRVO): building a block and moving it out copied each view through
  // the stack, and the copy read stores not yet retired (perf annotate: a
  // quarter of a one-tensor decode).
  Result<BlockView> run() {
    Result<BlockView> result = BlockView{};
    tensors_ = &result.value().tensors;
    Failure error = check_frame();
    if (!error) error = check_types();
    if (error) result = std::move(*error);
    return result;
  }

 private:
  using Failure = std::optional<Error>;

  bool enforced(Rule rule) const noexcept { return !waived_.contains(rule); }

  static Error fail(Rule rule, std::uint64_t offset, std::optional<std::uint32_t> tensor,
                    std::string message) {
    return Error{rule, offset, tensor, std::move(message)};
  }

  // Every offset field must hold its canonical value. Waived, the reader goes on
  // from the canonical value, as one that never read the field would.
  Failure settle_offset(Rule rule, const Field& field, std::uint64_t base,
                        std::optional<std::uint32_t> who, std::uint64_t& value,
                        std::uint64_t canonical) const {
    if (value == canonical) return std::nullopt;
    if (enforced(rule))
      return fail(rule, base + field.offset, who,
                  cat(field.name, " is ", num(value), ", canonical is ", num(canonical)));
    value = canonical;
    return std::nullopt;
  }

  std::uint64_t header_field(const Field& field) const {
    return load_le(in_.data() + field.offset, field.width);
  }
  static std::uint64_t entry_field(const std::uint8_t* entry, const Field& field) {
    return load_le(entry + field.offset, field.width);
  }

  Failure check_header() {
    const std::uint64_t size = in_.size();
    auto truncated = [&](const char* where) {
      return fail(Rule::kFrameTruncated, size, std::nullopt,
                  cat("input ends at byte ", num(size), " inside the 32-byte header (", where,
                      ")"));
    };
    if (size < 4) return truncated("magic");
    if (enforced(Rule::kFrameMagic) && std::memcmp(in_.data(), kMagic.data(), kMagic.size()) != 0)
      return fail(Rule::kFrameMagic, 0, std::nullopt, "magic is not 4b 49 4c 4e (\"KILN\")");
    if (size < 5) return truncated("version");
    if (const auto version = in_[4]; enforced(Rule::kFrameVersion) && version != kVersion)
      return fail(Rule::kFrameVersion, 4, std::nullopt,
                  cat("version is ", num(version), ", expected 2"));
    if (size < 6) return truncated("flags");
    const std::uint8_t flags = in_[5];
    if (enforced(Rule::kFrameLeFlag) && !(flags & kFlagLittleEndian))
      return fail(Rule::kFrameLeFlag, 5, std::nullopt,
                  cat("flag bit 1 (little-endian) is clear in flags ", num(flags)));
    if (enforced(Rule::kFrameFlagsReserved) && (flags & ~kFlagLittleEndian))
      return fail(Rule::kFrameFlagsReserved, 5, std::nullopt,
                  cat("flags ", num(flags), " sets bits other than bit 1"));
    if (size < kHeaderSize) return truncated("fields after flags");
    if (enforced(Rule::kFrameHeaderReserved) && header_field(header::kReserved) != 0)
      return fail(Rule::kFrameHeaderReserved, header::kReserved.offset, std::nullopt,
                  "reserved header bytes 6..7 are not 0");

    count_ = header_field(header::kTensorCount);
    heap_length_ = header_field(header::kHeapLength);
    payload_offset_ = header_field(header::kPayloadOffset);
    payload_length_ = header_field(header::kPayloadLength);
    if (enforced(Rule::kFrameHeapAlign) && heap_length_ % kHeapAlign != 0)
      return fail(Rule::kFrameHeapAlign, header::kHeapLength.offset, std::nullopt,
                  cat("heap_length ", num(heap_length_), " is not a multiple of 8"));
    // u32 count and length: the sum stays far below 2^64.
    heap_start_ = entry_start(count_);
    const std::uint64_t canonical = align_up(heap_start_ + heap_length_, kPayloadAlign);
    if (auto error = settle_offset(Rule::kFramePayloadOffset, header::kPayloadOffset, 0,
                                   std::nullopt, payload_offset_, canonical))
      return error;
    if (size < payload_offset_)
      return fail(Rule::kFrameTruncated, size, std::nullopt,
                  cat("input ends at byte ", num(size), ", before payload_offset ",
                      num(payload_offset_), " (directory and heap)"));
    const std::uint64_t available = size - payload_offset_;
    if (payload_length_ > available)
      return fail(Rule::kFrameTruncated, size, std::nullopt,
                  cat("input ends at byte ", num(size), ", payload region needs ",
                      num(payload_length_), " bytes from ", num(payload_offset_)));
    if (enforced(Rule::kFrameTrailing) && payload_length_ < available)
      return fail(Rule::kFrameTrailing, payload_offset_ + payload_length_, std::nullopt,
                  cat(num(available - payload_length_), " byte(s) follow the block's end at ",
                      num(payload_offset_ + payload_length_)));
    return std::nullopt;
  }

  // The strict fast path of check_header: a 32-byte header that passes every
  // check, as one condition, inline in check_frame (the call
  // and the checks one by one were a tenth of a one-tensor decode). False:
  // check_header looks again and finds the defect; the fields it reads here
  // it reads again, to the same values.
  bool fast_header() noexcept {
    // Magic, version 2, flags with only the little-endian bit, reserved 0.
    constexpr std::uint64_t kFirstWord = std::uint64_t{kMagic[0]} | std::uint64_t{kMagic[1]} << 8 |
                                         std::uint64_t{kMagic[2]} << 16 |
                                         std::uint64_t{kMagic[3]} << 24 |
                                         std::uint64_t{kVersion} << 32 |
                                         std::uint64_t{kFlagLittleEndian} << 40;
    count_ = header_field(header::kTensorCount);
    heap_length_ = header_field(header::kHeapLength);
    payload_offset_ = header_field(header::kPayloadOffset);
    payload_length_ = header_field(header::kPayloadLength);
    heap_start_ = entry_start(count_);
    const std::uint64_t size = in_.size();
    return load_u64(in_.data()) == kFirstWord && heap_length_ % kHeapAlign == 0 &&
           payload_offset_ == align_up(heap_start_ + heap_length_, kPayloadAlign) &&
           payload_offset_ <= size && payload_length_ == size - payload_offset_;
  }

  Failure check_entry(std::uint32_t index) {
    const std::uint64_t at = entry_start(index);
    const std::uint8_t* entry = in_.data() + at;
    const std::optional<std::uint32_t> who = index;

    for (const Field* reserved : {&entry::kReserved28, &entry::kReserved48, &entry::kReserved56})
      if (enforced(Rule::kFrameEntryReserved) && entry_field(entry, *reserved) != 0)
        return fail(Rule::kFrameEntryReserved, at + reserved->offset, who,
                    cat("reserved entry bytes at ", num(reserved->offset), " are not 0"));

    std::uint64_t name_offset = entry_field(entry, entry::kNameOffset);
    const std::uint64_t name_length = entry_field(entry, entry::kNameLength);
    const std::uint64_t rank = entry_field(entry, entry::kRank);
    std::uint64_t shape_offset = entry_field(entry, entry::kShapeOffset);
    std::uint64_t layout_offset = entry_field(entry, entry::kLayoutOffset);
    const std::uint64_t layout_length = entry_field(entry, entry::kLayoutLength);
    std::uint64_t data_offset = entry_field(entry, entry::kDataOffset);
    const std::uint64_t byte_length = entry_field(entry, entry::kByteLength);

    if (enforced(Rule::kFrameNameEmpty) && name_length == 0)
      return fail(Rule::kFrameNameEmpty, at + entry::kNameLength.offset, who,
                  "name_length is 0");
    if (auto error = settle_offset(Rule::kFrameShapeOffset, entry::kShapeOffset, at, who,
                                   shape_offset, heap_cursor_))
      return error;
    if (auto error = settle_offset(Rule::kFrameNameOffset, entry::kNameOffset, at, who,
                                   name_offset, heap_cursor_ + kDimensionSize * rank))
      return error;
    if (auto error = settle_offset(Rule::kFrameLayoutOffset, entry::kLayoutOffset, at, who,
                                   layout_offset,
                                   layout_length == 0 ? 0 : name_offset + name_length))
      return error;
    // Every term is at most 2^32 * 8: no overflow.
    const std::uint64_t content_end = name_offset + name_length + layout_length;
    const std::uint64_t segment_end = align_up(content_end, kHeapAlign);
    if (segment_end > heap_length_)
      return fail(Rule::kFrameHeapLength, header::kHeapLength.offset, who,
                  cat("heap segment ends at ", num(segment_end), ", past heap_length ",
                      num(heap_length_)));
    if (auto bad = enforced(Rule::kFramePadHeap)
                       ? find_nonzero(in_.data(), heap_start_ + content_end, heap_start_ + segment_end)
                       : std::nullopt)
      return fail(Rule::kFramePadHeap, *bad, who, "heap padding byte is not 0");

    const std::uint8_t* name_bytes = in_.data() + heap_start_ + name_offset;
    const std::string_view name = as_chars(name_bytes, name_length);
    if (auto bad = enforced(Rule::kFrameNameUtf8) ? find_invalid_utf8(name) : std::nullopt)
      return fail(Rule::kFrameNameUtf8, heap_start_ + name_offset + *bad, who,
                  cat("name is not valid UTF-8 at its byte ", num(*bad)));
    // Uniqueness is settled once for all names seen (first_repeated_name), at
    // this point of the entry order; names_[i] is entry i's name.
    if (checks_uniqueness_) names_->add(name);

    if (auto error = settle_offset(Rule::kFrameDataOffset, entry::kDataOffset, at, who,
                                   data_offset, align_up(payload_cursor_, kPayloadAlign)))
      return error;
    if (data_offset > payload_length_ || byte_length > payload_length_ - data_offset)
      return fail(Rule::kFramePayloadLength, header::kPayloadLength.offset, who,
                  cat("payload at ", num(data_offset), " of ", num(byte_length),
                      " bytes runs past payload_length ", num(payload_length_)));
    const std::uint64_t region = payload_offset_;
    if (auto bad = enforced(Rule::kFramePadPayload)
                       ? find_nonzero(in_.data(), region + payload_cursor_, region + data_offset)
                       : std::nullopt)
      return fail(Rule::kFramePadPayload, *bad, who, "padding before the payload is not 0");

    TensorView view;
    view.name = name;
    view.dtype = static_cast<std::uint16_t>(entry_field(entry, entry::kDtype));
    view.rank = static_cast<std::uint16_t>(rank);
    view.shape_bytes = in_.data() + heap_start_ + shape_offset;
    view.layout = as_chars(in_.data() + heap_start_ + layout_offset, layout_length);
    view.block_size = static_cast<std::uint32_t>(entry_field(entry, entry::kBlockSize));
    view.payload = in_.subspan(region + data_offset, byte_length);
    tensors_->push_back(view);

    heap_cursor_ = segment_end;
    payload_cursor_ = data_offset + byte_length;
    return std::nullopt;
  }

  // The strict fast path: every FRAME check of check_entry for entry index,
  // folded into one condition with no message built, and the TYPE checks of
  // check_tensor_type as a yes/no. True means the entry is valid (FRAME) and
  // recorded; false means nothing was changed and check_entry must look.
  bool fast_entry(std::uint32_t index) {
    const std::uint8_t* entry = in_.data() + entry_start(index);
    const std::uint64_t name_offset = entry_field(entry, entry::kNameOffset);
    const std::uint64_t name_length = entry_field(entry, entry::kNameLength);
    const std::uint64_t rank = entry_field(entry, entry::kRank);
    const std::uint64_t layout_offset = entry_field(entry, entry::kLayoutOffset);
    const std::uint64_t layout_length = entry_field(entry, entry::kLayoutLength);
    const std::uint64_t data_offset = entry_field(entry, entry::kDataOffset);
    const std::uint64_t byte_length = entry_field(entry, entry::kByteLength);
    // Every term is below 2^32 * 8: no overflow.
    const std::uint64_t content_end = name_offset + name_length + layout_length;
    const std::uint64_t segment_end = align_up(content_end, kHeapAlign);
    const bool frame_ok =
        ((entry_field(entry, entry::kReserved28) | entry_field(entry, entry::kReserved48) |
          entry_field(entry, entry::kReserved56)) == 0) &
        (name_length != 0) & (entry_field(entry, entry::kShapeOffset) == heap_cursor_) &
        (name_offset == heap_cursor_ + kDimensionSize * rank) &
        (layout_offset == (layout_length == 0 ? 0 : name_offset + name_length)) &
        (segment_end <= heap_length_) &
        (data_offset == align_up(payload_cursor_, kPayloadAlign)) &
        (data_offset <= payload_length_) & (byte_length <= payload_length_ - data_offset);
    if (!frame_ok) return false;
    // Bounds hold from here. The heap padding is the last segment_end -
    // content_end (< 8) bytes of the word ending at segment_end (>= 8, as
    // name_length >= 1).
    const std::uint8_t* heap = in_.data() + heap_start_;
    const std::uint64_t padding = segment_end - content_end;
    const std::uint64_t last_word = load_u64(heap + segment_end - 8);
    if (padding != 0 && (last_word >> (64 - 8 * padding)) != 0) return false;
    const std::uint8_t* payload_region = in_.data() + payload_offset_;
    if (find_nonzero(payload_region, payload_cursor_, data_offset)) return false;
    const std::string_view name = as_chars(heap + name_offset, name_length);
    if (!is_ascii(name) && find_invalid_utf8(name)) return false;

    if (checks_uniqueness_) names_->add(name);
    // Written in place (reserved), field by field: a view built on the stack
    // and copied in stalled on store forwarding (perf annotate: 40% of this
    // function), and one zeroed first and then filled cost a tenth of a
    // one-tensor decode.
    const TensorView& view = tensors_->emplace_back(
        name, static_cast<std::uint16_t>(entry_field(entry, entry::kDtype)),
        static_cast<std::uint16_t>(rank), heap + heap_cursor_,
        as_chars(heap + layout_offset, layout_length),
        static_cast<std::uint32_t>(entry_field(entry, entry::kBlockSize)),
        in_.subspan(payload_offset_ + data_offset, byte_length));
    if (!type_valid(view))
      types_unchecked_from_ = std::min<std::uint64_t>(types_unchecked_from_, index);
    heap_cursor_ = segment_end;
    payload_cursor_ = data_offset + byte_length;
    return true;
  }

  // Whether check_tensor_type passes, strictly, for a tensor whose FRAME
  // checks passed: the same readings (shape_product, closed_byte_length), no
  // message built.
  static bool type_valid(const TensorView& tensor) noexcept {
    const std::uint16_t code = tensor.dtype;
    const std::uint64_t length = tensor.payload.size();
    switch (classify_code(code)) {
      case CodeClass::kClosed:
        break;
      case CodeClass::kOpaque:
        return !tensor.layout.empty() && tensor.block_size != 0 &&
               length % tensor.block_size == 0 &&
               (is_ascii(tensor.layout) || !find_invalid_utf8(tensor.layout));
      default:
        return false;
    }
    const DtypeInfo& info = *find_dtype(code);
    const auto count =
        shape_product(tensor.rank, [&](std::size_t axis) { return tensor.dimension(axis); });
    if (!count) return false;
    const std::optional<std::uint64_t> expected = closed_byte_length(info, *count);
    if (!expected || !tensor.layout.empty() || tensor.block_size != 0 || length != *expected)
      return false;
    if (info.values == ValueRule::kBoolByte && find_non_bool(tensor.payload)) return false;
    return !(info.packing == Packing::kNibble && *count % 2 == 1 && length != 0 &&
             (tensor.payload.back() >> 4) != 0);
  }

  Failure check_frame() {
    if (!(waived_.empty() && in_.size() >= kHeaderSize && fast_header()))
      if (auto error = check_header()) return error;
    // The directory is present (payload_offset <= size), so this is O(input).
    tensors_->reserve(count_);
    // One tensor cannot repeat a name: skip the bookkeeping (and its allocation).
    checks_uniqueness_ = count_ > 1 && enforced(Rule::kFrameNameUnique);
    if (checks_uniqueness_) names_.emplace(count_);
    // Strict decoding takes the fast path; an entry it cannot vouch for (or any
    // waiver) goes through check_entry, which finds and words the defect.
    const bool strict = waived_.empty();
    for (std::uint32_t i = 0; i < count_; ++i) {
      if (strict && fast_entry(i)) continue;
      types_unchecked_from_ = std::min<std::uint64_t>(types_unchecked_from_, i);
      if (auto error = check_entry(i)) {
        // A repeat among the names already read comes earlier in directory order.
        if (checks_uniqueness_)
          if (auto repeat = first_repeated_name()) return repeat;
        return error;
      }
    }
    if (checks_uniqueness_)
      if (auto repeat = first_repeated_name()) return repeat;
    if (enforced(Rule::kFrameHeapLength) && heap_cursor_ != heap_length_)
      return fail(Rule::kFrameHeapLength, header::kHeapLength.offset, std::nullopt,
                  cat("heap_length is ", num(heap_length_), ", the heap segments end at ",
                      num(heap_cursor_)));
    // payload_offset is settled (canonical): the gap is the 0 to 63 bytes up to
    // the 64-byte boundary at payload_offset >= 64.
    const std::uint64_t heap_end = heap_start_ + heap_length_;
    if (auto bad = enforced(Rule::kFramePadGap) &&
                           !zero_before_boundary(in_.data(), heap_end, payload_offset_)
                       ? find_nonzero(in_.data(), heap_end, payload_offset_)
                       : std::nullopt)
      return fail(Rule::kFramePadGap, *bad, std::nullopt,
                  "padding between the heap and payload_offset is not 0");
    if (enforced(Rule::kFramePayloadLength) && payload_cursor_ != payload_length_)
      return fail(Rule::kFramePayloadLength, header::kPayloadLength.offset, std::nullopt,
                  cat("payload_length is ", num(payload_length_), ", the last payload ends at ",
                      num(payload_cursor_)));
    return std::nullopt;
  }

  // The first entry whose name equals an earlier entry's (detail::FirstRepeat:
  // O(n) expected with a keyed hash, O(n log n) comparisons at worst).
  Failure first_repeated_name() const {
    if (!names_) return std::nullopt;
    const std::optional<std::uint32_t> first = names_->first_repeat();
    if (!first) return std::nullopt;
    return fail(Rule::kFrameNameUnique, entry_start(*first) + entry::kNameOffset.offset, *first,
                "name repeats an earlier tensor's name");
  }

  Failure check_tensor_type(std::uint32_t index, const TensorView& tensor) const {
    const std::uint64_t at = entry_start(index);
    const std::optional<std::uint32_t> who = index;
    const std::uint64_t payload_at =
        static_cast<std::uint64_t>(tensor.payload.data() - in_.data());
    const std::uint16_t code = tensor.dtype;
    // A waived code rule leaves nothing to check: the code has no dtype.
    switch (classify_code(code)) {
      case CodeClass::kZero:
        if (!enforced(Rule::kTypeCodeZero)) return std::nullopt;
        return fail(Rule::kTypeCodeZero, at + entry::kDtype.offset, who, "dtype code is 0");
      case CodeClass::kReserved:
        if (!enforced(Rule::kTypeCodeReserved)) return std::nullopt;
        return fail(Rule::kTypeCodeReserved, at + entry::kDtype.offset, who,
                    cat("dtype code ", num(code), " is reserved (20..4095)"));
      case CodeClass::kAboveOpaque:
        if (!enforced(Rule::kTypeCodeAboveOpaque)) return std::nullopt;
        return fail(Rule::kTypeCodeAboveOpaque, at + entry::kDtype.offset, who,
                    cat("dtype code ", num(code), " is above the opaque range (4096..32767)"));
      case CodeClass::kOpaque:
        return check_opaque(at, who, tensor);
      case CodeClass::kClosed:
        break;
    }
    const DtypeInfo& info = *find_dtype(code);
    if (enforced(Rule::kTypeClosedLayout) && !tensor.layout.empty())
      return fail(Rule::kTypeClosedLayout, at + entry::kLayoutLength.offset, who,
                  cat(info.name, " has a layout name"));
    if (enforced(Rule::kTypeClosedBlockSize) && tensor.block_size != 0)
      return fail(Rule::kTypeClosedBlockSize, at + entry::kBlockSize.offset, who,
                  cat(info.name, " has block_size ", num(tensor.block_size)));

    const auto dimension = [&](std::size_t axis) { return tensor.dimension(axis); };
    const auto product = shape_product(tensor.rank, dimension);
    if (!product && enforced(Rule::kTypeShapeOverflow))
      return fail(Rule::kTypeShapeOverflow, shape_at(tensor), who,
                  "shape product exceeds 2^64 - 1");
    // Waived, an overflowing product wraps, as unchecked arithmetic would.
    const std::uint64_t count = product ? *product : wrapped_product(tensor.rank, dimension);

    const std::optional<std::uint64_t> needed = closed_byte_length(info, count);
    const bool fits = needed.has_value();
    const std::uint64_t expected = needed.value_or(0);
    if (enforced(Rule::kTypeByteLength) && (!fits || tensor.payload.size() != expected)) {
      const Num needs = num(expected);
      return fail(Rule::kTypeByteLength, at + entry::kByteLength.offset, who,
                  cat("byte_length is ", num(tensor.payload.size()), ", ", info.name, " of ",
                      num(count), " elements needs ",
                      fits ? std::string_view(needs) : std::string_view("more than 2^64 - 1")));
    }
    if (info.values == ValueRule::kBoolByte && enforced(Rule::kTypeBoolByte))
      if (auto bad = find_non_bool(tensor.payload))
        return fail(Rule::kTypeBoolByte, payload_at + *bad, who,
                    cat("bool byte is ", num(tensor.payload[*bad]), ", not 0 or 1"));
    // The length rule may be waived, so the last byte need not exist.
    if (enforced(Rule::kTypeHighNibble) && info.packing == Packing::kNibble && count % 2 == 1 &&
        !tensor.payload.empty() && (tensor.payload.back() >> 4) != 0)
      return fail(Rule::kTypeHighNibble, payload_at + tensor.payload.size() - 1, who,
                  cat("odd count ", num(count), " leaves a nonzero high nibble in the last byte"));
    return std::nullopt;
  }

  Failure check_opaque(std::uint64_t at, std::optional<std::uint32_t> who,
                       const TensorView& tensor) const {
    if (enforced(Rule::kTypeOpaqueLayout) && tensor.layout.empty())
      return fail(Rule::kTypeOpaqueLayout, at + entry::kLayoutLength.offset, who,
                  cat("opaque dtype ", num(tensor.dtype), " has no layout name"));
    if (auto bad = enforced(Rule::kTypeOpaqueLayoutUtf8) ? find_invalid_utf8(tensor.layout)
                                                          : std::nullopt)
      return fail(Rule::kTypeOpaqueLayoutUtf8,
                  static_cast<std::uint64_t>(
                      reinterpret_cast<const std::uint8_t*>(tensor.layout.data()) - in_.data()) +
                      *bad,
                  who, cat("layout name is not valid UTF-8 at its byte ", num(*bad)));
    if (enforced(Rule::kTypeOpaqueBlockSize) && tensor.block_size == 0)
      return fail(Rule::kTypeOpaqueBlockSize, at + entry::kBlockSize.offset, who,
                  "opaque dtype has block_size 0");
    if (enforced(Rule::kTypeOpaqueMultiple) && tensor.block_size != 0 &&
        tensor.payload.size() % tensor.block_size != 0)
      return fail(Rule::kTypeOpaqueMultiple, at + entry::kByteLength.offset, who,
                  cat("byte_length ", num(tensor.payload.size()),
                      " is not a multiple of block_size ", num(tensor.block_size)));
    return std::nullopt;
  }

  std::uint64_t shape_at(const TensorView& tensor) const {
    return static_cast<std::uint64_t>(tensor.shape_bytes - in_.data());
  }

  // Entries before types_unchecked_from_ passed fast_entry's type test, which
  // implies check_tensor_type passes.
  Failure check_types() const {
    for (std::uint64_t i = types_unchecked_from_; i < tensors_->size(); ++i)
      if (auto error = check_tensor_type(static_cast<std::uint32_t>(i), (*tensors_)[i]))
        return error;
    return std::nullopt;
  }

  std::span<const std::uint8_t> in_;
  RuleSet waived_;
  std::uint64_t count_ = 0;
  std::uint64_t heap_length_ = 0;
  std::uint64_t heap_start_ = 0;
  std::uint64_t payload_offset_ = 0;
  std::uint64_t payload_length_ = 0;
  std::uint64_t heap_cursor_ = 0;     // heap-relative end of the previous segment
  std::uint64_t payload_cursor_ = 0;  // payload-relative end of the previous payload
  bool checks_uniqueness_ = false;
  std::optional<detail::FirstRepeat> names_;
  std::uint64_t types_unchecked_from_ = UINT64_MAX;
  TensorViews* tensors_ = nullptr;  // the result's
};

}  // namespace

namespace detail {

const std::array<std::uint64_t, 3>& name_hash_key() noexcept {
  static const std::array<std::uint64_t, 3> key = [] {
    // The clock and an address (ASLR) keep the key unpredictable should the
    // system have no random device.
    std::array<std::uint64_t, 3> words{
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()),
        reinterpret_cast<std::uintptr_t>(&words), 0x9E3779B97F4A7C15ull};
    try {
      std::random_device device;
      for (auto& word : words) word ^= (std::uint64_t{device()} << 32) ^ device();
    } catch (...) {
    }
    for (auto& word : words) word |= 1;  // a zero factor would erase a word of the name
    return words;
  }();
  return key;
}

}  // namespace detail

std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept {
  return shape_product(shape.size(), [&](std::size_t axis) { return shape[axis]; });
}

std::vector<std::uint64_t> TensorView::shape() const {
  std::vector<std::uint64_t> dims(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) dims[axis] = dimension(axis);
  return dims;
}

TensorDescription TensorView::to_description() const {
  return TensorDescription{std::string(name), dtype, shape(), std::string(layout), block_size,
                           std::vector<std::uint8_t>(payload.begin(), payload.end())};
}

BlockDescription BlockView::to_description() const {
  BlockDescription description;
  description.tensors.reserve(tensors.size());
  for (const auto& tensor : tensors) description.tensors.push_back(tensor.to_description());
  return description;
}

Result<BlockView> decode(std::span<const std::uint8_t> bytes) {
  return Decoder(bytes, DecodeOptions{}).run();
}

namespace {

// These keep every read inside the input; FRAME-HEAP-LENGTH and
// FRAME-PAYLOAD-LENGTH stay enforced as bounds even when waived as totals.
constexpr std::array<Rule, 2> kNeverWaived{Rule::kFrameTruncated, Rule::kFrameFieldRange};

}  // namespace

Result<BlockView> decode(std::span<const std::uint8_t> bytes, const DecodeOptions& options) {
  // A set without a never-waived rule is honoured as it is; walking the whole
  // table instead cost about 150 compared values a call under the fuzzer's
  // instrumentation. (A bit for no rule, from a cast, is never consulted; at
  // most it sends the decode down the general path, which reads the same.)
  bool drops = false;
  for (const Rule rule : kNeverWaived) drops = drops || options.waived.contains(rule);
  if (!drops) return Decoder(bytes, options).run();
  RuleSet waived;
  for (const RuleInfo& info : all_rules())
    if (options.waived.contains(info.rule) && is_waivable(info.rule)) waived.add(info.rule);
  return Decoder(bytes, DecodeOptions{waived}).run();
}

bool is_waivable(Rule rule) noexcept {
  return std::find(kNeverWaived.begin(), kNeverWaived.end(), rule) == kNeverWaived.end();
}

}  // namespace kiln
