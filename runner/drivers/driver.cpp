#include "kiln/conformance/driver.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <exception>

namespace kiln::conformance {
namespace {

using protocol::Op;

Exchange failure(Exchange::Kind kind, std::string detail, std::string adapter_stderr = {}) {
  Exchange result;
  result.kind = kind;
  result.detail = std::move(detail);
  result.adapter_stderr = std::move(adapter_stderr);
  return result;
}

// The start of what an adapter wrote, for a message: short, printable, valid
// UTF-8 (reports are JSON and XML).
std::string excerpt(std::string_view text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return protocol::printable(text);
  return protocol::printable(text.substr(0, kShown)) + "... (" + std::to_string(text.size()) +
         " bytes)";
}

class InProcessDriver final : public Driver {
 public:
  explicit InProcessDriver(std::unique_ptr<protocol::Adapter> adapter)
      : adapter_(std::move(adapter)) {}

  Checked<protocol::Hello> hello() override {
    try {
      return adapter_->hello();
    } catch (const std::exception& error) {
      return Failure(protocol::bounded_message(std::string("hello threw: ") + error.what()));
    }
  }

  Exchange exchange(const protocol::Request& request) override {
    try {
      if (protocol::op_of(request) == protocol::Op::kHello)
        return failure(Exchange::Kind::kProtocol, "the runner sends only decode and encode");
      Exchange result;
      result.fresh = exchanges_++ == 0;
      result.outcome = protocol::call(*adapter_, request);
      // As serve() would: an outcome of the wrong kind is the adapter's bug.
      if (!protocol::answers(result.outcome, protocol::op_of(request), protocol::profile_of(request)))
        return failure(Exchange::Kind::kProtocol,
                       "the adapter's outcome does not answer a " + std::string(protocol::profile_of(request)) +
                           " " + std::string(protocol::to_string(protocol::op_of(request))));
      return result;
    } catch (const std::exception& error) {
      return failure(Exchange::Kind::kCrash,
                     protocol::bounded_message(std::string("the adapter threw: ") + error.what()));
    }
  }

 private:
  std::unique_ptr<protocol::Adapter> adapter_;
  std::uint64_t exchanges_ = 0;
};

class ProcessDriver final : public Driver {
 public:
  explicit ProcessDriver(ProcessOptions options) : options_(std::move(options)) {}

  Checked<protocol::Hello> hello() override {
    std::string adapter_stderr;
    auto hello = start(adapter_stderr);
    // An adapter that dies at start-up says why on stderr (an import error):
    // the hello's detail is the only place the run shows it.
    if (!hello && !adapter_stderr.empty()) {
      while (!adapter_stderr.empty() && adapter_stderr.back() == '\n') adapter_stderr.pop_back();
      return Failure(std::move(hello).error() + "; the adapter's stderr:\n" + adapter_stderr);
    }
    return hello;
  }

