// Profile hurray-elements's sweep generators (cases/README.md, "Sweeps";
// reference/HURRAY.md).
//
// A hurray draft states the whole case: type, shape, mode, data, elements and
// the expectation, each computed here from HURRAY.md (packing and sizes of
// section 4, the check order of 5.1), never by asking the reference's codec.
// finish_member then holds it to what `cases check` holds any hurray case to.
#include "profiles/hurray_elements/families.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/hex.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {
namespace {

using namespace families;

struct HurrayDraft {
  std::string suffix;   // the id is hurray-sweep-<family>-<suffix>
  std::string summary;  // ASCII, one line
  std::string type;     // a name of kiln::hurray::kTypes, or a raw tag ("0x05") that names none
  std::vector<std::uint64_t> shape;
  bool permissive = false;
  std::optional<std::vector<std::uint8_t>> data;
  std::optional<std::vector<std::string>> elements;
  ElementsCase::Result result = ElementsCase::Result::kAccept;
  std::optional<hurray::Rule> rule;       // kReject
  std::vector<hurray::Rule> also_breaks;  // kReject, check order
  std::vector<hurray::Rule> exercises;    // rules whose boundary the case sits on
};

hurray::Rule hurray_rule_of(const YAML::Node& node, const char* what) {
  const std::string id = string_of(node, what);
  const auto rule = hurray::rule_from_id(id);
  if (!rule) fail(node, std::string(what) + " '" + id + "' is not a rule ID of reference/HURRAY.md");
  return *rule;
}

const hurray::TypeInfo& hurray_type_of(const YAML::Node& node) {
  const std::string name = string_of(node, "a type");
  const hurray::TypeInfo* type = hurray::type_by_name(name);
  if (!type) fail(node, "'" + name + "' is not a type name of reference/HURRAY.md 3.2");
  return *type;
}

bool bool_of(const YAML::Node& node, bool absent, const char* what) {
  if (!node) return absent;
  if (!node.IsScalar() || (node.Scalar() != "true" && node.Scalar() != "false"))
    fail(node, std::string(what) + " is true or false");
  return node.Scalar() == "true";
}

std::string u128_text(u128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

constexpr u128 kMaxU64 = ~std::uint64_t{0};

// S for n elements of b bits (HURRAY.md 4), exactly: whole 3-byte groups for
// 6-bit types, whole bytes otherwise. n < 2^64, so nothing here can overflow.
u128 hurray_size(unsigned bits, u128 n) {
  if (bits == 6) return (n + 3) / 4 * 3;
  if (bits < 8) return (n * bits + 7) / 8;
  return n * (bits / 8);
}

// Elements (values of `bits` bits, bits < 8) packed as HURRAY.md 4 lays them out:
// LSB first in a byte, or at bits 6j..6j+5 of a little-endian 3-byte group.
std::vector<std::uint8_t> hurray_pack(unsigned bits, const std::vector<std::uint64_t>& values) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(hurray_size(bits, values.size())), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::size_t bit = bits == 6 ? (i / 4) * 24 + (i % 4) * 6 : i * bits;
    for (unsigned k = 0; k < bits; ++k)
      if ((values[i] >> k) & 1u) bytes[(bit + k) / 8] |= static_cast<std::uint8_t>(1u << ((bit + k) % 8));
  }
  return bytes;
}

std::string hex_digits(std::uint64_t value, unsigned bits) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text((bits + 3) / 4, '0');
  for (std::size_t k = 0; k < text.size() && k < 16; ++k)
    text[text.size() - 1 - k] = kDigits[(value >> (4 * k)) & 15];
  return text;
}

std::string tag_hex(std::uint64_t tag) { return "0x" + byte_hex(tag); }

