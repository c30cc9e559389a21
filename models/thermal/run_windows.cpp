// Thermal run windows of a situation (see run_windows.hpp).
#include "models/thermal/run_windows.hpp"

#include <algorithm>
#include <cmath>

#include "models/common/units.hpp"

namespace aidcsim::thermal {

double fault_horizon(const CoolingSpec& cooling) {
  const VerdictOptions v;
  double end = 0;
  for (const auto& f : cooling.faults) end = std::max(end, f.at + f.duration);  // inf (not repaired): the cap
  return std::min(end + v.settle, v.max_duration);
}

TransientOptions fault_transient_options(const CoolingSpec& cooling, double clock_sensitivity) {
  const VerdictOptions v;
  TransientOptions t;
  t.duration = fault_horizon(cooling);
  t.dt = v.dt;
  t.sample_interval = v.sample_interval;
  t.sample_extremes = true;  // a short failover dip between two samples
  t.clock_sensitivity = clock_sensitivity;
  return t;
}

VerdictOptions fault_verdict_options(double clock_sensitivity) {
  VerdictOptions v;
  v.clock_sensitivity = clock_sensitivity;
  return v;
}

TransientOptions daily_transient_options() {
  TransientOptions t;
  t.duration = units::kDay;
  t.dt = 1.0;
  t.sample_interval = 5 * units::kMinute;
  return t;
}

}  // namespace aidcsim::thermal
