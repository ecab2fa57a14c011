// Profile kiln-v2's sweep generators (cases/README.md, "Sweeps"): each drafts
// blocks by their description and faults, and finish_member writes a draft's
// case file and holds it to the reference (reference/FORMAT.md). The UTF-8
// generators are in utf8_families.cpp.
#include "profiles/kiln_v2/families.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/conformance/kiln_v2/isolation.hpp"
#include "kiln/conformance/kiln_v2/materialize.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"
#include "kiln/protocol.hpp"
#include "profiles/kiln_v2/family_drafts.hpp"

namespace kiln::conformance {
namespace kiln_v2_families {

using namespace families;

TensorSpec spec(std::string name, std::string dtype, std::string shape, std::string payload,
                std::optional<std::string> layout, std::uint64_t block_size) {
  return TensorSpec{std::move(name), std::move(dtype), std::move(shape), std::move(payload),
                    std::move(layout), block_size};
}

std::string tensor_text(const TensorSpec& t) {
  std::string text = "{" + text_key("name", t.name) + ", dtype: " + t.dtype + ", shape: " + t.shape;
  if (t.layout) text += ", " + text_key("layout", *t.layout);
  if (t.block_size) text += ", block_size: " + std::to_string(t.block_size);
  return text + ", payload: " + yaml_quoted(hex_of(t.payload)) + "}";
}

Draft reject(std::string suffix, std::string summary, std::vector<std::string> tensors,
             std::vector<std::string> faults, Rule rule) {
  Draft d;
  d.suffix = std::move(suffix);
  d.summary = std::move(summary);
  d.tensors = std::move(tensors);
  d.faults = std::move(faults);
  d.accept = false;
  d.error_class = rule_info(rule).error_class;
  d.rule = rule;
  return d;
}

Draft accept(std::string suffix, std::string summary, std::vector<std::string> tensors,
             std::vector<Rule> exercises) {
  Draft d;
  d.suffix = std::move(suffix);
  d.summary = std::move(summary);
  d.tensors = std::move(tensors);
  d.exercises = std::move(exercises);
  return d;
}

std::vector<std::string> bytes_of(const YAML::Node& node, const char* what) {
  std::vector<std::string> values;
  for (std::uint64_t v : uints_of(node, 255, what)) values.emplace_back(1, static_cast<char>(v));
  return values;
}

namespace {

// ---- the case text, before and after the reference has its say ----

std::string rule_list_text(const std::vector<Rule>& rules) {
  std::string text = "[";
  for (std::size_t i = 0; i < rules.size(); ++i)
    text += (i ? ", " : "") + std::string(rule_info(rules[i]).id);
  return text + "]";
}

// Any rule of the class, in the first text of a member whose rule the reference
// will give: the text must load before the reference can read its block.
Rule placeholder_rule(ErrorClass error_class) {
  for (const RuleInfo& info : all_rules())
    if (info.error_class == error_class) return info.rule;
  return Rule::kFrameTruncated;
}

std::string case_text(const std::string& family, const std::string& generator,
                      const std::string& id, const Draft& d, std::optional<Rule> rule,
                      const std::vector<Rule>& also_breaks) {
  std::vector<Rule> rules;
  auto add = [&rules](Rule r) {
    if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
  };
  if (!d.accept) add(rule ? *rule : placeholder_rule(d.error_class));
  for (Rule r : also_breaks) add(r);
  for (Rule r : d.exercises) add(r);
  std::ostringstream text;
  text << generated_note(family, generator);
  text << "id: " << id << "\n";
  text << "summary: " << yaml_quoted(d.summary) << "\n";
  text << "rules: " << rule_list_text(rules) << "\n";
  if (!also_breaks.empty()) text << "also_breaks: " << rule_list_text(also_breaks) << "\n";
  text << "source: family " << family << "\n";
  text << "level: required\n";
  if (d.tensors.empty()) text << "tensors: []\n";
  else {
    text << "tensors:\n";
    for (const auto& t : d.tensors) text << "  - " << t << "\n";
  }
  if (!d.faults.empty()) {
    text << "faults:\n";
    for (const auto& f : d.faults) text << "  - " << f << "\n";
  }
  text << "expect:\n";
  if (d.accept) text << "  result: accept\n";
  else
    text << "  result: reject\n  class: " << to_string(d.error_class) << "\n  rule: "
         << rule_info(rule ? *rule : placeholder_rule(d.error_class)).id << "\n";
  return text.str();
}

// ---- generators ----

// The canonical bytes of a few tensors, through the loader and the builder, as
// any case's block is made.
std::vector<std::uint8_t> canonical_block(const std::vector<std::string>& tensors,
                                          const CaseSchema& schema, const YAML::Node& where) {
  Draft base = accept("base", "the base block", tensors, {Rule::kFramePayloadOffset});
  const std::string text = case_text("base", "base", "kiln-v2-base", base, std::nullopt, {});
  auto loaded = load_case_text(text, "the base block", schema);
  if (!loaded) fail(where, "base: " + loaded.error().message);
  auto made = materialize(*loaded);
  if (!made) fail(where, "base: " + made.error());
  const auto& block = made.value().block;
  if (!block) fail(where, "base: the tensors cannot be placed in a block");
  if (!decode(*block)) fail(where, "base: the reference rejects the base block");
  return *block;
}

std::vector<Draft> field_bits(Params& params, const CaseSchema& schema) {
  const YAML::Node base_node = params.required("base");
  std::vector<std::string> base;
  for (const auto& tensor : sequence_of(base_node, "base")) {
    YAML::Emitter emitter;
    emitter << YAML::Flow << tensor;
    base.emplace_back(emitter.c_str());
  }
  const auto bits = uints_of(params.required("bits"), 63, "bits");
  const YAML::Node fields = params.required("fields");
  params.finish();
  if (!fields.IsMap()) fail(fields, "fields must map field names to FRAME or TYPE");
  const std::vector<std::uint8_t> block = canonical_block(base, schema, base_node);
  const std::uint64_t tensor_count = block[header::kTensorCount.offset];
  std::vector<Draft> drafts;
  static const std::regex kFieldName(R"(^(header|tensor\[([0-9])\])\.([a-z0-9_]+)$)");
  for (const auto& item : fields) {
    const std::string name = string_of(item.first, "a field name");
    std::smatch match;
    if (!std::regex_match(name, match, kFieldName))
      fail(item.first, "a field is header.<name> or tensor[i].<name>");
    const bool in_entry = match[1] != "header";
    const std::uint64_t index = in_entry ? std::stoull(match[2]) : 0;
    const Field* field = find_field(match[3].str(), in_entry);
    if (!field) fail(item.first, "no field '" + match[3].str() + "' in kiln/layout.hpp");
    if (in_entry && index >= tensor_count) fail(item.first, "the base has no tensor " + match[2].str());
    const auto error_class = error_class_from_string(string_of(item.second, "a class"));
    if (!error_class) fail(item.second, "the class is FRAME or TYPE");
    const std::uint64_t at = (in_entry ? entry_start(index) : 0) + field->offset;
    std::uint64_t canonical = 0;
    for (std::uint64_t k = 0; k < field->width; ++k)
      canonical |= std::uint64_t{block[at + k]} << (8 * k);
    const std::string where = in_entry ? "tensor" + match[2].str() : std::string("header");
    for (std::uint64_t bit : bits) {
      if (bit >= 8u * field->width) continue;
      const std::uint64_t value = canonical ^ (std::uint64_t{1} << bit);
      Draft d;
      d.suffix = where + "-" + kebab(field->name) + "-bit" + std::to_string(bit);
      char summary[200];
      std::snprintf(summary, sizeof summary, "%s with bit %u flipped: 0x%llx for 0x%llx",
                    name.c_str(), static_cast<unsigned>(bit),
                    static_cast<unsigned long long>(value),
                    static_cast<unsigned long long>(canonical));
      d.summary = summary;
      d.tensors = base;
      d.faults = {"{set: " + yaml_quoted(name) + ", value: " + std::to_string(value) + "}"};
      d.accept = false;
      d.error_class = *error_class;
      drafts.push_back(std::move(d));
    }
  }
  return drafts;
}

std::string style_name(const std::string& style, std::uint64_t i, const YAML::Node& where) {
  const std::string index = std::to_string(i);
  if (style == "index") return "t" + index;
  if (style == "long-prefix") return std::string(40, 'p') + "-" + index;
  if (style == "fixed-width") return "w" + std::string(7 - std::min<std::size_t>(7, index.size()), '0') + index;
  if (style == "by-length") return std::string(i + 1, 'a');
  if (style == "after-nul") return std::string("n\0", 2) + index;
  fail(where, "unknown name style '" + style +
                  "' (index, long-prefix, fixed-width, by-length, after-nul)");
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> duplicate_pair(const std::string& kind,
                                                                      std::uint64_t count,
                                                                      const YAML::Node& where) {
  if (kind == "first-second") return std::pair{0, 1};
  if (kind == "first-last") return std::pair{0, count - 1};
  if (kind == "last-two") return std::pair{count - 2, count - 1};
  if (kind == "middle") return std::pair{count / 2 - 1, count / 2};
  if (kind == "8-apart") return count > 8 ? std::optional(std::pair{count - 9, count - 1}) : std::nullopt;
  if (kind == "16-apart") return count > 16 ? std::optional(std::pair{0, 16}) : std::nullopt;
  if (kind == "256-apart") return count > 256 ? std::optional(std::pair{count - 257, count - 1}) : std::nullopt;
  fail(where, "unknown duplicate position '" + kind +
                  "' (none, first-second, first-last, last-two, middle, 8-apart, 16-apart, "
                  "256-apart)");
}

std::vector<Draft> name_unique(Params& params, const CaseSchema&) {
  const YAML::Node groups = params.required("groups");
  params.finish();
  std::vector<Draft> drafts;
  for (const auto& group : sequence_of(groups, "groups")) {
    Params g(group);
    const auto counts = uints_of(g.required("counts"), 1000, "counts");
    const auto styles = strings_of(g.required("styles"), "styles");
    const auto duplicates = strings_of(g.required("duplicates"), "duplicates");
    g.finish();
    for (std::uint64_t count : counts) {
      if (count < 2) fail(group, "counts start at 2");
      for (const auto& style : styles) {
        std::vector<std::string> names;
        for (std::uint64_t i = 0; i < count; ++i) names.push_back(style_name(style, i, group));
        for (const auto& kind : duplicates) {
          std::vector<std::string> tensors;
          const std::string stem = std::to_string(count) + "-" + style + "-" + kind;
          if (kind == "none") {
            for (const auto& n : names) tensors.push_back(tensor_text(spec(n)));
            drafts.push_back(accept(stem,
                                    std::to_string(count) + " tensors, names " + style +
                                        ", all distinct",
                                    tensors, {Rule::kFrameNameUnique}));
            continue;
          }
          const auto pair = duplicate_pair(kind, count, group);
          if (!pair) continue;
          auto dup = names;
          dup[pair->second] = dup[pair->first];
          for (const auto& n : dup) tensors.push_back(tensor_text(spec(n)));
          drafts.push_back(reject(stem,
                                  std::to_string(count) + " tensors, names " + style +
                                      ", tensor " + std::to_string(pair->second) +
                                      " repeats the name of tensor " + std::to_string(pair->first),
                                  tensors, {}, Rule::kFrameNameUnique));
        }
      }
    }
  }
  return drafts;
}

std::vector<Draft> ranks(Params& params, const CaseSchema&) {
  const auto rank_list = uints_of(params.required("ranks"), 4096, "ranks");
  params.finish();
  std::vector<Draft> drafts;
  for (std::uint64_t rank : rank_list) {
    const std::string r = std::to_string(rank);
    drafts.push_back(accept("r" + r + "-ones", "u8 of rank " + r + ", every dimension 1: one element",
                            {tensor_text(spec("x", "u8", "{rank: " + r + ", fill: 1}", std::string(1, '\x07')))},
                            {Rule::kTypeByteLength}));
    if (rank >= 1) {
      std::vector<std::uint64_t> dims(rank, 1);
      dims.back() = 0;
      drafts.push_back(accept("r" + r + "-last-zero",
                              "u8 of rank " + r + ", dimensions 1 and a last 0: no element",
                              {tensor_text(spec("x", "u8", shape_text(dims)))},
                              {Rule::kTypeShapeOverflow}));
    }
    if (rank >= 64) {
      drafts.push_back(reject("r" + r + "-twos",
                              "u8 of rank " + r + ", every dimension 2: 2^" + r +
                                  " elements overflow, and wrap to 0, the payload's length",
                              {tensor_text(spec("x", "u8", "{rank: " + r + ", fill: 2}"))},
                              {}, Rule::kTypeShapeOverflow));
      std::vector<std::uint64_t> dims(rank, 2);
      dims.back() = 0;
      drafts.push_back(accept("r" + r + "-twos-last-zero",
                              "u8 of rank " + r + ", dimensions 2 and a last 0: no element, "
                                  "however far the product of the others overflows",
                              {tensor_text(spec("x", "u8", shape_text(dims)))},
                              {Rule::kTypeShapeOverflow}));
    }
  }
  return drafts;
}

std::uint64_t wrapped_product(const std::vector<std::uint64_t>& dims, unsigned bits) {
  std::uint64_t value = 1;
  for (std::uint64_t d : dims) value *= d;
  return bits == 64 ? value : value & ((std::uint64_t{1} << bits) - 1);
}

std::vector<Draft> products(Params& params, const CaseSchema&) {
  const auto dtypes = strings_of(params.required("dtypes"), "dtypes");
  const YAML::Node shapes = params.required("shapes");
  const std::uint64_t max_payload = uint_of(params.required("max_payload"), 4096, "max_payload");
  params.finish();
  std::vector<Draft> drafts;
  std::set<std::string> seen;
  std::size_t shape_index = 0;
  for (const auto& shape_node : sequence_of(shapes, "shapes")) {
    const auto dims = dims_of(shape_node);
    const std::string label = "s" + std::to_string(shape_index++);
    const std::string shape_str = shape_node.IsMap() ? "{rank: " + std::to_string(dims.size()) +
                                                           ", fill: " + std::to_string(dims.at(0)) + "}"
                                                     : shape_text(dims);
    for (const auto& dtype_name : dtypes) {
      const DtypeInfo* dtype = find_dtype(dtype_name);
      if (!dtype || dtype->packing != Packing::kWhole)
        fail(shapes, "dtypes are whole-byte names of the table: " + dtype_name);
      const std::uint64_t width = dtype->width;
      const Product n = exact_product(dims);
      const std::string stem = label + "-" + dtype_name;
      // The payload a reader that wraps at `bits` would expect, when small enough to write.
      for (unsigned bits : {64u, 32u}) {
        const std::uint64_t wrapped_n = wrapped_product(dims, bits);
        const u128 wrapped_bytes = static_cast<u128>(wrapped_n) * width;
        const std::uint64_t length =
            bits == 64 ? static_cast<std::uint64_t>(wrapped_bytes) : static_cast<std::uint64_t>(wrapped_bytes);
        if (wrapped_bytes > max_payload) continue;
        const u128 true_bytes = n.value * width;
        const bool exact = !n.overflows && true_bytes == length;
        if (exact) continue;  // no wrap: the accept variant below covers it
        // A count past 2^64 - 1 has no byte length to compare; the reference's
        // lenient read compares the 64-bit wrap, so only that variant is isolated.
        if (n.overflows && bits == 32) continue;
        const std::string suffix = stem + "-wrap" + std::to_string(bits);
        if (!seen.insert(stem + std::to_string(length)).second) continue;
        const std::string what = "n wrapped to " + std::to_string(bits) + " bits is " +
                                 std::to_string(wrapped_n) + ", and the payload holds " +
                                 std::to_string(length) + " bytes";
        const TensorSpec t = spec("x", dtype_name, shape_str, std::string(length, '\0'));
        if (n.overflows)
          drafts.push_back(reject(suffix, dtype_name + " " + shape_str.substr(0, 80) +
                                              ": the element count overflows 2^64 - 1; " + what,
                                  {tensor_text(t)}, {}, Rule::kTypeShapeOverflow));
        else
          drafts.push_back(reject(suffix, dtype_name + " " + shape_str.substr(0, 80) +
                                              ": the byte length is not n x width; " + what,
                                  {tensor_text(t)}, {}, Rule::kTypeByteLength));
      }
      if (!n.overflows && n.value * width <= max_payload) {
        const std::uint64_t length = static_cast<std::uint64_t>(n.value * width);
        drafts.push_back(accept(stem + "-exact",
                                dtype_name + " " + shape_str.substr(0, 80) + ": n is exact, " +
                                    std::to_string(length) + " bytes",
                                {tensor_text(spec("x", dtype_name, shape_str, std::string(length, '\0')))},
                                {Rule::kTypeByteLength}));
      }
      if (shape_node.IsMap()) continue;  // the zero variants need the dimensions written out
      auto first_zero = dims;
      first_zero.insert(first_zero.begin(), 0);
      auto last_zero = dims;
      last_zero.push_back(0);
      for (const auto& [where, zeroed] : {std::pair{"zero-first", first_zero},
                                         std::pair{"zero-last", last_zero}}) {
        drafts.push_back(accept(stem + "-" + where,
                                dtype_name + " " + shape_text(zeroed).substr(0, 80) +
                                    ": a zero dimension makes n 0, whatever the product of the "
                                    "others",
                                {tensor_text(spec("x", dtype_name, shape_text(zeroed)))},
                                {Rule::kTypeShapeOverflow}));
      }
    }
  }
  return drafts;
}

std::vector<Draft> bool_bytes(Params& params, const CaseSchema&) {
  const std::uint64_t length = uint_of(params.required("length"), 256, "length");
  const auto values = bytes_of(params.required("values"), "values");
  const auto last_of = uints_of(params.required("last_of_lengths"), 256, "last_of_lengths");
  params.finish();
  std::vector<Draft> drafts;
  auto add = [&](std::uint64_t len, std::uint64_t at, const std::string& value) {
    std::string payload(len, '\x01');
    for (std::uint64_t i = 0; i < len; i += 2) payload[i] = '\0';
    payload[at] = value[0];
    drafts.push_back(reject("len" + std::to_string(len) + "-at" + std::to_string(at) + "-" +
                                byte_hex(static_cast<std::uint8_t>(value[0])),
                            "bool [" + std::to_string(len) + "] with byte 0x" +
                                byte_hex(static_cast<std::uint8_t>(value[0])) + " at offset " +
                                std::to_string(at),
                            {tensor_text(spec("b", "bool", "[" + std::to_string(len) + "]", payload))},
                            {}, Rule::kTypeBoolByte));
  };
  for (const auto& value : values)
    for (std::uint64_t at = 0; at < length; ++at) add(length, at, value);
  for (std::uint64_t len : last_of)
    if (len >= 1 && len != length) add(len, len - 1, values.at(0));
  return drafts;
}

std::vector<Draft> padding_bytes(Params& params, const CaseSchema&) {
  const YAML::Node region_node = params.required("region");
  const std::string region = string_of(region_node, "region");
  const std::uint64_t value = uint_of(params.required("value"), 255, "value");
  if (value == 0) fail(region_node, "value is a nonzero byte");
  const YAML::Node lengths_node = params.optional("name_lengths");
  params.finish();
  std::vector<Draft> drafts;
  const std::string bytes = byte_hex(value);
  auto overwrite = [&](const std::string& at) {
    return "{overwrite: " + yaml_quoted(at) + ", bytes: " + yaml_quoted(bytes) + "}";
  };
  if (region == "heap") {
    // A name of length L leaves 8 - L % 8 padding bytes in a rank-1 segment.
    if (!lengths_node) fail(region_node, "region heap needs name_lengths");
    for (std::uint64_t len : uints_of(lengths_node, 64, "name_lengths")) {
      const std::uint64_t pad = (8 - len % 8) % 8;
      for (std::uint64_t k = 1; k <= pad; ++k)
        drafts.push_back(reject("name" + std::to_string(len) + "-end-minus" + std::to_string(k),
                                "a " + std::to_string(len) + "-byte name: heap padding byte " +
                                    std::to_string(pad - k) + " of " + std::to_string(pad) + " is 0x" + bytes,
                                {tensor_text(spec(std::string(len, 'h')))},
                                {overwrite("tensor[0].segment_end-" + std::to_string(k))},
                                Rule::kFramePadHeap));
    }
  } else if (region == "payload") {
    // The first payload is 1 byte long: 63 padding bytes before the second.
    const std::vector<std::string> tensors{
        tensor_text(spec("a", "u8", "[1]", std::string(1, '\x05'))),
        tensor_text(spec("b", "u8", "[1]", std::string(1, '\x06')))};
    for (std::uint64_t k = 0; k < 63; ++k)
      drafts.push_back(reject("at" + std::to_string(k), "payload padding byte " + std::to_string(k) +
                                                            " of 63 after a 1-byte payload is 0x" + bytes,
                              tensors, {overwrite("tensor[0].data_end+" + std::to_string(k))},
                              Rule::kFramePadPayload));
  } else if (region == "gap") {
    // 32 + 64 + 16 = 112: a 16-byte gap up to payload_offset 128.
    const std::vector<std::string> tensors{
        tensor_text(spec("g", "u8", "[1]", std::string(1, '\x05')))};
    for (std::uint64_t k = 0; k < 16; ++k)
      drafts.push_back(reject("at" + std::to_string(k),
                              "gap byte " + std::to_string(k) + " of 16 after the heap is 0x" + bytes,
                              tensors, {overwrite("heap_end+" + std::to_string(k))},
                              Rule::kFramePadGap));
  } else if (region == "entry-reserved") {
    const std::vector<std::string> tensors{tensor_text(spec("a")), tensor_text(spec("b"))};
    for (std::uint64_t t = 0; t < 2; ++t)
      for (std::uint64_t k = 28; k < 64; ++k) {
        if (k >= 32 && k < 48) continue;
        drafts.push_back(reject("t" + std::to_string(t) + "-byte" + std::to_string(k),
                                "entry " + std::to_string(t) + " reserved byte " +
                                    std::to_string(k) + " is 0x" + bytes,
                                tensors,
                                {overwrite("tensor[" + std::to_string(t) + "].entry+" +
                                           std::to_string(k))},
                                Rule::kFrameEntryReserved));
      }
  } else {
    fail(region_node, "region is heap, payload, gap or entry-reserved");
  }
  return drafts;
}

std::vector<Draft> high_nibble(Params& params, const CaseSchema&) {
  const YAML::Node dtypes_node = params.required("dtypes");
  const auto dtypes = strings_of(dtypes_node, "dtypes");
  const auto counts = uints_of(params.required("counts"), 512, "counts");
  params.finish();
  std::vector<Draft> drafts;
  for (const auto& dtype : dtypes) {
    const DtypeInfo* info = find_dtype(dtype);
    if (!info || info->packing != Packing::kNibble) fail(dtypes_node, "dtypes are nibble types: " + dtype);
    for (std::uint64_t n : counts) {
      if (n % 2 == 0) continue;
      std::string payload((n + 1) / 2, '\x21');
      payload.back() = '\x11';  // the high nibble of the last byte is padding: must be 0
      drafts.push_back(reject(dtype + "-n" + std::to_string(n),
                              dtype + " [" + std::to_string(n) +
                                  "] with the last byte's high nibble 1",
                              {tensor_text(spec("p", dtype, "[" + std::to_string(n) + "]", payload))},
                              {}, Rule::kTypeHighNibble));
    }
  }
  return drafts;
}

// ---- finishing a draft ----

std::string outcome_text(const Result<BlockView>& decoded) {
  return decoded ? std::string("accept") : decoded.error().describe();
}

// The member's file, with the reference's rule where the family fixes only the
// class; an error when the reference does not do what the family expects.
FinishedMember finish_member(const MemberContext& context, const Draft& draft) {
  const std::string& family = context.family;
  const std::string& generator = context.generator;
  const CaseSchema& schema = context.schema;
  const auto [id, topic, path] = member_place(protocol::kProfileKilnV2, family, draft.suffix);
  std::optional<Rule> rule = draft.rule;
  std::vector<Rule> also_breaks;
  for (int pass = 0; pass < 2; ++pass) {
    const std::string text = case_text(family, generator, id, draft, rule, also_breaks);
    auto loaded = load_case_text(text, path, schema, topic);
    if (!loaded) return id + ": the generated case does not load: " + loaded.error().describe();
    const Case& c = *loaded;
    auto made = materialize(c);
    if (!made) return id + ": " + made.error();
    const auto& block = made.value().block;
    if (!block) return id + ": the description cannot be placed in a block";
    const auto decoded = decode(*block);
    if (draft.accept) {
      if (!decoded) return id + ": the family expects accept; the reference reports " + outcome_text(decoded);
    } else {
      if (decoded) return id + ": the family expects a rejection; the reference accepts";
      if (decoded.error().error_class() != draft.error_class)
        return id + ": the family expects class " + std::string(to_string(draft.error_class)) +
               "; the reference reports " + outcome_text(decoded);
      if (rule && decoded.error().rule != *rule)
        return id + ": the family expects " + std::string(rule_info(*rule).id) +
               "; the reference reports " + outcome_text(decoded);
    }
    if (draft.accept || pass == 1 || draft.rule) {
      if (!draft.accept && draft.rule) {
        const BrokenRules broken = rules_broken_by(*block);
        if (broken.rules.size() > 1)
          return id + ": breaks " + std::string(rule_info(broken.rules[1]).id) +
                 " besides the family's rule";
      }
      auto written = rewrite_generated_keys(text, c, block);
      if (!written) return id + ": " + written.error().describe();
      // The block's hex is what grows: the file as written must still load.
      std::string final_text = std::move(written).value();
      if (final_text.size() > kMaxCaseFileBytes)
        return id + ": the generated case would be " + std::to_string(final_text.size()) +
               " bytes, more than a case file may be (" + std::to_string(kMaxCaseFileBytes) +
               "): the loader would refuse it";
      return FamilyMember{id, path, std::move(final_text)};
    }
    // The family fixed the class only: the reference's rule, and every further
    // rule the bytes break (isolation's metadata), go into the file.
    const BrokenRules broken = rules_broken_by(*block);
    rule = broken.rules.at(0);
    also_breaks.assign(broken.rules.begin() + 1, broken.rules.end());
    for (Rule r : also_breaks)
      if (rule_info(r).error_class != draft.error_class)
        return id + ": breaks " + std::string(rule_info(r).id) + " of the other class as well";
  }
  return id + ": not finished";  // not reached: the second pass returns
}

template <std::vector<Draft> (*generate)(Params&, const CaseSchema&)>
std::vector<PendingMember> pending(Params& params, const CaseSchema& schema) {
  return pending_members(generate(params, schema), finish_member);
}

constexpr FamilyGeneratorEntry kGenerators[] = {
    {"field-bits", "each listed header and entry field of a valid block with one bit flipped, "
                   "bit by bit: the high bit of every byte and the powers of two a narrower "
                   "integer would drop",
     pending<field_bits>},
    {"name-unique", "tensor counts into the hundreds, names of several shapes, and one "
                    "duplicate pair at many positions (or none)",
     pending<name_unique>},
    {"ranks", "ranks far past common limits: dimensions all 1, a last dimension 0, and "
              "products of 2s that overflow",
     pending<ranks>},
    {"products", "shape products exactly, around 2^32 and 2^64: products that overflow, "
                 "that wrap to a plausible count, byte lengths that wrap, and the same "
                 "shapes with a zero dimension",
     pending<products>},
    {"bool-bytes", "a bool payload with a bad byte at every offset of a few words, and last",
     pending<bool_bytes>},
    {"utf8-byte-positions", "an ASCII name or layout name with a byte that is never UTF-8 at "
                            "every offset",
     pending<utf8_byte_positions>},
    {"padding-bytes", "a nonzero byte at every offset of one padding or reserved region",
     pending<padding_bytes>},
    {"high-nibble", "i4, u4 and e2m1 with an odd count and the last high nibble set",
     pending<high_nibble>},
    {"utf8-pairs", "every lead byte against second bytes at the edges of RFC 3629's ranges",
     pending<utf8_pairs>},
    {"utf8-continuations", "a bad or missing byte at every continuation position of every "
                           "row of RFC 3629's table",
     pending<utf8_continuations>},
    {"utf8-sequences", "listed byte sequences (U+0000, noncharacters, surrogates, overlongs, "
                       "past U+10FFFF) inside a name or layout name",
     pending<utf8_sequences>},
};

}  // namespace
}  // namespace kiln_v2_families

const FamilyGenerators& kiln_v2_family_generators() {
  static const FamilyGenerators generators{kiln_v2_families::kGenerators};
  return generators;
}

}  // namespace kiln::conformance