  Exchange exchange(const protocol::Request& request) override {
    if (!abandoned_.empty()) {
      Exchange refused = failure(Exchange::Kind::kProtocol, "not sent: " + abandoned_);
      refused.not_started = true;
      return refused;
    }
    std::string start_stderr;
    if (auto refused = ready_for_request(start_stderr)) {
      refused->not_started = true;
      return *refused;
    }
    const bool fresh = options_.one_shot || requests_since_start_ == 0;
    ++requests_since_start_;

    const Op op = protocol::op_of(request);
    std::unique_ptr<Subprocess> one_shot_process;
    std::unique_ptr<Subprocess>& process = options_.one_shot ? one_shot_process : process_;
    // The line and the reply buffers are the driver's: they keep their
    // capacity from request to request.
    std::string& reply = reply_;
    const std::uint64_t id = ++last_request_id_;
    std::string& line = line_;
    request_line(request, id, line);
    Exchange result = talk(line, process, reply, options_.timeout);
    if (result.kind == Exchange::Kind::kReply) {
      // Bounded by what the request can be answered with, before it is built.
      const std::size_t max_values = protocol::max_reply_values(line.size());
      std::optional<std::string> problem;
      bool echoed_id = false;
      // Read without a Json when read_reply_line takes the reply; the Json
      // path reads every other reply, and words what is wrong with it.
      if (auto outcome = protocol::read_reply_line(reply, max_values, op, protocol::profile_of(request), id,
                                                   protocol::case_id_of(request), echoed_id)) {
        result.outcome = std::move(*outcome);
      } else {
        auto json = protocol::parse_line(reply, max_values);
        if (!json) problem = json.error();
        else if (auto mismatch = reply_mismatch(request, id, json.value(), echoed_id)) problem = mismatch;
        else if (auto parsed = protocol::outcome_from_json(json.value(), op, protocol::profile_of(request))) result.outcome = std::move(parsed).value();
        else problem = parsed.error();
      }
      if (problem) {
        result.kind = Exchange::Kind::kProtocol;
        result.detail = protocol::bounded_message("malformed reply: " + *problem + ": " + excerpt(reply));
        // The stream may be out of step: the next request gets a fresh adapter.
        if (process) {
          process->kill();
          result.adapter_stderr += process->take_stderr();
          process.reset();
        }
      } else if (!echoed_id && process) {
        // Matched by position only: an answer given twice would be judged as
        // the next request's. A hello tells: its reply must come next.
        if (auto stray = check_in_step(process)) {
          result.kind = stray->kind;
          result.detail = std::move(stray->detail);
          result.adapter_stderr += std::move(stray->adapter_stderr);
        }
      }
    }
    if (process) result.adapter_stderr += process->take_stderr();
    result.adapter_stderr = start_stderr + result.adapter_stderr;
    result.fresh = fresh;
    // In one-shot mode every request is a start of its own.
    if (options_.one_shot) {
      if (result.kind == Exchange::Kind::kReply) {
        start_failures_ = 0;
      } else {
        ++start_failures_;
        last_start_failure_ = result.detail;
      }
    }
    note_protocol_failures(result);
    return result;
  }

  void stop() override {
    if (!process_) return;
    process_->kill();
    process_.reset();
  }

  std::string abandoned() const override { return abandoned_; }

 private:
  // Every request carries an id the reply may echo (PROTOCOL.md, "Replies"),
  // and its 64-bit fields in the form the adapter's last hello asked for.
  void request_line(const protocol::Request& request, std::uint64_t id, std::string& out) const {
    out.clear();
    if (protocol::append_request_line(out, request, int64_form_, id)) {
      out += '\n';
      return;
    }
    protocol::Json json = protocol::request_to_json(request, int64_form_);
    json["id"] = id;
    auto line = protocol::to_line(json);
    out = (line ? line.value() : std::string("{}")) + "\n";
  }
  std::string request_line(const protocol::Request& request, std::uint64_t id) const {
    std::string out;
    request_line(request, id, out);
    return out;
  }

  static std::string case_id(const protocol::Request& request) {
    return std::string(protocol::case_id_of(request));
  }

  // A reply may echo "id"; when it does, it must be the request's, and the
  // reply is then tied to its request (echoed set).
  static std::optional<std::string> id_mismatch(std::uint64_t id, const protocol::Json& reply, bool& echoed) {
    echoed = false;
    if (!reply.is_object()) return std::nullopt;
    const auto member = reply.find("id");
    if (member == reply.end()) return std::nullopt;
    if (!member->is_number_unsigned())
      return "the reply's \"id\" is of type " + std::string(protocol::json_kind(*member)) +
             ", not the request's id " + std::to_string(id);
    if (member->get<std::uint64_t>() != id)
      return "the reply answers request " + std::to_string(member->get<std::uint64_t>()) + ", not request " +
             std::to_string(id) + " (the adapter is out of step)";
    echoed = true;
    return std::nullopt;
  }

