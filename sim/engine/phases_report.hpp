#pragma once
// The engine's cross-area reports of a run's situations: the brief's fabric checklist of a
// situation, and a rollout's per-phase figures (/phases/*) and earlier phases' checklists.
#include <string>
#include <vector>

#include "models/common/results.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

/// The fabric checklist of `o` (fabric_checks.hpp) into r.checks in display units, each item
/// named `prefix` + item.
void report_fabric_checks(Results& r, const SituationOutcome& o, const std::string& prefix = "");

/// Per rollout phase (one entry of `outcomes` each, in order; `p.phases` their time-to-train):
/// /phases/gpus, step_time, tokens_per_step, max_link_utilization (%), max_gpu_temperature (degC),
/// it_power (MW), start, tokens_trained, wall_time (d), and when any phase has them the step after
/// timed fabric failures, the checkpoint write time and the failed cooling faults.
void report_phases(Results& r, const Scenario& sc, const std::vector<SituationOutcome>& outcomes,
                   const reliability::PhasedResult& p);

/// The cooling and fabric checklists of every phase but the last, named "phase NAME: item" (the
/// brief: each phase is tested end to end before the next).
void report_phase_checks(Results& r, const std::vector<SituationOutcome>& outcomes);

}  // namespace aidcsim
