#pragma once
// The thermal area's part of the results: the site's steady state (temperatures, flows, power,
// PUE, the brief's cooling checklist), the cooling-fault and daily-cycle transients, each fault's
// verdict and the monitoring actions, with their notes. Adding a thermal output metric means
// adding it here (and to docs/outputs.md).
#include <vector>

#include "models/common/results.hpp"
#include "models/thermal/site.hpp"
#include "models/thermal/transient.hpp"
#include "models/thermal/verdict.hpp"

namespace aidcsim::thermal {

/// A checklist item (SI: K, m^3/s, W, s, B/s) in the brief's display units: absolute temperatures
/// in degC (told from temperature differences by magnitude: no datacenter ΔT reaches 200 K, no
/// absolute temperature is below it; headroom stays in K), flows in L/min, times in us when value
/// and limit together are sub-millisecond in scale (the smaller non-zero of them below 1 ms, neither
/// reaching 1 s; a limit of 0 s does not count), B/s in Gb/s, W in kW. Used for every area's
/// checklist items.
Check display_check(const ChecklistItem& c);

/// The steady state at the final clocks: summary temperatures (degC), power (MW), PUE, power
/// swing; per-GPU and per-rack datasets under /thermal/; the cooling checklist; the thermal note.
/// `clocks`: per GPU clock factor (size = GPUs, non-empty); `shutdown_temperature` in K.
void report_site(Results& r, const SiteReport& t, const std::vector<double>& clocks, double shutdown_temperature,
                 int throttle_iterations);

/// The scheduled cooling faults' transient (transient.hpp) over `duration` s: summary figures,
/// /thermal/transient/* series, the alert log; `step_time_during_fault` in s (the step at the
/// transient's lowest clock).
void report_fault_transient(Results& r, const TransientResult& t, double duration, double step_time_during_fault);

/// Each fault's verdict (verdict.hpp): /thermal/faults/*, the faults' checks in the checklist
/// ("NAME: item"), the monitoring actions under /thermal/actions/; `clock_sensitivity` (share of
/// the step that scales with 1/clock) and whether it was measured, for the note. With
/// `time_to_train` (s, the reliability model's expected time-to-train, which has the faults that
/// start within the shared fault transient's first `transient_duration` s in its step-time
/// profile), also the summary `cooling_faults_lost_training_time` (h, the verdicts' own estimate,
/// added to nothing) and `time_to_train_with_faults` (d, see time_to_train_with_faults()).
void report_fault_verdicts(Results& r, const std::vector<FaultVerdict>& verdicts,
                           const std::vector<ActionVerdict>& actions, double clock_sensitivity,
                           bool clock_sensitivity_measured, double time_to_train, double transient_duration);

/// A note naming the faults that start at or after the end of the faults' shared transient
/// (`duration` s, at most VerdictOptions::max_duration): the summary's fault_* figures and the
/// time-to-train's step-time profile come from that transient and leave them out; their verdicts
/// judge them. Nothing when every fault starts within it.
void note_faults_outside_transient(Results& r, const std::vector<FaultVerdict>& verdicts, double duration);

/// A note when cooling_monitoring has sensors or response actions but the run simulates no
/// transient for them to act in (no cooling.faults, no daily outdoor cycle: has_daily_cycle): the
/// policy acts in those transients only, so it did nothing (the steady state raises no alert).
/// Kept a note, not an error: a policy is part of a design the user may run with and without faults.
void note_idle_monitoring(Results& r, const CoolingSpec& spec);

/// Time-to-train (s) with every cooling fault of the scenario counted once. `time_to_train` (s)
/// already has the faults that start before `transient_duration` (s, the shared fault transient's
/// length: its step-time profile, sim/engine/step_profile.hpp); this adds the lost_training_time
/// of each later fault (its verdict alone), in start order, for those that start before the
/// training (so lengthened) ends. A later fault lasting past its verdict's run (judged_until: a
/// long one, or one not repaired, duration inf) goes on at the run's last state (final_slowdown)
/// until it ends or the training does: the training left at judged_until then takes final_slowdown
/// times as long up to the fault's end (inf: never ends, when the job stays halted and the fault is
/// not repaired). Equal to `time_to_train` when every fault is in the transient.
/// The indices (FaultVerdict::index) of the faults that start after the training ends go to
/// `not_counted` when given.
double time_to_train_with_faults(double time_to_train, const std::vector<FaultVerdict>& verdicts,
                                 double transient_duration, std::vector<int>* not_counted = nullptr);

/// The daily outdoor cycle's 24 h transient from midnight: summary figures, /thermal/daily/*
/// series; `step_time_daily_worst` in s (the step at the day's lowest clock). Adds the check
/// "GPU junction at the daily outdoor peak vs throttle limit" (`gpu_temp_limit`, K): the steady
/// checklist is solved at the day's mean outdoor temperature, so a site can pass it and still
/// throttle every afternoon; this item judges the day's hottest junction against the same limit.
void report_daily_transient(Results& r, const TransientResult& t, double step_time_daily_worst, double gpu_temp_limit);

}  // namespace aidcsim::thermal