  // A reply may echo "id" and "case"; what it echoes must be the request's.
  static std::optional<std::string> reply_mismatch(const protocol::Request& request, std::uint64_t id,
                                                   const protocol::Json& reply, bool& echoed_id) {
    if (auto mismatch = id_mismatch(id, reply, echoed_id)) return mismatch;
    if (!reply.is_object()) return std::nullopt;
    const auto echoed = reply.find("case");
    if (echoed == reply.end()) return std::nullopt;
    // Described by its type, never dumped: the value is the adapter's, of any
    // size and depth.
    if (!echoed->is_string())
      return "the reply's \"case\" is of type " + std::string(protocol::json_kind(*echoed)) +
             ", not a string naming \"" + case_id(request) + "\"";
    const auto& named = echoed->get_ref<const std::string&>();
    if (named != case_id(request))
      return "the reply answers case \"" + excerpt(named) + "\", not \"" + case_id(request) + "\"";
    return std::nullopt;
  }

  // A hello reply, its id checked when it echoes one.
  static Checked<protocol::Hello> hello_reply(std::string_view line, std::uint64_t id) {
    auto json = protocol::parse_line(line);
    if (!json) return Failure(json.error());
    bool echoed = false;
    if (auto mismatch = id_mismatch(id, json.value(), echoed))
      return Failure(*mismatch);
    return protocol::hello_from_json(json.value());
  }

  // After a reply without id, in persistent mode: a hello, whose reply must be
  // the next line. An answer given twice, or any other stray line, shows here
  // rather than being judged as the next request's answer. nullopt: in step.
  std::optional<Exchange> check_in_step(std::unique_ptr<Subprocess>& process) {
    std::string reply;
    const std::uint64_t id = ++last_request_id_;
    Exchange talked = talk(request_line(protocol::HelloRequest{}, id), process, reply, options_.timeout);
    const std::string why =
        "the reply had no \"id\", so a hello followed it to check that the adapter is in step, and ";
    if (talked.kind != Exchange::Kind::kReply) {
      talked.detail = protocol::bounded_message(why + "then: " + talked.detail);
      return talked;
    }
    if (hello_reply(reply, id)) return std::nullopt;
    process->kill();
    Exchange stray = failure(Exchange::Kind::kProtocol,
                             protocol::bounded_message(
                                 why + "the next line was not its reply, so the reply judged may have "
                                       "been another request's (an answer written twice, or a debug "
                                       "print on stdout): " + excerpt(reply) +
                                 "; echo each request's \"id\" in its reply"),
                             process->take_stderr());
    process.reset();
    return stray;
  }

  // Counts the protocol failures of the last exchanges; too many abandon the
  // adapter (ProcessOptions::max_protocol_failures).
  void note_protocol_failures(const Exchange& result) {
    if (options_.max_protocol_failures <= 0 || options_.protocol_window <= 0) return;
    const bool broke = result.kind == Exchange::Kind::kProtocol;
    recent_.push_back(broke ? std::optional<std::string>(result.detail) : std::nullopt);
    if (recent_.size() > static_cast<std::size_t>(options_.protocol_window)) recent_.pop_front();
    const auto failures = std::count_if(recent_.begin(), recent_.end(), [](const auto& r) { return r.has_value(); });
    if (failures < options_.max_protocol_failures) return;
    const auto first = std::find_if(recent_.begin(), recent_.end(), [](const auto& r) { return r.has_value(); });
    abandoned_ = std::to_string(failures) + " of its last " + std::to_string(recent_.size()) +
                 " replies broke the protocol, so it was not restarted for every check. The first: " +
                 protocol::bounded_message(**first, 600) +
                 ". The usual cause is a debug print on stdout: stdout carries exactly one reply line "
                 "per request; write anything else to stderr";
    stop();
  }

