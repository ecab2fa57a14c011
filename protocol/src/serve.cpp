#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <exception>
#include <new>
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

// The outcome of a decode or encode request, or why there is none.
Checked<Outcome> outcome_for(Adapter& adapter, const Hello& offered, const Request& request) {
  const Op op = op_of(request);
  if (!offered.offers_op(op))
    return Failure("this adapter does not offer " + std::string(to_string(op)) +
                   " (it offers " + list(offered.ops) + ")");
  const std::string_view profile = profile_of(request);
  if (!offered.offers_profile(profile))
    return Failure("profile " + quoted_excerpt(profile) +
                   " is not supported (this adapter offers " +
                   list(offered.profiles) + ")");
  Outcome outcome = call(adapter, request);
  if (!answers(outcome, op, profile))
    return Failure("adapter bug: its " + std::string(to_string(op)) +
                   " produced a result that does not answer a " + std::string(profile) +
                   " " + std::string(to_string(op)));
  return outcome;
}

// The reply line to a request, written into out (cleared first).
void answer_into(Adapter& adapter, const Hello& offered, std::string_view line, std::string& out) {
  out.clear();
  // The id ties every reply, an error too, to its request (PROTOCOL.md, "Replies").
  std::optional<std::uint64_t> id;
  try {
    // Read without a Json when the line is one read_request_line takes; the
    // Json path reads every other line and words its errors.
    std::optional<Request> request;
    if (auto read = read_request_line(line)) {
      id = read->id;
      request = std::move(read->request);
    } else {
      auto json = parse_line(line);
      if (!json) {
        out = error_line(json.error());
        return;
      }
      id = request_id(json.value());
      auto parsed = request_from_json(json.value());
      if (!parsed) {
        out = error_line(parsed.error(), id);
        return;
      }
      request = std::move(parsed).value();
    }
    Json reply;
    if (const auto* hello = std::get_if<HelloRequest>(&*request)) {
      if (hello->protocol != kProtocolVersion) {
        out = error_line("protocol " + std::to_string(hello->protocol) +
                             " is not supported; this adapter speaks protocol " +
                             std::to_string(kProtocolVersion),
                         id);
        return;
      }
      reply = hello_to_json(offered);
    } else {
      auto outcome = outcome_for(adapter, offered, *request);
      if (!outcome) {
        out = error_line(outcome.error(), id);
        return;
      }
      // Replies in the form the hello promised: a client that asked for strings
      // may read numbers through a double too.
      if (append_outcome_line(out, outcome.value(), offered.int64, id)) return;
      reply = outcome_to_json(outcome.value(), offered.int64);
    }
    if (id) reply["id"] = *id;
    auto text = to_line(reply);
    if (!text) {
      out = error_line("the reply cannot be written as JSON: " + text.error(), id);
      return;
    }
    out = std::move(text).value();
  } catch (const std::exception& error) {
    // Out of memory for a huge block, or an adapter that throws: answer and go on.
    out = error_line(std::string("the adapter failed: ") + error.what(), id);
  }
}

// A request that comes within this of the last reply is waited for by trying
// the descriptor (yielding the processor between tries), not by sleeping: on
// a virtual machine a sleep and the wake-up cost more than a fast answer. A
// runner that takes longer is waited for asleep, in read.
constexpr auto kSpinFor = std::chrono::microseconds(100);

void wait_briefly_for_input(int fd) {
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  pollfd ready{fd, POLLIN, 0};
  do {
    if (poll(&ready, 1, 0) != 0) return;  // input, its end, or an error: read says which
    sched_yield();
  } while (std::chrono::steady_clock::now() < until);
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t wrote = ::write(fd, data.data(), data.size());
    if (wrote > 0) data.remove_prefix(static_cast<std::size_t>(wrote));
    else if (wrote < 0 && errno == EINTR) continue;
    else return false;
  }
  return true;
}

}  // namespace

bool serve(Adapter& adapter, int in, int out, bool& write_failed) {
  write_failed = false;
  const Hello offered = adapter.hello();
  std::string buffer, reply;
  std::size_t begin = 0, searched = 0;  // the next line's start; how far it was searched for '\n'
  const auto answer_line = [&](std::string_view line) {
    answer_into(adapter, offered, line, reply);
    reply += '\n';
    if (write_all(out, reply)) return true;
    write_failed = true;
    return false;
  };
  try {
    static constexpr std::size_t kChunk = 65536;
    for (;;) {
      for (std::size_t newline; (newline = buffer.find('\n', searched)) != std::string::npos;) {
        if (!answer_line(std::string_view(buffer).substr(begin, newline - begin))) return false;
        begin = searched = newline + 1;
      }
      buffer.erase(0, begin);
      begin = 0;
      searched = buffer.size();
      wait_briefly_for_input(in);
      const std::size_t had = buffer.size();
      buffer.resize(had + kChunk);
      const ssize_t got = ::read(in, buffer.data() + had, kChunk);
      buffer.resize(had + (got > 0 ? static_cast<std::size_t>(got) : 0));
      if (got > 0) continue;
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return false;
      // End of input: a last line without its newline is still a line, as
      // std::getline gives it.
      return buffer.empty() || answer_line(buffer);
    }
  } catch (const std::bad_alloc&) {
    return false;  // a line too long to hold
  }
}

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
  std::string reply;
  answer_into(adapter, offered, line, reply);
  return reply;
}

bool serve(Adapter& adapter, std::istream& in, std::ostream& out) {
  const Hello offered = adapter.hello();
  // One line and one reply buffer for the run: no allocation per request once
  // they have grown to the longest line.
  std::string line, reply;
  while (std::getline(in, line)) {
    answer_into(adapter, offered, line, reply);
    reply += '\n';
    out.write(reply.data(), static_cast<std::streamsize>(reply.size()));
    out.flush();
    if (!out) return false;
  }
  // getline stops on end of input, and also on a read error or a line too long
  // to hold (it sets badbit, not throws): only the first is a clean end.
  return !in.bad();
}

}  // namespace kiln::protocol
