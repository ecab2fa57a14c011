#include "kiln/conformance/families.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <cstdio>
#include <set>
#include <sstream>
#include <system_error>

#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/case_tools.hpp"
#include "kiln/conformance/materialize.hpp"
#include "kiln/decode.hpp"
#include "kiln/dtype.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kKiln = "kiln-v2";
constexpr std::string_view kHurray = "hurray-elements";

constexpr FamilyGenerator kGenerators[] = {
    {"field-bits", "each listed header and entry field of a valid block with one bit flipped, "
                   "bit by bit: the high bit of every byte and the powers of two a narrower "
                   "integer would drop", kKiln},
    {"name-unique", "tensor counts into the hundreds, names of several shapes, and one "
                    "duplicate pair at many positions (or none)", kKiln},
    {"ranks", "ranks far past common limits: dimensions all 1, a last dimension 0, and "
              "products of 2s that overflow", kKiln},
    {"products", "shape products exactly, around 2^32 and 2^64: products that overflow, "
                 "that wrap to a plausible count, byte lengths that wrap, and the same "
                 "shapes with a zero dimension", kKiln},
    {"bool-bytes", "a bool payload with a bad byte at every offset of a few words, and last", kKiln},
    {"utf8-byte-positions", "an ASCII name or layout name with a byte that is never UTF-8 at "
                            "every offset", kKiln},
    {"padding-bytes", "a nonzero byte at every offset of one padding or reserved region", kKiln},
    {"high-nibble", "i4, u4 and e2m1 with an odd count and the last high nibble set", kKiln},
    {"utf8-pairs", "every lead byte against second bytes at the edges of RFC 3629's ranges", kKiln},
    {"utf8-continuations", "a bad or missing byte at every continuation position of every "
                           "row of RFC 3629's table", kKiln},
    {"utf8-sequences", "listed byte sequences (U+0000, noncharacters, surrogates, overlongs, "
                       "past U+10FFFF) inside a name or layout name", kKiln},
    {"hurray-tags", "every type tag in each mode with one element: a type's zero element, "
                    "the never-valid tags, and unrecognized tags (a reject in strict mode, "
                    "opaque in permissive mode, and for the encoder)", kHurray},
    {"hurray-remainders", "each sub-byte type at every count up to two full bytes or groups and "
                          "one more: all elements all ones, then each unused padding bit set "
                          "alone", kHurray},
    {"hurray-sizes", "shapes whose element count is near 2^64 for one type of each width: "
                     "counts and sizes that overflow or just fit, zero dimensions, and the "
                     "encoder given no element", kHurray},
};

// Thrown inside this file while reading one family: caught in read_family.
struct FamilyProblem {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void fail(const YAML::Node& node, std::string message) {
  throw FamilyProblem{node.Mark(), std::move(message)};
}

// ---- reading parameters ----

std::uint64_t uint_of(const YAML::Node& node, std::uint64_t max, const char* what) {
  if (!node.IsScalar()) fail(node, std::string(what) + " must be an integer");
  const std::string& text = node.Scalar();
  std::uint64_t value = 0;
  std::size_t at = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    at = 2;
  }
  if (at == text.size()) fail(node, std::string(what) + " must be an integer");
  for (; at < text.size(); ++at) {
    const char ch = text[at];
    int digit;
    if (ch >= '0' && ch <= '9') digit = ch - '0';
    else if (base == 16 && ch >= 'a' && ch <= 'f') digit = ch - 'a' + 10;
    else if (base == 16 && ch >= 'A' && ch <= 'F') digit = ch - 'A' + 10;
    else fail(node, std::string(what) + " must be an integer, not '" + text + "'");
    if (value > (max - static_cast<std::uint64_t>(digit)) / static_cast<std::uint64_t>(base))
      fail(node, std::string(what) + " is above " + std::to_string(max));
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  return value;
}

std::string string_of(const YAML::Node& node, const char* what) {
  if (!node.IsScalar()) fail(node, std::string(what) + " must be a string");
  return node.Scalar();
}

const YAML::Node& sequence_of(const YAML::Node& node, const char* what) {
  if (!node.IsSequence()) fail(node, std::string(what) + " must be a list");
  if (node.size() > kMaxFamilyMembers)
    fail(node, std::string(what) + " has more than " + std::to_string(kMaxFamilyMembers) +
                   " items");
  return node;
}

std::vector<std::uint64_t> uints_of(const YAML::Node& node, std::uint64_t max, const char* what) {
  std::vector<std::uint64_t> values;
  for (const auto& item : sequence_of(node, what)) values.push_back(uint_of(item, max, what));
  return values;
}

std::vector<std::string> strings_of(const YAML::Node& node, const char* what) {
  std::vector<std::string> values;
  for (const auto& item : sequence_of(node, what)) values.push_back(string_of(item, what));
  return values;
}

// The parameters of one generator: every key it reads, so an unknown key (a
// typo) is an error rather than a silently smaller family.
class Params {
 public:
  explicit Params(YAML::Node node) : node_(std::move(node)) {
    if (!node_.IsMap()) fail(node_, "params must be a mapping");
  }
  YAML::Node required(const char* key) {
    used_.insert(key);
    const YAML::Node value = node_[key];
    if (!value) fail(node_, std::string("params lacks '") + key + "'");
    return value;
  }
  YAML::Node optional(const char* key) {
    used_.insert(key);
    return node_[key];
  }
  void finish() const {
    for (const auto& item : node_) {
      const std::string key = item.first.IsScalar() ? item.first.Scalar() : "";
      if (!used_.count(key)) fail(item.first, "unknown parameter '" + key + "' for this generator");
    }
  }

