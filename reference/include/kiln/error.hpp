// The one error type of the reference library, and the one result wrapper of
// the project (Result, and Checked for a value or a message). The reference
// never throws on bad input: it returns one of these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
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

// The error half of a Result, said out loud: `return Failure(message);`. A
// Result is made to hold an error this way wherever the error could be taken for
// a value (Result<std::string, std::string>, Result<Json, std::string>: a
// message is a valid value of either), and it works everywhere else too.
template <class E>
class Failure {
 public:
  explicit Failure(E error) : error(std::move(error)) {}
  E error;
};
template <class E>
Failure(E) -> Failure<E>;

// A value, or the error saying why there is none. E is the error type:
// kiln::Error for Kiln blocks, kiln::hurray::Error for the Hurray element codec
// (hurray.hpp), a one-line message for everything else (Checked, below).
// Result<void, E> is the form for an operation that has no value to return.
//
// A value converts to a Result implicitly. So does an error, but only where it
// cannot be mistaken for a value (neither type converts to the other): the
// reference's `return Error{...};`. Elsewhere, and wherever it reads better, an
// error goes in through Failure.
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  // Anything that converts to a value, as it would to T (`return std::nullopt;`
  // for an optional T): one conversion, where Result(T) would need two.
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, Result> && !std::is_same_v<std::remove_cvref_t<U>, T> &&
             std::is_convertible_v<U &&, T>)
  Result(U&& value)  // NOLINT: implicit by design
      : state_(std::in_place_index<0>, std::forward<U>(value)) {}
  Result(E error)  // NOLINT: implicit by design
    requires(!std::is_convertible_v<const E&, T> && !std::is_convertible_v<const T&, E>)
      : state_(std::in_place_index<1>, std::move(error)) {}
  template <class G>
    requires std::is_constructible_v<E, G>
  Result(Failure<G> failure)  // NOLINT: implicit by design
      : state_(std::in_place_index<1>, std::move(failure.error)) {}

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  // As for an optional: the value (checked like value()).
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  E& error() & { return std::get<1>(state_); }
  const E& error() const& { return std::get<1>(state_); }
  E&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, E> state_;
};

// Success with nothing to return (`return {};`), or the error.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  template <class G>
    requires std::is_constructible_v<E, G>
  Result(Failure<G> failure) : error_(std::move(failure.error)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }

  E& error() & { return error_.value(); }
  const E& error() const& { return error_.value(); }
  E&& error() && { return std::move(error_).value(); }

 private:
  std::optional<E> error_;
};

// Checked<T>: a value, or a one-line message for a person saying why there is
// none. It is what the adapter protocol's parsers and the runner's file, process
// and report steps return (Checked<void> where success has no value): their
// message is the whole report, with no rule or offset as in an Error. The name
// says what the caller holds: the outcome of a check that either passed with a
// value or failed with the reason.
template <class T>
using Checked = Result<T, std::string>;

}  // namespace kiln
