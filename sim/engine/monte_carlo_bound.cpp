#include "sim/engine/monte_carlo_bound.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "models/common/errors.hpp"
#include "models/compute/kernels.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/step.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

namespace {
/// What step_time_lower_bound counts, for the messages.
constexpr const char* kBoundWords =
    "the compute of the busiest pipeline stage at nominal clock, with the pipeline's fill and drain";
}  // namespace

double step_time_lower_bound(const Scenario& sc, const workload::JobSpec& job) {
  const auto& par = job.par;
  const auto& md = job.model;
  // A GPU may run above nominal (cluster.gpu_speed factors and the distribution's max go to 2):
  // the fastest factor any GPU can get divides every compute time.
  double fastest = 1.0;
  for (const auto& g : job.gpu_speed) fastest = std::max(fastest, g.factor);
  if (job.speed_distribution.kind != "none") fastest = std::max(fastest, job.speed_distribution.max);
  // The engine's own kernel times (workload::op_costs) at the nominal clock, which the thermal
  // clock factor (<= 1) only lengthens; its default efficiency constants (no scenario key sets them).
  const compute::Efficiency eff = workload::StepOptions{}.efficiency;
  const workload::LayerTime lt = workload::layer_time(job, sc.gpu, eff);
  const double logit = workload::logit_time(job, sc.gpu, eff);
  const double tokens_mb = job.microbatch_size * double(md.sequence_length) / par.cp;
  const double loss = compute::memory_time(sc.gpu, 4 * 2.0 * tokens_mb * md.vocab / par.tp, eff);
  const double embed = compute::memory_time(sc.gpu, 2 * 2.0 * tokens_mb * md.hidden, eff);
  const double sel = job.selective_recompute && job.attention != "flash" ? lt.attention : 0.0;
  const double rc = job.activation_recompute ? 1.0 : 0.0;
  const double layer_f = lt.forward(), layer_b = lt.backward() + sel + rc * lt.forward();
  const int pp = par.pp, v = par.virtual_stages, VS = pp * v;
  const std::vector<int> layers =
      workload::virtual_stage_layers(md.layers, pp, v, par.first_stage_layers, par.last_stage_layers);
  const double m = double(job.global_batch) / (double(par.dp) * job.microbatch_size);
  // Compute of virtual stage j (chunk j / pp of GPU j % pp) for one microbatch, forward + backward.
  const auto fwd = [&](int j) {
    return (j == 0 ? embed : 0.0) + layers[j] * layer_f + (j == VS - 1 ? logit + loss : 0.0);
  };
  const auto bwd = [&](int j) {
    return (j == VS - 1 ? 2 * logit + loss : 0.0) + layers[j] * layer_b + (j == 0 ? embed : 0.0);
  };
  // GPU s runs its chunks' compute for every microbatch one op at a time. Its first op waits for
  // microbatch 0's forward through virtual stages 0..s-1 (GPUs 0..s-1, chunk 0); its last op is
  // a backward whose gradient then passes back through those same virtual stages. Transfers and
  // collectives only add, as does the end-of-step DP reduction and optimizer.
  double bound = 0, fill_drain = 0;
  for (int s = 0; s < pp; ++s) {
    double work = 0;
    for (int c = 0; c < v; ++c) work += fwd(c * pp + s) + bwd(c * pp + s);
    bound = std::max(bound, fill_drain + m * work);
    fill_drain += fwd(s) + bwd(s);
  }
  return bound / fastest;
}

namespace {

/// Keys whose refusal by reliability::monte_carlo_events names a value to write (an async_stall,
/// hot_spares or checkpoint_interval of at least / at most X): X is the one the step time's lower
/// bound needs, the simulated step may need another.
bool names_a_value(const std::string& key) {
  return key == "reliability.async_stall" || key == "reliability.hot_spares" ||
         key == "reliability.checkpoint_interval";
}

}  // namespace

MonteCarloBound check_monte_carlo_before_step(const Scenario& sc, bool defer_named_values,
                                              const std::vector<topology::BillOfMaterials>* boms) {
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
    s.step_time = step_time_lower_bound(sc, job);
    s.tokens_per_step = double(job.global_batch) * job.model.sequence_length;
    s.checkpoint_bytes = checkpoint_bytes(sc, workload::parameters(job.model));
    s.counts.gpus = one.gpus;
    s.counts.nodes = static_cast<double>(one.gpus) / sc.fabric.gpus_per_node;
    // The fabric's switches and cables fail too (the run counts them from the same bill of
    // materials): check_scenario's, else built here (cheap next to the step: the 31K phase ~0.03 s).
    const std::size_t i = phases.size();
    const topology::BillOfMaterials bom = boms && boms->size() == situations.size()
                                              ? (*boms)[i]
                                              : topology::build_fabric(situation_fabric_spec(sc, one.gpus)).bom();
    s.counts.switches = bom.switches;
    s.counts.links = bom.scaleout_cables;
    phases.push_back({one.name, one.start, s});
    shortest = phases.size() == 1 ? s.step_time : std::min(shortest, s.step_time);
  }
  try {
    reliability::monte_carlo_events(resolved_training(sc), phases);
  } catch (const InvalidParameter& e) {
    if (defer_named_values && names_a_value(e.key())) return MonteCarloBound::deferred;
    char bound[64];
    std::snprintf(bound, sizeof bound, "%.3g s", shortest);
    throw InvalidParameter(
        e.key(), e.value(),
        e.expected() + " [checked before simulating the step, with a lower bound of the step time (" + bound + ": " +
            kBoundWords + ") and no throttling or cooling failures: the simulated step can only need more" +
            (names_a_value(e.key()) ? "; so a least value named above is a lower limit from the "
                                      "bound, maybe not enough: `run` names the value the "
                                      "simulated step needs]"
                                    : "]"),
        e.hint());
  }
  return MonteCarloBound::checked;
}

std::string monte_carlo_note(MonteCarloBound what) {
  if (what == MonteCarloBound::checked)
    return "the size of the time-to-train Monte Carlo (reliability.draws x the events of a draw) was checked with "
           "a lower bound of the step time (" +
           std::string(kBoundWords) +
           "); `run` checks it again with "
           "the simulated step time and may still refuse it then (training.tokens, reliability.draws or the "
           "checkpoint interval is the key to change)";
  if (what == MonteCarloBound::deferred)
    return "the time-to-train Monte Carlo (reliability.draws x the events of a draw) is over its budget even with a "
           "lower bound of the step time; the least value to write is named after the step is simulated";
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
