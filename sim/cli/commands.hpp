#pragma once
// The `aidcsim` command line: one file per subcommand, each registering itself on the CLI11 app.
// A subcommand's callback stores the work to do in `action`; main() runs it after parsing, inside
// guarded(), which turns exceptions into messages on stderr and exit codes.
//
// Exit codes (documented in `aidcsim --help`):
//   0  success
//   1  error (simulation could not proceed, output could not be written, internal error)
//   2  invalid scenario (message "file:line:column: key: got ..., expected ...")
//   3  run completed but a checklist item failed (only with `run --fail-on-check`)
//   64 command-line usage error
//   130, 143 stopped by SIGINT, SIGTERM (128 + signal; sim/cli/signals.hpp)
#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace aidcsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitScenario = 2;
inline constexpr int kExitCheckFailed = 3;
inline constexpr int kExitUsage = 64;

using Action = std::function<int()>;

void add_run_command(CLI::App& app, Action& action);
void add_validate_command(CLI::App& app, Action& action);
void add_schema_command(CLI::App& app, Action& action);
void add_version_command(CLI::App& app, Action& action);
void add_topology_command(CLI::App& app, Action& action);
void add_bench_collective_command(CLI::App& app, Action& action);
/// `report`, `sweep` and `compare`: run `python3 -m aidcsim report|sweep|compare` with the remaining arguments.
void add_python_commands(CLI::App& app, Action& action);

/// The scenario file at `path`, or the built-in default scenario when `path` is empty, with the
/// `--set` overrides applied (LoadOptions::overrides). Throws ScenarioError / aidcsim::Error like
/// load_scenario_file().
Scenario load_scenario_or_default(const std::string& path, const std::vector<Override>& overrides = {});

/// Adds `--set KEY=VALUE` (repeatable, one pair each) to `sub`, collected in `texts`.
void add_set_option(CLI::App* sub, std::vector<std::string>& texts);

/// The `--set` texts as overrides, as `aidcsim compare` reads its own (python/aidcsim/compare.py
/// _parse_set): split at the first '=', the key stripped of blanks. Throws CLI::ValidationError
/// (exit 64) for a text without '=' or with an empty key.
std::vector<Override> parse_set_options(const std::vector<std::string>& texts);

/// " --set k=v --set k2=v2" (each quoted for a shell where needed): for provenance and notes.
std::string set_options_text(const std::vector<Override>& overrides);

/// Runs `body`; on exception prints "aidcsim: error: ..." (or the scenario error with its hint) on
/// stderr and returns the exit code above.
int guarded(const std::function<int()>& body);

/// "aidcsim 0.1.0".
std::string version_line();

/// Directory holding the running executable (from /proc/self/exe); empty if unknown.
std::string executable_dir();

/// True when `path` ends in one of `suffixes` (lower case; compared ASCII case-insensitively): an
/// output option given a file name of another format (`--json out.h5`) is refused by it.
bool ends_with_any(const std::string& path, std::initializer_list<const char*> suffixes);

/// Refuses (CLI::ValidationError, exit 64) an output option `option` whose `path` would overwrite
/// an input of the command: a .yaml/.yml name (aidcsim writes no YAML; it is a scenario's name) or
/// the same file as `input` (the scenario read; empty: none). `example` is the name suggested in
/// the message ("results.h5"). `run --json scenario.yaml` and `topology s.yaml --graphml s.yaml`
/// replaced the user's scenario (case input/08's and 21's kind: outputs naming what they must not).
void refuse_output_over_input(const std::string& option, const std::string& path, const std::string& input,
                              const std::string& command, const std::string& example);

}  // namespace aidcsim::cli
