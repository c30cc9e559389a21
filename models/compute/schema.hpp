#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/compute/spec.hpp"

namespace aidcsim::compute {
/// Scenario keys read by the compute model (cluster.gpu, ...).
Schema schema();
/// The catalogue entry named by cluster.gpu, with any scenario overrides applied.
GpuSpec spec_from(const Params& root);
}  // namespace aidcsim::compute
