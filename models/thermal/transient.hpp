#pragma once
// Transient site simulation: backward-Euler steps of the RC network (LU factorization reused until
// flows or the grouping change), scheduled cooling faults (CoolingSpec::faults), N+1 pump failover,
// an integral DVFS governor per GPU, monitoring sensors with response actions (CoolingSpec::
// monitoring, the brief's cooling_monitoring format) and an alert log, and an energy-balance check
// at every step (stored + removed = dissipated).
#include <string>
#include <vector>

#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

struct TransientOptions {
  double duration = 3600.0;        ///< s simulated
  double dt = 1.0;                 ///< s per implicit step
  double sample_interval = 60.0;   ///< s between samples (0: every step)
  double step_time = 0.0;          ///< s training step; > 0: GPUs swing synchronously between
                                   ///< compute (u = 1), communication (k_comm) and idle each step
  bool throttle = true;            ///< DVFS governor on
  bool group_identical = true;     ///< grouped fidelity tier (site.hpp)
};
// Time origin: t = 0 is midnight of day 0. With cooling.heat_rejection.outdoor_daily_swing > 0 (and
// a dry_cooler or chiller), the outdoor temperature follows outdoor_temperature_at(t) (spec.hpp),
// the facility supply follows it (dry cooler: max(set point, T(t) + approach)), and the chiller's
// share of the heat changes (chiller); the initial steady state is taken at T(0).

/// One line of the alert log. level: info (faults, pump failover, actions), warning, critical.
struct Alert {
  double time = 0;      ///< s
  std::string level;
  std::string source;   ///< sensor location, "fault", "pump", "action", "governor"
  std::string message;
  double value = 0;     ///< SI
  double threshold = 0; ///< SI
};

struct Sample {
  double time = 0;
  double max_gpu_temp = 0, max_cold_plate_temp = 0, coolant_inlet = 0, coolant_outlet = 0;  ///< K
  double min_flow_per_gpu = 0;  ///< m^3/s
  double min_clock = 1, mean_clock = 1;  ///< lowest / mean GPU clock factor; min_clock 0 while a GPU is shut down
  double it_power = 0, cooling_power = 0, facility_power = 0, pue = 0;  ///< W
  double facility_supply = 0, outdoor_temp = 0;  ///< K (facility water supply, outdoor dry-bulb)
};

struct TransientResult {
  std::vector<Sample> samples;
  std::vector<Alert> alerts;
  double dissipated = 0, stored = 0, removed = 0;  ///< J over the run (liquid network + air side)
  double energy_error = 0;       ///< |dissipated - stored - removed| / dissipated
  double max_step_error = 0;     ///< worst per-step relative imbalance
  double max_gpu_temp = 0;       ///< K over the run
  double min_clock = 1;          ///< lowest clock factor over the run
  double throttled_time = 0;     ///< s with any GPU below clock 1
  double mean_slowdown = 1;      ///< time average of 1/min_clock over running time (synchronous
                                 ///< training: the slowest GPU paces the step)
  int gpus_shutdown = 0;         ///< GPUs that reached throttle.shutdown_temp (then off, power 0, until the junction is below the throttle limit)
  double halted_time = 0;        ///< s with at least one GPU shut down (the synchronous job stops)
  long steps = 0;
  int factorizations = 0, rebuilds = 0, max_network_nodes = 0;
  std::vector<double> final_clock;  ///< per GPU
};

/// Checks that every cooling.faults[i].target names a CDU (pump_failure, cdu_loss: below `cdus`)
/// or a rack (rdhx_fan_failure: below `racks`), or is -1 for all. Throws
/// InvalidParameter("cooling.faults[i].target"). Run by simulate_transient and, before anything is
/// simulated, by the engine's feasibility checks (sim/engine/feasibility.hpp).
void check_fault_targets(const CoolingSpec& spec, int racks, int cdus);

/// Runs the site from its steady state at t = 0 (design conditions) for options.duration.
/// loads: size gpus or 1. Throws InvalidParameter (bad spec), SimulationError (bad sizes/options).
TransientResult simulate_transient(const CoolingSpec& spec, const SiteLayout& layout,
                                   const std::vector<GpuLoad>& loads, const TransientOptions& options);

}  // namespace aidcsim::thermal
