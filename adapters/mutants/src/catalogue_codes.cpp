// How the dtype (and rank) fields are read: code ranges off by one, fields read big-endian.
#include <algorithm>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/dtype.hpp"
#include "kiln/endian.hpp"
#include "kiln/layout.hpp"

namespace kiln::mutants::parts {
namespace {

// Each complete directory entry of a copy of the input, for bugs in how fields are read.
Bytes with_entries(ByteSpan input, const std::function<void(std::uint8_t*)>& change) {
  Bytes copy(input.begin(), input.end());
  const auto count = read_field(copy, 0, header::kTensorCount);
  if (!count) return copy;
  for (std::uint64_t i = 0; i < *count && entry_start(i) + kEntrySize <= copy.size(); ++i)
    change(copy.data() + entry_start(i));
  return copy;
}

void swap_field_bytes(std::uint8_t* entry, const Field& field) {
  std::reverse(entry + field.offset, entry + field.offset + field.width);
}

// The implementer's range test puts code `from` where `to` belongs: read it as
// `to`, and report the stored code back on accept.
void read_code_as(Mutant& mutant, std::uint16_t from, std::uint16_t to) {
  mutant.reshape_input = [from, to](ByteSpan input) {
    return with_entries(input, [&](std::uint8_t* entry) {
      if (load_u16(entry + entry::kDtype.offset) == from)
        store_le(entry + entry::kDtype.offset, entry::kDtype.width, to);
    });
  };
  mutant.alter_accepted = [](BlockDescription& block, ByteSpan original) {
    for (std::size_t i = 0; i < block.tensors.size(); ++i)
      block.tensors[i].dtype = load_u16(original.data() + entry_start(i) + entry::kDtype.offset);
  };
}

// The field read big-endian in every entry.
Mutant read_big_endian(std::string_view name, std::string_view description, const Field& field) {
  Mutant mutant = make(name, kFamilyBigEndian, description);
  mutant.reshape_input = [field](ByteSpan input) {
    return with_entries(input, [&](std::uint8_t* entry) { swap_field_bytes(entry, field); });
  };
  return mutant;
}

}  // namespace

// The boundaries: 0, 19/20, 4095/4096, 32767/32768.
std::vector<Mutant> dtype_range_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("code-zero-accepted", kFamilyDtypeRange, "dtype code 0 is accepted",
                           Rule::kTypeCodeZero));
  family.push_back(missing("reserved-codes-accepted", kFamilyDtypeRange,
                           "codes 20..4095 are accepted unchecked", Rule::kTypeCodeReserved));
  family.push_back(missing("codes-above-opaque-accepted", kFamilyDtypeRange,
                           "codes above 32767 are accepted unchecked", Rule::kTypeCodeAboveOpaque));
  {
    Mutant m = make("code-19-reserved", kFamilyDtypeRange,
                    "closed codes end at 18 (code < 19): e8m0 is rejected as reserved");
    read_code_as(m, 19, kFirstReservedCode);
    family.push_back(std::move(m));
  }
  {
    Mutant m = missing("code-20-closed", kFamilyDtypeRange,
                       "closed codes end at 20 (code <= 20): code 20 is accepted unchecked",
                       Rule::kTypeCodeReserved);
    m.extra_type_check = [](const BlockView& view, ByteSpan) -> Check {
      for (const auto& tensor : view.tensors)
        if (classify_code(tensor.dtype) == CodeClass::kReserved &&
            tensor.dtype != kFirstReservedCode)
          return reject(Rule::kTypeCodeReserved, "dtype code is reserved");
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("code-4095-opaque", kFamilyDtypeRange,
                    "opaque codes start at 4095 (code >= 4095): 4095 is read as opaque");
    read_code_as(m, kFirstOpaqueCode - 1, kFirstOpaqueCode);
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("code-4096-reserved", kFamilyDtypeRange,
                    "opaque codes start at 4097 (code > 4096): 4096 is rejected as reserved");
    read_code_as(m, kFirstOpaqueCode, kFirstOpaqueCode - 1);
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("code-32767-above-opaque", kFamilyDtypeRange,
                    "opaque codes end at 32766 (code < 32767): 32767 is rejected");
    read_code_as(m, kLastOpaqueCode, kLastOpaqueCode + 1);
    family.push_back(std::move(m));
  }
  {
    Mutant m = make("code-32768-opaque", kFamilyDtypeRange,
                    "opaque codes end at 32768 (code <= 32768): 32768 is read as opaque");
    read_code_as(m, kLastOpaqueCode + 1, kLastOpaqueCode);
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> big_endian_mutants() {
  std::vector<Mutant> family;
  family.push_back(read_big_endian("dtype-read-big-endian", "the dtype field is read big-endian",
                                   entry::kDtype));
  family.push_back(read_big_endian("rank-read-big-endian", "the rank field is read big-endian",
                                   entry::kRank));
  return family;
}

}  // namespace kiln::mutants::parts
