#pragma once
// Step-time multiplier profiles over training time for the time-to-train model, built from what a
// situation simulated: thermal throttling (cooling faults, daily outdoor cycle) and timed fabric
// failures. t = 0 is the training start (midnight of its first day).
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

/// Thermal step-time profile.
/// - Cooling faults only: the fault transient's multipliers, one-off; after it 1 when every fault
///   (o.fault_verdicts) ended within it. A fault that started within it and is still on at its end
///   holds the last value until the last such fault ends (at + duration; for good when not
///   repaired), then 1. A GPU power cap of the monitoring policy still on at the end (every fault
///   ended) keeps the last value too: for good while an alert still calls for it, until the end of
///   its hold (ActionRecord::release_due) when only that does.
/// - Daily outdoor cycle only: the day's multipliers, periodic with 86,400 s.
/// - Both: the fault transient (which already runs under the outdoor cycle) over its window, its
///   last value while a fault of it is still on (as above), then the daily multipliers until day
///   366, then their daily mean (harmonic: the mean work rate). Multiplying the two would count
///   the outdoor heat twice: the fault transient includes it.
/// A sample's multiplier interpolates linearly in 1/clock between the step at full clock and the
/// step re-simulated at the transient's lowest clock (compute scales with 1/clock, exposed
/// communication does not); a sample with a GPU shut down (min_clock 0) halts the synchronous
/// job: +inf. Empty when nothing throttles or halts.
reliability::StepTimeProfile step_profile(const SituationOutcome& o);

/// Timed fabric failures: multiplier 1 until the first failure, then step time after each
/// failure / the situation's step time (failures are cumulative and permanent). Empty when the
/// scenario has no timed fabric failure.
reliability::StepTimeProfile fabric_failure_profile(const SituationOutcome& o);

}  // namespace aidcsim
