// Helpers shared by the subcommands: scenario loading, error -> exit code mapping, paths.
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/signals.hpp"
#include "sim/scenario/default_scenario.hpp"

namespace aidcsim::cli {

Scenario load_scenario_or_default(const std::string& path, const std::vector<Override>& overrides) {
  LoadOptions options;
  options.overrides = overrides;
  return path.empty() ? load_scenario_text(default_scenario_text(), default_scenario_name(), options)
                      : load_scenario_file(path, options);
}

void add_set_option(CLI::App* sub, std::vector<std::string>& texts) {
  sub->add_option("--set", texts,
                  "Override a scenario key, e.g. --set cluster.gpus=576 or --set fabric.link_rate='800 Gbps' "
                  "(repeatable; the value is YAML; list items as rollout.phases[1].gpus)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)  // one pair each: `--set k=v FILE` leaves FILE positional
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<Override> parse_set_options(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  for (const std::string& t : texts) {
    const auto eq = t.find('=');
    if (eq == std::string::npos) throw CLI::ValidationError("--set", "'" + t + "': expected KEY=VALUE");
    const auto first = t.find_first_not_of(" \t");
    const auto last = t.find_last_not_of(" \t", eq == 0 ? 0 : eq - 1);
    if (first >= eq || last == std::string::npos || last < first)
      throw CLI::ValidationError("--set", "'" + t + "': empty key");
    out.push_back({t.substr(first, last - first + 1), t.substr(eq + 1)});
  }
  return out;
}

std::string set_options_text(const std::vector<Override>& overrides) {
  std::string out;
  for (const Override& o : overrides) {
    const std::string kv = o.key + "=" + o.value;
    const bool plain =
        kv.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=-+/:[],") ==
        std::string::npos;
    std::string quoted = "'";
    for (const char c : kv) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += " --set " + (plain ? kv : quoted + "'");
  }
  return out;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Cancelled& e) {  // SIGINT/SIGTERM (sim/cli/signals.hpp): one line, 128 + signal
    print_stopped(e.signal(), "; no output written\n");
    return exit_code_for_signal(e.signal());
  } catch (const ScenarioError& e) {
    // what() is "file:line:column: key: ..."; the hint is appended only if the message lacks it.
    std::string msg = e.what();
    std::cerr << msg << "\n";
    if (!e.hint().empty() && msg.find(e.hint()) == std::string::npos) std::cerr << "  " << e.hint() << "\n";
    return kExitScenario;
  } catch (const InvalidParameter& e) {
    // A model error that could not be mapped to a line of the file.
    std::cerr << "aidcsim: invalid scenario: " << e.what() << "\n";
    return kExitScenario;
  } catch (const Error& e) {
    std::cerr << "aidcsim: error: " << e.what() << "\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "aidcsim: internal error: " << e.what() << "\n";
    return kExitError;
  }
}

std::string version_line() { return std::string("aidcsim ") + aidcsim::version(); }

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

bool ends_with_any(const std::string& path, std::initializer_list<const char*> suffixes) {
  for (const char* sfx : suffixes) {
    const std::string t(sfx);
    if (path.size() < t.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < t.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(path[path.size() - t.size() + i])) == t[i];
    if (same) return true;
  }
  return false;
}

void refuse_output_over_input(const std::string& option, const std::string& path, const std::string& input,
                              const std::string& command, const std::string& example) {
  if (path.empty()) return;
  std::error_code ec;
  const bool same = !input.empty() && std::filesystem::equivalent(path, input, ec);
  if (same)
    throw CLI::ValidationError(option, "'" + path + "': the scenario file it reads (" + option +
                                           " takes another path to write, e.g. " + option + " " + example + ")");
  if (ends_with_any(path, {".yaml", ".yml"}))
    throw CLI::ValidationError(option, "'" + path + "': a scenario file, not an output (" + option +
                                           " takes the path to write; give the scenario first: aidcsim " + command +
                                           " " + path + " " + option + " " + example + ")");
}

}  // namespace aidcsim::cli
