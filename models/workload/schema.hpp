#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/workload/spec.hpp"

namespace aidcsim::workload {
/// Scenario keys read by the workload model (workload.*).
Schema schema();
/// Builds the JobSpec; throws InvalidParameter when sizes do not divide (e.g. tp*pp*dp != gpus).
JobSpec spec_from(const Params& root);
}  // namespace aidcsim::workload
