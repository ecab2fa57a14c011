#include "kiln/conformance/driver.hpp"

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

class InProcessDriver final : public Driver {
 public:
  explicit InProcessDriver(std::unique_ptr<protocol::Adapter> adapter)
      : adapter_(std::move(adapter)) {}

  std::optional<protocol::Hello> hello(std::string& detail) override {
    try {
      return adapter_->hello();
    } catch (const std::exception& error) {
      detail = std::string("hello threw: ") + error.what();
      return std::nullopt;
    }
  }

  Exchange exchange(const protocol::Request& request) override {
    try {
      Exchange result;
      if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request))
        result.outcome = adapter_->decode(decode->block);
      else if (const auto* encode = std::get_if<protocol::EncodeRequest>(&request))
        result.outcome = adapter_->encode(encode->description);
      else
        return failure(Exchange::Kind::kProtocol, "the runner sends only decode and encode");
      return result;
    } catch (const std::exception& error) {
      return failure(Exchange::Kind::kCrash, std::string("the adapter threw: ") + error.what());
    }
  }

 private:
  std::unique_ptr<protocol::Adapter> adapter_;
};

class ProcessDriver final : public Driver {
 public:
  explicit ProcessDriver(ProcessOptions options) : options_(std::move(options)) {}

  std::optional<protocol::Hello> hello(std::string& detail) override {
    const std::string line = request_line(protocol::HelloRequest{});
    std::string reply;
    std::string adapter_stderr;
    std::unique_ptr<Subprocess> process;
    Exchange problem = round_trip(line, process, reply, adapter_stderr);
    if (!options_.one_shot) process_ = std::move(process);
    else if (process) process->kill();
    auto parsed = problem.kind == Exchange::Kind::kReply
                      ? protocol::parse_hello_reply(reply)
                      : protocol::Expected<protocol::Hello>::failure(problem.detail);
    if (!parsed) {
      detail = problem.kind == Exchange::Kind::kReply ? "hello reply: " + parsed.error()
                                                      : parsed.error();
      process_.reset();
      // Every failed start counts, the run's first hello included.
      ++start_failures_;
      last_start_failure_ = detail;
      return std::nullopt;
    }
    start_failures_ = 0;
    return parsed.value();
  }

  Exchange exchange(const protocol::Request& request) override {
    const std::string line = request_line(request);
    const Op op = protocol::op_of(request);
    std::unique_ptr<Subprocess> one_shot_process;
    std::unique_ptr<Subprocess>& process = options_.one_shot ? one_shot_process : process_;

    if (!options_.one_shot && !process_) {
      if (start_failures_ >= options_.max_consecutive_start_failures)
        return failure(Exchange::Kind::kCrash,
                       "not restarted: the adapter failed to start " +
                           std::to_string(start_failures_) + " times in a row (" +
                           last_start_failure_ + ")");
      std::string detail;
      if (!hello(detail))
        return failure(Exchange::Kind::kCrash, "restart failed during hello: " + detail);
    }

    std::string reply;
    std::string adapter_stderr;
    Exchange result = round_trip(line, process, reply, adapter_stderr);
    if (result.kind == Exchange::Kind::kReply) {
      auto json = protocol::parse_line(reply);
      std::optional<std::string> problem;
      if (!json) problem = json.error();
      else if (auto mismatch = case_mismatch(request, json.value())) problem = mismatch;
      else if (auto outcome = protocol::outcome_from_json(json.value(), op)) result.outcome = outcome.value();
      else problem = outcome.error();
      if (problem) {
        result = failure(Exchange::Kind::kProtocol, "malformed reply: " + *problem + ": " + excerpt(reply));
        if (process) process->kill();
        process.reset();
      }
    }
    if (options_.one_shot && process) {
      process->wait_exit(Clock::now() + std::chrono::milliseconds(200));
      process->kill();
    }
    result.adapter_stderr = adapter_stderr + (process ? process->take_stderr() : std::string());
    return result;
  }

 private:
  static std::string request_line(const protocol::Request& request) {
    auto line = protocol::to_line(protocol::request_to_json(request));
    return (line ? line.value() : std::string("{}")) + "\n";
  }

  static std::string case_id(const protocol::Request& request) {
    if (const auto* decode = std::get_if<protocol::DecodeRequest>(&request)) return decode->case_id;
    if (const auto* encode = std::get_if<protocol::EncodeRequest>(&request)) return encode->case_id;
    return {};
  }

  // A reply may echo "case"; when it does, it must be the case asked about.
  static std::optional<std::string> case_mismatch(const protocol::Request& request,
                                                  const protocol::Json& reply) {
    const auto echoed = reply.find("case");
    if (echoed == reply.end()) return std::nullopt;
    if (!echoed->is_string() || echoed->get<std::string>() != case_id(request))
      return "the reply answers case " + excerpt(echoed->dump()) + ", not \"" + case_id(request) + "\"";
    return std::nullopt;
  }

  static std::string excerpt(const std::string& text) {
    constexpr std::size_t kShown = 200;
    return text.size() <= kShown ? text : text.substr(0, kShown) + "... (" + std::to_string(text.size()) + " bytes)";
  }

  // Sends one line and reads one reply line, starting the process when there is
  // none. Any failure kills the process so the next request starts a fresh one.
  Exchange round_trip(const std::string& line, std::unique_ptr<Subprocess>& process,
                      std::string& reply, std::string& adapter_stderr) {
    if (!process) {
      std::string error;
      process = Subprocess::start(options_.command, error);
      if (!process) return failure(Exchange::Kind::kCrash, "could not start the adapter: " + error);
    }
    const auto deadline = Clock::now() + options_.timeout;
    auto fail = [&](Exchange::Kind kind, std::string detail) {
      process->kill();
      adapter_stderr += process->take_stderr();
      process.reset();
      return failure(kind, std::move(detail));
    };
    const auto wrote = process->write_all(line, deadline);
    if (wrote == Subprocess::Status::kTimeout)
      return fail(Exchange::Kind::kTimeout, "the adapter did not read the request within " +
                                                std::to_string(options_.timeout.count()) + " ms");
    if (options_.one_shot) process->close_input();
    const auto read = wrote == Subprocess::Status::kOk
                          ? process->read_line(reply, deadline, options_.max_reply_bytes)
                          : Subprocess::Status::kEof;
    switch (read) {
      case Subprocess::Status::kOk:
        return Exchange{};
      case Subprocess::Status::kTimeout:
        return fail(Exchange::Kind::kTimeout, "no reply within " +
                                                  std::to_string(options_.timeout.count()) + " ms");
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
    return fail(Exchange::Kind::kProtocol, "unreachable");
  }

  ProcessOptions options_;
  std::unique_ptr<Subprocess> process_;
  int start_failures_ = 0;
  std::string last_start_failure_;
};

}  // namespace

std::unique_ptr<Driver> make_in_process_driver(std::unique_ptr<protocol::Adapter> adapter) {
  return std::make_unique<InProcessDriver>(std::move(adapter));
}

std::unique_ptr<Driver> make_process_driver(ProcessOptions options) {
  return std::make_unique<ProcessDriver>(std::move(options));
}

}  // namespace kiln::conformance
