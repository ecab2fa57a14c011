#include "oracles.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/encode.hpp"
#include "kiln/rules.hpp"

namespace kiln::fuzz {

void oracle_failure(std::string_view what) {
  std::fprintf(stderr, "kiln fuzz oracle broken: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::fflush(stderr);
  __builtin_trap();
}

namespace {

// The harness's own loops over the input or the rule table teach the fuzzer
// nothing about the reference, yet under -fsanitize=fuzzer each comparison in
// them is a call into libFuzzer (perf: a fifth of fuzz_decode's time went to
// hashing the input and walking all_rules() per input). Clang only: GCC has
// no such attribute and builds no coverage anyway.
#if defined(__clang__)
#define KILN_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define KILN_FUZZ_NO_COVERAGE
#endif

// What the oracles need from kiln::all_rules(), read from it once. Plain
// arrays: at -O1 std::array's operator[] stays a call, instrumented.
struct RuleTables {
  bool known[256] = {};  // by the rule's underlying value
  ErrorClass error_class[256] = {};
  Rule waivable[64] = {};  // a RuleSet holds at most 64 rules
  std::size_t waivable_count = 0;
  DecodeOptions all_waived;
};

const RuleTables& rule_tables() {
  static const RuleTables tables = [] {
    static_assert(sizeof(Rule) == 1, "the tables index rules by a byte");
    RuleTables built;
    for (const RuleInfo& info : all_rules()) {
      const auto value = static_cast<std::uint8_t>(info.rule);
      built.known[value] = true;
      built.error_class[value] = info.error_class;
      if (is_waivable(info.rule)) {
        built.waivable[built.waivable_count++] = info.rule;
        built.all_waived.waived.add(info.rule);
      }
    }
    return built;
  }();
  return tables;
}

// A stable choice of waivers for each input: a hash of its bytes, eight at a
// time (FNV-1a's byte steps were 4% of the run), each word's high half folded
// down, then murmur3's finalizer, so that every byte reaches the low bits the
// rules take.
KILN_FUZZ_NO_COVERAGE std::uint64_t input_hash(std::span<const std::uint8_t> input) {
  std::uint64_t hash = 0xcbf29ce484222325ull ^ input.size();
  const std::uint8_t* byte = input.data();
  std::size_t left = input.size();
  const auto step = [&hash](std::uint64_t word) {
    hash = (hash ^ word) * 0x100000001b3ull;
    hash ^= hash >> 32;
  };
  for (; left >= 8; byte += 8, left -= 8) {
    std::uint64_t word;
    std::memcpy(&word, byte, 8);
    step(word);
  }
  if (left != 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, byte, left);
    step(word);
  }
  hash = (hash ^ (hash >> 33)) * 0xff51afd7ed558ccdull;
  hash = (hash ^ (hash >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return hash ^ (hash >> 33);
}

// The waivable rules whose bit (by rule value) is set in the input's hash.
KILN_FUZZ_NO_COVERAGE DecodeOptions subset_waivers(std::span<const std::uint8_t> input) {
  const std::uint64_t mask = input_hash(input);
  const RuleTables& tables = rule_tables();
  DecodeOptions options;
  for (std::size_t i = 0; i < tables.waivable_count; ++i) {
    const Rule rule = tables.waivable[i];
    if ((mask >> static_cast<unsigned>(rule)) & 1u) options.waived.add(rule);
  }
  return options;
}

// With every waivable rule waived the decoder must stay inside the input, fail
// only on the bounds it never waives, and read a valid block exactly as the
// strict decoder does (strict_description: the strict read's, when it accepted).
// Also with a subset of waivers picked from the input's bytes, since single
// waivers (what the mutants use) take mixed paths that waiving all never does.
void check_lenient_decode(std::span<const std::uint8_t> input, const DecodeOptions& options,
                          const BlockDescription* strict_description) {
  const auto decoded = decode(input, options);
  if (!decoded) {
    check_error_sound(decoded.error(), input.size());
    // Only the bounds parts of these two rules survive a waiver.
    const Rule rule = decoded.error().rule;
    require(!options.waived.contains(rule) || rule == Rule::kFrameHeapLength ||
                rule == Rule::kFramePayloadLength,
            "a lenient decode failed on a waived rule");
    require(strict_description == nullptr,
            "a lenient decode rejects a block the strict decoder accepts");
    return;
  }
  if (strict_description != nullptr)
    require(decoded.value().to_description() == *strict_description,
            "a lenient decode reads a valid block differently");
}

}  // namespace

void check_error_sound(const Error& error, std::uint64_t input_size) {
  require(error.offset <= input_size, "error offset lies past the end of the input");
  const RuleTables& tables = rule_tables();
  const auto value = static_cast<std::uint8_t>(error.rule);
  require(tables.known[value], "error rule is not in kiln::all_rules()");
  require(tables.error_class[value] == error.error_class(),
          "error class disagrees with the rule table");
}

bool check_decode(std::span<const std::uint8_t> input) {
  const auto decoded = decode(input);
  // Built once: both lenient reads and the re-encoding compare against it.
  std::optional<BlockDescription> description;
  if (decoded) description = decoded.value().to_description();
  const BlockDescription* strict = description ? &*description : nullptr;
  check_lenient_decode(input, rule_tables().all_waived, strict);
  check_lenient_decode(input, subset_waivers(input), strict);
  if (!decoded) {
    check_error_sound(decoded.error(), input.size());
    return false;
  }
  const auto reencoded = encode(*description);
  require(reencoded.ok(), "the encoder refuses a description the decoder accepted");
  const auto& bytes = reencoded.value();
  require(bytes.size() == input.size() &&
              std::equal(bytes.begin(), bytes.end(), input.begin()),
          "encode(decode(b)) differs from b");
  return true;
}

void check_round_trip(const BlockDescription& description) {
  const auto encoded = encode(description);
  const auto built = build(description);
  if (encoded) {
    const auto& bytes = encoded.value();
    require(built.ok() && built.value().bytes == bytes,
            "the encoder's bytes differ from the builder's canonical bytes");
    const auto decoded = decode(bytes);
    require(decoded.ok(), "the decoder rejects a block the encoder wrote");
    const BlockDescription back = decoded.value().to_description();
    require(back == description, "decode(encode(d)) differs from d");
    const auto again = encode(back);
    require(again.ok() && again.value() == bytes, "re-encoding a decoded block changes its bytes");
    return;
  }
  const Error& refusal = encoded.error();
  if (!built) {
    // Only a field that cannot hold its value stops the builder; the encoder must
    // give that same reason.
    require(built.error().rule == refusal.rule, "encoder and builder refuse for different rules");
    return;
  }
  const auto decoded = decode(built.value().bytes);
  require(!decoded.ok(), "the decoder accepts the builder's bytes for a refused description");
  check_error_sound(decoded.error(), built.value().bytes.size());
  require(decoded.error().rule == refusal.rule,
          "the encoder's refusal and the decoder's rejection cite different rules");
}

}  // namespace kiln::fuzz
