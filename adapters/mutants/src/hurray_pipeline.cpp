// The hurray-elements pipeline of kiln/mutants.hpp: kiln::hurray's check order,
// each step a hook whose default is the reference's own step (the reference's
// type table, element_count, data_size and Decoded::element are called as they
// are; the packing and padding steps mirror hurray.cpp and are held to it by
// tests/hurray_pipeline_test.cpp).
#include "hurray_pipeline.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace kiln::mutants::hurray_path {
namespace {

using hurray::Element;
using hurray::Rule;
using hurray::TypeInfo;

std::string num(std::uint64_t value) { return std::to_string(value); }

hurray::Error plain(Rule rule, std::string message) {
  return hurray::Error{rule, std::nullopt, std::nullopt, std::move(message)};
}

Element masked(Element element, unsigned bits) {
  element.wider_than_128 = false;
  if (bits < 64) element.low &= (std::uint64_t{1} << bits) - 1;
  if (bits <= 64) element.high = 0;
  return element;
}

// Elements per byte (1, 2, 4 bits) or per 3-byte group (6 bits), and the unit's bytes.
unsigned per_unit(unsigned bits) { return bits == 6 ? 4 : 8 / bits; }
unsigned unit_bytes(unsigned bits) { return bits == 6 ? 3 : 1; }

// The bytes element i occupies: [first, first + length).
std::pair<std::uint64_t, unsigned> element_bytes(const TypeInfo& type, std::uint64_t index) {
  if (type.bits >= 8) return {index * (type.bits / 8u), type.bits / 8u};
  return {index / per_unit(type.bits) * unit_bytes(type.bits), unit_bytes(type.bits)};
}

// A reject of the mutant's own pattern check: e8m0's rule for e8m0, no rule else.
protocol::ElementsReject refused_reject(const TypeInfo& type, std::uint64_t at, std::string why) {
  protocol::ElementsReject reject;
  reject.error_class = hurray::ErrorClass::kData;
  reject.message = std::string(type.name) + " " + std::move(why) + " is a refused pattern";
  if (type.tag == hurray::kE8m0Tag)
    reject.rule = std::string(hurray::rule_info(Rule::kE8m0Reserved).id);
  reject.offset = at;
  return reject;
}

}  // namespace

TagLookup reference_look_up(std::uint8_t tag, hurray::Mode mode) {
  if (tag == 0x00 || tag == 0xFF) return {TagLookup::Verdict::kNeverValid, nullptr};
  // The reference supports every Tier 2 type, as the mutants' hello says.
  if (const TypeInfo* type = hurray::type_by_tag(tag)) return {TagLookup::Verdict::kType, type};
  return {mode == hurray::Mode::kPermissive ? TagLookup::Verdict::kOpaque
                                            : TagLookup::Verdict::kUnrecognized,
          nullptr};
}

Element reference_read(const TypeInfo& type, ByteSpan data, std::uint64_t index) {
  const auto [first, length] = element_bytes(type, index);
  hurray::Decoded view;
  view.type = &type;
  if (first + length <= data.size()) {
    view.count = index + 1;
    view.data = data;
    return view.element(index);
  }
  // Past the end (only a mutant's own N or S gets here): the missing bytes are 0.
  std::array<std::uint8_t, 16> unit{};
  if (first < data.size())
    std::copy(data.begin() + static_cast<std::ptrdiff_t>(first), data.end(), unit.begin());
  const std::uint64_t local = type.bits >= 8 ? 0 : index % per_unit(type.bits);
  view.count = local + 1;
  view.data = std::span<const std::uint8_t>(unit.data(), length);
  return view.element(local);
}

void reference_write(const TypeInfo& type, std::span<std::uint8_t> out, std::uint64_t index,
                     const Element& given) {
  const Element element = masked(given, type.bits);
  const auto put = [&out](std::uint64_t at, std::uint64_t byte) {
    if (at < out.size()) out[at] |= static_cast<std::uint8_t>(byte);
  };
  switch (type.bits) {
    case 1:
    case 2:
    case 4:
      put(index * type.bits / 8, element.low << (index * type.bits % 8));
      return;
    case 6: {
      const std::uint64_t group = 3 * (index / 4);
      const std::uint64_t shifted = element.low << (6 * (index % 4));
      for (unsigned k = 0; k < 3; ++k) put(group + k, shifted >> (8 * k));
      return;
    }
    default: {
      const unsigned width = type.bits / 8u;
      for (unsigned k = 0; k < width; ++k)
        put(index * width + k, k < 8 ? element.low >> (8 * k) : element.high >> (8 * (k - 8)));
    }
  }
}

