// The hurray path of the mutant adapter with no hook set, against kiln::hurray
// (through ReferenceAdapter): a Hurray mutant must differ from the reference by
// its hooks alone, and a Kiln mutant (no hurray hook) must answer hurray
// requests exactly as the reference does. Compared on every hurray case and on
// random requests, rule and offset included.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "hurray_pipeline.hpp"
#include "kiln/conformance/case_loader.hpp"
#include "kiln/conformance/hurray_elements/case.hpp"
#include "kiln/mutants.hpp"

namespace kiln::mutants {
namespace {

std::string describe(const protocol::Outcome& outcome) {
  if (const auto* accept = std::get_if<protocol::ElementsAccept>(&outcome)) {
    std::string text = "accept " + std::to_string(accept->elements.size()) + " bits " +
                       std::to_string(accept->bits) + ":";
    for (const auto& element : accept->elements) text += " " + hurray::element_to_hex(element, 128);
    return text;
  }
  if (const auto* reject = std::get_if<protocol::ElementsReject>(&outcome))
    return "reject " + std::string(hurray::to_string(reject->error_class)) + " " +
           reject->rule.value_or("-") + " at " +
           (reject->offset ? std::to_string(*reject->offset) : std::string("-"));
  if (const auto* data = std::get_if<protocol::ElementData>(&outcome)) {
    std::string text = "data";
    for (const std::uint8_t byte : data->bytes) text += " " + std::to_string(byte);
    return text;
  }
  if (std::holds_alternative<protocol::OpaqueAccept>(outcome)) return "opaque";
  if (const auto* error = std::get_if<protocol::ProtocolError>(&outcome)) return "error " + error->message;
  return "other";
}

// Messages are free text; everything else must agree.
void expect_same(const protocol::Outcome& reference, const protocol::Outcome& pipeline,
                 const std::string& what) {
  EXPECT_EQ(describe(reference), describe(pipeline)) << what;
}

std::string request_text(const protocol::ElementsDecodeRequest& request) {
  std::string text = "decode tag " + std::to_string(request.tag) + " shape [";
  for (const auto d : request.shape) text += std::to_string(d) + ",";
  text += std::string("] ") + std::string(hurray::to_string(request.mode)) + " data";
  for (const auto b : request.data) text += " " + std::to_string(b);
  return text;
}

std::string request_text(const protocol::ElementsEncodeRequest& request) {
  std::string text = "encode tag " + std::to_string(request.tag) + " shape [";
  for (const auto d : request.shape) text += std::to_string(d) + ",";
  text += "] elements";
  for (const auto& e : request.elements) text += " " + e;
  return text;
}

TEST(HurrayPipeline, WithNoHookAgreesWithTheReferenceOnEveryHurrayCase) {
  const conformance::CaseSet set = conformance::load_case_set(KILN_CASES_DIR);
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().describe();
  protocol::ReferenceAdapter reference;
  const HurrayHooks none;
  std::size_t compared = 0;
  for (const conformance::Case& c : set.cases) {
    const auto* found = c.body_as<conformance::ElementsCase>();
    if (!found) continue;
    const conformance::ElementsCase& body = *found;
    if (body.data) {
      const protocol::ElementsDecodeRequest request{c.id, body.tag, body.shape, body.decode_mode(),
                                                    *body.data};
      expect_same(reference.decode_elements(request), hurray_path::decode(none, request), c.id);
      ++compared;
    }
    if (body.elements) {
      const protocol::ElementsEncodeRequest request{c.id, body.tag, body.shape, *body.elements};
      expect_same(reference.encode_elements(request), hurray_path::encode(none, request), c.id);
      ++compared;
    }
  }
  EXPECT_GT(compared, 400u);
}

TEST(HurrayPipeline, WithNoHookAgreesWithTheReferenceOnRandomRequests) {
  std::mt19937_64 random(20240611);
  protocol::ReferenceAdapter reference;
  const HurrayHooks none;
  const std::vector<std::vector<std::uint64_t>> shapes{
      {}, {0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {13}, {2, 3}, {3, 0},
      {0, ~std::uint64_t{0}}, {std::uint64_t{1} << 32, std::uint64_t{1} << 32},
      {~std::uint64_t{0}}, {std::uint64_t{1} << 62}, {std::uint64_t{1} << 60}};
  const auto byte = [&] {
    // Mostly 00 and ff (padding, e8m0), the rest anything.
    const std::uint64_t r = random();
    return static_cast<std::uint8_t>(r % 4 == 0 ? 0x00 : r % 4 == 1 ? 0xFF : r >> 8);
  };
  for (unsigned tag = 0; tag < 256; ++tag)
    for (const auto& shape : shapes)
      for (int round = 0; round < 6; ++round) {
        protocol::ElementsDecodeRequest decode;
        decode.tag = static_cast<std::uint8_t>(tag);
        decode.shape = shape;
        decode.mode = round % 2 ? hurray::Mode::kPermissive : hurray::Mode::kStrict;
        decode.data.resize(random() % 40);
        for (auto& b : decode.data) b = byte();
        if (round >= 2) {
          // Exactly S bytes, where S is small: the path that reads elements.
          const hurray::TypeInfo* type = hurray::type_by_tag(decode.tag);
          const auto count = hurray::element_count(shape);
          const auto size = type && count ? hurray::data_size(*type, *count) : std::nullopt;
          if (size && *size <= 64) decode.data.resize(*size, 0x5A);
        }
        expect_same(reference.decode_elements(decode), hurray_path::decode(none, decode),
                    request_text(decode));

        protocol::ElementsEncodeRequest encode;
        encode.tag = decode.tag;
        encode.shape = shape;
        const auto count = hurray::element_count(shape);
        std::size_t given = count && *count <= 16 ? static_cast<std::size_t>(*count) : random() % 3;
        if (round == 5) given += 1;  // the count check
        static constexpr char kDigits[] = "0123456789abcdef";
        for (std::size_t i = 0; i < given; ++i) {
          // Up to 34 digits: in range for some widths, one bit over for others.
          std::string hex(1 + random() % 34, '0');
          for (char& digit : hex) digit = kDigits[random() % 3 == 0 ? 0 : random() % 16];
          if (round == 4 && i == 0) hex = random() % 2 ? "0" : "ff";
          encode.elements.push_back(hex);
        }
        expect_same(reference.encode_elements(encode), hurray_path::encode(none, encode),
                    request_text(encode));
      }
}

bool any_hurray_hook(const HurrayHooks& hooks) {
  return hooks.look_up || hooks.count || hooks.size || hooks.read || hooks.write || hooks.padding ||
         hooks.refused || hooks.on_decode || hooks.on_encode || !hooks.encoder_checks_count ||
         !hooks.encoder_checks_range || hooks.rewrite_encoded || hooks.on_reject;
}

bool any_kiln_hook(const Mutant& m) {
  return !m.waived.empty() || m.reshape_input || m.read_frame || m.extra_frame_check ||
         m.extra_type_check || m.alter_accepted || m.alter_reject || !m.encoder_refuses ||
         m.refuse_description || m.reorder || m.rewrite_encoded;
}

// A Hurray mutant is the reference on kiln-v2 requests, and a Kiln mutant the
// reference on hurray-elements ones: each has its one bug in one profile.
TEST(HurrayPipeline, EveryMutantHasItsHooksInOneProfile) {
  for (const Mutant& m : catalogue()) {
    const bool hurray_family = m.family.starts_with("hurray-");
    EXPECT_EQ(any_hurray_hook(m.hurray), hurray_family) << m.name;
    EXPECT_EQ(any_kiln_hook(m), !hurray_family) << m.name;
    if (hurray_family) {
      EXPECT_TRUE(m.name.starts_with("hurray-")) << m.name;
    }
  }
  EXPECT_FALSE(any_hurray_hook(control().hurray));
  EXPECT_FALSE(any_kiln_hook(control()));
}

// The hello every mutant gives: both profiles and every Tier 2 type.
TEST(HurrayPipeline, TheHelloOffersBothProfilesAndEveryTier2Type) {
  MutantAdapter adapter(control());
  const protocol::Hello hello = adapter.hello();
  EXPECT_TRUE(hello.offers_profile(protocol::kProfileKilnV2));
  EXPECT_TRUE(hello.offers_profile(protocol::kProfileHurrayElements));
  EXPECT_EQ(hello.hurray_tier2, protocol::all_tier2_names());
}

}  // namespace
}  // namespace kiln::mutants
