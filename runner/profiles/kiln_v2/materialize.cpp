#include "kiln/conformance/kiln_v2/materialize.hpp"

#include <regex>

#include "kiln/conformance/short_match.hpp"

#include "kiln/conformance/kiln_v2/case.hpp"
#include "profiles/kiln_v2/values.hpp"

namespace kiln::conformance {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

Checked<std::uint64_t> base_position(const std::string& base, const Placement& placement) {
  if (base == "start") return std::uint64_t{0};
  if (base == "directory") return kHeaderSize;
  if (base == "heap") return placement.heap_start;
  if (base == "heap_end") {
    std::uint64_t end = 0;
    if (__builtin_add_overflow(placement.heap_start, placement.heap_length, &end))
      return std::string("the heap's end lies beyond 2^64 - 1");
    return end;
  }
  if (base == "payload") return placement.payload_offset;
  if (base == "end") return placement.size;
  static const std::regex kTensorPart(R"(^tensor\[([0-9]+)\]\.([a-z_]+)$)");
  std::smatch match;
  if (!short_match(base, match, kTensorPart)) return "unknown anchor '" + base + "'";
  const auto index = parse_u64(match[1].str());  // no stoull: 20 digits must not throw
  if (!index || *index >= placement.tensors.size())
    return "anchor '" + base + "' names a tensor the description does not have";
  const TensorPlacement& at = placement.tensors[*index];
  const std::string part = match[2].str();
  if (part == "entry") return at.entry;
  if (part == "shape") return at.shape;
  if (part == "name") return at.name;
  if (part == "layout") return at.layout;
  if (part == "segment_end") return at.segment_end;
  if (part == "data") return at.data;
  if (part == "data_end") return at.data_end;
  return "unknown tensor part '" + part + "'";
}

}  // namespace

Checked<std::uint64_t> resolve_anchor(const Anchor& anchor, const Placement& placement) {
  if (auto absolute = parse_u64(anchor.text)) return *absolute;
  static const std::regex kAnchor(R"(^([a-z_]+(\[[0-9]+\]\.[a-z_]+)?)(([+-])([0-9]+))?$)");
  std::smatch match;
  if (!short_match(anchor.text, match, kAnchor))
    return "anchor '" + anchor.text + "' is not <base>[+-N] or an offset";
  auto base = base_position(match[1].str(), placement);
  if (!base) return base.error();
  std::uint64_t position = base.value();
  if (match[3].matched) {
    auto delta = parse_u64(match[5].str());
    if (!delta) return "anchor '" + anchor.text + "' has a bad offset";
    if (match[4].str() == "-") {
      if (*delta > position) return "anchor '" + anchor.text + "' is before the block's start";
      position -= *delta;
    } else if (__builtin_add_overflow(position, *delta, &position)) {
      // Unchecked, end+18446744073709551615 would wrap around to end-1.
      return "anchor '" + anchor.text + "' lies beyond 2^64 - 1";
    }
  }
  return position;
}

std::optional<std::string> anchor_problem(const Anchor& anchor, std::size_t tensor_count) {
  // Every position far from both ends, so only the anchor's own form can fail.
  constexpr std::uint64_t kFar = std::uint64_t{1} << 62;
  Placement placement{kFar, kFar, kFar, kFar, kFar, {}};
  placement.tensors.assign(tensor_count, TensorPlacement{kFar, kFar, kFar, kFar, kFar, kFar, kFar});
  auto resolved = resolve_anchor(anchor, placement);
  if (!resolved) return resolved.error();
  return std::nullopt;
}

Checked<Materialized> materialize(const Case& test_case) {
  const KilnCase& body = kiln_v2::body(test_case);
  auto built = build(body.description);
  if (!built) {
    if (!body.faults.empty())
      return "the description cannot be placed (" + built.error().message +
             "), so faults cannot apply";
    return Materialized{std::nullopt, built.error()};
  }
  std::vector<std::uint8_t> bytes = std::move(built.value().bytes);
  const Placement& placement = built.value().placement;

  std::size_t number = 0;
  for (const Fault& fault : body.faults) {
    ++number;
    const std::string which = "fault " + std::to_string(number) + ": ";
    std::optional<std::string> problem = std::visit(
        Overloaded{
            [&](const SetField& set) -> std::optional<std::string> {
              std::uint64_t base = 0;
              if (set.tensor) {
                if (*set.tensor >= placement.tensors.size())
                  return "tensor[" + std::to_string(*set.tensor) + "] does not exist";
                base = placement.tensors[*set.tensor].entry;
              }
              const Field* field = find_field(set.field, set.tensor.has_value());
              if (!field) return "no field '" + set.field + "'";
              if (!write_field(bytes, base, *field, set.value))
                return "field '" + set.field + "' lies past the block's end";
              return std::nullopt;
            },
            [&](const Overwrite& overwrite) -> std::optional<std::string> {
              auto at = resolve_anchor(overwrite.at, placement);
              if (!at) return at.error();
              const std::uint64_t position = at.value();
              if (position > bytes.size() || bytes.size() - position < overwrite.bytes.size())
                return "overwrite at " + std::to_string(position) + " runs past the end (" +
                       std::to_string(bytes.size()) + " bytes)";
              std::copy(overwrite.bytes.begin(), overwrite.bytes.end(), bytes.begin() + position);
              return std::nullopt;
            },
            [&](const Truncate& truncate) -> std::optional<std::string> {
              auto to = resolve_anchor(truncate.to, placement);
              if (!to) return to.error();
              const std::uint64_t length = to.value();
              if (length >= bytes.size())
                return "truncate to " + std::to_string(length) + " does not shorten " +
                       std::to_string(bytes.size()) + " bytes";
              bytes.resize(length);
              return std::nullopt;
            },
            [&](const Append& append) -> std::optional<std::string> {
              bytes.insert(bytes.end(), append.bytes.begin(), append.bytes.end());
              return std::nullopt;
            },
        },
        fault);
    if (problem) return which + *problem;
  }
  return Materialized{std::move(bytes), std::nullopt};
}

}  // namespace kiln::conformance
