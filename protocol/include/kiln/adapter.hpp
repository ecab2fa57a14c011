// The in-process adapter interface. An implementation in C++ derives from
// Adapter; serve() turns any Adapter into a JSON Lines process adapter
// (protocol/PROTOCOL.md), and the runner can also call it directly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>
#include <span>
#include <string>
#include <string_view>

#include "kiln/description.hpp"
#include "kiln/protocol.hpp"

namespace kiln::protocol {

class Adapter {
 public:
  virtual ~Adapter() = default;

  // Who the adapter is and which ops and profiles it offers. Called once per serve().
  virtual Hello hello() = 0;
  // Accept or Reject (or ProtocolError when it cannot answer).
  virtual Outcome decode(std::span<const std::uint8_t> block) = 0;
  // EncodedBlock or Reject (or ProtocolError when it cannot answer).
  virtual Outcome encode(const BlockDescription& description) = 0;

  // Profile hurray-elements, for an adapter whose hello lists it: ElementsAccept,
  // OpaqueAccept (permissive mode only) or ElementsReject; ElementData or
  // ElementsReject. An adapter of kiln-v2 alone keeps these defaults, which
  // serve() never reaches since its hello does not offer the profile.
  virtual Outcome decode_elements(const ElementsDecodeRequest& request);
  virtual Outcome encode_elements(const ElementsEncodeRequest& request);
};

// kiln::decode and kiln::encode, kiln::hurray::decode and encode behind the
// interface; rejects carry the reference's rule ID and byte offset. It offers
// both profiles and every Tier 2 type; its hello asks for 64-bit integers in
// the form given (served, its replies are written in it too).
class ReferenceAdapter final : public Adapter {
 public:
  static constexpr std::string_view kName = "kiln-reference";

  explicit ReferenceAdapter(Int64Form int64 = Int64Form::kNumber) : int64_(int64) {}

  Hello hello() override;
  Outcome decode(std::span<const std::uint8_t> block) override;
  Outcome encode(const BlockDescription& description) override;
  Outcome decode_elements(const ElementsDecodeRequest& request) override;
  Outcome encode_elements(const ElementsEncodeRequest& request) override;

 private:
  Int64Form int64_;
};

// The Tier 2 types a hello names, as the set kiln::hurray takes; names not in
// the table are left out (hello_from_json refuses them).
hurray::TagSet tier2_set(const Hello& hello);
// Every Tier 2 type of the table, by name: what an adapter supporting them all lists.
std::vector<std::string> all_tier2_names();

// The elements of an encode request as the codec takes them; nullopt when one
// is not hex (hurray::element_from_hex).
std::optional<std::vector<hurray::Element>> parse_elements(const std::vector<std::string>& hex);

// The adapter's method for a decode or encode request of either profile (a
// hello request is answered with an error outcome: hello() answers it).
Outcome call(Adapter& adapter, const Request& request);

// One request line in, one reply line out (no newline). Bad input, an op or
// profile the adapter does not offer, an exception from the adapter, or an
// outcome that does not answer the op all become an error reply. offered is
// what adapter.hello() returned; the request's 64-bit fields may come in
// either form, and the reply's are written in the form offered.int64 names.
std::string answer(Adapter& adapter, const Hello& offered, std::string_view line);

// Reads request lines until end of input and writes one flushed reply line per
// request. Returns false when the output stream failed (a reply was not
// written) or the input could not be read (a read error, or a line too long to
// hold in memory), true at a clean end of input.
bool serve(Adapter& adapter, std::istream& in, std::ostream& out);
// The same over file descriptors (kiln-reference-adapter's stdin and stdout),
// with a buffer of its own: a request that comes within 100 us of the last
// reply is waited for by trying the descriptor, yielding the processor
// between tries, and a later one asleep in read. False when reading failed,
// or when a reply could not be written (then write_failed is set).
bool serve(Adapter& adapter, int in, int out, bool& write_failed);

}  // namespace kiln::protocol
