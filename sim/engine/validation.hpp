#pragma once
// What `aidcsim validate` and aidcsim.validate() check of a loaded scenario: one function, so that
// the command line and Python give the same findings.
#include <optional>
#include <string>
#include <vector>

#include "models/topology/fabric.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Findings of a valid scenario.
struct ValidationReport {
  /// Fabrics built otherwise than written (fabric.exact: false), worded as the run's warnings.
  std::vector<std::string> warnings;
  /// What was checked only in part, or is checked again by `run` (the Monte Carlo's size).
  std::vector<std::string> notes;
  /// With validate_scenario(.., with_bom = true): the bill of materials of the scenario's fabric as
  /// written (fabric.gpus GPUs, the failures from the start applied), what
  /// topology::build_fabric(scenario.fabric).bom() gives; else empty.
  std::optional<topology::BillOfMaterials> bom;
};

/// Every check `aidcsim run` makes before simulating, without simulating: check_scenario (each
/// situation's job, fabric, failures, DP algorithm, cooling, batch schedule: feasibility.hpp) and the
/// Monte Carlo's size with a lower bound of the step time (monte_carlo_bound.hpp). Throws
/// ScenarioError at the key's file:line (Scenario::locate) for the first check that fails.
/// `with_bom`: fill ValidationReport::bom, from the fabric the checks built when it is the scenario's
/// own (no rollout phase of another size, no timed failure applied to it, not a `jobs:` scenario),
/// so that a caller that wants both (compare) does not build it twice (31K GPUs: ~0.02 s each).
ValidationReport validate_scenario(const Scenario& scenario, bool with_bom = false);

}  // namespace aidcsim
