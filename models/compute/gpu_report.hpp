#pragma once
// The compute area's part of the results: which GPU figures the run used, and which of them are
// estimates rather than published figures (docs/gpus.md).
#include "models/common/results.hpp"
#include "models/compute/gpu_spec.hpp"

namespace aidcsim::compute {

/// Appends the GPU note (name, description, estimated fields of `gpu.sources`) to r.notes.
void report_gpu(Results& r, const GpuSpec& gpu);

}  // namespace aidcsim::compute
