#pragma once
// The bundled default scenario (scenarios/stargate-uk-8k.yaml), compiled into the library so that
// `aidcsim run` without a file works from any directory.
namespace aidcsim {
/// YAML text of scenarios/stargate-uk-8k.yaml as of the build.
const char* default_scenario_text();
/// File name the default scenario is reported under in errors and results.
const char* default_scenario_name();
}  // namespace aidcsim
