#pragma once
// One training step on a fabric: plan (models/workload) -> SimGrid run (models/network) ->
// breakdown. Every step the engine simulates goes through here: the situation's base and
// throttled steps and its variants (other batch sizes, failed links, the fault's clocks).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/compute/gpu_spec.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/job_spec.hpp"
#include "models/workload/step.hpp"

namespace aidcsim {

struct StepRun {
  workload::StepPlan plan;
  network::RunResult run;
  workload::StepBreakdown breakdown;
};

/// Plans one step of `job` on `fabric` at per-GPU clock factors `clocks` (empty = full clock,
/// else one per GPU in [0, 1]) and runs it on `net` (built on `fabric`, whose current failures
/// and rates it sees). `seed` is the ECMP hash seed. Throws what plan_step / FlowNetwork::run
/// throw: InvalidParameter for a job that does not fit, SimulationError for an unroutable flow.
/// `capacity`: activities to reserve (StepOptions::schedule_capacity; an earlier plan's size of
/// the same job; 0 = none); it changes no result.
StepRun run_step(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                 network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                 std::size_t capacity = 0);

/// The step of `job` at `clocks` (as run_step) while a plan of the same job must stay in memory
/// (`held`: the situation's training step, which later variants run again): the step is planned
/// at `clocks`, and when that plan's schedule differs from held's only in activity amounts
/// (network::same_but_amount for every activity, same gpu_flops: a uniform clock change slows
/// the computations and moves nothing else), its own activities are freed before the run, which
/// takes held's activities with the new amounts written in; held's amounts are restored after
/// it (also on a throw). So two schedules are alive only while planning, not during the run
/// (peak RSS; on this VM also system time: the kernel zeroes each fresh page). The run's input
/// is the same schedule either way, so the breakdown is bit-identical to run_step's. When the
/// plans differ otherwise, the new plan runs as run_step would.
/// The returned plan's schedule has no activities; `reused` says which case ran.
struct StepOnHeld {
  StepRun step;         ///< plan (without activities), run and breakdown
  bool reused = false;  ///< true: ran on held's activities
};
StepOnHeld run_step_on(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                       network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                       workload::StepPlan& held);

/// Whether the engine may take a step's result from an earlier step with the same inputs, bit for
/// bit, instead of simulating it again (simulate_situation: a step at a lower clock equal to an
/// earlier one's; a throttle iteration at the previous iteration's clocks): on unless the environment variable
/// AIDCSIM_NO_RUN_REUSE is set to a non-empty value other than "0" (read once). The results are
/// the same either way but for the run's notes, which name each reused step (tests/cli/
/// run_reuse_exact.sh compares the outputs with it on and off).
bool run_reuse_enabled();

}  // namespace aidcsim
