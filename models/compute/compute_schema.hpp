#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/compute/catalogue.hpp"
#include "models/compute/gpu_spec.hpp"

namespace aidcsim::compute {
/// Scenario keys read by the compute model: cluster.gpu and the scenario's own GPU definitions
/// (`gpus:`, the format of the built-in catalogue file, compute::gpu_list_schema).
Schema schema();
/// Schema of a GPU catalogue file (models/compute/gpus.yaml): the same `gpus:` list.
Schema catalogue_schema();
/// The GPU named by cluster.gpu, from `builtin` plus the scenario's `gpus:` definitions (which may
/// override built-in entries). Throws InvalidParameter for a bad definition ("gpus[i]...") or an
/// unknown name ("cluster.gpu").
GpuSpec spec_from(const Params& root, const Catalogue& builtin);
}  // namespace aidcsim::compute
