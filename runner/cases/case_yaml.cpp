#include "case_yaml.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <yaml.h>

#include <cctype>
#include <cstring>
#include <sstream>
#include <string_view>
#include <vector>

#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/yaml_reading.hpp"

namespace kiln::conformance::case_yaml {

namespace {

using yaml_reading::invalid;

// ---- the checked reader: yaml-cpp, bounded ----

// Case files are plain YAML (cases/README.md): one document, no anchors,
// aliases or tags. Refusing aliases outright bounds a file's expanded size by
// its own size; the node count and depth bound the tree yaml-cpp builds and the
// recursion of everything that walks it. Throws Invalid at the first problem.
class BoundedScan final : public YAML::EventHandler {
 public:
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) invalid(mark, "a second YAML document: a case file holds exactly one");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, "", anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    invalid(mark, "an alias: " + std::string(kPlain));
  }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    invalid(mark, "an anchor '&" + name + "': " + kPlain);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string&) override {
    node(mark, tag, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, tag, anchor);
    open(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  static constexpr const char* kPlain = "case files are plain YAML, without anchors or aliases";

  void node(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) invalid(mark, "an anchor: " + std::string(kPlain));
    // "?" is an untagged plain node, "!" an untagged quoted or block scalar.
    if (!tag.empty() && tag != "?" && tag != "!")
      invalid(mark, "a tag '" + tag + "': case files are plain YAML, without tags");
    if (++nodes_ > kMaxCaseNodes)
      invalid(mark, "more than " + std::to_string(kMaxCaseNodes) +
                        " YAML nodes: larger than any case (cases/README.md, Limits)");
  }
  void open(const YAML::Mark& mark) {
    if (++depth_ > kMaxCaseDepth)
      invalid(mark, "nested more than " + std::to_string(kMaxCaseDepth) +
                        " levels deep (cases/README.md, Limits)");
  }

  int documents_ = 0;
  std::size_t nodes_ = 0;
  int depth_ = 0;
};

// The scan has bounded the depth, so the recursion is bounded too.
void copy_tree(const YAML::Node& node, yaml::Document& document) {
  if (node.IsMap()) {
    document.open(yaml::NodeKind::kMap, node.Mark());
    for (const auto& item : node) {
      copy_tree(item.first, document);
      copy_tree(item.second, document);
    }
    document.close();
  } else if (node.IsSequence()) {
    document.open(yaml::NodeKind::kSequence, node.Mark());
    for (const auto& child : node) copy_tree(child, document);
    document.close();
  } else if (node.IsScalar()) {
    document.add_scalar(node.Mark(), node.Scalar(), node.Tag() == "?");
  } else {
    document.add_null(node.Mark());
  }
}

// ---- the fast reader: libyaml, on the YAML both read alike ----

// libyaml reads YAML 1.1 and yaml-cpp YAML 1.2, and each has its quirks. The
// fast reader takes a file only when every part of it lies where the two are
// known to agree, and leaves the rest to the checked reader:
// - no tab, no CR and no Unicode line break (NEL, LS, PS) or byte-order mark,
//   which the two count and strip differently;
// - no directive, anchor, alias, tag or second document (refused anyway);
// - scalars on one line, plain or quoted; a double-quoted one with no escape but \" and \\;
//   a plain one of the characters plain_both_read_alike allows (and a plain
//   null spelling is null, as yaml-cpp reads it);
// - literal blocks ("|" alone on the key's line) whose lines are all indented
//   alike, with no blank line, ending in one line break; no folded blocks;
// - fewer nodes and levels than the bounds, with room to spare, so that the
//   checked reader's own count never decides differently.
// The differential test (case_yaml_test.cpp) holds the two readers to the same
// trees and the same outcomes.

enum class Bytes { kDiffer, kAscii, kUtf8 };