  // Asks the hello; keeps the process in persistent mode. On failure, the error
  // and adapter_stderr say why, and the failed start is counted.
  Checked<protocol::Hello> start(std::string& adapter_stderr) {
    std::unique_ptr<Subprocess> process;
    std::string reply;
    const auto limit = options_.hello_timeout.count() > 0 ? options_.hello_timeout : options_.timeout;
    const std::uint64_t id = ++last_request_id_;
    Exchange talked = talk(request_line(protocol::HelloRequest{}, id), process, reply, limit);
    adapter_stderr = std::move(talked.adapter_stderr);
    std::optional<protocol::Hello> hello;
    std::string detail;
    if (talked.kind != Exchange::Kind::kReply) {
      detail = talked.detail;
    } else if (auto parsed = hello_reply(reply, id)) {
      hello = parsed.value();
    } else {
      detail = protocol::bounded_message("hello reply: " + parsed.error() + ": " + excerpt(reply));
    }
    if (!hello) {
      if (process) {
        process->kill();
        adapter_stderr += process->take_stderr();
      }
      process_.reset();
      // Every failed start counts, the run's first hello included.
      ++start_failures_;
      last_start_failure_ = detail;
      return Failure(detail);
    }
    // One-shot processes get no hello of their own: they are sent the form the
    // last hello asked for.
    int64_form_ = hello->int64;
    // Persistent: its stderr so far is reported with the first case.
    if (!options_.one_shot) process_ = std::move(process);
    start_failures_ = 0;
    requests_since_start_ = 0;
    return *hello;
  }

  // Before a request: a persistent adapter is (re)started when there is none; a
  // one-shot adapter that failed max_consecutive_start_failures times in a row
  // must still answer a hello. A failure to return instead of the exchange when
  // the adapter is given up on or does not start.
  std::optional<Exchange> ready_for_request(std::string& start_stderr) {
    const std::string in_a_row = std::to_string(start_failures_) + " times in a row";
    if (!options_.one_shot) {
      if (process_) return std::nullopt;
      if (start_failures_ >= options_.max_consecutive_start_failures)
        return failure(Exchange::Kind::kCrash, "not restarted: the adapter failed to start " +
                                                   in_a_row + " (" + last_start_failure_ + ")");
      if (const auto started = start(start_stderr); !started)
        return failure(Exchange::Kind::kCrash, "restart failed during hello: " + started.error(),
                       std::move(start_stderr));
      return std::nullopt;
    }
    if (start_failures_ < options_.max_consecutive_start_failures) return std::nullopt;
    // A dead one-shot adapter would otherwise cost the whole timeout per case.
    if (given_up_) return failure(Exchange::Kind::kCrash, "not started: " + given_up_reason_);
    const std::string last = last_start_failure_;
    const auto started = start(start_stderr);
    if (started) return std::nullopt;  // it still works: go on
    given_up_ = true;
    given_up_reason_ = "the adapter failed " + in_a_row + " (last: " + last +
                       "), then its hello too (" + started.error() + ")";
    return failure(Exchange::Kind::kCrash, "not started: " + given_up_reason_, std::move(start_stderr));
  }

