#include "kiln/conformance/driver.hpp"

#include <cstdio>
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

  std::optional<protocol::Hello> hello(std::string& detail) override {
    try {
      return adapter_->hello();
    } catch (const std::exception& error) {
      detail = protocol::bounded_message(std::string("hello threw: ") + error.what());
      return std::nullopt;
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

  std::optional<protocol::Hello> hello(std::string& detail) override {
    std::string adapter_stderr;
    auto hello = start(detail, adapter_stderr);
    // An adapter that dies at start-up says why on stderr (an import error):
    // the hello's detail is the only place the run shows it.
    if (!hello && !adapter_stderr.empty()) {
      while (!adapter_stderr.empty() && adapter_stderr.back() == '\n') adapter_stderr.pop_back();
      detail += "; the adapter's stderr:\n" + adapter_stderr;
    }
    return hello;
  }

  Exchange exchange(const protocol::Request& request) override {
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
    std::string reply;
    Exchange result = talk(request_line(request), process, reply, options_.timeout);
    if (result.kind == Exchange::Kind::kReply) {
      auto json = protocol::parse_line(reply);
      std::optional<std::string> problem;
      if (!json) problem = json.error();
      else if (auto mismatch = case_mismatch(request, json.value())) problem = mismatch;
      else if (auto outcome = protocol::outcome_from_json(json.value(), op, protocol::profile_of(request))) result.outcome = outcome.value();
      else problem = outcome.error();
      if (problem) {
        result.kind = Exchange::Kind::kProtocol;
        result.detail = protocol::bounded_message("malformed reply: " + *problem + ": " + excerpt(reply));
        // The stream may be out of step: the next request gets a fresh adapter.
        if (process) {
          process->kill();
          result.adapter_stderr += process->take_stderr();
          process.reset();
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
    return result;
  }

  void stop() override {
    if (!process_) return;
    process_->kill();
    process_.reset();
  }

 private:
  static std::string request_line(const protocol::Request& request) {
    auto line = protocol::to_line(protocol::request_to_json(request));
    return (line ? line.value() : std::string("{}")) + "\n";
  }

  static std::string case_id(const protocol::Request& request) {
    return std::string(protocol::case_id_of(request));
  }

  // A reply may echo "case"; when it does, it must be the case asked about.
  static std::optional<std::string> case_mismatch(const protocol::Request& request,
                                                  const protocol::Json& reply) {
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

  // Asks the hello; keeps the process in persistent mode. On failure, detail and
  // adapter_stderr say why, and the failed start is counted.
  std::optional<protocol::Hello> start(std::string& detail, std::string& adapter_stderr) {
    std::unique_ptr<Subprocess> process;
    std::string reply;
    const auto limit = options_.hello_timeout.count() > 0 ? options_.hello_timeout : options_.timeout;
    Exchange talked = talk(request_line(protocol::HelloRequest{}), process, reply, limit);
    adapter_stderr = std::move(talked.adapter_stderr);
    std::optional<protocol::Hello> hello;
    if (talked.kind != Exchange::Kind::kReply) {
      detail = talked.detail;
    } else if (auto parsed = protocol::parse_hello_reply(reply)) {
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
      return std::nullopt;
    }
    // Persistent: its stderr so far is reported with the first case.
    if (!options_.one_shot) process_ = std::move(process);
    start_failures_ = 0;
    requests_since_start_ = 0;
    return hello;
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
      std::string detail;
      if (!start(detail, start_stderr))
        return failure(Exchange::Kind::kCrash, "restart failed during hello: " + detail,
                       std::move(start_stderr));
      return std::nullopt;
    }
    if (start_failures_ < options_.max_consecutive_start_failures) return std::nullopt;
    // A dead one-shot adapter would otherwise cost the whole timeout per case.
    if (given_up_) return failure(Exchange::Kind::kCrash, "not started: " + given_up_reason_);
    const std::string last = last_start_failure_;
    std::string detail;
    if (start(detail, start_stderr)) return std::nullopt;  // it still works: go on
    given_up_ = true;
    given_up_reason_ = "the adapter failed " + in_a_row + " (last: " + last +
                       "), then its hello too (" + detail + ")";
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
      std::string error;
      process = Subprocess::start(options_.command, error);
      if (!process) return failure(Exchange::Kind::kCrash, "could not start the adapter: " + error);
    }
    const auto deadline = Clock::now() + timeout;
    const std::string limit = std::to_string(timeout.count()) + " ms";
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
      return fail(Exchange::Kind::kTimeout, "the adapter did not read the request within " + limit);
    if (options_.one_shot) process->close_input();
    const auto read = wrote == Subprocess::Status::kOk
                          ? process->read_line(reply, deadline, options_.max_reply_bytes)
                          : Subprocess::Status::kEof;
    switch (read) {
      case Subprocess::Status::kOk:
        break;
      case Subprocess::Status::kTimeout:
        return fail(Exchange::Kind::kTimeout, "no reply within " + limit);
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
                  "the adapter replied but did not exit within " + limit + " of the request");
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
};

}  // namespace

std::unique_ptr<Driver> make_in_process_driver(std::unique_ptr<protocol::Adapter> adapter) {
  return std::make_unique<InProcessDriver>(std::move(adapter));
}

std::unique_ptr<Driver> make_process_driver(ProcessOptions options) {
  return std::make_unique<ProcessDriver>(std::move(options));
}

std::unique_ptr<Driver> make_driver(const std::string& adapter, ProcessOptions process,
                                    std::string& error) {
  if (adapter.rfind("builtin:", 0) == 0) {
    if (adapter != "builtin:reference") {
      error = "unknown builtin adapter '" + adapter + "' (builtin:reference is the one)";
      return nullptr;
    }
    return make_in_process_driver(std::make_unique<protocol::ReferenceAdapter>());
  }
  process.command = adapter;
  return make_process_driver(std::move(process));
}

}  // namespace kiln::conformance
