#include <exception>
#include <optional>
#include <istream>
#include <ostream>

#include "kiln/adapter.hpp"

namespace kiln::protocol {
namespace {

// The request's "id", echoed in its reply; nullopt when it has none the
// runner would send (an unsigned integer).
std::optional<std::uint64_t> request_id(const Json& request) {
  if (!request.is_object()) return std::nullopt;
  const auto id = request.find("id");
  if (id == request.end() || !id->is_number_unsigned()) return std::nullopt;
  return id->get<std::uint64_t>();
}

std::string error_line(std::string_view message, std::optional<std::uint64_t> id = std::nullopt) {
  // An error message can come from an adapter and hold any bytes, any number of
  // them: cut it, and replace what JSON cannot carry rather than fail to answer.
  Json reply = outcome_to_json(ProtocolError{bounded_message(message)});
  if (id) reply["id"] = *id;
  return reply.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "nothing" : text;
}

Checked<Json> reply_to(Adapter& adapter, const Hello& offered, const Request& request) {
  const Op op = op_of(request);
  if (const auto* hello = std::get_if<HelloRequest>(&request)) {
    if (hello->protocol != kProtocolVersion)
      return Failure("protocol " + std::to_string(hello->protocol) +
                     " is not supported; this adapter speaks protocol " +
                     std::to_string(kProtocolVersion));
    return hello_to_json(offered);
  }
  if (!offered.offers_op(op))
    return Failure("this adapter does not offer " + std::string(to_string(op)) +
                   " (it offers " + list(offered.ops) + ")");
  const std::string_view profile = profile_of(request);
  if (!offered.offers_profile(profile))
    return Failure("profile " + quoted_excerpt(profile) +
                   " is not supported (this adapter offers " +
                   list(offered.profiles) + ")");
  const Outcome outcome = call(adapter, request);
  if (!answers(outcome, op, profile))
    return Failure("adapter bug: its " + std::string(to_string(op)) +
                   " produced a result that does not answer a " + std::string(profile) +
                   " " + std::string(to_string(op)));
  // Replies in the form the hello promised: a client that asked for strings
  // may read numbers through a double too.
  return outcome_to_json(outcome, offered.int64);
}

}  // namespace

Outcome call(Adapter& adapter, const Request& request) {
  return std::visit(
      [&](const auto& message) -> Outcome {
        using T = std::decay_t<decltype(message)>;
        if constexpr (std::is_same_v<T, DecodeRequest>) return adapter.decode(message.block);
        else if constexpr (std::is_same_v<T, EncodeRequest>) return adapter.encode(message.description);
        else if constexpr (std::is_same_v<T, ElementsDecodeRequest>) return adapter.decode_elements(message);
        else if constexpr (std::is_same_v<T, ElementsEncodeRequest>) return adapter.encode_elements(message);
        else return ProtocolError{"hello is answered by the adapter's hello()"};
      },
      request);
}

Outcome Adapter::decode_elements(const ElementsDecodeRequest&) {
  return ProtocolError{"this adapter does not implement profile hurray-elements"};
}

Outcome Adapter::encode_elements(const ElementsEncodeRequest&) {
  return ProtocolError{"this adapter does not implement profile hurray-elements"};
}

hurray::TagSet tier2_set(const Hello& hello) {
  hurray::TagSet set;
  for (const auto& name : hello.hurray_tier2)
    if (const hurray::TypeInfo* type = hurray::type_by_name(name); type && type->tier == hurray::Tier::k2)
      set.add(type->tag);
  return set;
}

std::vector<std::string> all_tier2_names() {
  std::vector<std::string> names;
  for (const hurray::TypeInfo& type : hurray::kTypes)
    if (type.tier == hurray::Tier::k2) names.emplace_back(type.name);
  return names;
}

std::optional<std::vector<hurray::Element>> parse_elements(const std::vector<std::string>& hex) {
  std::vector<hurray::Element> elements;
  elements.reserve(hex.size());
  for (const auto& text : hex) {
    auto element = hurray::element_from_hex(text);
    if (!element) return std::nullopt;
    elements.push_back(*element);
  }
  return elements;
}

std::string answer(Adapter& adapter, const Hello& offered, std::string_view line) {
  // The id ties every reply, an error too, to its request (PROTOCOL.md, "Replies").
  std::optional<std::uint64_t> id;
  try {
    auto json = parse_line(line);
    if (!json) return error_line(json.error());
    id = request_id(json.value());
    auto request = request_from_json(json.value());
    if (!request) return error_line(request.error(), id);
    auto reply = reply_to(adapter, offered, request.value());
    if (!reply) return error_line(reply.error(), id);
    if (id) reply.value()["id"] = *id;
    auto text = to_line(reply.value());
    if (!text) return error_line("the reply cannot be written as JSON: " + text.error(), id);
    return std::move(text).value();
  } catch (const std::exception& error) {
    // Out of memory for a huge block, or an adapter that throws: answer and go on.
    return error_line(std::string("the adapter failed: ") + error.what(), id);
  }
}

bool serve(Adapter& adapter, std::istream& in, std::ostream& out) {
  const Hello offered = adapter.hello();
  std::string line;
  while (std::getline(in, line)) {
    out << answer(adapter, offered, line) << '\n' << std::flush;
    if (!out) return false;
  }
  // getline stops on end of input, and also on a read error or a line too long
  // to hold (it sets badbit, not throws): only the first is a clean end.
  return !in.bad();
}

}  // namespace kiln::protocol
