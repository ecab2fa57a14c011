// `replay`: a request file (a state-dependent fuzz finding) sent again to one
// fresh adapter.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "shared_options.hpp"
#include "kiln/conformance/fuzz.hpp"

namespace kiln::conformance::cli {

Command add_replay_command(CLI::App& app) {
  auto options = std::make_shared<ReplayOptions>();
  auto* replay = app.add_subcommand(
      "replay", "Send a request file (a state-dependent fuzz finding) in order to one fresh adapter "
                "and judge the last reply against the reference. Exit 1: it disagrees (reproduced); "
                "0: it agrees; 2: an unreadable file; 3: an unusable adapter");
  replay->add_option("FILE", options->file, "Request file (<id>.requests.jsonl, written by fuzz)")
      ->required();
  add_adapter_option(*replay, options->adapter, "Adapter command, or builtin:reference");
  add_timeout_option(*replay, options->timeout_ms, "Per-request timeout");
  add_hello_timeout_option(*replay, options->hello_timeout_ms, "Timeout of the hello");

  return {replay, [options] { return run_replay(*options, std::cout, std::cerr); }};
}

}  // namespace kiln::conformance::cli
