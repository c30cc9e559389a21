#pragma once
// How far and how finely the thermal model runs for one simulated situation: the throttling fixed
// point between the training step and the steady state, the cooling-fault transient, and the daily
// outdoor cycle. The engine orders these runs; their windows and resolutions are the thermal
// area's choice and live here.
#include "models/thermal/cooling_spec.hpp"
#include "models/thermal/transient.hpp"
#include "models/thermal/verdict.hpp"

namespace aidcsim::thermal {

/// The throttling closed loop: clocks are re-derived from the steady state and the step re-run at
/// them until the clocks change by less than `clock_tolerance` (a 0.1 % clock change moves step
/// time by < 0.1 %, below the model's resolution), at most `max_iterations` times.
struct ThrottleLoop {
  double clock_tolerance = 1e-3;  ///< largest clock-factor change (dimensionless) that ends the loop
  int max_iterations = 4;         ///< step re-runs at most
};

/// s simulated by the fault transient: until VerdictOptions::settle (loops settle in minutes)
/// after the last of `cooling.faults` ends, at most VerdictOptions::max_duration (also the length
/// with a fault not repaired, duration inf). 0 faults: the settle time alone.
double fault_horizon(const CoolingSpec& cooling);

/// Options of the transient of all scheduled cooling faults together: from t = 0 over
/// fault_horizon(cooling), at VerdictOptions' dt and sample interval (and sample_extremes); `clock_sensitivity` as
/// TransientOptions::clock_sensitivity.
TransientOptions fault_transient_options(const CoolingSpec& cooling, double clock_sensitivity);

/// Options of the per-fault verdict runs (VerdictOptions defaults) with `clock_sensitivity`.
VerdictOptions fault_verdict_options(double clock_sensitivity);

/// Options of the daily outdoor-cycle transient: one day from midnight at a 1 s step (the DVFS
/// governor is an explicit integral controller and limit-cycles at coarser steps, seen at 5 s),
/// sampled every 5 min (288 segments of the step-time profile per day).
TransientOptions daily_transient_options();

}  // namespace aidcsim::thermal