Bytes bytes_both_read_alike(const std::string& text) {
  // '?' may start an explicit key, which libyaml takes in places yaml-cpp refuses.
  for (const char refused : {'\t', '\r', '?'})
    if (std::memchr(text.data(), refused, text.size())) return Bytes::kDiffer;
  Bytes found = Bytes::kAscii;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) continue;
    found = Bytes::kUtf8;
    const std::string_view rest(text.data() + i, text.size() - i);
    if (rest.starts_with("\xC2\x85") || rest.starts_with("\xE2\x80\xA8") ||
        rest.starts_with("\xE2\x80\xA9") || rest.starts_with("\xEF\xBB\xBF"))
      return Bytes::kDiffer;
  }
  return found;
}

// libyaml counts characters; yaml-cpp's marks count bytes. In ASCII they are
// the same; otherwise, events coming in order, one cursor walks the text once.
class ByteMarks {
 public:
  ByteMarks(const std::string& text, bool ascii) : text_(text), ascii_(ascii) {}

  YAML::Mark at(const yaml_mark_t& mark) {
    if (ascii_) {
      YAML::Mark same;
      same.pos = static_cast<int>(mark.index);
      same.line = static_cast<int>(mark.line);
      same.column = static_cast<int>(mark.column);
      return same;
    }
    if (mark.index < characters_) {  // not expected; start over rather than guess
      characters_ = 0;
      bytes_ = 0;
      line_ = 0;
      line_start_ = 0;
    }
    while (characters_ < mark.index && bytes_ < text_.size()) {
      const auto byte = static_cast<unsigned char>(text_[bytes_]);
      if (byte == '\n') {
        ++line_;
        line_start_ = bytes_ + 1;
      }
      ++bytes_;
      // A character is its lead byte and the continuation bytes after it.
      while (bytes_ < text_.size() && (static_cast<unsigned char>(text_[bytes_]) & 0xC0) == 0x80) ++bytes_;
      ++characters_;
    }
    YAML::Mark result;
    result.pos = static_cast<int>(bytes_);
    result.line = static_cast<int>(line_);
    result.column = static_cast<int>(bytes_ - line_start_);
    return result;
  }

  std::size_t byte_of(const yaml_mark_t& mark) { return static_cast<std::size_t>(at(mark).pos); }

 private:
  const std::string& text_;
  const bool ascii_;
  std::size_t characters_ = 0;
  std::size_t bytes_ = 0;
  std::size_t line_ = 0;
  std::size_t line_start_ = 0;
};

