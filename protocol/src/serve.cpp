#include <exception>
#include <istream>
#include <ostream>

#include "kiln/adapter.hpp"

namespace kiln::protocol {
namespace {

std::string error_line(std::string_view message) {
  // An error message can come from an adapter and hold any bytes, any number of
  // them: cut it, and replace what JSON cannot carry rather than fail to answer.
  return outcome_to_json(ProtocolError{bounded_message(message)})
      .dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "nothing" : text;
}

// Does this outcome answer the op? A decode never yields a block, an encode
// never yields tensors.
bool answers(const Outcome& outcome, Op op) {
  if (std::holds_alternative<Accept>(outcome)) return op == Op::kDecode;
  if (std::holds_alternative<EncodedBlock>(outcome)) return op == Op::kEncode;
  return true;
}

Expected<Json> reply_to(Adapter& adapter, const Hello& offered, const Request& request) {
  const Op op = op_of(request);
  if (const auto* hello = std::get_if<HelloRequest>(&request)) {
    if (hello->protocol != kProtocolVersion)
      return Expected<Json>::failure("protocol " + std::to_string(hello->protocol) +
                                     " is not supported; this adapter speaks protocol " +
                                     std::to_string(kProtocolVersion));
    return hello_to_json(offered);
  }
  if (!offered.offers_op(op))
    return Expected<Json>::failure("this adapter does not offer " + std::string(to_string(op)) +
                                   " (it offers " + list(offered.ops) + ")");
  const std::string& profile = op == Op::kDecode ? std::get<DecodeRequest>(request).profile
                                                 : std::get<EncodeRequest>(request).profile;
  if (!offered.offers_profile(profile))
    return Expected<Json>::failure("profile " + quoted_excerpt(profile) +
                                   " is not supported (this adapter offers " +
                                   list(offered.profiles) + ")");
  const Outcome outcome = op == Op::kDecode
                              ? adapter.decode(std::get<DecodeRequest>(request).block)
                              : adapter.encode(std::get<EncodeRequest>(request).description);
  if (!answers(outcome, op))
    return Expected<Json>::failure("adapter bug: its " + std::string(to_string(op)) +
                                   " produced a result that does not answer " +
                                   std::string(to_string(op)));
  return outcome_to_json(outcome);
}

}  // namespace

std::string answer(Adapter& adapter, const Hello& offered, std::string_view line) {
  try {
    auto request = parse_request(line);
    if (!request) return error_line(request.error());
    auto reply = reply_to(adapter, offered, request.value());
    if (!reply) return error_line(reply.error());
    auto text = to_line(reply.value());
    if (!text) return error_line("the reply cannot be written as JSON: " + text.error());
    return std::move(text).value();
  } catch (const std::exception& error) {
    // Out of memory for a huge block, or an adapter that throws: answer and go on.
    return error_line(std::string("the adapter failed: ") + error.what());
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
