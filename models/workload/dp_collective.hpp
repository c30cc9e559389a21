#pragma once
// The DP collectives of a training step: one per pipeline stage and TP rank, over the GPUs of that
// stage and TP rank in every DP replica and CP rank (Placement::dp_group: Megatron reduces
// gradients over DP x CP), run with workload.parallelism.dp_algorithm. The step (step_dp.cpp) and
// the checks before simulating (sim/engine/feasibility.cpp) build them here, so both judge the
// same groups.
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/job_spec.hpp"
#include "models/workload/placement.hpp"

namespace aidcsim::workload {

/// The DP collective `op` of pipeline stage `stage` and TP rank `tp_rank`: its GPUs
/// (place.dp_group, rank order) and algorithm (job.par.dp_algorithm; auto runs ring when the group
/// spans NVLink domains, NCCL's large-message choice). bytes, after, tag and hash are left to the
/// caller. Throws aidcsim::Error for an unknown algorithm name.
collectives::Collective dp_collective(const JobSpec& job, const Placement& place, const topology::Fabric& fabric,
                                      int stage, int tp_rank, collectives::Op op);

/// What a DP group is on the fabric, for errors: "the DP group of pipeline stage 1, TP rank 0 (8
/// GPUs, 64 to 120 in rank order tp,cp,dp,pp; 2 NVLink domains of 72 GPUs holding 1 to 7 of them)".
std::string describe_dp_group(const JobSpec& job, const topology::Fabric& fabric, int stage, int tp_rank,
                              const std::vector<int>& gpus);

/// Whether some DP collective of `job` on `fabric` (ranks 0 .. gpus-1, GPU = rank, as
/// check_dp_algorithm) reduces in the fabric's switches, the one use of fabric.sharp
/// (collectives::Layout::sharp): its dp_algorithm is sharp (CollNet) or nvls and its group spans
/// NVLink domains (NVLS + SHARP; NCCL's nvls inside one domain reduces in the NVSwitches only, and
/// auto runs ring across domains). False without DP traffic (dp x cp < 2). Throws aidcsim::Error
/// for an unknown algorithm name.
bool dp_reduces_in_network(const JobSpec& job, const topology::Fabric& fabric);

/// Refuses a dp_algorithm that some DP collective of `job` on `fabric` (ranks 0 .. gpus-1, GPU =
/// rank) cannot run: every stage and TP rank, every DP operation (all-reduce with zero: none;
/// reduce-scatter and all-gather otherwise), judged by collectives::select with the step's NCCL
/// settings (StepOptions::protocol), as the step would run it: NVLink domains of the group, GPUs
/// per domain (NVLS > 2, CollNet <= 8), fabric.sharp, NVLS on the GPU, a power-of-two group for
/// halving_doubling. Throws InvalidParameter(key, dp_algorithm, what it needs and for which group).
void check_dp_algorithm(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                        const std::string& key = "workload.parallelism.dp_algorithm");

}  // namespace aidcsim::workload
