// The hurray-elements minimizer of a fuzz finding, and the cut of its data to S.
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/conformance/hurray_elements/minimize.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "fuzz/minimize_budget.hpp"

namespace kiln::conformance {

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
