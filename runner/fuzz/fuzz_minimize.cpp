#include "kiln/conformance/fuzz_minimize.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "kiln/builder.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance {
namespace {

// Counts predicate calls against the budget.
template <class Predicate, class Candidate>
class Trial {
 public:
  Trial(const Predicate& still_fails, std::size_t budget)
      : still_fails_(still_fails), left_(budget) {}
  bool exhausted() const { return left_ == 0; }
  bool operator()(const Candidate& candidate) {
    if (left_ == 0) return false;
    --left_;
    return still_fails_(candidate);
  }

 private:
  const Predicate& still_fails_;
  std::size_t left_;
};

// The smaller variants of one tensor, most shrinking first.
std::vector<TensorDescription> smaller_tensors(const TensorDescription& tensor) {
  std::vector<TensorDescription> smaller;
  const auto with = [&](auto change) {
    TensorDescription copy = tensor;
    change(copy);
    if (!(copy == tensor)) smaller.push_back(std::move(copy));
  };
  if (tensor.name.size() > 1) {
    with([](auto& t) { t.name.resize(t.name.size() / 2); });
    with([](auto& t) { t.name.erase(0, 1); });
    with([](auto& t) { t.name.pop_back(); });
  }
  if (!tensor.payload.empty()) {
    with([](auto& t) { t.payload.clear(); });
    with([](auto& t) { t.payload.resize(t.payload.size() / 2); });
    with([](auto& t) { t.payload.erase(t.payload.begin()); });
  }
  for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis) {
    with([&](auto& t) { t.shape.erase(t.shape.begin() + static_cast<std::ptrdiff_t>(axis)); });
    with([&](auto& t) { t.shape[axis] = std::min<std::uint64_t>(t.shape[axis], 1); });
    with([&](auto& t) { t.shape[axis] = 0; });
  }
  if (tensor.layout.size() > 1) with([](auto& t) { t.layout.resize(t.layout.size() / 2); });
  if (!tensor.layout.empty()) with([](auto& t) { t.layout.clear(); });
  if (tensor.block_size != 0) with([](auto& t) { t.block_size = 0; });
  // Same size, simpler bytes: zeros (the payload last, as the value rules live there).
  for (std::size_t at = 0; at < tensor.payload.size() && at < 64; ++at)
    if (tensor.payload[at] != 0) with([&](auto& t) { t.payload[at] = 0; });
  return smaller;
}

}  // namespace

BlockDescription minimize_description(BlockDescription description,
                                      const DescriptionPredicate& still_fails, std::size_t budget) {
  Trial<DescriptionPredicate, BlockDescription> trial(still_fails, budget);
  for (bool shrunk = true; shrunk && !trial.exhausted();) {
    shrunk = false;
    for (std::size_t i = description.tensors.size(); i-- > 0 && !trial.exhausted();) {
      BlockDescription fewer = description;
      fewer.tensors.erase(fewer.tensors.begin() + static_cast<std::ptrdiff_t>(i));
      if (trial(fewer)) {
        description = std::move(fewer);
        shrunk = true;
      }
    }
    for (std::size_t i = 0; i < description.tensors.size() && !trial.exhausted(); ++i) {
      for (bool again = true; again && !trial.exhausted();) {
        again = false;
        for (TensorDescription& candidate : smaller_tensors(description.tensors[i])) {
          BlockDescription smaller = description;
          smaller.tensors[i] = std::move(candidate);
          if (trial(smaller)) {
            description = std::move(smaller);
            shrunk = again = true;
            break;
          }
        }
      }
    }
  }
  return description;
}

std::vector<std::uint8_t> minimize_block(std::vector<std::uint8_t> block,
                                         const BlockPredicate& still_fails, std::size_t budget) {
  using Bytes = std::vector<std::uint8_t>;
  Trial<BlockPredicate, std::span<const std::uint8_t>> trial(still_fails, budget);

  // Canonical blocks shrink far better as descriptions: every offset follows.
  // A block with a field broken often fails the same way rebuilt canonical.
  if (auto lenient = mutate::read_leniently(block)) {
    auto built = build(*lenient);
    if (built && (built.value().bytes == block ||
                  trial(std::span<const std::uint8_t>(built.value().bytes)))) {
      const DescriptionPredicate rebuilt_fails = [&](const BlockDescription& candidate) {
        auto rebuilt = build(candidate);
        return rebuilt && trial(std::span<const std::uint8_t>(rebuilt.value().bytes));
      };
      const BlockDescription smallest = minimize_description(*lenient, rebuilt_fails, budget);
      if (auto rebuilt = build(smallest)) block = std::move(rebuilt.value().bytes);
    }
  }

  // Then bytes: cut the end, drop runs, zero bytes.
  for (std::size_t run = std::max<std::size_t>(block.size() / 2, 1); run > 0 && !trial.exhausted();
       run /= 2) {
    while (block.size() >= run && !trial.exhausted()) {
      const Bytes cut(block.begin(), block.end() - static_cast<std::ptrdiff_t>(run));
      if (!trial(cut)) break;
      block = cut;
    }
    for (std::size_t at = block.size(); at >= run && !trial.exhausted();) {
      at -= run;
      Bytes fewer = block;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(at),
                  fewer.begin() + static_cast<std::ptrdiff_t>(at + run));
      if (trial(fewer)) block = std::move(fewer);
      if (at > block.size()) at = block.size();
    }
  }
  for (std::size_t at = 0; at < block.size() && !trial.exhausted(); ++at) {
    if (block[at] == 0) continue;
    Bytes zeroed = block;
    zeroed[at] = 0;
    if (trial(zeroed)) block = std::move(zeroed);
  }
  return block;
}

