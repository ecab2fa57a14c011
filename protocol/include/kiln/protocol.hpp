// The adapter protocol, version 1 (protocol/PROTOCOL.md): the plain values an
// adapter and the runner exchange, and their JSON form, for both sides. Every
// parse function takes untrusted text or JSON and never throws on bad input: it
// returns a kiln::Checked (error.hpp) holding either the value or a one-line
// message that names the offending field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/description.hpp"
#include "kiln/error.hpp"
#include "kiln/hurray.hpp"
#include "kiln/rules.hpp"

namespace kiln::protocol {

// Insertion-ordered, so lines come out in the documented field order.
using Json = nlohmann::ordered_json;

inline constexpr std::uint64_t kProtocolVersion = 1;
inline constexpr std::string_view kProfileKilnV2 = "kiln-v2";
inline constexpr std::string_view kProfileHurrayElements = "hurray-elements";
inline constexpr std::string_view kOpHello = "hello";
inline constexpr std::string_view kOpDecode = "decode";
inline constexpr std::string_view kOpEncode = "encode";

// The longest reply line the runner reads: 64 MiB of slack for names, shapes and
// messages, plus the hex of the largest block it sends or expects back.
inline constexpr std::uint64_t kReplyLineSlack = std::uint64_t{64} << 20;
constexpr std::uint64_t max_reply_line_bytes(std::uint64_t largest_block_bytes) noexcept {
  return kReplyLineSlack + 2 * largest_block_bytes;
}

// The most of one free-text message from an adapter (a reject or error message,
// a detail) that is kept and reported, as stderr's tail is bounded: a 30 MB
// message must not be stored per result and copied into every report.
inline constexpr std::size_t kMaxMessageBytes = 16 * 1024;

// The most of a short name from an adapter (hello's name and version, an item of
// its ops or profiles, a reject's rule ID) that is kept and reported.
inline constexpr std::size_t kMaxNameBytes = 256;
// The most entries hello's ops or profiles may list (a longer list is an
// error): protocol 1 has three ops and one profile, and the lists are copied
// into every report.
inline constexpr std::size_t kMaxListEntries = 64;
// The most of a value from the other side quoted inside one of our messages
// ("unknown op ..."), so that a message never grows with the input.
inline constexpr std::size_t kMaxExcerptBytes = 128;

// Limits of the one JSON reader every line from outside goes through
// (parse_line, protocol/PROTOCOL.md "Line limits"). The deepest protocol message,
// an accept reply, nests 4 levels (reply, tensors, tensor, shape) and its widest
// object has 6 members: the limits leave room for members added later but keep
// out lines that would exhaust the stack when copied, dumped or destroyed, or
// take quadratic time (an ordered object finds a member by linear search).
inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxObjectMembers = 64;

// text cut to at most `limit` bytes on a UTF-8 boundary, with a note saying how
// many bytes were cut; text within the limit comes back unchanged.
std::string bounded_message(std::string_view text, std::size_t limit = kMaxMessageBytes);

// Outside text made safe for one line of a console or a line-oriented file:
// valid UTF-8 is kept; control characters (\n, \r, \t by name) and every byte
// that is not part of valid UTF-8 are written as escapes (\xNN). A newline in a
// hello name or a message then cannot start a line of its own (a forged
// "CONFORMANT:" line, a new expected-failures entry), and the result is UTF-8.
std::string printable(std::string_view text);

// text as a JSON string literal (quotes, escapes), cut like bounded_message: how
// a message quotes a value it was given.
std::string quoted_excerpt(std::string_view text, std::size_t limit = kMaxExcerptBytes);

// The kind of a JSON value, for a message that names what a value is without
// quoting it (a value from outside may be of any size): "object", "array",
// "string", "number", "boolean" or "null" (a value parsed from text is one of these).
std::string_view json_kind(const Json& value) noexcept;

// A value for a message: a number, boolean or null as written (short), anything
// else by its kind ("a string", "an array", "an object").
std::string describe_json_value(const Json& value);

// ---- 64-bit integers (PROTOCOL.md, "64-bit integers") ----

// How a writer puts the fields the protocol types as 64-bit (shape dimensions,
// a reject's offset): JSON numbers, or decimal strings for a reader whose JSON
// numbers go through a double (hello's "int64": "string"). Readers take both.
// Every other integer (dtype, block_size, tag, protocol, id) is always a number.
enum class Int64Form : std::uint8_t { kNumber, kString };
// "number" or "string", as hello's "int64" names the form.
std::string_view to_string(Int64Form form) noexcept;
std::optional<Int64Form> int64_form_from_string(std::string_view text) noexcept;

// A 64-bit field's value in the form asked for.
Json uint64_to_json(std::uint64_t value, Int64Form form);
// The value of a canonical decimal string: ASCII digits only, no sign, no
// leading zero except "0" itself, at most 2^64 - 1; nullopt for anything else.
std::optional<std::uint64_t> uint64_from_decimal(std::string_view text) noexcept;
// A 64-bit field in either form: a JSON number 0..2^64-1 or its canonical
// decimal string. The message names field and says what is wrong.
Checked<std::uint64_t> uint64_from_json(const Json& value, std::string_view field);

// ---- Requests (runner -> adapter) ----

enum class Op : std::uint8_t { kHello, kDecode, kEncode };
std::string_view to_string(Op op) noexcept;
std::optional<Op> op_from_string(std::string_view text) noexcept;

struct HelloRequest {
  std::uint64_t protocol = kProtocolVersion;
  bool operator==(const HelloRequest&) const = default;
};

struct DecodeRequest {
  std::string case_id;  // informational; empty when the request had no "case"
  std::string profile{kProfileKilnV2};
  std::vector<std::uint8_t> block;
  bool operator==(const DecodeRequest&) const = default;
};

struct EncodeRequest {
  std::string case_id;
  std::string profile{kProfileKilnV2};
  BlockDescription description;
  bool operator==(const EncodeRequest&) const = default;
};

// Profile hurray-elements (reference/HURRAY.md): one tensor's element layer.
// A request without "mode" is strict.
struct ElementsDecodeRequest {
  std::string case_id;
  std::uint8_t tag = 0;
  std::vector<std::uint64_t> shape;
  hurray::Mode mode = hurray::Mode::kStrict;
  std::vector<std::uint8_t> data;
  bool operator==(const ElementsDecodeRequest&) const = default;
};

struct ElementsEncodeRequest {
  std::string case_id;
  std::uint8_t tag = 0;
  std::vector<std::uint64_t> shape;
  // Each element's bit pattern as hex, as the case writes it and the wire
  // carries it; validated as hex when parsed.
  std::vector<std::string> elements;
  bool operator==(const ElementsEncodeRequest&) const = default;
};

using Request = std::variant<HelloRequest, DecodeRequest, EncodeRequest, ElementsDecodeRequest,
                             ElementsEncodeRequest>;
Op op_of(const Request& request) noexcept;
// The profile a request is for, and the case it names; empty for hello.
std::string_view profile_of(const Request& request) noexcept;
std::string_view case_id_of(const Request& request) noexcept;

// ---- Replies (adapter -> runner) ----

struct Hello {
  std::string name;
  std::string version;
  std::uint64_t protocol = kProtocolVersion;
  std::vector<std::string> ops{std::string(kOpDecode), std::string(kOpEncode)};
  std::vector<std::string> profiles{std::string(kProfileKilnV2)};
  // The Tier 2 types of hurray-elements the adapter supports, by name (absent:
  // none). Parsing refuses a name that is not a Tier 2 type of the table.
  std::vector<std::string> hurray_tier2;
  // The form it wants the 64-bit fields of requests in ("int64"; absent: numbers).
  Int64Form int64 = Int64Form::kNumber;

