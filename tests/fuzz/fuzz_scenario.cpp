// libFuzzer target: the scenario reader and validator (sim/scenario: input limits, YAML, schema
// walk, units, ranges, every area's spec_from) on arbitrary bytes as a scenario file.
// Properties: no crash, leak or undefined behaviour (ASan/UBSan), and every rejection is a
// ScenarioError that names a line of the file (>= 1) and the file: any other exception escaping
// load_scenario_text() is a finding. The engine's feasibility checks (sim/engine/feasibility.hpp,
// which build fabrics) are not run: the mutation test (tests/cli/mutate_scenarios.py) covers them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const aidcsim::Scenario s = aidcsim::load_scenario_text(text, "fuzz.yaml");
    (void)s;
  } catch (const aidcsim::ScenarioError& e) {
    if (e.where().line < 1 || e.where().file != "fuzz.yaml") {
      std::fprintf(stderr, "ScenarioError without a line of fuzz.yaml: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception other than ScenarioError: %s\n", e.what());
    std::abort();
  }
  return 0;
}