namespace {

// Elements of the same width, all zero: the simplest value an element can hold.
std::string zero_like(const std::string& element) { return std::string(element.size(), '0'); }

// The smaller variants of a hurray-elements input, most shrinking first.
std::vector<ElementsInput> smaller_inputs(const ElementsInput& input, Operation op) {
  std::vector<ElementsInput> smaller;
  const auto with = [&](auto change) {
    ElementsInput copy = input;
    change(copy);
    if (op == Operation::kDecode) cut_past_size(copy);
    if (!(copy == input)) smaller.push_back(std::move(copy));
  };
  // Fewer elements, the data or the elements following: how a count shrinks
  // while a count-off-by-one or a short buffer keeps its offset.
  if (const auto count = hurray::element_count(input.shape); count && *count > 0 && *count <= (1u << 20)) {
    for (const std::uint64_t fewer : {*count / 2, *count - 1}) {
      with([&](ElementsInput& t) {
        t.shape = {fewer};
        const std::uint64_t drop = *count - fewer;
        t.elements.resize(t.elements.size() > drop ? static_cast<std::size_t>(t.elements.size() - drop) : 0);
      });
    }
  }
  for (std::size_t axis = 0; axis < input.shape.size(); ++axis) {
    with([&](ElementsInput& t) { t.shape.erase(t.shape.begin() + static_cast<std::ptrdiff_t>(axis)); });
    with([&](ElementsInput& t) { t.shape[axis] = std::min<std::uint64_t>(t.shape[axis], 1); });
    with([&](ElementsInput& t) { t.shape[axis] = 0; });
    with([&](ElementsInput& t) { t.shape[axis] /= 2; });
  }
  if (input.mode == hurray::Mode::kPermissive) with([](ElementsInput& t) { t.mode = hurray::Mode::kStrict; });
  if (!input.data.empty()) {
    with([](ElementsInput& t) { t.data.resize(t.data.size() / 2); });
    with([](ElementsInput& t) { t.data.pop_back(); });
    for (std::size_t at = 0; at < input.data.size() && at < 64; ++at)
      with([&](ElementsInput& t) { t.data.erase(t.data.begin() + static_cast<std::ptrdiff_t>(at)); });
  }
  if (!input.elements.empty()) with([](ElementsInput& t) { t.elements.pop_back(); });
  for (std::size_t at = 0; at < input.elements.size() && at < 64; ++at)
    with([&](ElementsInput& t) { t.elements.erase(t.elements.begin() + static_cast<std::ptrdiff_t>(at)); });
  // Same size, simpler bytes and values: zeros.
  for (std::size_t at = 0; at < input.data.size() && at < 256; ++at)
    if (input.data[at] != 0) with([&](ElementsInput& t) { t.data[at] = 0; });
  for (std::size_t at = 0; at < input.elements.size() && at < 256; ++at)
    with([&](ElementsInput& t) { t.elements[at] = zero_like(t.elements[at]); });
  return smaller;
}

}  // namespace

void cut_past_size(ElementsInput& input) {
  const hurray::TypeInfo* type = hurray::type_by_tag(input.tag);
  if (!type) return;
  const auto count = hurray::element_count(input.shape);
  const auto size = count ? hurray::data_size(*type, *count) : std::nullopt;
  if (size && input.data.size() > *size) input.data.resize(static_cast<std::size_t>(*size));
}

ElementsInput minimize_elements(ElementsInput input, Operation op, const ElementsPredicate& still_fails,
                                std::size_t budget) {
  Trial<ElementsPredicate, ElementsInput> trial(still_fails, budget);
  // After a success the list is made again from the smaller input and the pass
  // goes on where it was: the candidates before it failed just now, and most
  // still fail.
  for (bool shrunk = true; shrunk && !trial.exhausted();) {
    shrunk = false;
    std::vector<ElementsInput> candidates = smaller_inputs(input, op);
    for (std::size_t at = 0; at < candidates.size() && !trial.exhausted(); ++at) {
      if (!trial(candidates[at])) continue;
      input = std::move(candidates[at]);
      candidates = smaller_inputs(input, op);
      shrunk = true;
    }
  }
  return input;
}

}  // namespace kiln::conformance
