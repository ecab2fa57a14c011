// A case file's YAML as a read-only tree: what the case loader and each
// profile's case body (Profile::read_case_body) read. It replaces yaml-cpp's
// Node for that reading, because building and walking yaml-cpp's trees was most
// of the time `run` spends loading cases. The members are the subset of
// YAML::Node's interface the readers use, with yaml-cpp's names and meanings,
// so that a reader reads the same either way: a node is a map, a sequence, a
// scalar or null, a plain scalar has the tag "?" and any other "!", and a
// lookup of a missing key gives a node that tests false.
//
// A Node is a handle into its Document: it must not outlive it.
#pragma once

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::conformance::yaml {

class Document;

enum class NodeKind : std::uint8_t { kUndefined, kNull, kScalar, kSequence, kMap };

class Node {
 public:
  Node() = default;  // undefined: what a lookup of a missing key returns

  bool IsDefined() const { return kind() != NodeKind::kUndefined; }
  bool IsNull() const { return kind() == NodeKind::kNull; }
  bool IsScalar() const { return kind() == NodeKind::kScalar; }
  bool IsSequence() const { return kind() == NodeKind::kSequence; }
  bool IsMap() const { return kind() == NodeKind::kMap; }
  explicit operator bool() const { return IsDefined(); }

  // "?" for a plain scalar or a collection, "!" for a quoted or block scalar.
  const std::string& Tag() const;
  // A scalar's text; empty for any other node.
  const std::string& Scalar() const;
  // Where the node starts, 0-based, as yaml-cpp marks it; {-1, -1, -1} when undefined.
  YAML::Mark Mark() const;

  // The number of items of a sequence or of pairs of a map; 0 for any other node.
  std::size_t size() const;
  // A map's value for the first scalar key whose text is key; undefined if
  // there is none or the node is no map. On a scalar it throws yaml-cpp's
  // YAML::BadSubscript, as yaml-cpp's Node does.
  Node operator[](std::string_view key) const;
  Node operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  Node operator[](const std::string& key) const { return (*this)[std::string_view(key)]; }
  // A sequence's item; undefined past its end or for any other node (a
  // template, as yaml-cpp's, so that node[0] is no null pointer to the above).
  template <std::integral Index>
  Node operator[](Index index) const {
    if constexpr (std::signed_integral<Index>)
      if (index < 0) return item(~std::size_t{0});
    return item(static_cast<std::size_t>(index));
  }

  // What iterating gives: a sequence's items, or a map's pairs as first and
  // second (as yaml-cpp's iterator_value, either way).
  struct Item;
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  friend class Document;
  Node(const Document* document, std::uint32_t index) : document_(document), index_(index) {}
  NodeKind kind() const;
  Node item(std::size_t index) const;

  const Document* document_ = nullptr;
  std::uint32_t index_ = 0;
};

struct Node::Item : Node {
  Node first;
  Node second;
};

class Node::Iterator {
 public:
  using value_type = Item;
  using difference_type = std::ptrdiff_t;

  Iterator() = default;  // the end of a node that has no items
  Item operator*() const;
  Iterator& operator++() {
    position_ += pairs_ ? 2 : 1;
    return *this;
  }
  bool operator==(const Iterator& other) const { return position_ == other.position_; }

 private:
  friend class Node;
  Iterator(const Document* document, std::uint32_t position, bool pairs)
      : document_(document), position_(position), pairs_(pairs) {}
  const Document* document_ = nullptr;
  std::uint32_t position_ = 0;  // in the document's children_
  bool pairs_ = false;
};

// The nodes of one file. Built by the case loader (case_loader.cpp) from its
// YAML parser's events, or from yaml-cpp's tree; the builder calls below are
// for those two, in document order.
class Document {
 public:
  Document() = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  // The root, or an undefined node while the document is empty.
  Node root() const { return nodes_.empty() ? Node() : Node(this, 0); }

  // ---- building, in document order: a collection's items between its open and close ----
  void add_null(const YAML::Mark& mark);
  void add_scalar(const YAML::Mark& mark, std::string text, bool plain);
  void open(NodeKind kind, const YAML::Mark& mark);  // kSequence or kMap
  void close();
  std::size_t depth() const { return open_.size(); }
  void reserve(std::size_t nodes);

 private:
  friend class Node;
  struct NodeData {
    NodeKind kind;
    bool plain;
    YAML::Mark mark;
    std::uint32_t text;    // a scalar: index in texts_
    std::uint32_t first;   // a collection: its first entry in children_
    std::uint32_t count;   // a collection: its entries in children_ (2 a pair for a map)
  };
  struct Open {
    std::uint32_t node;
    std::size_t pending_start;  // where its items begin in pending_
  };

  void add(NodeData data);

  std::vector<NodeData> nodes_;
  std::vector<std::string> texts_;
  std::vector<std::uint32_t> children_;  // each collection's items, contiguous
  std::vector<std::uint32_t> pending_;   // items of the collections still open
  std::vector<Open> open_;
};

}  // namespace kiln::conformance::yaml
