// Entry point of the `aidcsim` executable: registers the subcommands (one file each), parses the
// command line with CLI11 and runs the chosen one. Exit codes: see sim/cli/commands.hpp.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "models/common/suggest.hpp"

#include "sim/cli/commands.hpp"
#include "sim/cli/signals.hpp"

namespace {

/// The name `o` was given by on the command line ("-f" or "--stepfactor", as typed: the subcommands'
/// own messages name an option so), else its longest name.
std::string typed_name(const CLI::Option* o, int argc, char** argv) {
  std::vector<std::string> names;
  for (const auto& n : o->get_snames()) names.push_back("-" + n);
  for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    for (const auto& n : names)
      if (a == n || a.rfind(n + "=", 0) == 0) return n;
  }
  return o->get_name();
}

/// "aidcsim SUB: NAME" of the first option or argument given as an empty string, or "". An empty
/// value is not "not given": `run ''` ran the built-in scenario, `topology s.yaml --dot ''` and
/// `bench-collective --scenario ''` went on without the file (cases input/21 and its kind).
std::string first_empty_value(const CLI::App& app, int argc, char** argv) {
  for (const CLI::App* sub : app.get_subcommands())
    for (const CLI::Option* o : sub->get_options())
      if (o->count() > 0 && o->get_type_size() != 0)
        for (const std::string& r : o->results())
          if (r.empty())
            return "aidcsim " + sub->get_name() + ": " +
                   (o->get_positional() ? o->get_name(true) : typed_name(o, argc, argv));
  return {};
}

}  // namespace

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
  if (const std::string bad = first_empty_value(app, argc, argv); !bad.empty()) {
    std::cerr << bad << ": the value is empty (give a path or value, or leave the option out)\nRun `"
              << bad.substr(0, bad.find(':')) << " --help` for more information.\n";
    return kExitUsage;
  }
  SignalGuard signals;  // SIGINT/SIGTERM stop the run: one line, exit 130/143, no output file
  return action();
}
