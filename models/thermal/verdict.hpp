#pragma once
// Cooling-risk verdicts: every scheduled cooling fault judged on its own, and every response action
// of the monitoring policy judged by what followed it.
//
// Each fault runs in its own transient (from the steady state shortly before it, through its
// duration and the settling after it), with the governor, the monitoring policy and the brief's
// limits, so that its figures are its own and not those of an overlapping fault. Figures: peak
// junction, time above the throttle limit, time with a GPU at its shutdown temperature, training
// time lost (sum of dt (1 - 1/m), m the step-time multiplier of the slowest GPU's clock, 1 while
// the synchronous job is halted) and GPU-hours lost (the job's GPUs wait on the slowest: GPUs x
// time lost). Pass/fail: every limit as a check (value, limit, headroom) on the run's extreme, and
// the brief's rules: no throttling (72 h runs without throttling), no GPU at shutdown, a pump
// failover under failover_max (flow back at design within it), a liquid-cooling failure
// interrupting training for less than interruption_max (auxiliary air fallback). A limit the site
// already breaks before the fault (the steady state) is reported but does not decide the fault's
// verdict: the verdict says what the fault does.
#include <limits>
#include <string>
#include <vector>

#include "models/thermal/site.hpp"
#include "models/thermal/transient.hpp"

namespace aidcsim::thermal {

struct VerdictOptions {
  double clock_sensitivity = 1.0;  ///< share of the step that scales with 1/clock (TransientOptions)
  double lead = 60.0;              ///< s of steady operation simulated before the fault
  double settle = 1800.0;          ///< s simulated after the fault ends
  /// s, longest run per fault; a fault not repaired (FaultSpec::duration inf) runs this long.
  double max_duration = 72 * 3600.0;
  double dt = 1.0;                ///< s per implicit step
  double sample_interval = 10.0;  ///< s between samples kept (plus events and extremes: sample_extremes)
};

struct FaultVerdict {
  int index = 0;            ///< position in cooling.faults
  std::string name;         ///< "fault 1: pump_failure"
  std::string description;  ///< "pump_failure on CDU 2 at 1 h for 10 min"
  FaultSpec fault;
  double peak_gpu_temp = 0;        ///< K
  double time_above_throttle = 0;  ///< s
  double time_at_shutdown = 0;     ///< s with a GPU shut down (the job halted)
  int gpus_shutdown = 0;           ///< GPUs shut down during the run (each once, TransientResult)
  double lost_training_time = 0;   ///< s
  double lost_gpu_hours = 0;       ///< h x GPUs
  double min_clock = 1;            ///< lowest clock factor reached
  /// s from the training start where the fault's own run ends (at most VerdictOptions::max_duration
  /// after its start): a fault lasting past it is judged, and its losses counted, up to there only.
  /// inf: not set (the whole fault judged).
  double judged_until = std::numeric_limits<double>::infinity();
  /// Step-time multiplier 1 + k (1/f - 1) at the end of the fault's run (f the slowest GPU's clock
  /// then, k = VerdictOptions::clock_sensitivity; inf: a GPU still shut down). A fault lasting past
  /// judged_until is taken to go on at it (time_to_train_with_faults).
  double final_slowdown = 1;
  std::vector<ChecklistItem> checks;   ///< limits and the brief's rules, SI
  std::vector<std::string> failed;     ///< items that fail the verdict
  std::vector<std::string> inherited;  ///< items failing already before the fault (not counted)
  bool pass = true;                    ///< no check fails that the site passed before the fault
  std::vector<ActionRecord> actions;   ///< monitoring actions that fired during this fault's run
  TransientResult transient;           ///< the fault's own run (samples, alerts)
};

/// Verdict of one response action: its record and whether it did its job (the alert it answered
/// cleared within the fault's run and no GPU was at shutdown after it fired).
struct ActionVerdict {
  int fault = 0;  ///< index of the fault during whose run it fired
  ActionRecord record;
  bool pass = true;
  std::string note;
};

/// Judges every fault of spec.faults (empty result without faults). loads: as simulate_transient.
/// Throws InvalidParameter for a bad fault target (key cooling.faults[i].target).
std::vector<FaultVerdict> judge_faults(const CoolingSpec& spec, const SiteLayout& layout,
                                       const std::vector<GpuLoad>& loads, const VerdictOptions& options);

/// The response actions of every verdict, judged.
std::vector<ActionVerdict> judge_actions(const std::vector<FaultVerdict>& verdicts);

}  // namespace aidcsim::thermal
