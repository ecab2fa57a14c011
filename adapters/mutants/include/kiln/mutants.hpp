// The mutant catalogue: the reference implementation with exactly one realistic
// implementer's bug each. The suite's strength is the share of these it kills.
//
// A mutant is not a copy of the reference: it is the reference library driven
// through a few hooks, each a small strategy. Unset hooks behave as the reference.
//
//   decode(bytes):  input = reshape_input(bytes)            (I/O bugs, big-endian reads, code ranges)
//                   read_frame(input)                        (a relaxed frame reader of the mutant's
//                                                             own: it rejects, or the canonical block
//                                                             of the tensors it read becomes input)
//                   kiln::decode(input, waived)              (missing checks: the lenient decoder)
//                   extra_frame_check(frame-only view)       (sloppy FRAME checks, before any TYPE rule)
//                   extra_type_check(view)                   (sloppy TYPE checks)
//                   alter_accepted(tensors, bytes)           (value bugs on accept)
//                   alter_reject(reject, input)              (wrong reporting)
//   encode(desc):   kiln::build(reorder(desc)), refused when this mutant's decode
//                   rejects the bytes (so a decoder bug is also the encoder's, as in
//                   kiln::encode), then rewrite_encoded (encoder bugs).
//
// Profile hurray-elements (reference/HURRAY.md) goes through HurrayHooks, one
// hook per step of the reference's check order (src/hurray_pipeline.cpp); every
// mutant offers it, and with no hurray hook set it answers as kiln::hurray does.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/adapter.hpp"
#include "kiln/builder.hpp"
#include "kiln/decode.hpp"

