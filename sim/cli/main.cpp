// Entry point of the `aidcsim` executable: registers the subcommands (one file each), parses the
// command line with CLI11 and runs the chosen one. Exit codes: see sim/cli/commands.hpp.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "models/common/suggest.hpp"

#include "sim/cli/commands.hpp"
#include "sim/cli/signals.hpp"

int main(int argc, char** argv) {
  using namespace aidcsim::cli;
  CLI::App app{
      "aidcsim - discrete-event simulator of AI-training datacenters.\n"
      "One scenario file in: time-to-train, fabric congestion and thermal headroom out.",
      "aidcsim"};
  app.footer(
      "Exit codes: 0 success, 1 error, 2 invalid scenario (file:line:column: key: ...),\n"
      "            3 a checklist item failed (run --fail-on-check), 64 usage error,\n"
      "            130 interrupted (SIGINT), 143 terminated (SIGTERM): no output file written.\n"
      "Run `aidcsim SUBCOMMAND --help` for the options of each subcommand.");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());

  Action action;
  add_run_command(app, action);
  add_validate_command(app, action);
  add_schema_command(app, action);
  add_topology_command(app, action);
  add_bench_collective_command(app, action);
  add_python_commands(app, action);
  add_version_command(app, action);

  // CLI11 reports a word that names no subcommand as "A subcommand is required": name it, list
  // the subcommands and suggest the closest ("aidcsim rnu" -> did you mean 'run'?).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(s->get_name());
    const std::string word = argv[1];
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      std::cerr << "aidcsim: unknown subcommand '" << word << "', expected one of " << list;
      if (const auto near = aidcsim::closest_match(word, names)) std::cerr << "; did you mean '" << *near << "'?";
      std::cerr << "\nRun `aidcsim --help` for more information.\n";
      return kExitUsage;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A usage error names the subcommand being parsed ("aidcsim run: --seed: ..."), as the
    // subcommands' own errors do; get_subcommands() already lists it when its parse throws.
    const auto subs = app.get_subcommands();
    const std::string who = subs.empty() ? "aidcsim" : "aidcsim " + subs.back()->get_name();
    app.failure_message([who](const CLI::App*, const CLI::Error& err) {
      return who + ": " + err.what() + "\nRun `" + who + " --help` for more information.\n";
    });
    const int code = app.exit(e);  // prints help, version or the usage error
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (!action) return kExitUsage;
  SignalGuard signals;  // SIGINT/SIGTERM stop the run: one line, exit 130/143, no output file
  return action();
}
