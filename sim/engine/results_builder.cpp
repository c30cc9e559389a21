#include "sim/engine/results_builder.hpp"

#include <algorithm>

#include "models/compute/gpu_report.hpp"
#include "models/network/network_report.hpp"
#include "models/reliability/convergence_report.hpp"
#include "models/reliability/time_to_train_report.hpp"
#include "models/thermal/thermal_report.hpp"
#include "models/topology/fabric_report.hpp"
#include "models/workload/step_report.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/phases_report.hpp"
#include "sim/engine/step_variants_report.hpp"
#include "sim/engine/storage_report.hpp"

namespace aidcsim {
namespace {

// The smallest and largest global batch of the run (tokens per step), over the phases and the
// batch schedule: what the convergence model is asked about.
std::pair<double, double> batch_range(const Scenario& sc, const std::vector<SituationOutcome>& outcomes) {
  double lo = outcomes.front().plan.tokens_per_step, hi = lo;
  for (const auto& o : outcomes) lo = std::min(lo, o.plan.tokens_per_step), hi = std::max(hi, o.plan.tokens_per_step);
  for (const auto& b : sc.training.batch_schedule) lo = std::min(lo, b.global_batch), hi = std::max(hi, b.global_batch);
  return {lo, hi};
}

void add_rollout_notes(Results& r, const std::vector<SituationOutcome>& outcomes, std::size_t end_phase) {
  const SituationOutcome& head = outcomes.back();
  char batches[160];
  std::snprintf(batches, sizeof batches, "%.3gM tokens in %s to %.3gM in %s",
                outcomes.front().plan.tokens_per_step / 1e6, outcomes.front().name.c_str(),
                head.plan.tokens_per_step / 1e6, head.name.c_str());
  r.notes.push_back(
      "rollout: the job grows with each phase at the same microbatches per DP replica (weak scaling), "
      "so the global batch grows with DP: " +
      std::string(batches) + " (/phases/tokens_per_step)");
  const std::string end = outcomes[end_phase].name;
  r.notes.push_back(
      "the job's figures (gpus, step time and its breakdown, tokens/s, MFU, memory, job MTBF, "
      "checkpoint interval, the step per batch, with a link down and after timed fabric failures) are those of the "
      "phase where training ends on average (" +
      end + (end_phase + 1 < outcomes.size() ? ", before the last phase starts" : "") +
      "); fabric, congestion, power and thermal figures are those of the last phase (" + head.name +
      ", the site as built); the checklist judges every phase (earlier phases' items named "
      "'phase NAME: ...')");
}

}  // namespace

Results build_results(const Scenario& sc, std::uint64_t seed, const std::vector<SituationOutcome>& outcomes,
                      const reliability::PhasedResult& ttt) {
  Results r;
  r.scenario_name = sc.name;
  r.scenario_file = sc.file;
  r.scenario_text = sc.text;
  r.seed = seed;
  // Each area reports its own figures, datasets, checks and notes (models/<area>/*_report.hpp);
  // the engine reports what crosses areas: the fabric checklist, the step variants, storage and
  // the rollout's phases.
  // The site as built is the last phase's; the job's figures are those of the phase where training
  // ends (a rollout may finish before its last phase starts: that phase's job never runs).
  const SituationOutcome& head = outcomes.back();
  const std::size_t end_phase = std::min(ttt.end_phase, outcomes.size() - 1);
  const SituationOutcome& job = outcomes[end_phase];
  const workload::StepReportInput step{job.fabric_spec.gpus, job.fabric_spec.gpus_per_node, job.job, job.plan, job.step,
                                       job.step_unthrottled};
  compute::report_gpu(r, sc.gpu);
  workload::report_step(r, step, sc.gpu, seed);
  reliability::report_time_to_train(r, ttt, sc.training.reliability);
  network::report_step_traffic(r, head.traffic, head.fabric_spec, head.bom, head.step.step_time);
  topology::report_fabric(r, head.bom, head.cost);
  thermal::report_site(r, head.thermal, head.clocks, head.shutdown_temperature, head.throttle_iterations);
  workload::report_gpu_load(r, head.step);  // the busy profile the thermal figures above were computed for
  report_fabric_checks(r, head);
  if (head.has_fault_transient)
    thermal::report_fault_transient(r, head.fault_transient, head.fault_transient_duration,
                                    head.step_during_fault.step_time);
  if (!head.fault_verdicts.empty()) {
    thermal::report_fault_verdicts(r, head.fault_verdicts, head.action_verdicts, head.clock_sensitivity,
                                   head.clock_sensitivity_measured, ttt.overall.expected_mean,
                                   head.fault_transient_duration);
    thermal::note_faults_outside_transient(r, head.fault_verdicts, head.fault_transient_duration);
  }
  if (head.has_daily_transient)
    thermal::report_daily_transient(r, head.daily_transient, head.step_daily_worst.step_time,
                                    sc.cooling.limits.gpu_temp_limit);
  thermal::note_idle_monitoring(r, sc.cooling);  // a policy with no transient to act in
  workload::report_step_breakdown(r, step);
  report_step_variants(r, sc, job, ttt.overall.p90);  // step times of the job: its phase's own variants
  report_storage(r, sc, head);
  if (outcomes.size() > 1) {
    report_phases(r, sc, outcomes, ttt);
    report_phase_checks(r, outcomes);
    add_rollout_notes(r, outcomes, end_phase);
  }
  const auto [lo, hi] = batch_range(sc, outcomes);
  reliability::report_convergence(r, sc.training.convergence, lo, hi, ttt);
  // Steps taken from an earlier step with the same inputs instead of simulated again (the same
  // results, bit for bit: run_reuse_enabled), per rollout phase.
  for (const auto& o : outcomes)
    for (const auto& u : o.reused_runs)
      r.notes.push_back((outcomes.size() > 1 ? "phase " + o.name + ": " : std::string()) + "run reuse: " + u +
                        " taken from that step, not simulated again (same inputs bit for bit; "
                        "AIDCSIM_NO_RUN_REUSE=1 simulates it)");
  // The fabric as built, said plainly (topology::Fabric::warnings), per rollout phase.
  for (const auto& o : outcomes)
    for (const auto& w : o.fabric_warnings)
      r.warnings.push_back(outcomes.size() > 1 ? "phase " + o.name + ": " + w : w);
  // Batch-schedule entries each phase's step simulates at another batch than written.
  for (const auto& o : outcomes)
    for (const auto& w : batch_schedule_warnings(sc, o.job))
      r.warnings.push_back(outcomes.size() > 1 ? "phase " + o.name + ": " + w : w);
  return r;
}

}  // namespace aidcsim
