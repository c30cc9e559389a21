#pragma once
// Transient site simulation: backward-Euler steps of the RC network (LU factorization reused until
// flows or the grouping change), scheduled cooling faults (CoolingSpec::faults), N+1 pump failover,
// an integral DVFS governor per GPU, monitoring sensors with response actions (CoolingSpec::
// monitoring, the brief's cooling_monitoring format) and an alert log, and an energy-balance check
// at every step (stored + removed = dissipated).
#include <limits>
#include <string>
#include <vector>

#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

struct TransientOptions {
  double start = 0.0;             ///< s, time of the first state (a steady state at that time's conditions)
  double duration = 3600.0;       ///< s simulated
  double dt = 1.0;                ///< s per implicit step
  double sample_interval = 60.0;  ///< s between samples (0: every step)
  /// Also keep, off that grid, the step where a fault event acts and the step of each run-wide
  /// extreme TransientResult reports (max junction, cold plate, coolant inlet/outlet, loop ΔT,
  /// hottest coolant, server inlet air; min flow per GPU, min clock) when no grid sample holds it:
  /// a 5 s pump failover between two 10 s samples is then in the series. Samples stay in time
  /// order, at most (fault events + 9) more; off: the regular grid only (equal-weight samples, as
  /// the daily cycle's mean work rate needs).
  bool sample_extremes = false;
  double step_time = 0.0;       ///< s training step; > 0: GPUs swing synchronously through the
                                ///< load's partition each step: compute (u = 1) for compute_busy
                                ///< of it, exposed communication (k_comm) for comm_busy, then idle
                                ///< (a step's mean is gpu_utilization, the steady state's load)
  bool throttle = true;         ///< DVFS governor on
  bool group_identical = true;  ///< grouped fidelity tier (site.hpp)
  /// Share of the training step that scales with 1/clock (compute on the critical path; exposed
  /// communication does not): the step at clock f takes 1 + k (1/f - 1) times as long. Sets the
  /// training time lost to throttling. 1 = compute-bound.
  double clock_sensitivity = 1.0;
};
// Time origin: t = 0 is midnight of day 0. With cooling.heat_rejection.outdoor_daily_swing > 0 (and
// a dry_cooler or chiller), the outdoor temperature follows outdoor_temperature_at(t) (spec.hpp),
// the facility supply follows it (dry cooler: max(set point, T(t) + approach)), and the chiller's
// share of the heat changes (chiller); the initial steady state is taken at T(0).

/// One line of the alert log. level: info (faults, pump failover, actions), warning, critical.
struct Alert {
  double time = 0;  ///< s
  std::string level;
  std::string source;  ///< sensor location, "fault", "pump", "action", "governor"
  std::string message;
  double value = 0;      ///< SI
  double threshold = 0;  ///< SI
};

/// A response action of the monitoring policy that fired, and what happened while it was active.
struct ActionRecord {
  double time = 0;                          ///< s, when it fired
  std::string action, alert_level, sensor;  ///< the action, the level and sensor location that raised it
  double value = 0, threshold = 0;          ///< SI reading and threshold at that moment
  /// s, when it ended: a held action (pumps to full capacity, GPU power cap) is released when the
  /// last policy alert of a level that calls for it clears (ResponseAction::hold later, if set; an
  /// alert clears at its SensorSpec::hysteresis); a notification when its alert clears (same hold).
  /// +inf: still on at the end of the run.
  double cleared = std::numeric_limits<double>::infinity();
  /// s, when it ends or would end: `cleared` when it did; when still on at the end of the run only
  /// by its hold time (every alert calling for it cleared), the end of that hold; +inf while an
  /// alert still calls for it (it holds for as long as its cause).
  double release_due = std::numeric_limits<double>::infinity();
  double lost_training_time = 0;   ///< s of training lost from its firing to the end of the run
  double peak_gpu_temp_after = 0;  ///< K, hottest junction from its firing on
  double shutdown_time_after = 0;  ///< s with a GPU shut down after it fired
};

