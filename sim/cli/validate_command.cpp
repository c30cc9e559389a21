// `aidcsim validate SCENARIO.yaml... [--set KEY=VALUE]...`: loads each file (syntax, keys, units, ranges, cross-key
// consistency) and makes every check `run` makes before simulating (sim/engine/validation.hpp, the
// function aidcsim.validate() calls too), without simulating. Exit 0 if all are valid, 2 if any is
// not, 1 if a file cannot be read. A valid file whose fabric is built otherwise than written (an
// as-built warning of the run) gets that warning on stderr. The size of the time-to-train Monte
// Carlo is checked with a lower bound of the step time (`run` checks it again after simulating the
// step): a note after each valid file's line says so, rather than let "valid" read as "run will
// accept it" (on stdout: stderr stays empty for a scenario built as written).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/engine/validation.hpp"

namespace aidcsim::cli {

void add_validate_command(CLI::App& app, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* sub =
      app.add_subcommand("validate",
                         "Check scenario files without running them (exit 0 valid, 2 invalid, 1 unreadable); the "
                         "time-to-train Monte Carlo's size is checked with a lower bound of the step time, and "
                         "again by run with the simulated step");
  sub->add_option("scenario", *files, "Scenario YAML file(s)")->required();
  add_set_option(sub, *sets);  // applied to every file
  sub->callback([files, sets, &action] {
    const std::vector<Override> overrides = parse_set_options(*sets);
    action = [files, overrides] {
      int code = kExitOk;
      std::vector<std::string> notes;  // the same for every file in most runs: each said once, after the files
      for (const auto& f : *files) {
        const int rc = guarded([&] {
          LoadOptions options;
          options.overrides = overrides;
          const Scenario s = load_scenario_file(f, options);
          const ValidationReport report = validate_scenario(s);
          // Valid, but built otherwise than written (fabric.exact: false): said as `run` says it.
          for (const auto& w : report.warnings) std::cerr << "aidcsim: warning: " << f << ": " << w << "\n";
          std::cout << f << ": valid scenario '" << s.name << "'\n";
          for (const auto& n : report.notes)
            if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
          return kExitOk;
        });
        if (rc == kExitError)
          code = kExitError;  // a file that cannot be read: an error, not an invalid scenario
        else if (rc != kExitOk && code != kExitError)
          code = kExitScenario;
      }
      for (const auto& n : notes) std::cout << "note: " << n << "\n";
      return code;
    };
  });
}

}  // namespace aidcsim::cli
