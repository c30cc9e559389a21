#pragma once
// The size of the time-to-train Monte Carlo checked before any step is simulated. The size
// (reliability.draws x the events of a draw) needs the step time, which only the simulated step
// gives; a lower bound of it is known beforehand (step_time_lower_bound: the engine's own kernel
// times of the busiest pipeline stage, with the pipeline's fill and drain, nothing on the network).
// A shorter step trains the target in less wall time with no more checkpoints (work / interval,
// the interval fixed or Young/Daly's of at least one step) and no more failures, so the events
// estimated with the bound are at most those of the simulated step: a run refused with the bound
// would be refused after its step too, only later (8K scenario: 0.4 s CPU; the rollout: 14 s).
// The least values such a refusal names (async_stall, hot_spares, checkpoint_interval) are the
// bound's, which the simulated step may exceed: `run` leaves those to the check after the step
// (time_to_train.hpp), which names the values the simulated step needs.
#include <string>
#include <vector>

#include "models/topology/fabric.hpp"
#include "models/workload/job_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Lower bound (s) of the step time of `job` (its parallelism and global batch) on
/// `scenario.gpu`: the engine's own compute times of one microbatch (workload::layer_time,
/// logit_time, the loss and embedding HBM passes, recomputation as the job asks; default
/// compute::Efficiency, which no scenario key changes) at the nominal clock (thermal DVFS only slows
/// it), divided by the fastest speed factor a GPU may get (cluster.gpu_speed,
/// gpu_speed_distribution.max); for each pipeline stage s, its chunks' forward and backward for every
/// microbatch plus microbatch 0's forward through the virtual stages before it and the last
/// gradient's way back through them (its first op waits for the one, the other waits for its last);
/// the largest over the stages. Transfers, collectives, the DP reduction and the optimizer only add.
/// Same InvalidParameter as workload::virtual_stage_layers for a layout the engine refuses.
double step_time_lower_bound(const Scenario& scenario, const workload::JobSpec& job);

/// What check_monte_carlo_before_step did.
enum class MonteCarloBound {
  checked,         ///< the estimate with the bound fits the budget
  storage_fabric,  ///< not checked: storage on the fabric, whose simulated write sets the checkpoint
                   ///< stall (a longer one means fewer checkpoints: no bound without it)
  jobs,            ///< not checked: a `jobs:` scenario (each job's Monte Carlo after the shared steps)
  deferred         ///< over the budget with the bound, refused naming a value to write (defer_named_values):
                   ///< left to the check after the step, which names the value the simulated step needs
};

/// Refuses, before simulating, a scenario whose Monte Carlo is over the budget even with every
/// situation's step time at step_time_lower_bound (the reliability model's own check,
/// reliability::monte_carlo_events, on situations without the step's slowdowns: no throttling
/// profile, no timed fabric failures, CDUs counted as none, all of which only add events; the
/// switches and cables of each situation's fabric as built, as the run counts them). Throws InvalidParameter with the key time_to_train names, its message saying it was
/// checked before the step with a lower bound of the step time, and that a least value it names is a
/// lower limit. With `defer_named_values` (`run`, which simulates the step next) a refusal naming a
/// value to write (reliability.async_stall, hot_spares, checkpoint_interval) is not thrown: returns
/// MonteCarloBound::deferred, and the check after the step names the value the simulated step needs.
/// Returns what it did.
/// `boms`: each situation's bill of materials from check_scenario (its switches and cables fail too);
/// null or of another size: the fabrics are built here (validate and run pass check_scenario's).
MonteCarloBound check_monte_carlo_before_step(const Scenario& scenario, bool defer_named_values = false,
                                              const std::vector<topology::BillOfMaterials>* boms = nullptr);

/// The line `validate` and aidcsim.validate() add for `what`: what was checked of the Monte Carlo's
/// size and what `run` checks again after the step.
std::string monte_carlo_note(MonteCarloBound what);

}  // namespace aidcsim
