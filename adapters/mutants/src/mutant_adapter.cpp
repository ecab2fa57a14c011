// The pipeline of kiln/mutants.hpp: the reference library, with each hook a
// mutant sets applied at its one place.
#include <utility>

#include "hurray_pipeline.hpp"
#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/mutants.hpp"
#include "kiln/rules.hpp"

namespace kiln::mutants {
namespace {

RuleSet with_every_type_rule(RuleSet waived) {
  for (const RuleInfo& info : all_rules())
    if (info.error_class == ErrorClass::kType) waived.add(info.rule);
  return waived;
}

}  // namespace

protocol::Hello MutantAdapter::hello() {
  protocol::Hello hello;
  hello.name = "kiln-mutant-" + std::string(mutant_.name);
  hello.version = KILN_PROJECT_VERSION;
  // Both profiles and every Tier 2 type, as ReferenceAdapter: a Kiln mutant
  // answers hurray requests as the reference does, and a Hurray mutant has its
  // every type's cases run.
  hello.profiles = {std::string(protocol::kProfileKilnV2),
                    std::string(protocol::kProfileHurrayElements)};
  hello.hurray_tier2 = protocol::all_tier2_names();
  return hello;
}

protocol::Outcome MutantAdapter::decode(std::span<const std::uint8_t> block) { return read(block, false); }

protocol::Outcome MutantAdapter::read(std::span<const std::uint8_t> block, bool reading_back) {
  if (mutant_.on_read) mutant_.on_read(reading_back);
  Bytes reshaped;
  ByteSpan input = block;
  if (mutant_.reshape_input) {
    reshaped = mutant_.reshape_input(block);
    input = reshaped;
  }

  auto finish = [&](protocol::Reject reject) -> protocol::Outcome {
    if (mutant_.alter_reject) mutant_.alter_reject(reject, input);
    return reject;
  };

  // A relaxed frame reader: what it read goes on as its canonical block.
  if (mutant_.read_frame) {
    auto read = mutant_.read_frame(input);
    if (auto* reject = std::get_if<protocol::Reject>(&read)) return finish(std::move(*reject));
    auto rebuilt = kiln::build(std::get<BlockDescription>(read));
    if (!rebuilt) return finish(protocol::reject_from(rebuilt.error()));
    reshaped = std::move(rebuilt.value().bytes);
    input = reshaped;
  }

  // A sloppy FRAME check belongs to the frame, so it runs before any TYPE rule.
  if (mutant_.extra_frame_check) {
    auto frame = kiln::decode(input, DecodeOptions{with_every_type_rule(mutant_.waived)});
    if (frame)
      if (auto reject = mutant_.extra_frame_check(frame.value(), input)) return finish(*reject);
  }
  auto decoded = kiln::decode(input, DecodeOptions{mutant_.waived});
  if (!decoded) return finish(protocol::reject_from(decoded.error()));
  if (mutant_.extra_type_check)
    if (auto reject = mutant_.extra_type_check(decoded.value(), input)) return finish(*reject);

  BlockDescription tensors = decoded.value().to_description();
  if (mutant_.alter_accepted) mutant_.alter_accepted(tensors, block);
  return protocol::Accept{std::move(tensors)};
}

protocol::Outcome MutantAdapter::encode(const BlockDescription& description) {
  if (mutant_.refuse_description)
    if (auto reject = mutant_.refuse_description(description)) return std::move(*reject);
  BlockDescription ordered = description;
  if (mutant_.reorder) mutant_.reorder(ordered);
  auto built = kiln::build(ordered);
  if (!built) return protocol::reject_from(built.error());
  // As kiln::encode: refuse what this implementation's own reader rejects.
  if (mutant_.encoder_refuses) {
    protocol::Outcome read_back = read(built.value().bytes, true);
    if (auto* reject = std::get_if<protocol::Reject>(&read_back)) return std::move(*reject);
  }
  Bytes bytes = std::move(built.value().bytes);
  if (mutant_.rewrite_encoded) mutant_.rewrite_encoded(bytes, built.value().placement, ordered);
  return protocol::EncodedBlock{std::move(bytes)};
}

protocol::Outcome MutantAdapter::decode_elements(const protocol::ElementsDecodeRequest& request) {
  return hurray_path::decode(mutant_.hurray, request);
}

protocol::Outcome MutantAdapter::encode_elements(const protocol::ElementsEncodeRequest& request) {
  return hurray_path::encode(mutant_.hurray, request);
}

}  // namespace kiln::mutants
