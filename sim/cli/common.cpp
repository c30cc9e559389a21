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

namespace aidcsim::cli {

Scenario load_scenario_or_default(const std::string& path) {
  return path.empty() ? load_default_scenario() : load_scenario_file(path);
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

}  // namespace aidcsim::cli