// A plain scalar's characters: in flow context (inside [] or {}) the
// characters of numbers and names; in block context any but those yaml-cpp
// may take for an indicator (':', '#', '?', and the node properties).
bool plain_both_read_alike(std::string_view value, bool in_flow) {
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (in_flow) {
      if (!std::isalnum(byte) && c != '_' && c != '.' && c != '+' && c != '-') return false;
    } else if (byte < 0x20 || std::string_view(":#?&*!|>%@`{}\\").find(c) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// Every escape of a double-quoted scalar's source [start, end) is \" or \\.
bool escapes_both_read_alike(const std::string& text, std::size_t start, std::size_t end) {
  for (std::size_t i = start; i < end; ++i)
    if (text[i] == '\\') {
      if (i + 1 >= end || (text[i + 1] != '"' && text[i + 1] != '\\')) return false;
      ++i;
    }
  return true;
}

// yaml-cpp reads these plain scalars, and an empty value, as null.
bool is_null_spelling(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

bool literal_both_read_alike(std::string_view value) {
  if (value.empty() || value.back() != '\n' || value.front() == ' ') return false;
  for (std::size_t i = 0; i + 1 < value.size(); ++i)
    if (value[i] == '\n' && (value[i + 1] == '\n' || value[i + 1] == ' ')) return false;
  return true;
}

class Parser {
 public:
  explicit Parser(const std::string& text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      yaml_parser_set_encoding(&parser_, YAML_UTF8_ENCODING);
      yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                   text.size());
    }
  }
  ~Parser() {
    release();  // the last event read owns its strings too
    if (ok_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // The next event, or nullptr on a syntax error (or before initialization).
  const yaml_event_t* next() {
    release();
    if (!ok_ || !yaml_parser_parse(&parser_, &event_)) return nullptr;
    has_event_ = true;
    return &event_;
  }

 private:
  void release() {
    if (has_event_) yaml_event_delete(&event_);
    has_event_ = false;
  }

  yaml_parser_t parser_{};
  yaml_event_t event_{};
  bool ok_ = false;
  bool has_event_ = false;
};

}  // namespace

bool read_fast(const std::string& text, yaml::Document& document) {
  const Bytes bytes = bytes_both_read_alike(text);
  if (bytes == Bytes::kDiffer) return false;
  // The room to spare below the bounds (see above).
  constexpr std::size_t kFastNodes = kMaxCaseNodes / 2;
  constexpr std::size_t kFastDepth = kMaxCaseDepth - 2;
  Parser parser(text);
  ByteMarks marks(text, bytes == Bytes::kAscii);
  std::size_t nodes = 0;
  int documents = 0;
  struct Open {
    bool flow;
    bool sequence;
  };
  std::vector<Open> open;  // the collections open at this event
  int flow_depth = 0;      // how many of them are flow collections
  for (;;) {
    const yaml_event_t* event = parser.next();
    if (!event) return false;
    switch (event->type) {
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_END_EVENT: break;
      case YAML_STREAM_END_EVENT: return documents == 1 && document.root().IsDefined();
      case YAML_DOCUMENT_START_EVENT: {
        const auto& start = event->data.document_start;
        if (++documents > 1 || start.version_directive ||
            start.tag_directives.start != start.tag_directives.end)
          return false;
        break;
      }
      case YAML_ALIAS_EVENT: return false;
      case YAML_SCALAR_EVENT: {
        const auto& scalar = event->data.scalar;
        if (scalar.anchor || scalar.tag || ++nodes > kFastNodes) return false;
        if (event->start_mark.line != event->end_mark.line && scalar.style != YAML_LITERAL_SCALAR_STYLE)
          return false;
        const std::string_view value(reinterpret_cast<const char*>(scalar.value), scalar.length);
        const YAML::Mark mark = marks.at(event->start_mark);
        switch (scalar.style) {
          case YAML_PLAIN_SCALAR_STYLE:
            if (!plain_both_read_alike(value, flow_depth > 0)) return false;
            if (is_null_spelling(value)) {
              document.add_null(mark);
              continue;
            }
            document.add_scalar(mark, std::string(value), true);
            continue;
          case YAML_SINGLE_QUOTED_SCALAR_STYLE: break;
          case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
            if (!escapes_both_read_alike(text, static_cast<std::size_t>(mark.pos),
                                         marks.byte_of(event->end_mark)))
              return false;
            break;
          case YAML_LITERAL_SCALAR_STYLE: {
            // "|" and then the line break: no indicator, no comment.
            const auto at = static_cast<std::size_t>(mark.pos);
            if (at + 1 >= text.size() || text[at] != '|' || text[at + 1] != '\n' ||
                !literal_both_read_alike(value))
              return false;
            break;
          }
          default: return false;  // folded
        }
        document.add_scalar(mark, std::string(value), false);
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        const bool sequence = event->type == YAML_SEQUENCE_START_EVENT;
        const auto anchor = sequence ? event->data.sequence_start.anchor : event->data.mapping_start.anchor;
        const auto tag = sequence ? event->data.sequence_start.tag : event->data.mapping_start.tag;
        if (anchor || tag || ++nodes > kFastNodes || document.depth() + 1 > kFastDepth) return false;
        const bool flow_style = sequence ? event->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                                         : event->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        // [a: b] is a mapping in the sequence, which the readers take differently.
        if (!sequence && !open.empty() && open.back().flow && open.back().sequence) return false;
        open.push_back({flow_style, sequence});
        flow_depth += flow_style;
        document.open(sequence ? yaml::NodeKind::kSequence : yaml::NodeKind::kMap,
                      marks.at(event->start_mark));
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        flow_depth -= open.back().flow;
        open.pop_back();
        document.close();
        break;
      default: return false;
    }
  }
}

bool read_checked(const std::string& text, yaml::Document& document) {
  BoundedScan scan;
  std::istringstream events(text);
  YAML::Parser parser(events);
  while (parser.HandleNextDocument(scan)) {
  }
  if (scan.documents() == 0) return false;
  copy_tree(YAML::Load(text), document);
  return true;
}

}  // namespace kiln::conformance::case_yaml
