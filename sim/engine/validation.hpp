#pragma once
// What `aidcsim validate` and aidcsim.validate() check of a loaded scenario: one function, so that
// the command line and Python give the same findings.
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Findings of a valid scenario.
struct ValidationReport {
  /// Fabrics built otherwise than written (fabric.exact: false), worded as the run's warnings.
  std::vector<std::string> warnings;
  /// What was checked only in part, or is checked again by `run` (the Monte Carlo's size).
  std::vector<std::string> notes;
};

/// Every check `aidcsim run` makes before simulating, without simulating: check_scenario (each
/// situation's job, fabric, failures, DP algorithm, cooling, batch schedule: feasibility.hpp) and the
/// Monte Carlo's size with a lower bound of the step time (monte_carlo_bound.hpp). Throws
/// ScenarioError at the key's file:line (Scenario::locate) for the first check that fails.
ValidationReport validate_scenario(const Scenario& scenario);

}  // namespace aidcsim
