// Tensor names: empty, UTF-8, uniqueness, and names cut at U+0000.
#include <cctype>
#include <set>
#include <utility>

#include "catalogue_parts.hpp"
#include "kiln/utf8.hpp"

namespace kiln::mutants::parts {
namespace {

// ---- Sloppy UTF-8: the reference check, forgiving one kind of bad sequence ----

bool continuation(std::string_view text, std::size_t at) {
  return at < text.size() && (static_cast<std::uint8_t>(text[at]) & 0xC0) == 0x80;
}

bool continuations(std::string_view text, std::size_t from, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (!continuation(text, from + i)) return false;
  return true;
}

std::uint8_t byte_at(std::string_view text, std::size_t at) {
  return at < text.size() ? static_cast<std::uint8_t>(text[at]) : 0;
}

// Each returns the length of the forgiven sequence at `at`, or 0.
std::size_t overlong_form(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  if ((lead == 0xC0 || lead == 0xC1) && continuations(text, at + 1, 1)) return 2;
  if (lead == 0xE0 && next >= 0x80 && next <= 0x9F && continuations(text, at + 1, 2)) return 3;
  if (lead == 0xF0 && next >= 0x80 && next <= 0x8F && continuations(text, at + 1, 3)) return 4;
  return 0;
}

std::size_t surrogate(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  return lead == 0xED && next >= 0xA0 && next <= 0xBF && continuations(text, at + 1, 2) ? 3 : 0;
}

std::size_t above_max(std::string_view text, std::size_t at) {
  const std::uint8_t lead = byte_at(text, at), next = byte_at(text, at + 1);
  if (lead == 0xF4 && next >= 0x90 && continuations(text, at + 1, 3)) return 4;
  if (lead >= 0xF5 && lead <= 0xF7 && continuations(text, at + 1, 3)) return 4;
  return 0;
}

using Forgiven = std::size_t (*)(std::string_view, std::size_t);

bool valid_but_for(std::string_view text, Forgiven forgiven) {
  std::size_t from = 0;
  while (auto bad = find_invalid_utf8(text.substr(from))) {
    const std::size_t length = forgiven(text, from + *bad);
    if (length == 0) return false;
    from += *bad + length;
  }
  return true;
}

Mutant sloppy_name_utf8(std::string_view name, std::string_view description, Forgiven forgiven) {
  Mutant mutant = missing(name, kFamilyNames, description, Rule::kFrameNameUtf8);
  mutant.extra_frame_check = [forgiven](const BlockView& view, ByteSpan) -> Check {
    for (const auto& tensor : view.tensors)
      if (!valid_but_for(tensor.name, forgiven))
        return reject(Rule::kFrameNameUtf8, "name is not valid UTF-8");
    return std::nullopt;
  };
  return mutant;
}

// ---- Uniqueness over a key the implementer derived from the name ----

Mutant sloppy_unique(std::string_view name, std::string_view description,
                     std::string (*key)(std::string_view)) {
  Mutant mutant = missing(name, kFamilyNames, description, Rule::kFrameNameUnique);
  mutant.extra_frame_check = [key](const BlockView& view, ByteSpan) -> Check {
    std::set<std::string> seen;
    for (const auto& tensor : view.tensors)
      if (!seen.insert(key(tensor.name)).second)
        return reject(Rule::kFrameNameUnique, "name repeats an earlier tensor's name");
    return std::nullopt;
  };
  return mutant;
}

std::string_view up_to_nul(std::string_view text) { return text.substr(0, text.find('\0')); }

}  // namespace

std::vector<Mutant> names_mutants() {
  std::vector<Mutant> family;
  family.push_back(missing("name-empty-allowed", kFamilyNames, "name_length 0 is accepted",
                           Rule::kFrameNameEmpty));
  family.push_back(missing("name-utf8-unchecked", kFamilyNames,
                           "names are taken as bytes, never validated", Rule::kFrameNameUtf8));
  family.push_back(
      sloppy_name_utf8("name-utf8-overlong-accepted",
                       "the UTF-8 check decodes overlong forms (C0 80, E0 80 80, F0 80 80 80)",
                       overlong_form));
  family.push_back(sloppy_name_utf8("name-utf8-surrogates-accepted",
                                    "the UTF-8 check lets encoded surrogates ED A0..BF through",
                                    surrogate));
  family.push_back(
      sloppy_name_utf8("name-utf8-above-max-accepted",
                       "the UTF-8 check lets code points above U+10FFFF through (F4 90.., F5..F7)",
                       above_max));
  family.push_back(missing("name-unique-unchecked", kFamilyNames, "duplicate names are accepted",
                           Rule::kFrameNameUnique));
  family.push_back(
      sloppy_unique("name-unique-as-c-strings", "names are compared as C strings (up to U+0000)",
                    [](std::string_view name) { return std::string(up_to_nul(name)); }));
  family.push_back(
      sloppy_unique("name-unique-ignoring-case", "names are compared ASCII case-insensitively",
                    [](std::string_view name) {
                      std::string key(name);
                      for (char& c : key)
                        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                      return key;
                    }));
  {
    Mutant m = make("name-truncated-at-nul", kFamilyNames,
                    "names are handed out as C strings: cut at the first U+0000");
    m.alter_accepted = [](BlockDescription& block, ByteSpan) {
      for (auto& tensor : block.tensors) tensor.name = std::string(up_to_nul(tensor.name));
    };
    family.push_back(std::move(m));
  }
  return family;
}

}  // namespace kiln::mutants::parts