  // Sends one line and reads one reply line, starting the process when there is
  // none. Any failure kills the process (its stderr goes into the result) so
  // the next request starts a fresh one; in one-shot mode the process is gone
  // afterwards either way.
  Exchange talk(const std::string& line, std::unique_ptr<Subprocess>& process, std::string& reply,
               std::chrono::milliseconds timeout) {
    const bool fresh = !process;
    if (fresh) {
      auto started = Subprocess::start(options_.command);
      if (!started) return failure(Exchange::Kind::kCrash, "could not start the adapter: " + started.error());
      process = std::move(started).value();
    }
    const auto deadline = Clock::now() + timeout;
    const auto limit = [&] { return std::to_string(timeout.count()) + " ms"; };
    auto fail = [&](Exchange::Kind kind, std::string detail) {
      process->kill();
      Exchange result = failure(kind, protocol::bounded_message(detail), process->take_stderr());
      process.reset();
      return result;
    };
    auto unread = [&] {
      return std::to_string(process->unread_output().size()) +
             " bytes: " + excerpt(process->unread_output());
    };

    if (!fresh) {
      // One reply per request: output before the request is sent belongs to no
      // request, and taking it as the next reply would judge a case by another's answer.
      if (process->output_waiting())
        return fail(Exchange::Kind::kProtocol,
                    "the adapter is out of step: after its last reply and before this request "
                    "it wrote " + unread());
      if (process->check_exited())
        return fail(Exchange::Kind::kCrash, "the adapter " + process->exit_description() +
                                                " after its last reply, before this request");
    }
    const auto wrote = process->write_all(line, deadline);
    if (wrote == Subprocess::Status::kTimeout)
      return fail(Exchange::Kind::kTimeout, "the adapter did not read the request within " + limit());
    if (options_.one_shot) process->close_input();
    const auto read = wrote == Subprocess::Status::kOk
                          ? process->read_line(reply, deadline, options_.max_reply_bytes)
                          : Subprocess::Status::kEof;
    switch (read) {
      case Subprocess::Status::kOk:
        break;
      case Subprocess::Status::kTimeout:
        return fail(Exchange::Kind::kTimeout, "no reply within " + limit());
      case Subprocess::Status::kTooLong:
        return fail(Exchange::Kind::kProtocol, "reply line longer than " +
                                                   std::to_string(options_.max_reply_bytes) + " bytes");
      case Subprocess::Status::kEof:
      case Subprocess::Status::kBroken: {
        const bool gone = process->wait_exit(Clock::now() + std::chrono::milliseconds(1000));
        if (gone)
          return fail(Exchange::Kind::kCrash, "the adapter " + process->exit_description() +
                                                  " without replying");
        // PROTOCOL.md: closing stdout before replying is a crash, running or not.
        return fail(Exchange::Kind::kCrash,
                    "the adapter closed its stdout without replying and kept running");
      }
    }
    if (!process->unread_output().empty())
      return fail(Exchange::Kind::kProtocol,
                  "the reply line came with more output behind it (one reply line per request): " +
                      unread());
    if (!options_.one_shot) return Exchange{};

    // One-shot: the process has its request and end of input; it must now exit,
    // cleanly, within the request's time limit, and say nothing more.
    if (!process->wait_exit(deadline))
      return fail(Exchange::Kind::kTimeout,
                  "the adapter replied but did not exit within " + limit() + " of the request");
    if (!process->exited_cleanly())
      return fail(Exchange::Kind::kCrash, "the adapter " + process->exit_description() + " after replying");
    if (process->output_waiting())
      return fail(Exchange::Kind::kProtocol,
                  "after its reply line the adapter wrote more output (one reply line per request): " +
                      unread());
    Exchange result;
    result.adapter_stderr = process->take_stderr();
    process.reset();
    return result;
  }

  ProcessOptions options_;
  std::unique_ptr<Subprocess> process_;
  int start_failures_ = 0;
  std::uint64_t requests_since_start_ = 0;
  std::string last_start_failure_;
  bool given_up_ = false;  // one-shot: failed in a row and then failed a hello
  std::string given_up_reason_;
  std::string line_, reply_;  // the last request line sent and reply line read
  std::uint64_t last_request_id_ = 0;  // the run's requests are numbered from 1
  protocol::Int64Form int64_form_ = protocol::Int64Form::kNumber;  // until a hello says otherwise
  // The last protocol_window exchanges: each one's detail when it broke the protocol.
  std::deque<std::optional<std::string>> recent_;
  std::string abandoned_;  // non-empty: no more requests are sent, and why
};

}  // namespace

std::unique_ptr<Driver> make_in_process_driver(std::unique_ptr<protocol::Adapter> adapter) {
  return std::make_unique<InProcessDriver>(std::move(adapter));
}

std::unique_ptr<Driver> make_process_driver(ProcessOptions options) {
  return std::make_unique<ProcessDriver>(std::move(options));
}

Checked<std::unique_ptr<Driver>> make_driver(const std::string& adapter, ProcessOptions process) {
  if (adapter.rfind("builtin:", 0) == 0) {
    if (adapter != "builtin:reference")
      return Failure("unknown builtin adapter '" + adapter + "' (builtin:reference is the one)");
    return make_in_process_driver(std::make_unique<protocol::ReferenceAdapter>());
  }
  process.command = adapter;
  return make_process_driver(std::move(process));
}

}  // namespace kiln::conformance
