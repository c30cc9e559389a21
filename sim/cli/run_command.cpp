// `aidcsim run [SCENARIO.yaml] [--output FILE.h5] [--json FILE.json] [--seed N] [--quiet] [--profile]`
// Loads the scenario (the built-in default without a file), simulates it, prints the summary on
// stdout and only then writes the output files: a failed run creates no file.
#include <iostream>
#include <limits>
#include <memory>

#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/progress.hpp"
#include "sim/engine/pipeline.hpp"
#include "sim/results/atomic_file_writer.hpp"
#include "sim/results/console_writer.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/json_writer.hpp"

namespace aidcsim::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string output;
  std::string json;
  long long seed = -1;
  bool quiet = false;
  bool fail_on_check = false;
  bool profile = false;
};

int run(const RunArgs& a) {
  return guarded([&] {
    const Scenario scenario = load_scenario_or_default(a.scenario);
    // Fail before a long run, not after it, when an output path cannot be written.
    if (!a.output.empty()) check_writable_path(a.output);
    if (!a.json.empty()) check_writable_path(a.json);

    if (a.profile) profile::enable(true);
    ProgressPrinter progress(a.quiet, stderr_is_terminal());
    RunOptions options;
    options.seed = a.seed;
    options.progress = [&](const std::string& stage, double fraction) { progress.update(stage, fraction); };
    Results results;
    try {
      results = simulate(scenario, options);
    } catch (const ScenarioError&) {
      progress.abort();
      throw;
    } catch (const InvalidParameter& e) {
      progress.abort();
      throw scenario.locate(e);  // a model's complaint, pointed at the key's line in the file
    } catch (...) {
      progress.abort();
      throw;
    }
    progress.finish();
    if (profile::enabled()) std::cerr << profile::format_table();
    for (const auto& w : results.warnings) std::cerr << "aidcsim: warning: " << w << "\n";

    std::cout << format_console_summary(results) << std::flush;
    if (!a.output.empty()) {
      write_hdf5(results, a.output, version_line() + " run " + (a.scenario.empty() ? "(default scenario)" : a.scenario));
      if (!a.quiet) std::cerr << "wrote " << a.output << "\n";
    }
    if (!a.json.empty()) {
      write_json(results, a.json);
      if (!a.quiet) std::cerr << "wrote " << a.json << "\n";
    }
    if (a.fail_on_check)
      for (const auto& c : results.checks)
        if (!c.pass) return kExitCheckFailed;
    return kExitOk;
  });
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Simulate a scenario and print its summary");
  sub->add_option("scenario", args->scenario, "Scenario YAML file (default: the built-in stargate-uk-8k)");
  sub->add_option("-o,--output", args->output, "Write the full results to this HDF5 file");
  sub->add_option("--json", args->json, "Write the summary, checks and notes to this JSON file");
  sub->add_option("--seed", args->seed, "Random seed, overriding the scenario's `seed`")
      ->check(CLI::Range(0LL, std::numeric_limits<long long>::max()));
  sub->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  sub->add_flag("--fail-on-check", args->fail_on_check, "Exit with code 3 if a checklist item fails");
  sub->add_flag("--profile", args->profile,
                "Print CPU and wall time per stage of the run and of the network engine's parts on stderr "
                "(also AIDCSIM_PROFILE=1)");
  sub->callback([args, &action] {
    if (!args->output.empty() && args->output == args->json)
      throw CLI::ValidationError("--output and --json name the same file '" + args->output + "'");
    action = [args] { return run(*args); };
  });
}

}  // namespace aidcsim::cli
