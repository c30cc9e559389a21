// A cooling_monitoring policy acts in the cooling-fault and daily-cycle transients only: in a run
// with neither, its sensors and actions do nothing, which the run's notes now say (0abac4e: results
// identical to the run without the policy, no note, even for a threshold the steady state exceeds).
#include <catch2/catch.hpp>

#include <string>

#include "sim/engine/simulate.hpp"
#include "sim/scenario/default_scenario.hpp"

using namespace aidcsim;

namespace {

const std::string kPolicy =
    "\ncooling_monitoring:\n"
    "  sensors:\n"
    "    - {type: temperature, location: GPU inlet, threshold: 10.0, alert_level: warning}\n"
    "  response_actions:\n"
    "    - {alert_level: warning, action: reduce GPU power limit}\n";

bool noted(const Results& r) {
  for (const auto& n : r.notes)
    if (n.rfind("cooling_monitoring: its 1 sensor(s) and 1 response action(s) did nothing", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("a monitoring policy with no transient to act in is said to do nothing", "[engine][monitoring]") {
  const std::string base = default_scenario_text();
  CHECK(noted(simulate(load_scenario_text(base + kPolicy, "policy.yaml"))));
  CHECK_FALSE(noted(simulate(load_scenario_text(base, "none.yaml"))));
  // With a cooling fault the policy acts in its transient: no such note.
  std::string fault = base;
  fault.replace(
      fault.find("  rdhx:"), 7,
      "  faults:\n    - {type: supply_excursion, magnitude: \"3 K\", at: \"1 h\", duration: \"1 h\"}\n  rdhx:");
  CHECK_FALSE(noted(simulate(load_scenario_text(fault + kPolicy, "fault.yaml"))));
}
