#include "models/reliability/time_to_train_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/common/units.hpp"

namespace aidcsim::reliability {

using units::kDay;

void report_time_to_train(Results& r, const PhasedResult& p, const ReliabilitySpec& spec) {
  const auto& t = p.overall;
  r.add("training_tokens", t.tokens, "1", "Tokens to train");
  r.add("time_to_train_ideal", t.ideal / kDay, "d",
        "Time-to-train without failures or checkpoints: tokens over the simulated throughput of each batch size "
        "and rollout phase");
  r.add("time_to_train", t.expected_mean / kDay, "d",
        "Expected time-to-train with failures, restarts and checkpoints, and the step slowed or stopped where the "
        "step-time profile says (scheduled cooling faults, daily outdoor cycle) (Monte Carlo mean)");
  r.add("time_to_train_p10", t.p10 / kDay, "d", "Time-to-train, 10th percentile of the draws");
  r.add("time_to_train_p50", t.p50 / kDay, "d", "Time-to-train, median of the draws");
  r.add("time_to_train_p90", t.p90 / kDay, "d", "Time-to-train, 90th percentile of the draws");
  r.add("ettr", t.ettr, "1", "Effective training time ratio (productive time / wall time)");
  r.add("expected_interruptions", t.expected_interruptions, "1", "Mean job interruptions over the training run");
  // A rollout's summary rates are those of the phase where training ends (it may end before the
  // last phase starts), like the summary's GPUs and step time; report_phase_reliability writes
  // each phase's.
  const bool rollout = p.phases.size() > 1;
  const std::string end_name = rollout ? p.phases[p.end_phase].name : "";
  const std::string which =
      rollout ? " (rollout phase where training ends, " + end_name + "; each phase in /phases)" : "";
  r.add("job_mtbf", t.job_mtbf / units::kHour, "h", "Mean time between job-stopping failures" + which);
  r.add("checkpoint_interval", t.checkpoint_interval / 60.0, "min",
        "Checkpoint interval used (training work between checkpoints)" + which);
  std::vector<double> days(t.samples.size());
  std::transform(t.samples.begin(), t.samples.end(), days.begin(), [](double s) { return s / kDay; });
  r.datasets.push_back(vector_dataset("/reliability/time_to_train_samples", days, "d",
                                      "Time-to-train of each Monte Carlo draw, in draw order", "draw"));
  std::vector<std::string> causes;
  std::vector<double> hours;
  for (const auto& [cause, h] : t.lost_gpu_hours_by_cause) {
    causes.push_back(cause);
    hours.push_back(h);
  }
  r.datasets.push_back(vector_dataset("/reliability/lost_gpu_hours", hours, "h",
                                      "Mean GPU-hours lost per cause (lost work + restarts)", "cause"));
  r.labels.push_back({"/reliability/cause", causes, "Failure causes of /reliability/lost_gpu_hours"});
  // Pump and CDU failures stop the job in the reliability model only with a rate: none is published.
  bool pump = false, cdu = false;
  for (const auto& f : spec.failures) {
    pump = pump || (f.component == Component::Pump && f.mtbf > 0);
    cdu = cdu || (f.component == Component::Cdu && f.mtbf > 0);
  }
  if (!pump || !cdu)
    r.notes.push_back(std::string("reliability: ") +
                      (!pump && !cdu ? "pump and CDU"
                       : !pump       ? "pump"
                                     : "CDU") +
                      " failure rates are 0 (no published rate; set reliability.failures[].mtbf, and for "
                      "pumps their count: the engine counts no pump whose failure stops the job): time-to-train "
                      "draws no such failure; cooling.faults are judged for their thermal effect only");
  char stall[160];
  std::snprintf(stall, sizeof stall, " (checkpoints stall training %.3g s each, every %.3g min of work%s)",
                t.checkpoint_stall, t.checkpoint_interval / 60, rollout ? " in the phase where training ends" : "");
  r.notes.push_back("time-to-train: Monte Carlo over " + std::to_string(t.samples.size()) + " failure draws" +
                    (std::isfinite(t.checkpoint_interval) ? stall : "") +
                    "; the p10-p90 spread covers the failures only, not the ECMP hash, which the seed "
                    "also sets: rerun with other --seed values (or `aidcsim compare --seeds N`) for the routing "
                    "spread of the step time; identical checkpoint periods between two events are taken at once "
                    "(equal to the one-by-one walk within 1e-9 relative, tests/unit/reliability; docs/reliability.md)");
  r.warnings.insert(r.warnings.end(), t.warnings.begin(), t.warnings.end());
}

void report_phase_reliability(Results& r, const PhasedResult& p) {
  std::vector<double> mtbf, interval, interruptions;
  for (const auto& ph : p.phases) {
    mtbf.push_back(ph.job_mtbf / units::kHour);
    interval.push_back(ph.checkpoint_interval / 60.0);
    interruptions.push_back(ph.mean_interruptions);
  }
  r.datasets.push_back(vector_dataset("/phases/job_mtbf", mtbf, "h",
                                      "Mean time between job-stopping failures per phase (its GPUs, nodes, "
                                      "switches and links)",
                                      "phase"));
  r.datasets.push_back(vector_dataset("/phases/checkpoint_interval", interval, "min",
                                      "Checkpoint interval used per phase (training work between checkpoints)",
                                      "phase"));
  r.datasets.push_back(vector_dataset("/phases/interruptions", interruptions, "1",
                                      "Mean job-stopping failures in the phase (during restarts too; they add up to "
                                      "expected_interruptions)",
                                      "phase"));
}

}  // namespace aidcsim::reliability
