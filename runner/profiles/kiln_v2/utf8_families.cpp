// Profile kiln-v2's UTF-8 sweep generators: bytes at every position of a tensor
// name or an opaque layout name, and RFC 3629's table walked edge by edge
// (reference/FORMAT.md's name and layout rules).
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "kiln/conformance/family_engine.hpp"
#include "kiln/conformance/case_text.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/hex.hpp"
#include "profiles/kiln_v2/family_drafts.hpp"

namespace kiln::conformance::kiln_v2_families {

using namespace families;

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace kiln::conformance::kiln_v2_families
