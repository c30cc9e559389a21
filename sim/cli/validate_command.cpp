// `aidcsim validate SCENARIO.yaml... [--set KEY=VALUE]...`: loads each file (syntax, keys, units, ranges, cross-key
// consistency) and checks what the engine checks before simulating (each phase's job and fabric,
// fabric failures, batch sizes: sim/engine/feasibility.hpp), without simulating. Exit 0 if all
// are valid, 2 if any is not, 1 if a file cannot be read. A valid file whose fabric is built
// otherwise than written (an as-built warning of the run) gets that warning on stderr. One check of
// `run` is not made here: the size of the time-to-train Monte Carlo (reliability.draws x the events
// of a draw, counted from the simulated step time), which `run` refuses above its budget after
// simulating the step; a note after the files' lines says so when any is valid, rather than let
// "valid" read as "run will accept it" (on stdout: stderr stays empty for a scenario built as written).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "models/common/errors.hpp"
#include "sim/cli/commands.hpp"
#include "sim/engine/feasibility.hpp"

namespace aidcsim::cli {

void add_validate_command(CLI::App& app, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* sub =
      app.add_subcommand("validate",
                         "Check scenario files without running them (exit 0 valid, 2 invalid, 1 unreadable); the "
                         "time-to-train Monte Carlo's size needs the simulated step and is checked by run");
  sub->add_option("scenario", *files, "Scenario YAML file(s)")->required();
  add_set_option(sub, *sets);  // applied to every file
  sub->callback([files, sets, &action] {
    const std::vector<Override> overrides = parse_set_options(*sets);
    action = [files, overrides] {
      int code = kExitOk;
      bool any_valid = false;
      for (const auto& f : *files) {
        const int rc = guarded([&] {
          LoadOptions options;
          options.overrides = overrides;
          const Scenario s = load_scenario_file(f, options);
          std::vector<std::string> warnings;
          try {
            check_scenario(s, &warnings);  // what `run` checks before simulating: fabrics, phases, failures
          } catch (const InvalidParameter& e) {
            throw s.locate(e);
          }
          // Valid, but built otherwise than written (fabric.exact: false): said as `run` says it.
          for (const auto& w : warnings) std::cerr << "aidcsim: warning: " << f << ": " << w << "\n";
          std::cout << f << ": valid scenario '" << s.name << "'\n";
          any_valid = true;
          return kExitOk;
        });
        if (rc == kExitError)
          code = kExitError;  // a file that cannot be read: an error, not an invalid scenario
        else if (rc != kExitOk && code != kExitError)
          code = kExitScenario;
      }
      if (any_valid)
        std::cout << "note: not checked by validate: the size of the time-to-train Monte Carlo "
                     "(reliability.draws x the events of a draw, which need the simulated step time); `run` "
                     "refuses one above its budget after simulating the step, before drawing (training.tokens, "
                     "reliability.draws or the checkpoint interval is the key to change)\n";
      return code;
    };
  });
}

}  // namespace aidcsim::cli