std::vector<HurrayDraft> hurray_tags(Params& params) {
  const YAML::Node from_node = params.required("from");
  const std::uint64_t from = uint_of(from_node, 255, "from");
  const std::uint64_t to = uint_of(params.required("to"), 255, "to");
  // HURRAY.md 3.1: the tags rejected in every mode. Which tags name a type is the
  // type table's (kTypes), the one place a tag is assigned.
  const auto never_valid = uints_of(params.required("never_valid"), 255, "never_valid");
  const YAML::Node modes_node = params.required("modes");
  const auto modes = strings_of(modes_node, "modes");
  const bool encode = bool_of(params.optional("encode"), false, "encode");
  params.finish();
  if (to < from) fail(from_node, "from is at most to");
  for (const auto& mode : modes)
    if (mode != "strict" && mode != "permissive") fail(modes_node, "modes are strict and permissive");
  using R = ElementsCase::Result;
  std::vector<HurrayDraft> drafts;
  for (std::uint64_t tag = from; tag <= to; ++tag) {
    const hurray::TypeInfo* type = hurray::type_by_tag(static_cast<std::uint8_t>(tag));
    const bool never = std::find(never_valid.begin(), never_valid.end(), tag) != never_valid.end();
    const std::string hh = byte_hex(tag);
    const std::string type_text = type ? std::string(type->name) : tag_hex(tag);
    const std::string stem = type ? hh + "-" + kebab(type->name) : hh;
    for (const auto& mode : modes) {
      HurrayDraft d;
      d.suffix = stem + "-" + mode;
      d.type = type_text;
      d.shape = {1};
      d.permissive = mode == "permissive";
      if (never) {
        d.data = std::vector<std::uint8_t>{0};
        d.result = R::kReject;
        d.rule = hurray::Rule::kTagZeroFF;
        d.summary = "tag " + tag_hex(tag) + " [1] in " + mode + " mode: never valid, a TAG reject in every mode";
      } else if (type) {
        // The zero element, S zero bytes; float8_e8m0 reserves 00 (and ff): 7f, 2^0.
        const bool e8m0 = type->tag == hurray::kE8m0Tag;
        const unsigned bits = type->bits;
        const std::size_t size = static_cast<std::size_t>(hurray_size(bits, 1));
        d.data = std::vector<std::uint8_t>(size, 0);
        if (e8m0) d.data->at(0) = 0x7f;
        d.elements = std::vector<std::string>{hex_digits(e8m0 ? 0x7f : 0, bits)};
        d.exercises = {hurray::Rule::kTagUnrecognized};
        if (e8m0) d.exercises.push_back(hurray::Rule::kE8m0Reserved);
        d.summary = "tag " + tag_hex(tag) + " is " + type_text + ": [1] in " + mode + " mode, data " +
                    to_hex(*d.data) + ", decodes to " + d.elements->front();
      } else if (mode == "strict") {
        d.data = std::vector<std::uint8_t>{0};
        d.result = R::kReject;
        d.rule = hurray::Rule::kTagUnrecognized;
        d.summary = "tag " + tag_hex(tag) + " [1] in strict mode names no type: a TAG reject";
      } else {
        d.data = std::vector<std::uint8_t>{0};
        d.result = R::kOpaque;
        d.exercises = {hurray::Rule::kTagUnrecognized};
        d.summary = "tag " + tag_hex(tag) + " [1] in permissive mode names no type: opaque (or a TAG reject)";
      }
      drafts.push_back(std::move(d));
    }
    // An encoder has no mode: a tag that names no type is refused, 00 and ff as never valid.
    if (encode && (never || !type)) {
      HurrayDraft d;
      d.suffix = stem + "-encode";
      d.type = type_text;
      d.shape = {1};
      d.elements = std::vector<std::string>{"00"};
      d.result = R::kReject;
      d.rule = never ? hurray::Rule::kTagZeroFF : hurray::Rule::kTagUnrecognized;
      d.summary = "encode of tag " + tag_hex(tag) + " [1] with element 00: " +
                  (never ? "never valid" : "names no type") + ", a TAG reject";
      drafts.push_back(std::move(d));
    }
  }
  return drafts;
}

std::vector<HurrayDraft> hurray_remainders(Params& params) {
  const YAML::Node types_node = params.required("types");
  params.finish();
  std::vector<HurrayDraft> drafts;
  for (const auto& item : sequence_of(types_node, "types")) {
    Params p(item);
    const YAML::Node type_node = p.required("type");
    const hurray::TypeInfo& type = hurray_type_of(type_node);
    const std::uint64_t max_count = uint_of(p.required("max_count"), 64, "max_count");
    const hurray::Rule rule = hurray_rule_of(p.required("rule"), "rule");
    p.finish();
    const unsigned bits = type.bits;
    if (bits != 1 && bits != 2 && bits != 4 && bits != 6)
      fail(type_node, "types are sub-byte types (1, 2, 4 or 6 bits): " + std::string(type.name));
    // Elements per byte, or per 3-byte group for 6-bit types; the bits of one unit.
    const unsigned per_unit = bits == 6 ? 4 : 8 / bits;
    const unsigned unit_bits = bits == 6 ? 24 : 8;
    const std::uint64_t ones = (std::uint64_t{1} << bits) - 1;
    const std::string name(type.name);
    for (std::uint64_t n = 0; n <= max_count; ++n) {
      const std::vector<std::uint64_t> values(n, ones);
      const std::vector<std::uint8_t> data = hurray_pack(bits, values);
      const std::string stem = kebab(name) + "-n" + std::to_string(n);
      HurrayDraft d;
      d.suffix = stem;
      d.type = name;
      d.shape = {n};
      d.data = data;
      d.elements = std::vector<std::string>(n, hex_digits(ones, bits));
      d.exercises = {rule};
      d.summary = name + " [" + std::to_string(n) + "], every element all ones: data " +
                  (data.empty() ? std::string("empty") : to_hex(data)) + ", padding bits 0";
      drafts.push_back(d);
      const unsigned used = static_cast<unsigned>(n % per_unit) * bits;
      if (used == 0) continue;  // no padding bit
      // Every unused bit of the final byte or group, set alone on the all-ones data.
      const std::size_t unit_start = data.size() - unit_bits / 8;
      for (unsigned bit = used; bit < unit_bits; ++bit) {
        HurrayDraft r;
        r.suffix = stem + "-pad-bit" + std::to_string(bit);
        r.type = name;
        r.shape = {n};
        r.data = data;
        r.data->at(unit_start + bit / 8) |= static_cast<std::uint8_t>(1u << (bit % 8));
        r.result = ElementsCase::Result::kReject;
        r.rule = rule;
        r.summary = name + " [" + std::to_string(n) + "], every element all ones, and padding bit " +
                    std::to_string(bit) + " of the final " + (bits == 6 ? "3-byte group" : "byte") +
                    " set: " + to_hex(*r.data);
        drafts.push_back(std::move(r));
      }
    }
  }
  return drafts;
}

