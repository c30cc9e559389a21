#pragma once
// The reliability area's part of the results: time-to-train (ideal, expected, percentiles), ETTR,
// interruptions, job MTBF, the Monte Carlo draws and the GPU-hours lost per cause, with the
// reliability notes and the model's warnings. Adding a reliability output metric means adding it
// here (and to docs/outputs.md).
#include "models/common/results.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Writes `p.overall` into `r`: summary figures (days, hours, minutes as labelled),
/// /reliability/time_to_train_samples (d, draw order), /reliability/lost_gpu_hours per cause, the
/// notes (failure rates left at 0 in `spec`, the checkpoint stall and interval), and appends
/// p.overall.warnings to r.warnings.
void report_time_to_train(Results& r, const PhasedResult& p, const ReliabilitySpec& spec);

/// Writes each phase of `p.phases` as /phases columns: job_mtbf (h), checkpoint_interval (min of
/// work) and interruptions (mean per draw), in phase order. Rollouts only (the engine's
/// report_phases calls it after the phase names).
void report_phase_reliability(Results& r, const PhasedResult& p);

}  // namespace aidcsim::reliability