struct Sample {
  double time = 0;
  double max_gpu_temp = 0, max_cold_plate_temp = 0, coolant_inlet = 0,
         coolant_outlet = 0;             ///< K (NaN: no such element)
  double min_flow_per_gpu = 0;           ///< m^3/s
  double max_air_inlet = 0;              ///< K hottest server inlet air (NaN without server air)
  double min_clock = 1, mean_clock = 1;  ///< lowest / mean GPU clock factor; min_clock 0 while a GPU is shut down
  double it_power = 0, cooling_power = 0, facility_power = 0, pue = 0;  ///< W
  double facility_supply = 0, outdoor_temp = 0;                         ///< K (facility water supply, outdoor dry-bulb)
  double max_loop_delta_t = 0;  ///< K, largest rack-loop ΔT (NaN without a liquid loop)
  double max_coolant_temp = 0;  ///< K, hottest coolant: GPU outlets, rack returns, CDU (NaN without a liquid loop)
};

struct TransientResult {
  std::vector<Sample> samples;
  std::vector<Alert> alerts;
  std::vector<ActionRecord> actions;               ///< response actions of the monitoring policy, in firing order
  double dissipated = 0, stored = 0, removed = 0;  ///< J over the run (liquid and air side, one network)
  double energy_error = 0;                         ///< |dissipated - stored - removed| / dissipated
  double max_step_error = 0;                       ///< worst per-step relative imbalance
  double max_gpu_temp = 0;                         ///< K over the run
  double min_clock = 1;                            ///< lowest clock factor over the run
  double throttled_time = 0;                       ///< s with any GPU below clock 1
  double mean_slowdown = 1;                        ///< time average of 1/min_clock over running time (synchronous
                                                   ///< training: the slowest GPU paces the step)
  int gpus_shutdown = 0;  ///< GPUs that reached throttle.shutdown_temp, each counted once however often it restarts and
                          ///< shuts down again (off, power 0, until the junction is below the throttle limit)
  double halted_time = 0;          ///< s with at least one GPU shut down (the synchronous job stops)
  double time_above_throttle = 0;  ///< s with any GPU junction above the throttle limit
  double lost_training_time = 0;   ///< s of training lost: sum of dt (1 - 1/m), m the step-time multiplier
                                   ///< of the slowest GPU's clock (options.clock_sensitivity), 1 while halted
  double flow_deficit_time = 0;    ///< s with a CDU's rack-loop flow below its design flow
  // Peaks over the run (K; NaN where the plant has no such element) and the lowest flows.
  double max_cold_plate_temp = 0, max_coolant_inlet = 0, max_coolant_outlet = 0, max_loop_delta_t = 0,
         max_air_inlet = 0;
  double max_coolant_temp = 0;  ///< K, hottest coolant anywhere in the loop over the run (vs its boiling point)
  double min_flow_per_gpu = 0;  ///< m^3/s
  double min_loop_flow = 0;     ///< m^3/s, a CDU's whole rack loop
  long steps = 0;
  int factorizations = 0, rebuilds = 0, max_network_nodes = 0;
  std::vector<double> final_clock;  ///< per GPU
};

/// Checks that every cooling.faults[i].target names a CDU (pump_failure, cdu_loss: below `cdus`)
/// or a rack (rdhx_fan_failure: below `racks`), or is -1 for all. Throws
/// InvalidParameter("cooling.faults[i].target"). Run by simulate_transient and, before anything is
/// simulated, by the engine's feasibility checks (sim/engine/feasibility.hpp).
void check_fault_targets(const CoolingSpec& spec, int racks, int cdus);

/// Runs the site from its steady state at options.start (design conditions, the outdoor temperature
/// of that time) for options.duration; faults act at their own times (those before start are not
/// applied).
/// loads: size gpus or 1. Throws InvalidParameter (bad spec), SimulationError (bad sizes/options).
TransientResult simulate_transient(const CoolingSpec& spec, const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                                   const TransientOptions& options);

}  // namespace aidcsim::thermal
