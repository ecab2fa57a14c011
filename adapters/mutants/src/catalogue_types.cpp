// The TYPE rules of closed and opaque dtypes: lengths, nibbles, bool bytes,
// e8m0, IEEE values on accept, layouts and block sizes, the shape product.
#include <algorithm>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"

namespace kiln::mutants::parts {
namespace {

// ---- Dtype helpers for the mutants' own TYPE checks ----

std::uint16_t code_of(std::string_view dtype) { return find_dtype(dtype)->code; }

bool packed(const TensorView& tensor) {
  const DtypeInfo* info = find_dtype(tensor.dtype);
  return info && info->packing == Packing::kNibble;
}

std::optional<std::uint64_t> count_of(const TensorView& tensor) {
  const auto shape = tensor.shape();
  return element_count(shape);
}

// The length rule with the implementer's own expected length for closed dtypes
// (nullopt: "too large"), in place of the reference's.
Mutant sloppy_length(std::string_view name, std::string_view family, std::string_view description,
                     std::optional<std::uint64_t> (*expected)(const DtypeInfo&, std::uint64_t)) {
  Mutant mutant = missing(name, family, description, Rule::kTypeByteLength);
  mutant.extra_type_check = [expected](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      const DtypeInfo* info = find_dtype(tensor.dtype);
      const auto count = count_of(tensor);
      if (!info || !count) continue;  // the reference's shape rule is still enforced
      const auto want = expected(*info, *count);
      if (!want || tensor.payload.size() != *want)
        return reject(Rule::kTypeByteLength, "byte_length does not fit the shape");
    }
    return std::nullopt;
  };
  return mutant;
}

std::optional<std::uint64_t> exact_whole(const DtypeInfo& info, std::uint64_t count) {
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{info.width}, &bytes)) return std::nullopt;
  return bytes;
}

// A TYPE check of the implementer's own, cited as `rule` (none: a rule the format lacks).
Mutant check_types(std::string_view name, std::string_view family, std::string_view description,
                   std::optional<Rule> rule, bool (*bad)(const TensorView&)) {
  Mutant mutant = make(name, family, description);
  mutant.extra_type_check = [rule, description, bad](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors) {
      if (!bad(tensor)) continue;
      if (rule) return reject(*rule, std::string(description));
      return Reject{ErrorClass::kType, std::string(description), std::nullopt, std::nullopt};
    }
    return std::nullopt;
  };
  return mutant;
}

// ---- IEEE bit patterns, for the value bugs ----

// A value bug: every element of every IEEE tensor goes through `change`.
Mutant on_floats(std::string_view name, std::string_view description,
                 std::uint64_t (*change)(const FloatLayout&, std::uint64_t)) {
  Mutant mutant = make(name, kFamilyFloatValues, description);
  mutant.alter_accepted = [change](BlockDescription& block, ByteSpan) {
    for (auto& tensor : block.tensors) {
      const DtypeInfo* dtype = find_dtype(tensor.dtype);
      const auto layout = dtype ? float_layout(*dtype) : std::nullopt;
      if (!layout) continue;
      for (std::size_t at = 0; at + dtype->width <= tensor.payload.size(); at += dtype->width) {
        std::uint8_t* element = tensor.payload.data() + at;
        store_le(element, dtype->width, change(*layout, load_le(element, dtype->width)));
      }
    }
  };
  return mutant;
}

}  // namespace

