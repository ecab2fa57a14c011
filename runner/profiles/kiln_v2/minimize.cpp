// The kiln-v2 minimizers of a fuzz finding: a description, then a block.
#include "kiln/conformance/kiln_v2/minimize.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "fuzz/minimize_budget.hpp"
#include "kiln/builder.hpp"
#include "kiln/conformance/kiln_v2/case.hpp"
#include "kiln/mutate/mutate.hpp"

namespace kiln::conformance {
namespace {

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

}  // namespace kiln::conformance
