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

/// The step of `job` at `clocks` (as run_step) with a plan of the same job at other clocks in
/// memory (`held`: the situation's training step, whose transfers the steps at lower clocks run
/// again). The plan at `clocks` takes held's end-of-step part (DP traffic, optimizer: most of the
/// activities) instead of emitting it again, where its pipeline part differs from held's only in
/// activity amounts (workload::plan_step_reusing: a clock change slows the computations and moves
/// nothing else unless it changes the representative replica): it runs on held's activities with
/// its own pipeline part written in, and held gets them back after the run (also on a throw), with
/// its own pipeline part restored when `keep_held` (else with the new one: a caller that releases
/// held after its steps at lower clocks). So two schedules are not alive at once, and the plan
/// costs the pipeline's ops, not the whole step's. The run's input is plan_step's schedule either
/// way, so the breakdown is bit-identical to run_step's. When the pipeline parts or the fabric's
/// state differ, the new plan is emitted whole (held's activities released first unless
/// `keep_held`); with `keep_held`, if its schedule then differs from held's only in amounts (a
/// timed failure that moved no planned activity), it runs on held's activities with its amounts
/// written in (its own freed first; held's amounts restored after), else on its own, as run_step
/// would. The returned plan's schedule has no activities; `reused` says whether held's ran.
struct StepOnHeld {
  StepRun step;         ///< plan (without activities), run and breakdown
  bool reused = false;  ///< true: ran on held's activities
};
StepOnHeld run_step_on(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                       network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                       workload::StepPlan& held, bool keep_held = true);

/// Whether the engine may take a step's result from an earlier step with the same inputs, bit for
/// bit, instead of simulating it again (simulate_situation: a step at a lower clock equal to an
/// earlier one's; a throttle iteration at the previous iteration's clocks): on unless the environment variable
/// AIDCSIM_NO_RUN_REUSE is set to a non-empty value other than "0" (read once). The results are
/// the same either way but for the run's notes, which name each reused step (tests/cli/
/// run_reuse_exact.sh compares the outputs with it on and off).
bool run_reuse_enabled();

}  // namespace aidcsim