bool reference_refused(const TypeInfo& type, const Element& element) {
  return type.tag == hurray::kE8m0Tag && element.high == 0 &&
         (element.low == 0x00 || element.low == 0xFF);
}

UnusedBits unused_bits(const TypeInfo& type, std::uint64_t count, std::uint64_t size,
                       const WriteFn& write) {
  const unsigned bits = type.bits;
  if (bits >= 8) return {};
  const unsigned used = static_cast<unsigned>(count % per_unit(bits));
  const unsigned bytes = unit_bytes(bits);
  if (used == 0 || size < bytes) return {};
  // The last unit's elements, all ones, written as the layout writes them: every
  // layout here repeats unit by unit, so unit-relative indices suffice.
  std::array<std::uint8_t, 3> filled{};
  const Element ones{~std::uint64_t{0}, 0, false};
  for (unsigned j = 0; j < used; ++j) write(type, std::span(filled.data(), bytes), j, ones);
  UnusedBits unused;
  unused.start = size - bytes;
  for (unsigned k = 0; k < bytes; ++k) unused.masks.push_back(static_cast<std::uint8_t>(~filled[k]));
  return unused;
}

hurray::Rule padding_rule(unsigned bits) {
  switch (bits) {
    case 1: return Rule::kPadBool;
    case 2: return Rule::kPad2Bit;
    case 4: return Rule::kPad4Bit;
    default: return Rule::kPad6Bit;
  }
}

std::optional<hurray::Error> reference_padding(const TypeInfo& type, std::uint64_t count,
                                               ByteSpan elements, const WriteFn& write) {
  const UnusedBits unused = unused_bits(type, count, elements.size(), write);
  for (std::size_t k = 0; k < unused.masks.size(); ++k) {
    const std::uint64_t at = unused.start + k;
    if ((elements[at] & unused.masks[k]) != 0)
      return hurray::Error{padding_rule(type.bits), at, std::nullopt,
                           std::string(type.name) + " with " + num(count) +
                               " elements: padding bits are set in byte " + num(at)};
  }
  return std::nullopt;
}

protocol::Outcome decode(const HurrayHooks& hooks, const protocol::ElementsDecodeRequest& request) {
  const auto finish = [&](protocol::ElementsReject reject) -> protocol::Outcome {
    if (hooks.on_reject) return hooks.on_reject(std::move(reject), request.mode);
    return reject;
  };
  const auto fail = [&](hurray::Error error) { return finish(protocol::reject_from(error)); };

  // 1, 2: the tag.
  const TagLookup tag =
      hooks.look_up ? hooks.look_up(request.tag, request.mode) : reference_look_up(request.tag, request.mode);
  switch (tag.verdict) {
    case TagLookup::Verdict::kNeverValid:
      return fail(plain(Rule::kTagZeroFF, "type tag " + num(request.tag) + " is rejected in every mode"));
    case TagLookup::Verdict::kUnrecognized:
      return fail(plain(Rule::kTagUnrecognized, "type tag " + num(request.tag) + " is not recognized"));
    case TagLookup::Verdict::kOpaque: return protocol::OpaqueAccept{};
    case TagLookup::Verdict::kType: break;
  }
  const TypeInfo& type = *tag.type;

  // 3, 4: N, S and the bytes present.
  const auto count = hooks.count ? hooks.count(request.shape) : hurray::element_count(request.shape);
  if (!count) return fail(plain(Rule::kCountOverflow, "the shape's product exceeds 2^64 - 1"));
  const auto size = hooks.size ? hooks.size(type, *count) : hurray::data_size(type, *count);
  if (!size) return fail(plain(Rule::kSizeOverflow, "the data size exceeds 2^64 - 1"));
  const ByteSpan data = request.data;
  if (data.size() < *size)
    return fail(hurray::Error{Rule::kDataShort, data.size(), std::nullopt,
                              num(*count) + " elements need " + num(*size) + " bytes; the data holds " +
                                  num(data.size())});
  const ByteSpan elements = data.first(static_cast<std::size_t>(*size));

  // 5: padding bits.
  const auto padding = hooks.padding ? hooks.padding(type, *count, elements)
                                     : reference_padding(type, *count, elements,
                                                         hooks.write ? hooks.write : WriteFn(reference_write));
  if (padding) return fail(*padding);