 private:
  YAML::Node node_;
  std::set<std::string> used_;
};

// ---- drafts: what a generator decides; the engine writes and checks the file ----

struct Draft {
  std::string suffix;   // the id is kiln-v2-sweep-<family>-<suffix>
  std::string summary;  // ASCII, one line
  std::vector<std::string> tensors;  // one YAML flow mapping each
  std::vector<std::string> faults;   // likewise
  bool accept = true;
  ErrorClass error_class = ErrorClass::kFrame;
  // The rule the family expects the reference to report; nullopt when the family
  // fixes only the class (field-bits: which rule catches a flipped bit first is
  // the reference's check order), and the reference's rule is written.
  std::optional<Rule> rule;
  std::vector<Rule> exercises;  // further rules the case sits on
};

struct TensorSpec {
  std::string name;
  std::string dtype = "u8";
  std::string shape = "[0]";  // YAML flow text
  std::string payload;        // bytes
  std::optional<std::string> layout;
  std::uint64_t block_size = 0;
};

TensorSpec spec(std::string name, std::string dtype = "u8", std::string shape = "[0]",
               std::string payload = "", std::optional<std::string> layout = std::nullopt,
               std::uint64_t block_size = 0) {
  return TensorSpec{std::move(name), std::move(dtype), std::move(shape), std::move(payload),
                    std::move(layout), block_size};
}

std::string tensor_text(const TensorSpec& t) {
  std::string text = "{" + text_key("name", t.name) + ", dtype: " + t.dtype + ", shape: " + t.shape;
  if (t.layout) text += ", " + text_key("layout", *t.layout);
  if (t.block_size) text += ", block_size: " + std::to_string(t.block_size);
  return text + ", payload: " + yaml_quoted(hex_of(t.payload)) + "}";
}

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string byte_hex(std::uint64_t byte) {
  static const char kDigits[] = "0123456789abcdef";
  return {kDigits[(byte >> 4) & 15], kDigits[byte & 15]};
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

std::string kebab(std::string_view text) {
  std::string out;
  for (char ch : text) out += ch == '_' ? '-' : ch;
  return out;
}

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
  text << "# Written by `kiln-conformance cases regen` from cases/" << kFamiliesFolder << "/"
       << family << kFamilyExtension << " (generator " << generator
       << "): edit the family, not this file.\n";
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

using Generator = std::function<std::vector<Draft>(Params&, const CaseSchema&)>;

// The canonical bytes of a few tensors, through the loader and the builder, as
// any case's block is made.
std::vector<std::uint8_t> canonical_block(const std::vector<std::string>& tensors,
                                          const CaseSchema& schema, const YAML::Node& where) {
  Draft base = accept("base", "the base block", tensors, {Rule::kFramePayloadOffset});
  const std::string text = case_text("base", "base", "kiln-v2-base", base, std::nullopt, {});
  auto loaded = load_case_text(text, "the base block", schema);
  if (auto* error = std::get_if<CaseError>(&loaded)) fail(where, "base: " + error->message);
  auto made = materialize(std::get<Case>(loaded));
  if (auto* error = std::get_if<std::string>(&made)) fail(where, "base: " + *error);
  const auto& block = std::get<Materialized>(made).block;
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

__extension__ typedef unsigned __int128 u128;  // exact products of two 64-bit values

struct Product {
  bool overflows = false;
  u128 value = 0;  // exact when !overflows (below 2^64)
};

Product exact_product(const std::vector<std::uint64_t>& dims) {
  Product p;
  p.value = 1;
  bool zero = std::find(dims.begin(), dims.end(), 0) != dims.end();
  if (zero) {
    p.value = 0;
    return p;
  }
  for (std::uint64_t d : dims) {
    p.value *= d;
    if (p.value > ~std::uint64_t{0}) {
      p.overflows = true;
      return p;
    }
  }
  return p;
}

std::uint64_t wrapped_product(const std::vector<std::uint64_t>& dims, unsigned bits) {
  std::uint64_t value = 1;
  for (std::uint64_t d : dims) value *= d;
  return bits == 64 ? value : value & ((std::uint64_t{1} << bits) - 1);
}

std::vector<std::uint64_t> dims_of(const YAML::Node& node) {
  if (node.IsMap()) {
    Params p(node);
    const std::uint64_t rank = uint_of(p.required("rank"), 4096, "rank");
    const std::uint64_t fill = uint_of(p.required("fill"), ~std::uint64_t{0}, "fill");
    p.finish();
    return std::vector<std::uint64_t>(rank, fill);
  }
  return uints_of(node, ~std::uint64_t{0}, "a dimension");
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

std::vector<std::string> bytes_of(const YAML::Node& node, const char* what) {
  std::vector<std::string> values;
  for (std::uint64_t v : uints_of(node, 255, what)) values.emplace_back(1, static_cast<char>(v));
  return values;
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

bool in_layout(const std::string& where, const YAML::Node& node) {
  if (where == "name") return false;
  if (where == "layout") return true;
  fail(node, "where is name or layout");
}

// One tensor whose name (or layout name) holds bytes: the layout one is opaque.
std::string carrier(bool layout, const std::string& bytes) {
  if (!layout) return tensor_text(spec(bytes));
  return tensor_text(spec("q", "4096", "[1]", std::string(1, '\0'), bytes, 1));
}

Rule utf8_rule(bool layout) { return layout ? Rule::kTypeOpaqueLayoutUtf8 : Rule::kFrameNameUtf8; }

std::vector<Draft> utf8_byte_positions(Params& params, const CaseSchema&) {
  const YAML::Node where_node = params.required("where");
  const bool layout = in_layout(string_of(where_node, "where"), where_node);
  const std::uint64_t length = uint_of(params.required("length"), 256, "length");
  const auto values = bytes_of(params.required("values"), "values");
  params.finish();
  std::vector<Draft> drafts;
  for (const auto& value : values) {
    const auto byte = static_cast<std::uint8_t>(value[0]);
    if (byte < 0x80 || (byte >= 0xc2 && byte <= 0xf4))
      fail(where_node, "values are bytes that are never UTF-8 alone: 80..c1 and f5..ff");
    for (std::uint64_t at = 0; at < length; ++at) {
      std::string bytes;
      for (std::uint64_t i = 0; i < length; ++i) bytes += static_cast<char>('a' + i % 26);
      bytes[at] = value[0];
      drafts.push_back(reject("len" + std::to_string(length) + "-at" + std::to_string(at) + "-" +
                                  byte_hex(byte),
                              std::string(layout ? "layout name" : "name") + " of " +
                                  std::to_string(length) + " bytes with 0x" + byte_hex(byte) +
                                  " at offset " + std::to_string(at),
                              {carrier(layout, bytes)}, {}, utf8_rule(layout)));
    }
  }
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

// RFC 3629's table of well-formed sequences, as the family file gives it.
struct Utf8Row {
  std::uint64_t lead_low, lead_high, length, second_low, second_high;
};

std::vector<Utf8Row> utf8_table(const YAML::Node& node) {
  std::vector<Utf8Row> rows;
  for (const auto& row : sequence_of(node, "table")) {
    Params p(row);
    const auto leads = uints_of(p.required("leads"), 255, "leads");
    const std::uint64_t length = uint_of(p.required("length"), 4, "length");
    const auto second = uints_of(p.required("second"), 255, "second");
    p.finish();
    if (leads.size() != 2 || second.size() != 2 || length < 2)
      fail(row, "a row is {leads: [low, high], length: 2..4, second: [low, high]}");
    rows.push_back({leads[0], leads[1], length, second[0], second[1]});
  }
  return rows;
}

const Utf8Row* row_of(const std::vector<Utf8Row>& rows, std::uint64_t lead) {
  for (const auto& row : rows)
    if (lead >= row.lead_low && lead <= row.lead_high) return &row;
  return nullptr;
}

Draft utf8_draft(bool layout, std::string suffix, std::string what, const std::string& sequence,
                 bool valid) {
  const std::string bytes = "u" + sequence + "v";
  const std::string summary = std::string(layout ? "layout name" : "name") + " u " +
                              hex_of(sequence) + " v: " + what;
  if (valid) return accept(std::move(suffix), summary, {carrier(layout, bytes)}, {utf8_rule(layout)});
  return reject(std::move(suffix), summary, {carrier(layout, bytes)}, {}, utf8_rule(layout));
}

std::vector<Draft> utf8_pairs(Params& params, const CaseSchema&) {
  const YAML::Node where_node = params.required("where");
  const bool layout = in_layout(string_of(where_node, "where"), where_node);
  const auto leads = uints_of(params.required("leads"), 255, "leads");
  const auto seconds = uints_of(params.required("seconds"), 255, "seconds");
  const auto rows = utf8_table(params.required("table"));
  params.finish();
  std::vector<Draft> drafts;
  for (std::uint64_t lead : leads) {
    if (lead < 0x80) fail(where_node, "leads are 80..ff: an ASCII byte leads nothing");
    const Utf8Row* row = row_of(rows, lead);
    for (std::uint64_t second : seconds) {
      std::string sequence{static_cast<char>(lead), static_cast<char>(second)};
      // The rest of a well-formed sequence of the row's length, so the pair decides.
      if (row) sequence.append(row->length - 2, '\x80');
      const bool valid = row && second >= row->second_low && second <= row->second_high;
      drafts.push_back(utf8_draft(layout, byte_hex(lead) + "-" + byte_hex(second),
                                  row ? "lead " + byte_hex(lead) + " takes a second byte " +
                                            byte_hex(row->second_low) + ".." +
                                            byte_hex(row->second_high)
                                      : "lead " + byte_hex(lead) + " starts no sequence",
                                  sequence, valid));
    }
  }
  return drafts;
}

std::vector<Draft> utf8_continuations(Params& params, const CaseSchema&) {
  const YAML::Node where_node = params.required("where");
  const bool layout = in_layout(string_of(where_node, "where"), where_node);
  const auto bad = uints_of(params.required("bad"), 255, "bad");
  const auto rows = utf8_table(params.required("table"));
  params.finish();
  std::vector<Draft> drafts;
  for (const auto& row : rows) {
    std::vector<std::uint64_t> ends{row.lead_low};
    if (row.lead_high != row.lead_low) ends.push_back(row.lead_high);
    for (std::uint64_t lead : ends) {
      std::string good{static_cast<char>(lead), static_cast<char>(row.second_low)};
      good.append(row.length - 2, '\xbf');
      drafts.push_back(utf8_draft(layout, byte_hex(lead) + "-whole", "well formed", good, true));
      for (std::uint64_t position = 1; position < row.length; ++position) {
        for (std::uint64_t b : bad) {
          std::string sequence = good;
          sequence[position] = static_cast<char>(b);
          if (position == 1 && b >= row.second_low && b <= row.second_high) continue;
          if (position > 1 && b >= 0x80 && b <= 0xbf) continue;
          drafts.push_back(utf8_draft(layout,
                                      byte_hex(lead) + "-pos" + std::to_string(position) + "-" +
                                          byte_hex(b),
                                      "byte " + std::to_string(position) + " of a " +
                                          std::to_string(row.length) + "-byte sequence is " +
                                          byte_hex(b),
                                      sequence, false));
        }
        // Cut short: the name ends after `position` bytes of the sequence.
        const std::string cut = good.substr(0, position);
        const std::string bytes = "u" + cut;
        const std::string summary = std::string(layout ? "layout name" : "name") + " u " +
                                    hex_of(cut) + ": a " + std::to_string(row.length) +
                                    "-byte sequence cut short at the end";
        drafts.push_back(reject(byte_hex(lead) + "-cut" + std::to_string(position), summary,
                                {carrier(layout, bytes)}, {}, utf8_rule(layout)));
      }
    }
  }
  return drafts;
}

std::vector<Draft> utf8_sequences(Params& params, const CaseSchema&) {
  const YAML::Node where_node = params.required("where");
  const bool layout = in_layout(string_of(where_node, "where"), where_node);
  const YAML::Node list = params.required("sequences");
  params.finish();
  std::vector<Draft> drafts;
  for (const auto& item : sequence_of(list, "sequences")) {
    Params p(item);
    const YAML::Node hex_node = p.required("hex");
    const std::string hex = string_of(hex_node, "hex");
    const YAML::Node valid_node = p.required("valid");
    const std::string what = string_of(p.required("what"), "what");
    const std::string label = string_of(p.required("label"), "label");
    p.finish();
    auto bytes = from_hex(hex);
    if (!bytes || bytes->empty() || bytes->size() > 64) fail(hex_node, "hex is 1..64 bytes as hex");
    if (!valid_node.IsScalar() || (valid_node.Scalar() != "true" && valid_node.Scalar() != "false"))
      fail(valid_node, "valid is true or false");
    if (!std::all_of(what.begin(), what.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
      fail(item, "what is printable ASCII");
    drafts.push_back(utf8_draft(layout, label, what,
                                std::string(bytes->begin(), bytes->end()),
                                valid_node.Scalar() == "true"));
  }
  return drafts;
}

const std::map<std::string_view, Generator>& generators() {
  static const std::map<std::string_view, Generator> table{
      {"field-bits", field_bits},     {"name-unique", name_unique},
      {"ranks", ranks},               {"products", products},
      {"bool-bytes", bool_bytes},     {"utf8-byte-positions", utf8_byte_positions},
      {"padding-bytes", padding_bytes}, {"high-nibble", high_nibble},
      {"utf8-pairs", utf8_pairs},     {"utf8-continuations", utf8_continuations},
      {"utf8-sequences", utf8_sequences},
  };
  return table;
}

// ---- profile hurray-elements (reference/HURRAY.md) ----
//
// A hurray draft states the whole case: type, shape, mode, data, elements and
// the expectation, each computed here from HURRAY.md (packing and sizes of
// section 4, the check order of 5.1), never by asking the reference's codec.
// The engine then holds it to what `cases check` holds any hurray case to.

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

using HurrayGenerator = std::function<std::vector<HurrayDraft>(Params&)>;

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

const std::map<std::string_view, HurrayGenerator>& hurray_generators() {
  static const std::map<std::string_view, HurrayGenerator> table{
      {"hurray-tags", hurray_tags},
      {"hurray-remainders", hurray_remainders},
      {"hurray-sizes", hurray_sizes},
  };
  return table;
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
  text << "# Written by `kiln-conformance cases regen` from cases/" << kFamiliesFolder << "/"
       << family << kFamilyExtension << " (generator " << generator
       << "): edit the family, not this file.\n";
  text << "id: " << id << "\n";
  text << "summary: " << yaml_quoted(d.summary) << "\n";
  text << "profile: " << kHurray << "\n";
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

// Where a member of a family goes: its id (<profile prefix>-sweep-<family>-<suffix>),
// its topic folder under sweep/, and its file there.
struct MemberPlace {
  std::string id, topic, path;
};
MemberPlace member_place(std::string_view id_prefix, const std::string& family, const std::string& suffix) {
  MemberPlace place;
  place.id = std::string(id_prefix) + "-sweep-" + family + "-" + suffix;
  place.topic = std::string(kSweepFolder) + "/" + family;
  place.path = place.topic + "/" + place.id + ".yaml";
  return place;
}

// The member's file (ops derived and written as regen writes them), or an error
// when the case does not load or `cases check` would fail it: the reference
// does not meet the family's expectation, or the input breaks other rules.
std::variant<FamilyMember, std::string> finish_hurray_member(const std::string& family,
                                                             const std::string& generator,
                                                             const HurrayDraft& draft,
                                                             const CaseSchema& schema) {
  const auto [id, topic, path] = member_place("hurray", family, draft.suffix);
  const std::string text = hurray_case_text(family, generator, id, draft);
  auto loaded = load_case_text(text, path, schema, topic);
  if (auto* error = std::get_if<CaseError>(&loaded))
    return id + ": the generated case does not load: " + error->describe();
  auto written = rewrite_generated_keys(text, std::get<Case>(loaded), std::nullopt);
  if (auto* error = std::get_if<CaseError>(&written)) return id + ": " + error->describe();
  std::string final_text = std::get<std::string>(std::move(written));
  auto reloaded = load_case_text(final_text, path, schema, topic);
  if (auto* error = std::get_if<CaseError>(&reloaded))
    return id + ": the generated case does not load: " + error->describe();
  const std::vector<std::string> problems = check_case(std::get<Case>(reloaded));
  if (!problems.empty()) {
    std::string message = id + ": the family's expectation fails the check: ";
    for (std::size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    return message;
  }
  return FamilyMember{id, path, std::move(final_text)};
}

// ---- the engine ----

std::string outcome_text(const Result<BlockView>& decoded) {
  return decoded ? std::string("accept") : decoded.error().describe();
}

// The member's file, with the reference's rule where the family fixes only the
// class; an error when the reference does not do what the family expects.
std::variant<FamilyMember, std::string> finish_member(const std::string& family,
                                                      const std::string& generator,
                                                      const Draft& draft,
                                                      const CaseSchema& schema) {
  const auto [id, topic, path] = member_place("kiln-v2", family, draft.suffix);
  std::optional<Rule> rule = draft.rule;
  std::vector<Rule> also_breaks;
  for (int pass = 0; pass < 2; ++pass) {
    const std::string text = case_text(family, generator, id, draft, rule, also_breaks);
    auto loaded = load_case_text(text, path, schema, topic);
    if (auto* error = std::get_if<CaseError>(&loaded))
      return id + ": the generated case does not load: " + error->describe();
    const Case& c = std::get<Case>(loaded);
    auto made = materialize(c);
    if (auto* error = std::get_if<std::string>(&made)) return id + ": " + *error;
    const auto& block = std::get<Materialized>(made).block;
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
      if (auto* error = std::get_if<CaseError>(&written)) return id + ": " + error->describe();
      // The block's hex is what grows: the file as written must still load.
      std::string final_text = std::get<std::string>(std::move(written));
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

std::optional<std::string> read_bounded(const fs::path& file, std::string& text) {
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (error) return "cannot read: " + error.message();
  if (!fs::is_regular_file(status)) return "not a regular file";
  const std::uintmax_t size = fs::file_size(file, error);
  if (error) return "cannot read: " + error.message();
  if (size > kMaxFamilyFileBytes)
    return "larger than " + std::to_string(kMaxFamilyFileBytes) + " bytes";
  std::ifstream in(file, std::ios::binary);
  text.assign(static_cast<std::size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size))) return "cannot read the file";
  return std::nullopt;
}

void read_family(const fs::path& file, const std::string& display, const CaseSchema& schema,
                 FamilySet& set) {
  auto error_at = [&](int line, int column, std::string message) {
    set.errors.push_back(CaseError{SourceMark{display, line, column}, std::move(message)});
  };
  std::string text;
  if (auto problem = read_bounded(file, text)) return error_at(0, 0, *problem);
  Family family;
  family.name = file.stem().string();
  family.file = display;
  static const std::regex kName("^[a-z0-9]+(-[a-z0-9]+)*$");
  if (family.name.size() > 40 || !std::regex_match(family.name, kName))
    return error_at(0, 0, "a family's file name is <name>.family, name in [a-z0-9-], at most 40");
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return error_at(1, 1, "a family is a mapping: family, generator, summary, params");
    Params top(root);
    const YAML::Node name_node = top.required("family");
    if (string_of(name_node, "family") != family.name)
      fail(name_node, "family is the file's name without .family: " + family.name);
    const YAML::Node generator_node = top.required("generator");
    family.generator = string_of(generator_node, "generator");
    family.summary = string_of(top.required("summary"), "summary");
    Params params(top.required("params"));
    top.finish();
    const auto found = generators().find(family.generator);
    const auto found_hurray = hurray_generators().find(family.generator);
    if (found == generators().end() && found_hurray == hurray_generators().end())
      fail(generator_node, "no generator '" + family.generator + "'");
    // Each profile's drafts, finished by its own engine into the same members.
    std::vector<Draft> drafts;
    std::vector<HurrayDraft> hurray_drafts;
    if (found != generators().end()) {
      family.profile = kKiln;
      drafts = found->second(params, schema);
    } else {
      family.profile = kHurray;
      hurray_drafts = found_hurray->second(params);
    }
    const std::size_t count = drafts.size() + hurray_drafts.size();
    if (count == 0) fail(root, "the family generates no case");
    if (count > kMaxFamilyMembers)
      fail(root, "the family generates " + std::to_string(count) + " cases, more than " +
                     std::to_string(kMaxFamilyMembers));
    std::set<std::string> ids;
    std::size_t family_bytes = 0;
    for (std::size_t k = 0; k < count; ++k) {
      auto member = k < drafts.size()
                        ? finish_member(family.name, family.generator, drafts[k], schema)
                        : finish_hurray_member(family.name, family.generator,
                                               hurray_drafts[k - drafts.size()], schema);
      if (auto* problem = std::get_if<std::string>(&member)) {
        error_at(1, 1, *problem);
        continue;
      }
      auto& made = std::get<FamilyMember>(member);
      if (!ids.insert(made.id).second) {
        error_at(1, 1, made.id + ": generated twice");
        continue;
      }
      family_bytes += made.text.size();
      if (family_bytes > kMaxFamilyBytes) {
        error_at(1, 1, made.id + ": the family's cases reach " + std::to_string(family_bytes) +
                           " bytes here, more than one family may write (" + std::to_string(kMaxFamilyBytes) + ")");
        break;
      }
      family.members.push_back(std::move(made));
    }
  } catch (const FamilyProblem& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.message);
  } catch (const YAML::Exception& problem) {
    return error_at(problem.mark.line + 1, problem.mark.column + 1, problem.msg);
  } catch (const std::exception& problem) {
    return error_at(1, 1, std::string("cannot expand: ") + problem.what());
  }
  set.families.push_back(std::move(family));
}

}  // namespace

std::span<const FamilyGenerator> family_generators() noexcept { return kGenerators; }

FamilySet expand_families(const fs::path& root, const CaseSchema& schema) {
  FamilySet set;
  const fs::path folder = root / kFamiliesFolder;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(folder, error);
  if (status.type() == fs::file_type::not_found) return set;
  const std::string folder_name = (root.filename() / kFamiliesFolder).generic_string();
  if (error || !fs::is_directory(status)) {
    set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0}, "not a folder of families"});
    return set;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() != kFamilyExtension) continue;
    if (files.size() >= kMaxFamilies) {
      set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0},
                                     "more than " + std::to_string(kMaxFamilies) + " families"});
      return set;
    }
    files.push_back(it->path());
  }
  if (error) {
    set.errors.push_back(CaseError{SourceMark{folder_name, 0, 0}, "cannot read: " + error.message()});
    return set;
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    read_family(file, folder_name + "/" + file.filename().string(), schema, set);
  return set;
}

}  // namespace kiln::conformance
