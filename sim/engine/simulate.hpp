#pragma once
// The co-simulation pipeline: scenario -> fabric graph -> SimGrid step -> power -> thermal ->
// time-to-train -> Results. Composes the models; owns no physics of its own.
#include <functional>
#include <string>

#include "models/common/results.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

struct RunOptions {
  /// Called with a stage name and a fraction in [0, 1] as the run progresses (the CLI prints it to
  /// stderr). May be empty.
  std::function<void(const std::string& stage, double fraction)> progress;
  /// Overrides the scenario's seed when set (>= 0).
  long long seed = -1;
};

/// Runs one scenario end to end. Throws ScenarioError for inconsistent input discovered by a model
/// (mapped to the key's file:line), SimulationError when the simulation cannot proceed, Cancelled
/// (models/common/cancel.hpp) soon after request_cancel().
Results simulate(const Scenario& scenario, const RunOptions& options = {});

}  // namespace aidcsim