  // 6, 7: the patterns, then the elements. With the reference's N and S the data
  // backs every element; a mutant's own N or S lists no more than the data holds.
  const std::uint64_t listed = std::min<std::uint64_t>(*count, data.size() * 8 / type.bits);
  protocol::ElementsAccept accept;
  accept.bits = type.bits;
  accept.elements.reserve(static_cast<std::size_t>(listed));
  for (std::uint64_t i = 0; i < listed; ++i) {
    const Element element = hooks.read ? hooks.read(type, data, i) : reference_read(type, data, i);
    const bool refused = hooks.refused ? hooks.refused(type, element, false) : reference_refused(type, element);
    if (refused)
      return finish(refused_reject(type, element_bytes(type, i).first,
                                   "element " + num(i) + " " + hurray::element_to_hex(element, type.bits)));
    accept.elements.push_back(hooks.on_decode ? hooks.on_decode(type, element) : element);
    // An element wider than B bits (a value bug) goes on the wire as the
    // implementation holds it, not cut to ceil(B / 4) digits.
    accept.bits = std::max(accept.bits, hurray::significant_bits(accept.elements.back()));
  }
  return accept;
}

protocol::Outcome encode(const HurrayHooks& hooks, const protocol::ElementsEncodeRequest& request) {
  auto parsed = protocol::parse_elements(request.elements);
  if (!parsed) return protocol::ProtocolError{"an element is not hex"};
  const auto finish = [&](protocol::ElementsReject reject) -> protocol::Outcome {
    if (hooks.on_reject) return hooks.on_reject(std::move(reject), hurray::Mode::kStrict);
    return reject;
  };
  const auto fail = [&](hurray::Error error) { return finish(protocol::reject_from(error)); };

  const TagLookup tag = hooks.look_up ? hooks.look_up(request.tag, hurray::Mode::kStrict)
                                      : reference_look_up(request.tag, hurray::Mode::kStrict);
  if (tag.verdict == TagLookup::Verdict::kNeverValid)
    return fail(plain(Rule::kTagZeroFF, "type tag " + num(request.tag) + " is rejected in every mode"));
  if (tag.verdict != TagLookup::Verdict::kType)
    return fail(plain(Rule::kTagUnrecognized, "type tag " + num(request.tag) + " is not recognized"));
  const TypeInfo& type = *tag.type;

  const auto count = hooks.count ? hooks.count(request.shape) : hurray::element_count(request.shape);
  if (!count) return fail(plain(Rule::kCountOverflow, "the shape's product exceeds 2^64 - 1"));
  const auto size = hooks.size ? hooks.size(type, *count) : hurray::data_size(type, *count);
  if (!size) return fail(plain(Rule::kSizeOverflow, "the data size exceeds 2^64 - 1"));
  std::vector<Element>& given = *parsed;
  if (hooks.encoder_checks_count && given.size() != *count)
    return fail(plain(Rule::kEncodeCount, "the shape holds " + num(*count) + " elements; " +
                                              num(given.size()) + " were given"));

  for (std::size_t i = 0; i < given.size(); ++i) {
    if (!hooks.encoder_checks_range) given[i] = masked(given[i], type.bits);
    else if (!hurray::fits(given[i], type.bits))
      return fail(hurray::Error{Rule::kEncodeRange, std::nullopt, i,
                                "the value needs " + num(hurray::significant_bits(given[i])) + " bits"});
    const bool refused = hooks.refused ? hooks.refused(type, given[i], true) : reference_refused(type, given[i]);
    if (refused)
      return finish(refused_reject(type, i, "element " + num(i) + " " +
                                                hurray::element_to_hex(given[i], type.bits)));
  }

  // With the count checked S is bounded by the elements (16 bytes each at most);
  // a mutant that skips that check must not allocate for a shape alone.
  if (*size > 16 * (given.size() + 1))
    return finish(protocol::ElementsReject{hurray::ErrorClass::kData,
                                           "the data size " + num(*size) + " is too large to allocate",
                                           std::nullopt, std::nullopt});
  Bytes out(static_cast<std::size_t>(*size), 0);
  const std::uint64_t written = std::min<std::uint64_t>(*count, given.size());
  for (std::uint64_t i = 0; i < written; ++i) {
    const Element element = hooks.on_encode ? hooks.on_encode(type, given[i]) : given[i];
    if (hooks.write) hooks.write(type, out, i, element);
    else reference_write(type, out, i, element);
  }
  if (hooks.rewrite_encoded) hooks.rewrite_encoded(type, *count, out);
  return protocol::ElementData{std::move(out)};
}

}  // namespace kiln::mutants::hurray_path
