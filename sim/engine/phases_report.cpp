#include "sim/engine/phases_report.hpp"

#include <algorithm>

#include "models/common/units.hpp"
#include "models/reliability/time_to_train_report.hpp"
#include "models/thermal/thermal_report.hpp"
#include "sim/engine/fabric_checks.hpp"

namespace aidcsim {

using units::kDay;
using units::kMega;

// The brief's fabric checklist (sim/engine/fabric_checks.hpp), after the cooling one; `prefix`
// names the rollout phase of an earlier phase's items.
void report_fabric_checks(Results& r, const SituationOutcome& o, const std::string& prefix) {
  for (auto c : fabric_checklist(o.fabric_spec, o.bom, o.traffic.congestion, o.traffic.timeline, o.step.step_time)) {
    c.item = prefix + c.item;
    r.checks.push_back(thermal::display_check(c));
  }
  thermal::ChecklistItem cables = cable_length_item(o.cost, o.fabric_spec.link_latency);
  cables.item = prefix + cables.item;
  r.checks.push_back(thermal::display_check(cables));
}

void report_phases(Results& r, const Scenario& sc, const std::vector<SituationOutcome>& outcomes,
                   const reliability::PhasedResult& p) {
  std::vector<std::string> names;
  std::vector<double> gpus, step, link_down, util, temp, it, start, tokens, wall, batch, step_failed, faults_failed,
      ckpt;
  bool any_failure = false, any_verdict = false, any_ckpt = false, any_link_down = false;
  const bool async = sc.training.reliability.mode == reliability::CheckpointMode::Async;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    names.push_back(o.name);
    gpus.push_back(o.fabric_spec.gpus);
    step.push_back(o.step.step_time);
    any_ckpt = any_ckpt || o.has_checkpoint_write;
    ckpt.push_back(o.has_checkpoint_write ? checkpoint_time_used(o.checkpoint_write, async) : 0.0);
    batch.push_back(o.plan.tokens_per_step);
    step_failed.push_back(o.fabric_events.empty() ? o.step.step_time : o.fabric_events.back().step_time);
    any_failure = any_failure || !o.fabric_events.empty();
    any_link_down = any_link_down || !o.link_down.links.empty();
    link_down.push_back(o.link_down.links.empty() ? o.step.step_time : o.link_down.step_time);
    util.push_back(100.0 * o.traffic.congestion.max_utilization);
    temp.push_back(units::to_celsius(o.thermal.max_gpu_temp));
    it.push_back(o.thermal.it_power / kMega);
    faults_failed.push_back(static_cast<double>(
        std::count_if(o.fault_verdicts.begin(), o.fault_verdicts.end(), [](const auto& v) { return !v.pass; })));
    any_verdict = any_verdict || !o.fault_verdicts.empty();
    if (i < p.phases.size()) {
      start.push_back(p.phases[i].start);
      tokens.push_back(p.phases[i].mean_tokens_trained);
      wall.push_back(p.phases[i].mean_wall / kDay);
    }
  }
  r.labels.push_back({"/phases/phase", names, "Rollout phase names"});
  r.datasets.push_back(vector_dataset("/phases/gpus", gpus, "1", "GPUs per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/step_time", step, "s", "Step time per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/tokens_per_step", batch, "1",
                                      "Global batch per phase, tokens (weak scaling: grows with DP)", "phase"));
  if (any_failure)
    r.datasets.push_back(vector_dataset("/phases/step_time_after_fabric_failures", step_failed, "s",
                                        "Step time per phase after the timed fabric failures its fabric has "
                                        "(= step_time when none)",
                                        "phase"));
  if (any_link_down)
    r.datasets.push_back(vector_dataset("/phases/step_time_link_down", link_down, "s",
                                        "Mean step time per phase with one loaded leaf-spine/spine-core link of its "
                                        "fabric down (degrade mode; = step_time when no link carries traffic)",
                                        "phase"));
  if (any_ckpt)
    r.datasets.push_back(vector_dataset("/phases/checkpoint_write_time", ckpt, "s",
                                        "Checkpoint write time simulated on the phase's storage fabric", "phase"));
  r.datasets.push_back(
      vector_dataset("/phases/max_link_utilization", util, "%", "Max scale-out link utilization per phase", "phase"));
  r.datasets.push_back(
      vector_dataset("/phases/max_gpu_temperature", temp, "degC", "Hottest GPU junction per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/it_power", it, "MW", "IT power per phase", "phase"));
  if (any_verdict)
    r.datasets.push_back(vector_dataset("/phases/cooling_faults_failed", faults_failed, "1",
                                        "Cooling faults failing their verdict in the phase (each judged alone)",
                                        "phase"));
  if (!start.empty()) {
    r.datasets.push_back(
        vector_dataset("/phases/start", start, "seconds since 1970-01-01 00:00:00 UTC", "Phase start date", "phase"));
    r.datasets.push_back(
        vector_dataset("/phases/tokens_trained", tokens, "1", "Mean tokens trained in the phase", "phase"));
    r.datasets.push_back(
        vector_dataset("/phases/wall_time", wall, "d", "Mean days the job spent in the phase", "phase"));
  }
  if (p.phases.size() == outcomes.size()) reliability::report_phase_reliability(r, p);
}

// A rollout's earlier phases are judged too (brief: "each phase tested end to end before the
// next"): their cooling and fabric items, named "phase NAME: item", after the last phase's.
void report_phase_checks(Results& r, const std::vector<SituationOutcome>& outcomes) {
  for (std::size_t i = 0; i + 1 < outcomes.size(); ++i) {
    const std::string prefix = "phase " + outcomes[i].name + ": ";
    for (auto c : outcomes[i].thermal.checklist) {
      c.item = prefix + c.item;
      r.checks.push_back(thermal::display_check(c));
    }
    report_fabric_checks(r, outcomes[i], prefix);
  }
}

}  // namespace aidcsim