namespace kiln::mutants {

using Bytes = std::vector<std::uint8_t>;
using ByteSpan = std::span<const std::uint8_t>;

// The families: where in the format, or in the implementation, a mutant's bug
// lies. Each is built by one function of src/ (the README names it and its file),
// and the catalogue holds them in the order of kFamilies.
inline constexpr std::string_view kFamilyHeader = "header";            // magic
inline constexpr std::string_view kFamilyVersion = "version";
inline constexpr std::string_view kFamilyFlags = "flags";
inline constexpr std::string_view kFamilyReserved = "reserved";        // header and entry bytes
inline constexpr std::string_view kFamilyOffsets = "offsets";
inline constexpr std::string_view kFamilyLengths = "lengths";          // heap and payload
inline constexpr std::string_view kFamilyPadding = "padding";
inline constexpr std::string_view kFamilyTruncation = "truncation";    // and trailing bytes
inline constexpr std::string_view kFamilyNames = "names";
inline constexpr std::string_view kFamilyDtypeRange = "dtype-range";   // code ranges
inline constexpr std::string_view kFamilyBigEndian = "big-endian";     // a field read big-endian
inline constexpr std::string_view kFamilyPacked = "packed";            // i4/u4/e2m1 nibbles
inline constexpr std::string_view kFamilyBool = "bool";
inline constexpr std::string_view kFamilyE8m0 = "e8m0";
inline constexpr std::string_view kFamilyFloatValues = "float-values"; // NaN, -0.0, subnormals
inline constexpr std::string_view kFamilyClosedDtype = "closed-dtype"; // layout, block_size
inline constexpr std::string_view kFamilyShape = "shape";              // element and byte counts
inline constexpr std::string_view kFamilyOpaque = "opaque";
inline constexpr std::string_view kFamilyReporting = "reporting";      // class, rule, order
inline constexpr std::string_view kFamilyEncoder = "encoder";
inline constexpr std::string_view kFamilyRelaxed = "relaxed";          // a check kept but loosened
// Profile hurray-elements (src/catalogue_hurray.cpp).
inline constexpr std::string_view kFamilyHurrayPacking = "hurray-packing";      // bit layouts
inline constexpr std::string_view kFamilyHurrayPadding = "hurray-padding";      // a width unchecked
inline constexpr std::string_view kFamilyHurraySizes = "hurray-sizes";          // N and S
inline constexpr std::string_view kFamilyHurrayTags = "hurray-tags";            // tag ranges, modes
inline constexpr std::string_view kFamilyHurrayValues = "hurray-values";        // bit patterns
inline constexpr std::string_view kFamilyHurrayEncoder = "hurray-encoder";
inline constexpr std::string_view kFamilyHurrayReporting = "hurray-reporting";  // the class
inline constexpr std::string_view kFamilyHurrayRelaxed = "hurray-relaxed";      // loosened checks

inline constexpr std::array kFamilies{
    kFamilyHeader,     kFamilyVersion,    kFamilyFlags,       kFamilyReserved,
    kFamilyOffsets,    kFamilyLengths,    kFamilyPadding,     kFamilyTruncation,
    kFamilyNames,      kFamilyDtypeRange, kFamilyBigEndian,   kFamilyPacked,
    kFamilyBool,       kFamilyE8m0,       kFamilyFloatValues, kFamilyClosedDtype,
    kFamilyShape,      kFamilyOpaque,     kFamilyReporting,   kFamilyEncoder,
    kFamilyRelaxed,    kFamilyHurrayPacking, kFamilyHurrayPadding, kFamilyHurraySizes,
    kFamilyHurrayTags, kFamilyHurrayValues,  kFamilyHurrayEncoder, kFamilyHurrayReporting,
    kFamilyHurrayRelaxed,
};

// The family of control() alone: not a bug, so not in kFamilies.
inline constexpr std::string_view kFamilyControl = "control";

// Bugs that no golden case catches, only a rare combination of content: the
// targets of `kiln-conformance fuzz` (src/fuzz_only.cpp). Not in kFamilies nor
// in catalogue(), so the kill test leaves them out; tests/fuzz_only_test.cpp
// holds them to passing every case and to being found by the fuzzer.
inline constexpr std::string_view kFamilyFuzzOnly = "fuzz-only";

// How an implementation sees a type tag (HURRAY.md 5.1 steps 1 and 2).
struct TagLookup {
  enum class Verdict : std::uint8_t { kType, kNeverValid, kUnrecognized, kOpaque };
  Verdict verdict = Verdict::kUnrecognized;
  const hurray::TypeInfo* type = nullptr;  // kType only
};

// The hurray-elements path. Each hook is one step of the reference's check
// order and, unset, is the reference's own step, so a mutant differs from
// kiln::hurray by the hooks it sets alone (tests/hurray_pipeline_test.cpp).
struct HurrayHooks {
  // Steps 1, 2: the tag in a mode (the encoder asks in strict mode; kOpaque is
  // then refused as unrecognized).
  std::function<TagLookup(std::uint8_t tag, hurray::Mode mode)> look_up;
  // Steps 3, 4: N and S; nullopt is an overflow.
  std::function<std::optional<std::uint64_t>(std::span<const std::uint64_t> shape)> count;
  std::function<std::optional<std::uint64_t>(const hurray::TypeInfo&, std::uint64_t count)> size;
  // The bit layout, shared by the reader and the writer as one implementation
  // shares it: element i of data (bytes past its end read as 0), and element i
  // into out (bits past its end dropped; out starts zeroed).
  std::function<hurray::Element(const hurray::TypeInfo&, ByteSpan data, std::uint64_t index)> read;
  std::function<void(const hurray::TypeInfo&, std::span<std::uint8_t> out, std::uint64_t index,
                     const hurray::Element&)>
      write;
  // Step 5 on the first S bytes. Unset: every bit of the final byte (or 3-byte
  // group) that `write` does not fill is 0.
  std::function<std::optional<hurray::Error>(const hurray::TypeInfo&, std::uint64_t count,
                                             ByteSpan elements)>
      padding;
  // Step 6 and the encoder's pattern check: is this element's pattern refused?
  // Unset: float8_e8m0's 00 and ff, in both directions.
  std::function<bool(const hurray::TypeInfo&, const hurray::Element&, bool encoding)> refused;
  // Value bugs: each accepted element on its way out, each element to encode on its way in.
  std::function<hurray::Element(const hurray::TypeInfo&, hurray::Element)> on_decode;
  std::function<hurray::Element(const hurray::TypeInfo&, hurray::Element)> on_encode;
  bool encoder_checks_count = true;
  bool encoder_checks_range = true;  // false: an element wider than B bits is masked to B bits
  // The encoded S bytes before they are answered.
  std::function<void(const hurray::TypeInfo&, std::uint64_t count, Bytes&)> rewrite_encoded;
  // Every reject (decode: in the request's mode; encode: strict) before it is
  // answered; may answer something else (opaque).
  std::function<protocol::Outcome(protocol::ElementsReject, hurray::Mode mode)> on_reject;
};

struct Mutant {
  std::string_view name;
  std::string_view family;  // one of kFamilies (kFamilyControl for control())
  std::string_view description;  // one line: the bug, as an implementer would make it