std::vector<HurrayDraft> hurray_sizes(Params& params) {
  const YAML::Node types_node = params.required("types");
  std::vector<const hurray::TypeInfo*> types;
  for (const auto& item : sequence_of(types_node, "types")) types.push_back(&hurray_type_of(item));
  const YAML::Node shapes = params.required("shapes");
  const bool encode = bool_of(params.optional("encode"), false, "encode");
  params.finish();
  using R = ElementsCase::Result;
  std::vector<HurrayDraft> drafts;
  std::size_t shape_index = 0;
  for (const auto& shape_node : sequence_of(shapes, "shapes")) {
    const auto dims = dims_of(shape_node);
    const std::string label = "s" + std::to_string(shape_index++);
    const std::string shape_str = shape_node.IsMap() ? "{rank: " + std::to_string(dims.size()) +
                                                           ", fill: " + std::to_string(dims.at(0)) + "}"
                                                     : shape_text(dims).substr(0, 80);
    // N exactly (HURRAY.md 1: 0 when any dimension is 0, whatever the others).
    const Product n = exact_product(dims);
    for (const hurray::TypeInfo* type : types) {
      const std::string name(type->name);
      const std::string stem = label + "-" + kebab(name);
      const u128 size = n.overflows ? 0 : hurray_size(type->bits, n.value);
      const bool size_overflows = !n.overflows && size > kMaxU64;
      // Sizes near 2^64 sit on both overflow rules' boundaries; S can pass 2^64 - 1 only
      // for types wider than a byte (ceil(N * B / 8) <= N otherwise).
      std::vector<hurray::Rule> near{hurray::Rule::kCountOverflow};
      if (type->bits > 8) near.push_back(hurray::Rule::kSizeOverflow);
      const std::string what =
          n.overflows ? "N exceeds 2^64 - 1"
                      : "N = " + u128_text(n.value) + ", S = " + u128_text(size) + " bytes" +
                            (size_overflows ? " exceeds 2^64 - 1" : "");
      HurrayDraft d;
      d.suffix = stem;
      d.type = name;
      d.shape = dims;
      d.exercises = near;
      if (!n.overflows && !size_overflows && size <= 1) {
        // Small enough to hold: the zero element(s) in S zero bytes.
        d.data = std::vector<std::uint8_t>(static_cast<std::size_t>(size), 0);
        d.elements = std::vector<std::string>(static_cast<std::size_t>(n.value), hex_digits(0, type->bits));
        d.summary = name + " " + shape_str + ": " + what + ", accepted with " + std::to_string(d.data->size()) +
                    " data bytes";
      } else {
        // One byte of data: past the overflow checks it is far short of S.
        d.data = std::vector<std::uint8_t>{0};
        d.result = R::kReject;
        d.rule = n.overflows ? hurray::Rule::kCountOverflow
                 : size_overflows ? hurray::Rule::kSizeOverflow
                                  : hurray::Rule::kDataShort;
        d.summary = name + " " + shape_str + ": " + what + "; 1 data byte";
      }
      drafts.push_back(std::move(d));
      if (!encode || (!n.overflows && n.value == 0)) continue;  // N = 0 encodes in the accept above
      // The encoder given no element (HURRAY.md 5.1): the overflows first, then the count.
      HurrayDraft e;
      e.suffix = stem + "-encode";
      e.type = name;
      e.shape = dims;
      e.elements = std::vector<std::string>{};
      e.result = R::kReject;
      e.exercises = near;
      if (n.overflows) e.rule = hurray::Rule::kCountOverflow;
      else if (size_overflows) {
        e.rule = hurray::Rule::kSizeOverflow;
        e.also_breaks = {hurray::Rule::kEncodeCount};  // no element of N > 0: the count is wrong too
      } else {
        e.rule = hurray::Rule::kEncodeCount;
      }
      e.summary = "encode of " + name + " " + shape_str + " with no element: " + what;
      drafts.push_back(std::move(e));
    }
  }
  return drafts;
}

