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

}  // namespace aidcsim
