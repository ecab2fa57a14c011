#include "oracles.hpp"

#include <algorithm>
#include <cstdio>

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

void check_error_sound(const Error& error, std::uint64_t input_size) {
  require(error.offset <= input_size, "error offset lies past the end of the input");
  bool known = false;
  for (const RuleInfo& info : all_rules()) known = known || info.rule == error.rule;
  require(known, "error rule is not in kiln::all_rules()");
  require(rule_info(error.rule).error_class == error.error_class(),
          "error class disagrees with the rule table");
}

// With every waivable rule waived the decoder must stay inside the input, fail
// only on the bounds it never waives, and read a valid block exactly as the
// strict decoder does.
// Also with a subset of waivers picked from the input's bytes, since single
// waivers (what the mutants use) take mixed paths that waiving all never does.
DecodeOptions waivers(std::span<const std::uint8_t> input, bool all) {
  std::uint64_t mask = 0xcbf29ce484222325ull;  // FNV-1a over the input: a stable choice
  for (std::uint8_t byte : input) mask = (mask ^ byte) * 0x100000001b3ull;
  DecodeOptions options;
  for (const RuleInfo& info : all_rules())
    if (is_waivable(info.rule) && (all || (mask >> static_cast<unsigned>(info.rule)) & 1u))
      options.waived.add(info.rule);
  return options;
}

void check_lenient_decode(std::span<const std::uint8_t> input, const Result<BlockView>& strict,
                          bool all) {
  const DecodeOptions options = waivers(input, all);
  const auto decoded = decode(input, options);
  if (!decoded) {
    check_error_sound(decoded.error(), input.size());
    // Only the bounds parts of these two rules survive a waiver.
    const Rule rule = decoded.error().rule;
    require(!options.waived.contains(rule) || rule == Rule::kFrameHeapLength ||
                rule == Rule::kFramePayloadLength,
            "a lenient decode failed on a waived rule");
    require(!strict.ok(), "a lenient decode rejects a block the strict decoder accepts");
    return;
  }
  if (strict.ok())
    require(decoded.value().to_description() == strict.value().to_description(),
            "a lenient decode reads a valid block differently");
}

bool check_decode(std::span<const std::uint8_t> input) {
  const auto decoded = decode(input);
  check_lenient_decode(input, decoded, /*all=*/true);
  check_lenient_decode(input, decoded, /*all=*/false);
  if (!decoded) {
    check_error_sound(decoded.error(), input.size());
    return false;
  }
  const auto reencoded = encode(decoded.value().to_description());
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
