#pragma once
// The workload area's part of the results: the training step (time, throughput, MFU, TFLOP/s, its
// breakdown), HBM per GPU by component, the stragglers' speeds, and the step's fidelity note.
// Adding a step output metric means adding it here (and to docs/cli.md, where the outputs are described).
#include <cstdint>

#include "models/common/results.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/workload/job_spec.hpp"
#include "models/workload/step.hpp"

namespace aidcsim::workload {

/// What the step stage produced for one job (references into the caller's data).
struct StepReportInput {
  int gpus = 0;           ///< GPUs of the job
  int gpus_per_node = 0;  ///< for the stragglers' per-node draws
  const JobSpec& job;
  const StepPlan& plan;              ///< at the final clocks
  const StepBreakdown& step;         ///< at the final (possibly throttled) clocks
  const StepBreakdown& unthrottled;  ///< at full clocks
};

/// Summary figures of the step (s, tokens, %, TFLOP/s), HBM per GPU of the most loaded stage (GB)
/// and /memory/by_stage (B), /step/gpu_speed and min_gpu_speed with stragglers (`seed` draws
/// them as the step did), the step's fidelity note. MFU against the dense peak of `gpu` at the
/// job's precision (PaLM's definition: model FLOPs without recompute).
void report_step(Results& r, const StepReportInput& in, const compute::GpuSpec& gpu, std::uint64_t seed);

/// /step/breakdown: compute, exposed TP/PP/DP/CP/EP communication and bubble per step (s). With a
/// pipeline (StepBreakdown::stage_* filled), per stage, shape [stage] (pp values):
/// /step/stage_compute, /step/stage_exposed_communication, /step/stage_bubble (s; a stage's three
/// sum to step_time, their means over stages are /step/breakdown's compute, exposed sum, bubble)
/// and the same divided by step_time, /step/stage_*_fraction (units "1", summing to 1 per stage).
void report_step_breakdown(Results& r, const StepReportInput& in);

/// Summary gpu_compute_busy and gpu_comm_busy (units "1"): the busy profile the power and thermal
/// models are given (StepBreakdown::gpu_busy_compute_fraction, gpu_busy_comm_fraction of
/// `site_step`, the step of the site as built: a rollout's last phase, at its final clocks): the
/// stage means of compute and of exposed communication, a partition with the bubble (idle).
void report_gpu_load(Results& r, const StepBreakdown& site_step);

}  // namespace aidcsim::workload
