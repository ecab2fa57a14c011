// How the runner reaches an implementation: in process (a kiln::protocol::Adapter)
// or as a process speaking protocol/PROTOCOL.md, kept (restarted after a crash, a
// hang or a malformed reply) or started once per request.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kiln/adapter.hpp"
#include "kiln/conformance/subprocess.hpp"
#include "kiln/protocol.hpp"

namespace kiln::conformance {

struct Exchange {
  enum class Kind { kReply, kCrash, kTimeout, kProtocol };
  Kind kind = Kind::kReply;
  protocol::Outcome outcome;  // with kReply
  std::string detail;         // with the others: what happened
  std::string adapter_stderr; // what the adapter wrote to stderr meanwhile
  // The request never reached an adapter: it could not be (re)started, its
  // hello failed. Says nothing of this request, only of the adapter's start.
  bool not_started = false;
  // The request was the first one its adapter process (or instance) was sent:
  // no earlier request could have left state behind in it.
  bool fresh = false;
};

class Driver {
 public:
  virtual ~Driver() = default;
  // The adapter's hello, asked once, or what kept it from being had.
  virtual Checked<protocol::Hello> hello() = 0;
  virtual Exchange exchange(const protocol::Request& request) = 0;
  // Ends the adapter's process, so that the next request starts a fresh one
  // (an in-process adapter is kept: it has no process to end).
  virtual void stop() {}
  // Why the driver sends no more requests (each later exchange comes back not
  // started, at once); empty while it still does. A caller stops here: the
  // checks left are not run.
  virtual std::string abandoned() const { return {}; }
};

struct ProcessOptions {
  std::string command;
  bool one_shot = false;
  std::chrono::milliseconds timeout{10000};
  // The hello's own limit (zero: timeout): a start on a loaded machine may be slow.
  std::chrono::milliseconds hello_timeout{0};
  std::size_t max_reply_bytes = 64u << 20;
  int max_consecutive_start_failures = 3;
  // Restart storms: once max_protocol_failures of the last protocol_window
  // exchanges broke the protocol (an extra line per reply, trailing bytes), the
  // adapter is abandoned rather than restarted for every check. Zero: never.
  int protocol_window = 16;
  int max_protocol_failures = 8;
};

std::unique_ptr<Driver> make_in_process_driver(std::unique_ptr<protocol::Adapter> adapter);
std::unique_ptr<Driver> make_process_driver(ProcessOptions options);

// The driver an --adapter argument names: builtin:reference in process, any
// other text a command run with process (its command set to adapter); the
// error for an unknown builtin.
Checked<std::unique_ptr<Driver>> make_driver(const std::string& adapter, ProcessOptions process);

}  // namespace kiln::conformance
