#include "sim/engine/monte_carlo_bound.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "models/common/errors.hpp"
#include "models/compute/kernels.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/workload/model.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

double step_time_lower_bound(const Scenario& sc, const workload::JobSpec& job, int gpus) {
  const double tokens = double(job.global_batch) * double(job.model.sequence_length);
  // A GPU may run above nominal (cluster.gpu_speed factors and the distribution's max go to 2):
  // the fastest factor any GPU can get scales every GPU's peak.
  double fastest = 1.0;
  for (const auto& g : job.gpu_speed) fastest = std::max(fastest, g.factor);
  if (job.speed_distribution.kind != "none") fastest = std::max(fastest, job.speed_distribution.max);
  const double peak = compute::peak_flops(sc.gpu, compute::precision_from(job.precision)) * fastest;
  return workload::layer_gemm_flops(job.model, tokens) / (double(gpus) * peak);
}

MonteCarloBound check_monte_carlo_before_step(const Scenario& sc) {
  if (sc.params.has("jobs")) return MonteCarloBound::jobs;
  if (sc.fabric.storage.nodes > 0) return MonteCarloBound::storage_fabric;
  struct One {
    int gpus;
    std::string key, name;
    double start;
  };
  std::vector<One> situations;
  if (sc.training.phases.empty()) situations.push_back({sc.fabric.gpus, "", "job", 0});
  for (std::size_t i = 0; i < sc.training.phases.size(); ++i) {
    const auto& p = sc.training.phases[i];
    situations.push_back(
        {p.gpus, p.key.empty() ? "rollout.phases[" + std::to_string(i) + "]" : p.key, p.name, p.start});
  }
  std::vector<reliability::PhaseSituation> phases;
  double shortest = 0;
  for (const One& one : situations) {
    const workload::JobSpec job = scaled_job(sc, one.gpus, one.key);
    reliability::Situation s;
    s.gpus = one.gpus;
    s.step_time = step_time_lower_bound(sc, job, one.gpus);
    s.tokens_per_step = double(job.global_batch) * job.model.sequence_length;
    s.checkpoint_bytes = checkpoint_bytes(sc, workload::parameters(job.model));
    s.counts.gpus = one.gpus;
    s.counts.nodes = static_cast<double>(one.gpus) / sc.fabric.gpus_per_node;
    phases.push_back({one.name, one.start, s});
    shortest = phases.size() == 1 ? s.step_time : std::min(shortest, s.step_time);
  }
  try {
    reliability::monte_carlo_events(resolved_training(sc), phases);
  } catch (const InvalidParameter& e) {
    char bound[64];
    std::snprintf(bound, sizeof bound, "%.3g s", shortest);
    throw InvalidParameter(e.key(), e.value(),
                           e.expected() +
                               " [checked before simulating the step, with a lower bound of the step time (" + bound +
                               ": the layers' GEMM FLOPs at the GPU's peak) and no throttling, switch, link or "
                               "cooling failures: the simulated step can only need more, so a least value named "
                               "above is a lower limit, maybe not enough]",
                           e.hint());
  }
  return MonteCarloBound::checked;
}

std::string monte_carlo_note(MonteCarloBound what) {
  if (what == MonteCarloBound::checked)
    return "the size of the time-to-train Monte Carlo (reliability.draws x the events of a draw) was checked with "
           "a lower bound of the step time (the layers' GEMM FLOPs at the GPU's peak); `run` checks it again with "
           "the simulated step time and may still refuse it then (training.tokens, reliability.draws or the "
           "checkpoint interval is the key to change)";
  return std::string(
             "not checked by validate: the size of the time-to-train Monte Carlo (reliability.draws x the "
             "events of a draw): ") +
         (what == MonteCarloBound::jobs ? "each job's needs the simulated steps of the jobs together"
                                        : "with storage on the fabric (fabric.storage.nodes) the simulated checkpoint "
                                          "write sets it") +
         "; `run` refuses one above its budget after simulating the step, before drawing (training.tokens, "
         "reliability.draws or the checkpoint interval is the key to change)";
}

}  // namespace aidcsim
