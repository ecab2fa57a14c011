#include "shared_options.hpp"

#include <array>

namespace kiln::conformance::cli {
namespace {

constexpr std::array kOperations{Operation::kDecode, Operation::kEncode};

std::vector<std::string> operation_names() {
  std::vector<std::string> names;
  for (const Operation op : kOperations) names.emplace_back(to_string(op));
  return names;
}

}  // namespace

CLI::Option* add_adapter_option(CLI::App& command, std::string& adapter, const std::string& help) {
  return command.add_option("--adapter", adapter, help)->required();
}

CLI::Option* add_cases_option(CLI::App& command, std::filesystem::path& cases_dir, const std::string& help) {
  return command.add_option("--cases", cases_dir, help)->capture_default_str();
}

CLI::Option* add_timeout_option(CLI::App& command, int& timeout_ms, const std::string& help, int max_ms) {
  return command.add_option("--timeout-ms", timeout_ms, help)
      ->capture_default_str()
      ->check(CLI::Range(1, max_ms));
}

CLI::Option* add_hello_timeout_option(CLI::App& command, int& hello_timeout_ms, const std::string& help) {
  return command.add_option("--hello-timeout-ms", hello_timeout_ms, help)
      ->capture_default_str()
      ->check(CLI::Range(1, kMaxTimeoutMs));
}

CLI::Option* add_ops_option(CLI::App& command, std::vector<Operation>& ops, const std::string& verb) {
  const std::vector<std::string> names = operation_names();
  return command
      .add_option_function<std::vector<std::string>>(
          "--ops",
          [&ops](const std::vector<std::string>& asked) {
            ops.clear();
            for (const auto& name : asked)
              for (const Operation op : kOperations)
                if (name == to_string(op)) ops.push_back(op);
          },
          "Operations to " + verb + ": " + comma_list(names) + " (default both)")
      ->delimiter(',')
      ->check(CLI::IsMember(names));
}

CLI::Option* add_no_progress_flag(CLI::App& command, bool& quiet_progress) {
  return command.add_flag("--no-progress", quiet_progress, "Do not print progress lines");
}

}  // namespace kiln::conformance::cli
