#pragma once
// The size of the time-to-train Monte Carlo checked before any step is simulated. The size
// (reliability.draws x the events of a draw) needs the step time, which only the simulated step
// gives; a lower bound of it is known beforehand: the layers' GEMM FLOPs of a global batch spread
// over every GPU of the job at the GPU's dense tensor peak. A shorter step trains the target in
// less wall time with no more checkpoints (work / interval, the interval fixed or Young/Daly's of
// at least one step) and no more failures, so the events estimated with the bound are at most
// those of the simulated step: a run refused with the bound would be refused after its step too,
// only later (8K scenario: 0.4 s CPU; the rollout: 14 s).
// The engine's own check after the step stays (time_to_train.hpp).
#include <string>

#include "models/workload/job_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Lower bound (s) of the step time of `job` on `gpus` GPUs of `scenario.gpu`: the GEMMs of every
/// layer, forward and backward (3 x the forward's 2 x weights FLOPs per token, attention scores and
/// the output layer left out: workload::layer_gemm_flops), over global_batch x sequence_length
/// tokens, at the GPU's dense peak for workload.precision (compute::peak_flops) on every GPU at once,
/// times the fastest speed factor a GPU may get (cluster.gpu_speed, gpu_speed_distribution.max).
/// The engine's GEMM time (compute::gemm_time: MAMF <= peak, efficiency < 1) is longer.
double step_time_lower_bound(const Scenario& scenario, const workload::JobSpec& job, int gpus);

/// What check_monte_carlo_before_step did.
enum class MonteCarloBound {
  checked,         ///< the estimate with the bound fits the budget
  storage_fabric,  ///< not checked: storage on the fabric, whose simulated write sets the checkpoint
                   ///< stall (a longer one means fewer checkpoints: no bound without it)
  jobs             ///< not checked: a `jobs:` scenario (each job's Monte Carlo after the shared steps)
};

/// Refuses, before simulating, a scenario whose Monte Carlo is over the budget even with every
/// situation's step time at step_time_lower_bound (the reliability model's own check,
/// reliability::monte_carlo_events, on situations without the step's slowdowns: no throttling
/// profile, no timed fabric failures, switches, links and CDUs counted as none, all of which only
/// add events). Throws InvalidParameter with the key time_to_train names, its message saying it was
/// checked before the step with a lower bound of the step time. Returns what it did.
MonteCarloBound check_monte_carlo_before_step(const Scenario& scenario);

/// The line `validate` and aidcsim.validate() add for `what`: what was checked of the Monte Carlo's
/// size and what `run` checks again after the step.
std::string monte_carlo_note(MonteCarloBound what);

}  // namespace aidcsim
