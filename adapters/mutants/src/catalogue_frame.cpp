// The header's and the entries' fixed fields: magic, version, flags, reserved bytes.
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/layout.hpp"

namespace kiln::mutants::parts {

std::vector<Mutant> header_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("magic-unchecked", kFamilyHeader, "the magic bytes are never compared",
                           Rule::kFrameMagic));
  return family;
}

std::vector<Mutant> version_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("version-unchecked", kFamilyVersion,
                           "any version byte is read as version 2", Rule::kFrameVersion));
  {
    Mutant m = missing("version-2-or-later", kFamilyVersion,
                       "\"forward compatible\": versions above 2 are read as 2",
                       Rule::kFrameVersion);
    m.extra_frame_check = [](const BlockView&, ByteSpan input) -> Check {
      if (input[header::kVersionField.offset] < kVersion)
        return reject(Rule::kFrameVersion, "version below 2");
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> flags_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("le-flag-optional", kFamilyFlags,
                           "flag bit 1 (little-endian) may be clear", Rule::kFrameLeFlag));
  family.push_back(missing("flags-other-bits-ignored", kFamilyFlags,
                           "flag bits other than bit 1 are ignored", Rule::kFrameFlagsReserved));
  {
    Mutant m = missing("flags-high-nibble-ignored", kFamilyFlags,
                       "only the low nibble of flags is checked (flags & 0x0D)",
                       Rule::kFrameFlagsReserved);
    m.extra_frame_check = [](const BlockView&, ByteSpan input) -> Check {
      if (input[header::kFlags.offset] & 0x0D)
        return reject(Rule::kFrameFlagsReserved, "flags set a low bit other than bit 1");
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  return family;
}

std::vector<Mutant> reserved_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("header-reserved-unchecked", kFamilyReserved,
                           "header bytes 6..7 are never checked", Rule::kFrameHeaderReserved));
  family.push_back(missing("entry-reserved-unchecked", kFamilyReserved,
                           "the reserved entry bytes (28..31, 48..63) are never checked",
                           Rule::kFrameEntryReserved));
  {
    Mutant m = missing("entry-reserved56-unchecked", kFamilyReserved,
                       "the 16 reserved bytes at 48 are checked as one u64: bytes 56..63 never",
                       Rule::kFrameEntryReserved);
    m.extra_frame_check = [](const BlockView& view, ByteSpan input) -> Check {
      for (std::size_t i = 0; i < view.tensors.size(); ++i)
        for (const Field* field : {&entry::kReserved28, &entry::kReserved48})
          if (read_field(input, entry_start(i), *field) != 0)
            return reject(Rule::kFrameEntryReserved, "reserved entry bytes are not 0");
      return std::nullopt;
    };
    family.push_back(std::move(m));
  }
  return family;
}

}  // namespace kiln::mutants::parts