  RuleSet waived;
  // Called first in every read of a block: for a decode request (false), or for
  // the encoder reading back what it built (true). For a mutant that keeps
  // state between requests and whose encoder does not share it.
  std::function<void(bool reading_back)> on_read;
  std::function<Bytes(ByteSpan)> reshape_input;
  // The mutant's own frame reader, for bugs in where it reads from (an offset it
  // accepts off its canonical value is read where it points). It rejects, or
  // returns the tensors it read; their canonical block then goes through the rest
  // of the pipeline, so the reference still judges names and dtypes.
  std::function<std::variant<protocol::Reject, BlockDescription>(ByteSpan input)> read_frame;
  // Both checks see a successfully decoded view of input (the frame check one
  // decoded with every TYPE rule waived too) and may reject.
  std::function<std::optional<protocol::Reject>(const BlockView&, ByteSpan input)>
      extra_frame_check;
  std::function<std::optional<protocol::Reject>(const BlockView&, ByteSpan input)>
      extra_type_check;
  std::function<void(BlockDescription&, ByteSpan original)> alter_accepted;
  std::function<void(protocol::Reject&, ByteSpan input)> alter_reject;

  bool encoder_refuses = true;
  // Called first in every encode: a check of the description before anything is
  // built, as an encoder whose API refuses some content up front makes it.
  std::function<std::optional<protocol::Reject>(const BlockDescription&)> refuse_description;
  std::function<void(BlockDescription&)> reorder;
  std::function<void(Bytes&, const Placement&, const BlockDescription&)> rewrite_encoded;

  HurrayHooks hurray;  // the hurray-elements path; unset, the reference's
};

// Every mutant, in catalogue order: family by family, in the order of kFamilies.
// Names are unique.
const std::vector<Mutant>& catalogue();
// The fuzz-only family, in its own list.
const std::vector<Mutant>& fuzz_only_mutants();
// A mutant of catalogue() or of fuzz_only_mutants() by name.
const Mutant* find_mutant(std::string_view name);

// The reference through the same pipeline with no hook set: the control that
// shows a kill comes from the bug, not from the pipeline.
const Mutant& control();

class MutantAdapter final : public protocol::Adapter {
 public:
  explicit MutantAdapter(const Mutant& mutant) : mutant_(mutant) {}

  protocol::Hello hello() override;
  protocol::Outcome decode(std::span<const std::uint8_t> block) override;
  protocol::Outcome encode(const BlockDescription& description) override;
  protocol::Outcome decode_elements(const protocol::ElementsDecodeRequest& request) override;
  protocol::Outcome encode_elements(const protocol::ElementsEncodeRequest& request) override;

 private:
  protocol::Outcome read(std::span<const std::uint8_t> block, bool reading_back);
  const Mutant& mutant_;
};

}  // namespace kiln::mutants
