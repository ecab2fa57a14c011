// The checks every fuzz target shares. Each one stops the process with
// __builtin_trap() (after one line on stderr saying what broke) when the
// reference library breaks a promise of the brief, so that libFuzzer, the
// replay main and OSS-Fuzz all see a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kiln/description.hpp"
#include "kiln/error.hpp"

namespace kiln::fuzz {

[[noreturn]] void oracle_failure(std::string_view what);

inline void require(bool holds, std::string_view what) {
  if (!holds) oracle_failure(what);
}

// An error the decoder reports must point inside (or at the end of) the input and
// carry a rule of the table.
void check_error_sound(const Error& error, std::uint64_t input_size);

// Any bytes: accepted blocks re-encode to exactly the input; rejections are sound.
// Returns whether the input was accepted.
bool check_decode(std::span<const std::uint8_t> input);

// Any description: when the encoder accepts it, decoding gives it back and
// re-encoding gives the same bytes; when it refuses, the builder's bytes for it
// are rejected by the decoder with the same rule.
void check_round_trip(const BlockDescription& description);

}  // namespace kiln::fuzz
