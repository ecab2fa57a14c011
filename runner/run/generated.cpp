#include "kiln/conformance/generated.hpp"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <utility>

#include "fuzz/fuzz_engine.hpp"
#include "kiln/conformance/expected_failures.hpp"

namespace kiln::conformance {
namespace {

std::string confirmation_text(const fuzzing::FuzzerBase::Confirmation& confirmation,
                              const std::vector<FuzzFinding>& findings) {
  if (!confirmation.finding) return confirmation.note;
  const FuzzFinding& finding = findings[*confirmation.finding];
  if (confirmation.earlier)
    return "the disagreement of an earlier generated check, written as " + finding.file.string();
  return std::string(finding.state_dependent ? "reproduced in a fresh adapter after the requests before it"
                                             : "confirmed in a fresh adapter") +
         ", written as " + finding.file.string();
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::uint64_t generated_seed(std::string_view case_set_sha256) {
  std::uint64_t seed = 0;
  const std::string_view head = case_set_sha256.substr(0, 8);
  const auto [end, error] = std::from_chars(head.data(), head.data() + head.size(), seed, 16);
  // A hash is hex; anything else (no case set) still gives a fixed seed.
  return error == std::errc{} && end == head.data() + head.size() ? seed : 1;
}

std::string generated_check_id(std::string_view profile, std::uint64_t seed, std::uint64_t number) {
  std::string digits = std::to_string(number);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return "generated-" + std::string(profile) + "-" + std::to_string(seed) + "-" + digits;
}

std::optional<GeneratedCheckId> parse_generated_check_id(std::string_view id) {
  constexpr std::string_view kPrefix = "generated-";
  if (!id.starts_with(kPrefix)) return std::nullopt;
  id.remove_prefix(kPrefix.size());
  const std::size_t last = id.rfind('-');
  if (last == std::string_view::npos) return std::nullopt;
  const std::size_t middle = id.rfind('-', last - 1);
  if (middle == std::string_view::npos || middle == 0) return std::nullopt;
  const std::string_view seed = id.substr(middle + 1, last - middle - 1), number = id.substr(last + 1);
  if (!all_digits(seed) || !all_digits(number) || seed.size() > 19 || number.size() > 19) return std::nullopt;
  GeneratedCheckId parsed;
  parsed.profile = std::string(id.substr(0, middle));
  std::from_chars(seed.data(), seed.data() + seed.size(), parsed.seed);
  std::from_chars(number.data(), number.data() + number.size(), parsed.number);
  return parsed;
}

std::vector<Operation> generated_ops(const protocol::Hello& hello, const std::vector<Operation>& wanted) {
  std::vector<Operation> ops;
  for (Operation op : {Operation::kDecode, Operation::kEncode})
    if (std::find(wanted.begin(), wanted.end(), op) != wanted.end() && hello.offers_op(wire_op(op)))
      ops.push_back(op);
  return ops;
}

bool outside_generated_selection(const ExpectedFailures::Entry& entry, const std::vector<GeneratedPhase>& phases) {
  if (!entry.id_glob.starts_with("generated-")) return false;
  const auto complete = [](const GeneratedPhase& phase) { return phase.ran == phase.planned; };
  const auto parsed = parse_generated_check_id(entry.id_glob);
  if (!parsed)  // a glob: it can be told stale only when every phase ran in full
    return phases.empty() || !std::all_of(phases.begin(), phases.end(), complete);
  for (const GeneratedPhase& phase : phases)
    if (parsed->profile == phase.profile)
      return parsed->seed == phase.seed && (parsed->number > phase.ran || !complete(phase));
  return true;  // no phase of its profile ran (--generated 0, or a profile not offered or not run)
}

GeneratedPhase run_generated_phase(const GeneratedPhaseOptions& options, Driver& driver,
                                   std::function<std::unique_ptr<Driver>(std::chrono::milliseconds)> fresh,
                                   const protocol::Hello& hello, const CaseSet& set,
                                   const std::function<bool(CaseResult&&)>& on_result, std::ostream& out,
                                   std::ostream& err) {
  GeneratedPhase phase;
  phase.profile = options.profile;
  phase.seed = options.seed;
  phase.planned = options.checks;
  if (options.checks == 0 || options.ops.empty()) return phase;

  FuzzOptions fuzz;
  fuzz.adapter = options.adapter;
  fuzz.profile = options.profile;
  fuzz.runs = options.checks;
  fuzz.seed = options.seed;
  fuzz.ops = options.ops;
  fuzz.out_dir = options.out_dir;
  fuzz.timeout_ms = options.timeout_ms;
  fuzz.quiet_progress = true;
  fuzz.program = options.program;
  fuzz.adapter_blind = true;
  fuzz.id_word = "generated";
  // An adapter that fails everything does not turn the run into hours of
  // minimizing: its first disagreements are kept, the rest are counted.
  fuzz.max_confirmations = kMaxGeneratedConfirmations;
  fuzz.found_by = "the generated phase of " + options.program + " run (profile " + options.profile + ", seed " +
                  std::to_string(options.seed) + ")";

  auto fuzzer = fuzzing::make_fuzzer(fuzz, driver, std::move(fresh), hello, &set, out, err);
  // Without a written case, the phase itself replays a failure: the same case
  // set gives the same seed, and the first n checks are the same n inputs.
  const auto phase_command = [&](std::uint64_t number) {
    return options.program + " run --adapter " + shell_quote(options.adapter) + " --cases " +
           shell_quote(options.cases_dir) + " --profile " + options.profile + " --generated " +
           std::to_string(number) + " --generated-seed " + std::to_string(options.seed);
  };
  fuzzer->observe_checks([&](const protocol::Request& request, const fuzzing::Judgement& judged,
                             const fuzzing::FuzzerBase::Confirmation* confirmation) {
    const std::uint64_t number = fuzzer->inputs() + 1;
    CaseResult result;
    result.case_id = generated_check_id(options.profile, options.seed, number);
    result.topic = std::string(kGeneratedTopic);
    result.profile = options.profile;
    result.op = protocol::op_of(request) == protocol::Op::kEncode ? Operation::kEncode : Operation::kDecode;
    if (!judged.reference_rule.empty()) result.rules.push_back(judged.reference_rule);
    result.expected = "reference " + judged.verdict;
    result.status = judged.fails ? judged.status : Status::kPass;
    result.got = judged.fails ? judged.got : judged.verdict;
    CaseResult::Generated generated{options.seed, number, {}, phase_command(number)};
    if (judged.fails) {
      ++phase.failed;
      result.detail = judged.detail;
      if (confirmation) {
        const std::string note = confirmation_text(*confirmation, fuzzer->findings());
        if (!note.empty()) result.detail += (result.detail.empty() ? "" : "; ") + note;
        if (confirmation->finding) {
          const FuzzFinding& finding = fuzzer->findings()[*confirmation->finding];
          generated.file = finding.file.string();
          generated.replay = finding.replay;
        }
      }
    }
    result.generated = std::move(generated);
    ++phase.ran;
    if (!on_result(std::move(result))) fuzzer->stop();
  });
  fuzzer->run(options.ops);
  phase.findings = std::move(fuzzer->findings());
  phase.not_reproduced = std::move(fuzzer->not_reproduced());
  phase.write_failed = fuzzer->write_failed();
  if (fuzzer->adapter_lost()) phase.stopped = fuzzer->adapter_lost_reason();
  return phase;
}

}  // namespace kiln::conformance
