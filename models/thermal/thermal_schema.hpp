#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/thermal/cooling_spec.hpp"

namespace aidcsim::thermal {
/// Scenario keys read by the thermal/power model (cooling.*, power.*).
Schema schema();
CoolingSpec spec_from(const Params& root);
}  // namespace aidcsim::thermal
