#include "kiln/conformance/yaml_document.hpp"

#include <limits>
#include <stdexcept>

namespace kiln::conformance::yaml {

namespace {
const std::string kPlainTag = "?";
const std::string kOtherTag = "!";
const std::string kNoText;
}  // namespace

NodeKind Node::kind() const {
  return document_ ? document_->nodes_[index_].kind : NodeKind::kUndefined;
}

const std::string& Node::Tag() const {
  switch (kind()) {
    case NodeKind::kScalar: return document_->nodes_[index_].plain ? kPlainTag : kOtherTag;
    case NodeKind::kSequence:
    case NodeKind::kMap: return kPlainTag;
    default: return kNoText;
  }
}

const std::string& Node::Scalar() const {
  if (!IsScalar()) return kNoText;
  return document_->texts_[document_->nodes_[index_].text];
}

YAML::Mark Node::Mark() const {
  return document_ ? document_->nodes_[index_].mark : YAML::Mark::null_mark();
}

std::size_t Node::size() const {
  switch (kind()) {
    case NodeKind::kSequence: return document_->nodes_[index_].count;
    case NodeKind::kMap: return document_->nodes_[index_].count / 2;
    default: return 0;
  }
}

Node Node::operator[](std::string_view key) const {
  if (IsScalar()) throw YAML::BadSubscript(Mark(), std::string(key));
  if (!IsMap()) return Node();
  const Document::NodeData& map = document_->nodes_[index_];
  for (std::uint32_t i = map.first; i < map.first + map.count; i += 2) {
    const Node candidate(document_, document_->children_[i]);
    if (candidate.IsScalar() && candidate.Scalar() == key)
      return Node(document_, document_->children_[i + 1]);
  }
  return Node();
}

Node Node::item(std::size_t index) const {
  if (IsScalar()) throw YAML::BadSubscript(Mark(), index);
  if (!IsSequence() || index >= size()) return Node();
  return Node(document_, document_->children_[document_->nodes_[index_].first + index]);
}

Node::Iterator Node::begin() const {
  if (!IsSequence() && !IsMap()) return Iterator();
  return Iterator(document_, document_->nodes_[index_].first, IsMap());
}

Node::Iterator Node::end() const {
  if (!IsSequence() && !IsMap()) return Iterator();
  const Document::NodeData& data = document_->nodes_[index_];
  return Iterator(document_, data.first + data.count, IsMap());
}

Node::Item Node::Iterator::operator*() const {
  Item item;
  if (pairs_) {
    item.first = Node(document_, document_->children_[position_]);
    item.second = Node(document_, document_->children_[position_ + 1]);
  } else {
    static_cast<Node&>(item) = Node(document_, document_->children_[position_]);
  }
  return item;
}

// ---- building ----

void Document::reserve(std::size_t nodes) {
  nodes_.reserve(nodes);
  children_.reserve(nodes);
  pending_.reserve(nodes);
}

void Document::add(NodeData data) {
  // Indices are 32-bit: far more than the loader's node bound lets a file have.
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("too many YAML nodes");
  if (!open_.empty()) pending_.push_back(static_cast<std::uint32_t>(nodes_.size()));
  nodes_.push_back(data);
}

void Document::add_null(const YAML::Mark& mark) { add({NodeKind::kNull, false, mark, 0, 0, 0}); }

void Document::add_scalar(const YAML::Mark& mark, std::string text, bool plain) {
  add({NodeKind::kScalar, plain, mark, static_cast<std::uint32_t>(texts_.size()), 0, 0});
  texts_.push_back(std::move(text));
}

void Document::open(NodeKind kind, const YAML::Mark& mark) {
  add({kind, false, mark, 0, 0, 0});
  open_.push_back({static_cast<std::uint32_t>(nodes_.size() - 1), pending_.size()});
}

void Document::close() {
  const Open closing = open_.back();
  open_.pop_back();
  NodeData& data = nodes_[closing.node];
  data.first = static_cast<std::uint32_t>(children_.size());
  data.count = static_cast<std::uint32_t>(pending_.size() - closing.pending_start);
  children_.insert(children_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(closing.pending_start),
                   pending_.end());
  pending_.resize(closing.pending_start);
}

}  // namespace kiln::conformance::yaml