  bool offers_op(Op op) const;
  bool supports_tier2(std::string_view type_name) const;
  bool offers_profile(std::string_view profile) const;
  bool operator==(const Hello&) const = default;
};

// decode: the block is valid; these are its tensors.
struct Accept {
  BlockDescription description;
  bool operator==(const Accept&) const = default;
};

// decode or encode: the content is invalid. Only the class is compared; rule
// and offset are extras that help a reader of the report.
struct Reject {
  ErrorClass error_class = ErrorClass::kFrame;
  std::string message;
  std::optional<std::string> rule;
  std::optional<std::uint64_t> offset;
  bool operator==(const Reject&) const = default;
};

// encode: the canonical block.
struct EncodedBlock {
  std::vector<std::uint8_t> bytes;
  bool operator==(const EncodedBlock&) const = default;
};

// The adapter could not understand or could not answer the request. Never a
// rejection: the runner fails the case.
struct ProtocolError {
  std::string message;
  bool operator==(const ProtocolError&) const = default;
};

// ---- hurray-elements replies ----

// decode: the tensor is valid; its N element bit patterns.
struct ElementsAccept {
  std::vector<hurray::Element> elements;
  // The type's width B, for writing each element as exactly ceil(B / 4) hex
  // digits; 0 (a parsed reply) writes the fewest digits. Not compared.
  unsigned bits = 0;
  bool operator==(const ElementsAccept& other) const { return elements == other.elements; }
};

// decode in permissive mode: the tag is not recognized and the bytes were not
// interpreted.
struct OpaqueAccept {
  bool operator==(const OpaqueAccept&) const = default;
};

// decode or encode: refused, TAG or DATA. Only the class is compared.
struct ElementsReject {
  hurray::ErrorClass error_class = hurray::ErrorClass::kData;
  std::string message;
  std::optional<std::string> rule;
  std::optional<std::uint64_t> offset;
  bool operator==(const ElementsReject&) const = default;
};

// encode: the packed data bytes.
struct ElementData {
  std::vector<std::uint8_t> bytes;
  bool operator==(const ElementData&) const = default;
};

using Outcome = std::variant<Accept, Reject, EncodedBlock, ProtocolError, ElementsAccept,
                             OpaqueAccept, ElementsReject, ElementData>;

// A hurray reject carrying the reference error's class, rule ID, offset and message.
ElementsReject reject_from(const hurray::Error& error);

// A reject carrying the reference error's class, rule ID, offset and description.
Reject reject_from(const Error& error);

// ---- Tensor descriptions ----

// {"name","dtype","shape","layout","block_size","payload"}; layout is null when
// empty; the shape's dimensions in the form asked for. where prefixes messages
// ("tensors[2]"). Readers take either form.
Json tensor_to_json(const TensorDescription& tensor, Int64Form form = Int64Form::kNumber);
Checked<TensorDescription> tensor_from_json(const Json& json, std::string_view where = "tensor");
Json tensors_to_json(const BlockDescription& description, Int64Form form = Int64Form::kNumber);
Checked<BlockDescription> tensors_from_json(const Json& json,
                                             std::string_view where = "tensors");

// ---- Whole messages ----

// form: the adapter's hello's int64 (the runner writes what the adapter asked for).
Json request_to_json(const Request& request, Int64Form form = Int64Form::kNumber);
Checked<Request> request_from_json(const Json& json);

// "int64" is written only for the string form (absent means numbers), so a
// hello of numbers is written as before the member existed.
Json hello_to_json(const Hello& hello);
Checked<Hello> hello_from_json(const Json& json);

// form: how an adapter writes its replies' 64-bit fields (serve() uses its hello's).
Json outcome_to_json(const Outcome& outcome, Int64Form form = Int64Form::kNumber);
// Which results are valid depends on the op and the profile of the request the
// reply answers: kiln-v2 decode admits accept, reject and error; encode block,
// reject and error. hurray-elements decode admits accept (elements), opaque,
// reject and error; encode data, reject and error.
Checked<Outcome> outcome_from_json(const Json& json, Op answered,
                                    std::string_view profile = kProfileKilnV2);
// Does the outcome answer a request of this op and profile? (An error always does.)
bool answers(const Outcome& outcome, Op op, std::string_view profile);
// What came back, short, as reports show it ("accept", "block", "reject FRAME
// (FRAME-MAGIC)", "error: ..."); a rule and an error's message are bounded, and
// a reject's message is left out (reports show it apart, when the case fails).
std::string outcome_summary(const Outcome& outcome);

// ---- Lines ----

// Parses one line of text as one JSON value (the callers then require an
// object): valid UTF-8; no raw control byte (JSON allows only tab, CR and LF,
// and only between tokens); at most kMaxJsonDepth levels of arrays and objects
// and kMaxObjectMembers members per object, checked by a linear scan before
// anything is built; then one JSON value with nothing after it but white space.
// Messages give the byte offset of the problem.
Checked<Json> parse_line(std::string_view line);
// The same, and the line may hold at most max_values JSON values (arrays,
// objects and scalars, counted by the same scan): a reply is refused before it
// is built when it holds more than any answer to its request can.
Checked<Json> parse_line(std::string_view line, std::size_t max_values);
// The same checks, then the value built through nlohmann's parser callback,
// which may drop what it has read (a reader that keeps a file's items compact);
// an exception the callback throws stops the parse and reaches the caller.
Checked<Json> parse_line(std::string_view line, const Json::parser_callback_t& callback);
// The bound on a reply's values: four per byte of its request line, and 64
// more. No answer needs more: a Hurray accept has one element per element of
// the request's data, at most eight per data byte (two hex digits); a Kiln
// accept has a tensor per 64-byte directory entry and a dimension per 8 bytes.
std::size_t max_reply_values(std::size_t request_line_bytes) noexcept;
// Compact JSON without the newline. Fails only when a string is not valid UTF-8
// (JSON cannot carry it).
Checked<std::string> to_line(const Json& json);

// The checks parse_line makes before it builds anything (UTF-8, raw control
// bytes, nesting, members, values): the problem, worded as parse_line words
// it, or nullopt.
std::optional<std::string> line_problem(std::string_view line,
                                        std::size_t max_values = static_cast<std::size_t>(-1));

// ---- Lines without a Json: what a line costs besides the pipe ----
//
// The runner and serve() write and read each line of a run through these
// first. They give the same lines and the same values as the Json functions
// (to_line(request_to_json(...)), parse_line and request_from_json, ...), and
// decline (false, nullopt) every line they do not handle: a string that is not
// valid UTF-8, an escape in a member name or a hex string, an unknown or
// repeated member, a value of another type or out of range, anything that is
// not JSON. The caller then takes the Json path, which alone words every error,
// so a line is judged the same either way.

// Appends to_line(request_to_json(request, form)) with "id": id last, as the
// runner sends a request; false, out unchanged, when to_line would fail.
bool append_request_line(std::string& out, const Request& request, Int64Form form, std::uint64_t id);
// Appends to_line(outcome_to_json(outcome, form)) with "id" last when given,
// as serve() writes a reply; false, out unchanged, when to_line would fail.
bool append_outcome_line(std::string& out, const Outcome& outcome, Int64Form form,
                         std::optional<std::uint64_t> id);

struct ReadRequest {
  Request request;
  std::optional<std::uint64_t> id;  // the request's "id", when it has one
};
// request_from_json(parse_line(line)) and the request's id, for a line that
// parses; nullopt for a line the Json path must read (it may still be valid).
std::optional<ReadRequest> read_request_line(std::string_view line);
// The reply to a request of op answered and profile, with id and the case
// named case_id, as the runner takes it: outcome_from_json(parse_line(line,
// max_values)), for a reply that echoes the request's id and case or neither;
// echoed_id says whether it echoed the id. nullopt for a reply the Json path
// must read (a reply it would refuse among them).
std::optional<Outcome> read_reply_line(std::string_view line, std::size_t max_values, Op answered,
                                       std::string_view profile, std::uint64_t id,
                                       std::string_view case_id, bool& echoed_id);

// Conveniences over the two steps above.
Checked<Request> parse_request(std::string_view line);
Checked<Hello> parse_hello_reply(std::string_view line);
Checked<Outcome> parse_reply(std::string_view line, Op answered,
                              std::string_view profile = kProfileKilnV2);

}  // namespace kiln::protocol
