// The adapter fuzzer's harness (kiln/conformance/adapter_fuzzer.hpp): an
// input's cases judged as run judges them, against a fresh adapter.
#include "kiln/conformance/adapter_fuzzer.hpp"

#include <sstream>
#include <vector>

#include "kiln/conformance/driver.hpp"
#include "kiln/conformance/expected_failures.hpp"
#include "kiln/conformance/profile_registry.hpp"
#include "kiln/conformance/raw_input.hpp"
#include "kiln/conformance/run.hpp"

namespace kiln::conformance::adapter_fuzzer {

struct Harness::State {
  std::string profile;
  const RawInputFormat* format = nullptr;
  AdapterFactory factory;
  std::optional<protocol::Hello> hello;
};

Harness::Harness(std::unique_ptr<State> state) : state_(std::move(state)) {}
Harness::~Harness() = default;

std::unique_ptr<Harness> Harness::start(std::string_view profile, AdapterFactory factory, std::ostream& err) {
  const ProfileModule* module = find_profile_module(profile);
  if (!module || !module->raw_input) {
    err << "kiln adapter fuzzer: profile '" << profile << "' has no raw fuzz input (profiles with one: "
        << raw_input_profile_names(" or ") << ")\n";
    return nullptr;
  }
  auto state = std::make_unique<State>();
  state->profile = std::string(profile);
  state->format = module->raw_input;
  state->factory = std::move(factory);
  std::unique_ptr<protocol::Adapter> adapter = state->factory();
  if (!adapter) {
    err << "kiln adapter fuzzer: kiln_make_adapter() returned no adapter\n";
    return nullptr;
  }
  // Its hello decides what is judged, as in run: read once, from the first adapter.
  auto hello = make_in_process_driver(std::move(adapter))->hello();
  if (!hello) {
    err << "kiln adapter fuzzer: the adapter has no usable hello: " << protocol::printable(hello.error()) << "\n";
    return nullptr;
  }
  if (hello.value().protocol != protocol::kProtocolVersion || !hello.value().offers_profile(profile)) {
    err << "kiln adapter fuzzer: the adapter's hello (protocol " << hello.value().protocol
        << ") does not offer profile " << profile << " of adapter protocol " << protocol::kProtocolVersion << "\n";
    return nullptr;
  }
  state->hello = std::move(hello).value();
  return std::unique_ptr<Harness>(new Harness(std::move(state)));
}

std::optional<std::string> Harness::check(std::span<const std::uint8_t> input,
                                          const std::function<void(std::uint64_t)>& observe) {
  const State& state = *state_;
  const std::vector<Case> cases = state.format->cases_of(input, "an input of the adapter fuzzer");
  std::unique_ptr<protocol::Adapter> adapter = state.factory();
  if (!adapter) return "kiln_make_adapter() returned no adapter\n";
  const std::unique_ptr<Driver> driver = make_in_process_driver(std::move(adapter));
  ExpectedFailures none;
  // Every (case, op)'s verdict in one key: the input is read for its features once.
  std::string verdicts;
  for (const Case& c : cases)
    for (Operation op : c.ops) {
      CaseResult result = run_case(c, op, *driver, state.hello);
      none.record(result);
      verdicts += std::string(to_string(op)) + "|" + result.expected + "|" + result.got + ";";
      if (!result.unexpected()) continue;
      std::ostringstream text;
      text << "kiln adapter fuzzer: the implementation disagrees with the reference (profile " << state.profile
           << ", " << state.format->what << ")\n";
      print_result(text, result,
                   "this fuzzer on the input file libFuzzer names below; as a golden case: kiln-conformance "
                   "cases from-input <that file> --profile " + state.profile + " --out <your cases folder>");
      return text.str();
    }
  if (observe)
    for (std::uint64_t feature : state.format->features(input, verdicts)) observe(feature);
  return std::nullopt;
}

}  // namespace kiln::conformance::adapter_fuzzer