std::string hurray_rule_list(const std::vector<hurray::Rule>& rules) {
  std::string text = "[";
  for (std::size_t i = 0; i < rules.size(); ++i)
    text += (i ? ", " : "") + std::string(hurray::rule_info(rules[i]).id);
  return text + "]";
}

std::string hurray_case_text(const std::string& family, const std::string& generator,
                             const std::string& id, const HurrayDraft& d) {
  std::vector<hurray::Rule> rules;
  auto add = [&rules](hurray::Rule r) {
    if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
  };
  if (d.rule) add(*d.rule);
  for (hurray::Rule r : d.also_breaks) add(r);
  for (hurray::Rule r : d.exercises) add(r);
  std::ostringstream text;
  text << generated_note(family, generator);
  text << "id: " << id << "\n";
  text << "summary: " << yaml_quoted(d.summary) << "\n";
  text << "profile: " << protocol::kProfileHurrayElements << "\n";
  text << "rules: " << hurray_rule_list(rules) << "\n";
  if (!d.also_breaks.empty()) text << "also_breaks: " << hurray_rule_list(d.also_breaks) << "\n";
  text << "source: family " << family << "\n";
  text << "level: required\n";
  text << "type: " << d.type << "\n";
  text << "shape: " << shape_text(d.shape) << "\n";
  if (d.permissive) text << "mode: permissive\n";
  if (d.data) text << "data: " << yaml_quoted(to_hex(*d.data)) << "\n";
  if (d.elements) {
    text << "elements: [";
    for (std::size_t i = 0; i < d.elements->size(); ++i)
      text << (i ? ", " : "") << yaml_quoted((*d.elements)[i]);
    text << "]\n";
  }
  text << "expect:\n";
  switch (d.result) {
    case ElementsCase::Result::kAccept: text << "  result: accept\n"; break;
    case ElementsCase::Result::kOpaque: text << "  result: opaque\n"; break;
    case ElementsCase::Result::kReject:
      text << "  result: reject\n  class: " << hurray::to_string(hurray::rule_info(*d.rule).error_class)
           << "\n  rule: " << hurray::rule_info(*d.rule).id << "\n";
      break;
  }
  return text.str();
}

// The member's file (ops derived and written as regen writes them), or an error
// when the case does not load or `cases check` would fail it: the reference
// does not meet the family's expectation, or the input breaks other rules.
FinishedMember finish_member(const MemberContext& context, const HurrayDraft& draft) {
  const std::string& family = context.family;
  const CaseSchema& schema = context.schema;
  const auto [id, topic, path] = member_place("hurray", family, draft.suffix);
  const std::string text = hurray_case_text(family, context.generator, id, draft);
  auto loaded = load_case_text(text, path, schema, topic);
  if (!loaded) return id + ": the generated case does not load: " + loaded.error().describe();
  auto written = rewrite_generated_keys(text, *loaded, std::nullopt);
  if (!written) return id + ": " + written.error().describe();
  std::string final_text = std::move(written).value();
  auto reloaded = load_case_text(final_text, path, schema, topic);
  if (!reloaded) return id + ": the generated case does not load: " + reloaded.error().describe();
  const std::vector<std::string> problems = check_case(*reloaded);
  if (!problems.empty()) {
    std::string message = id + ": the family's expectation fails the check: ";
    for (std::size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    return message;
  }
  return FamilyMember{id, path, std::move(final_text)};
}

template <std::vector<HurrayDraft> (*generate)(Params&)>
std::vector<PendingMember> pending(Params& params, const CaseSchema&) {
  return pending_members(generate(params), finish_member);
}

constexpr FamilyGeneratorEntry kGenerators[] = {
    {"hurray-tags", "every type tag in each mode with one element: a type's zero element, "
                    "the never-valid tags, and unrecognized tags (a reject in strict mode, "
                    "opaque in permissive mode, and for the encoder)",
     pending<hurray_tags>},
    {"hurray-remainders", "each sub-byte type at every count up to two full bytes or groups and "
                          "one more: all elements all ones, then each unused padding bit set "
                          "alone",
     pending<hurray_remainders>},
    {"hurray-sizes", "shapes whose element count is near 2^64 for one type of each width: "
                     "counts and sizes that overflow or just fit, zero dimensions, and the "
                     "encoder given no element",
     pending<hurray_sizes>},
};

}  // namespace

const FamilyGenerators& hurray_elements_family_generators() {
  static const FamilyGenerators generators{kGenerators};
  return generators;
}

}  // namespace kiln::conformance
