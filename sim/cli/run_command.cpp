// `aidcsim run [SCENARIO.yaml] [--set KEY=VALUE]... [--output FILE.h5] [--json FILE.json] [--seed N] [--quiet]
// [--profile]`
// Loads the scenario (the built-in default without a file), checks the output paths, simulates,
// writes the outputs as one set (sim/results/output_set.hpp: a failed or interrupted run creates no
// file), then prints the summary on stdout (on stderr when an output goes to stdout).
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <iostream>
#include <memory>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/signals.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/results/console_writer.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/json_writer.hpp"
#include "sim/results/output_set.hpp"
#include "sim/scenario/input_limits.hpp"

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
  std::vector<std::string> set_texts;  ///< --set KEY=VALUE as typed
  std::vector<Override> overrides;     ///< parsed from set_texts
};

int run(const RunArgs& a) {
  return guarded([&] {
    const Scenario scenario = load_scenario_or_default(a.scenario, a.overrides);
    // Fail before a long run, not after it, when an output cannot be written.
    OutputSet outputs;
    const std::size_t h5 = a.output.empty() ? 0 : outputs.add(a.output, /*binary=*/true);
    const std::size_t js = a.json.empty() ? 0 : outputs.add(a.json);

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
    // The stored scenario text is the file's: the overrides complete it for a rerun.
    if (!a.overrides.empty())
      results.notes.push_back(
          "scenario keys set on the command line (the stored scenario text is the file's, "
          "without them):" +
          set_options_text(a.overrides));

    // The outputs are published before the summary is printed: a reader of stdout that has gone
    // (`| head`, a closed pager) ends the process with SIGPIPE at the print, which must not lose
    // the files of a finished run. When they cannot be written, the summary is still shown.
    std::ostream& console = outputs.uses_stdout() ? std::cerr : std::cout;
    const std::string summary = format_console_summary(results);
    if (!a.output.empty())
      outputs.set_content(
          h5, hdf5_image(results, version_line() + " run " + (a.scenario.empty() ? "(default scenario)" : a.scenario) +
                                      set_options_text(a.overrides)));
    if (!a.json.empty()) outputs.set_content(js, json_text(results));
    try {
      outputs.commit();  // all or nothing
    } catch (...) {
      console << summary << std::flush;
      throw;
    }
    console << summary << std::flush;
    if (!a.quiet)
      for (const auto& t : outputs.targets()) std::cerr << "wrote " << t.path << "\n";
    if (cancel_requested()) {  // the signal came while the outputs were being published
      print_stopped(cancel_signal(), " after the outputs were written\n");
      return exit_code_for_signal(cancel_signal());
    }
    if (a.fail_on_check)
      for (const auto& c : results.checks)
        if (!c.pass) return kExitCheckFailed;
    return kExitOk;
  });
}

// The seed as the scenario's `seed` key takes it: an integer from 0 to 2^53 - 1 (results files
// store it exactly; larger values were silently clamped before).
long long parse_seed(const std::string& text) {
  long long v = -1;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0 || v > kMaxSeed)
    throw CLI::ValidationError("--seed", "'" + text + "' is not an integer from 0 to " + std::to_string(kMaxSeed));
  return v;
}

// `--output out.json` wrote HDF5 bytes under a JSON name (and `--json out.h5` JSON under an HDF5
// name): a swapped option, refused before the run. `run --json scenario.yaml` (the scenario meant
// as the positional argument after an option that takes a value) ran the built-in scenario and
// wrote its JSON over the user's scenario file: an output named .yaml / .yml, or the scenario
// itself, is refused too.
void check_output_names(const RunArgs& a) {
  refuse_output_over_input("--output", a.output, a.scenario, "run", "results.h5");
  refuse_output_over_input("--json", a.json, a.scenario, "run", "results.json");
  if (ends_with_any(a.output, {".json"}))
    throw CLI::ValidationError("--output", "'" + a.output + "': --output writes HDF5; for JSON use --json " + a.output);
  if (ends_with_any(a.json, {".h5", ".hdf5", ".he5", ".nc"}))
    throw CLI::ValidationError("--json", "'" + a.json + "': --json writes JSON; for HDF5 use --output " + a.json);
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunArgs>();
  auto seed = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("run", "Simulate a scenario and print its summary");
  sub->add_option("scenario", args->scenario, "Scenario YAML file (default: the built-in stargate-uk-8k)");
  CLI::Option* out = sub->add_option("-o,--output", args->output,
                                     "Write the full results to this HDF5 file ('-' or /dev/stdout: standard output)");
  CLI::Option* json = sub->add_option("--json", args->json,
                                      "Write the summary, checks and notes to this JSON file ('-': standard output)");
  CLI::Option* seed_opt =
      sub->add_option("--seed", *seed, "Random seed from 0 to 2^53-1, overriding the scenario's `seed`");
  add_set_option(sub, args->set_texts);
  sub->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  sub->add_flag("--fail-on-check", args->fail_on_check, "Exit with code 3 if a checklist item fails");
  sub->add_flag("--profile", args->profile,
                "Print CPU and wall time per stage of the run and of the network engine's parts on stderr "
                "(also AIDCSIM_PROFILE=1)");
  sub->callback([args, seed, seed_opt, out, json, &action] {
    if (out->count() > 0 && args->output.empty()) throw CLI::ValidationError("--output", "the path is empty");
    if (json->count() > 0 && args->json.empty()) throw CLI::ValidationError("--json", "the path is empty");
    check_output_names(*args);
    args->seed = seed_opt->count() > 0 ? parse_seed(*seed) : -1;
    args->overrides = parse_set_options(args->set_texts);
    action = [args] { return run(*args); };
  });
}

}  // namespace aidcsim::cli
