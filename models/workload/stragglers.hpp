#pragma once
// Per-GPU speed factors of a job (stragglers): persistent slow GPUs or nodes, and a seeded
// distribution of speed over GPUs or nodes. A synchronous step runs at the pace of its slowest
// members: plan_step makes the slowest DP replica (by estimate) its representative pipeline and
// slows each stage's compute ops by the slowest GPU of that stage's TP x CP group.
#include <cstdint>
#include <vector>

#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// Speed factor of each of `gpus` GPUs (node = gpu / gpus_per_node): 1, times a draw of
/// job.speed_distribution per GPU or node (std::mt19937_64 seeded with `seed`; normal by the
/// Box-Muller transform on 53-bit uniforms, so the draws are the same on every platform), then each
/// job.gpu_speed entry replaces the factor of its GPU or node's GPUs. Empty when the job has no
/// straggler (every factor 1). Entries outside the job's GPUs are ignored (a rollout phase may be
/// smaller than the cluster).
std::vector<double> gpu_speed_factors(const JobSpec& job, int gpus, int gpus_per_node, std::uint64_t seed);

}  // namespace aidcsim::workload
