#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {
/// Scenario keys read by the workload model (workload.*).
Schema schema();
/// Builds the JobSpec; throws InvalidParameter when sizes do not divide (e.g. tp*pp*dp != gpus).
JobSpec spec_from(const Params& root);
/// Checks the job against the GPU model (cluster.gpu, resolved by sim/scenario): the memory per GPU
/// fits its HBM (unless check_hbm_fit is false); dp_algorithm nvls needs an NVLS-capable GPU. Throws
/// InvalidParameter.
void check_against_gpu(const Params& root, const JobSpec& job, const compute::GpuSpec& gpu, bool check_hbm_fit = true);
}  // namespace aidcsim::workload
