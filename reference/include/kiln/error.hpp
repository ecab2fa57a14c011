// The one error type of the reference library, and a small result wrapper.
// The reference never throws on bad input: it returns one of these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "kiln/rules.hpp"

namespace kiln {

struct Error {
  Rule rule;
  std::uint64_t offset = 0;              // byte offset in the block where the defect is
  std::optional<std::uint32_t> tensor;   // directory index, when one tensor is at fault
  std::string message;                   // one line, free text

  ErrorClass error_class() const noexcept { return rule_info(rule).error_class; }
  std::string_view rule_id() const noexcept { return rule_info(rule).id; }
  // "FRAME FRAME-MAGIC at byte 0: ..." (with "tensor N" when one is at fault).
  std::string describe() const;
};

// E is the error type: kiln::Error for Kiln blocks, kiln::hurray::Error for the
// Hurray element codec (hurray.hpp).
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT: implicit by design
  Result(E error) : state_(std::move(error)) {}          // NOLINT: implicit by design

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const E& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, E> state_;
};

}  // namespace kiln