std::vector<Mutant> packed_mutants() {
  std::vector<Mutant> family;
  family.push_back(
      sloppy_length("packed-length-rounded-down", kFamilyPacked,
                    "i4/u4/e2m1 byte_length is floor(n / 2), not ceil(n / 2)",
                    [](const DtypeInfo& info, std::uint64_t count) -> std::optional<std::uint64_t> {
                      return info.packing == Packing::kNibble ? count / 2 : exact_whole(info, count);
                    }));
  family.push_back(missing("high-nibble-unchecked", kFamilyPacked,
                           "the unused high nibble of an odd count is ignored",
                           Rule::kTypeHighNibble));
  family.push_back(check_types("high-nibble-checked-on-even-counts", kFamilyPacked,
                               "the last high nibble must be 0 for even counts too",
                               Rule::kTypeHighNibble, [](const TensorView& tensor) {
                                 const auto count = count_of(tensor);
                                 return packed(tensor) && count && *count % 2 == 0 &&
                                        !tensor.payload.empty() &&
                                        (tensor.payload.back() >> 4) != 0;
                               }));
  {
    Mutant m = check_types("nibble-order-swapped", kFamilyPacked,
                           "the earlier element is taken as the high nibble, so the low one must be 0",
                           Rule::kTypeHighNibble, [](const TensorView& tensor) {
                             const auto count = count_of(tensor);
                             return packed(tensor) && count && *count % 2 == 1 &&
                                    !tensor.payload.empty() && (tensor.payload.back() & 0x0F) != 0;
                           });
    m.waived.add(Rule::kTypeHighNibble);
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> bool_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("bool-byte-unchecked", kFamilyBool,
                           "bool bytes other than 0 and 1 are accepted", Rule::kTypeBoolByte));
  {
    Mutant m = check_types("bool-tail-unchecked", kFamilyBool,
                           "the word-at-a-time bool check skips the last size % 8 bytes",
                           Rule::kTypeBoolByte, [](const TensorView& tensor) {
                             if (tensor.dtype != code_of("bool")) return false;
                             const std::size_t whole = tensor.payload.size() / 8 * 8;
                             return std::any_of(tensor.payload.begin(),
                                                tensor.payload.begin() + static_cast<std::ptrdiff_t>(whole),
                                                [](std::uint8_t b) { return b > 1; });
                           });
    m.waived.add(Rule::kTypeBoolByte);
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> e8m0_mutants() {
  std::vector<Mutant> family;
  family.push_back(check_types("e8m0-ff-rejected", kFamilyE8m0,
                               "e8m0 0xFF (NaN) is rejected as in the Hurray profile", std::nullopt,
                               [](const TensorView& tensor) {
                                 return tensor.dtype == code_of("e8m0") &&
                                        std::find(tensor.payload.begin(), tensor.payload.end(),
                                                  0xFF) != tensor.payload.end();
                               }));
  return family;
}

std::vector<Mutant> float_values_mutants() {
  std::vector<Mutant> family;
  family.push_back(on_floats("nan-quieted", "signalling NaNs come back quiet (the quiet bit set)",
                             [](const FloatLayout& f, std::uint64_t bits) {
                               const bool nan = (bits & f.exponent_mask) == f.exponent_mask &&
                                                (bits & f.fraction_mask) != 0;
                               return nan ? bits | f.quiet_bit : bits;
                             }));
  family.push_back(on_floats("negative-zero-flipped", "-0.0 comes back as +0.0",
                             [](const FloatLayout& f, std::uint64_t bits) {
                               return bits == f.sign_mask ? std::uint64_t{0} : bits;
                             }));
  family.push_back(on_floats("denormals-flushed",
                             "subnormal values come back as zero of the same sign",
                             [](const FloatLayout& f, std::uint64_t bits) {
                               const bool subnormal =
                                   (bits & f.exponent_mask) == 0 && (bits & f.fraction_mask) != 0;
                               return subnormal ? bits & f.sign_mask : bits;
                             }));
  return family;
}

std::vector<Mutant> closed_dtype_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("closed-layout-accepted", kFamilyClosedDtype,
                           "a closed dtype may carry a layout name", Rule::kTypeClosedLayout));
  family.push_back(missing("closed-block-size-accepted", kFamilyClosedDtype,
                           "a closed dtype may have block_size > 0", Rule::kTypeClosedBlockSize));
  return family;
}

std::vector<Mutant> shape_mutants() {
  std::vector<Mutant> family;
  family.push_back(
      sloppy_length("byte-count-wraps", kFamilyShape,
                    "n * width is computed without an overflow check and wraps",
                    [](const DtypeInfo& info, std::uint64_t count) -> std::optional<std::uint64_t> {
                      return info.packing == Packing::kNibble ? count / 2 + count % 2
                                                              : count * info.width;
                    }));
  family.push_back(missing("shape-overflow-wraps", kFamilyShape,
                           "the shape product wraps modulo 2^64", Rule::kTypeShapeOverflow));
  family.push_back(check_types(
      "shape-overflow-before-zero", kFamilyShape,
      "the product is checked for overflow left to right, before a later 0 dimension",
      Rule::kTypeShapeOverflow, [](const TensorView& tensor) {
        if (classify_code(tensor.dtype) != CodeClass::kClosed) return false;
        std::uint64_t product = 1;
        for (std::uint64_t dimension : tensor.shape())
          if (__builtin_mul_overflow(product, dimension, &product)) return true;
        return false;
      }));
  return family;
}

std::vector<Mutant> opaque_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("opaque-layout-optional", kFamilyOpaque,
                           "an opaque dtype may have no layout name", Rule::kTypeOpaqueLayout));
  family.push_back(missing("opaque-layout-utf8-unchecked", kFamilyOpaque,
                           "opaque layout names are not validated", Rule::kTypeOpaqueLayoutUtf8));
  family.push_back(missing("opaque-block-size-zero-allowed", kFamilyOpaque,
                           "an opaque dtype may have block_size 0", Rule::kTypeOpaqueBlockSize));
  family.push_back(missing("opaque-multiple-unchecked", kFamilyOpaque,
                           "byte_length need not be a multiple of block_size",
                           Rule::kTypeOpaqueMultiple));
  family.push_back(check_types(
      "opaque-shape-overflow-checked", kFamilyOpaque,
      "the shape product of an opaque tensor is computed and its overflow rejected",
      Rule::kTypeShapeOverflow, [](const TensorView& tensor) {
        return classify_code(tensor.dtype) == CodeClass::kOpaque && !count_of(tensor);
      }));
  return family;
}

}  // namespace kiln::mutants::parts
