#include "sim/engine/simulate.hpp"

#include <cmath>
#include <limits>
#include <memory>

#include "models/common/cancel.hpp"
#include "models/common/profile.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/jobs_run.hpp"
#include "sim/engine/monte_carlo_bound.hpp"
#include "sim/engine/results_builder.hpp"
#include "sim/engine/situation.hpp"
#include "sim/engine/step_profile.hpp"

namespace aidcsim {
namespace {

reliability::Situation reliability_situation(const Scenario& sc, const SituationOutcome& o) {
  reliability::Situation s;
  s.gpus = o.fabric_spec.gpus;
  s.step_time = o.step.step_time;
  s.tokens_per_step = o.plan.tokens_per_step;
  s.checkpoint_bytes = checkpoint_bytes(sc, o.plan.parameters);
  if (o.has_checkpoint_write) {  // storage on the fabric: the simulated write sets the bandwidth
    const CheckpointWrite& w = o.checkpoint_write;
    const bool async = sc.training.reliability.mode == reliability::CheckpointMode::Async;
    const double t = checkpoint_time_used(w, async);
    if (t > 0) s.storage_bandwidth = w.bytes / t;
  }
  s.counts.gpus = o.fabric_spec.gpus;
  s.counts.nodes = static_cast<double>(o.fabric_spec.gpus) / sc.fabric.gpus_per_node;
  s.counts.switches = o.bom.switches;
  s.counts.links = o.bom.scaleout_cables;
  s.counts.cdus = static_cast<double>(o.thermal.state.cdu_supply.size());
  s.profile = step_profile(o);
  s.fabric_profile = fabric_failure_profile(o);
  if (!o.link_down.links.empty()) s.degraded_step_time = o.link_down.step_time;
  s.step_time_by_batch = o.step_by_batch;
  return s;
}

/// The run's stages for the profile (profile.hpp): the time between two progress reports goes to
/// the stage reported first.
class StageClock {
 public:
  void mark(const std::string& next) {
    if (!profile::enabled()) return;
    const double c = profile::cpu_seconds(), w = profile::wall_seconds();
    if (!stage_.empty()) profile::add(stage_, c - cpu_, w - wall_, 1, true);
    stage_ = next;
    cpu_ = c;
    wall_ = w;
  }

 private:
  std::string stage_;
  double cpu_ = 0, wall_ = 0;
};

}  // namespace

Results simulate(const Scenario& sc, const RunOptions& options) {
  const std::uint64_t seed = options.seed >= 0 ? static_cast<std::uint64_t>(options.seed) : sc.seed;
  const auto& phases = sc.training.phases;
  StageClock clock;
  auto report = [&](const std::string& stage, double f) {
    clock.mark(stage);
    if (options.progress) options.progress(stage, f);
  };
  try {
    // Progress over the whole run: the situations share 90 %, the Monte Carlo the last 10 %.
    const std::size_t n = phases.empty() ? 1 : phases.size();
    auto situation_progress = [&](std::size_t i) -> std::function<void(const std::string&, double)> {
      return [&report, i, n](const std::string& stage, double f) { report(stage, 0.9 * (i + f) / n); };
    };
    report("checks", 0.0);
    std::vector<SituationOutcome> outcomes;
    std::unique_ptr<topology::Fabric> checked;     // the first situation's fabric as the checks built it
    std::vector<topology::BillOfMaterials> boms;   // each situation's, for the Monte Carlo's check
    check_scenario(sc, nullptr, &checked, &boms);  // everything that can fail before simulating, with its key
    // A Monte Carlo too large even with the shortest step: refused here, unless the refusal names a
    // value to write, which the check after the step names from the simulated step instead.
    check_monte_carlo_before_step(sc, true, &boms);
    if (sc.params.has("jobs")) {  // several jobs on one fabric (sim/engine/jobs_run.hpp)
      Results r = simulate_jobs(sc, seed, [&report](const std::string& stage, double f) { report(stage, f); });
      report("done", 1.0);
      return r;
    }
    if (phases.empty()) {
      throw_if_cancelled();
      outcomes.push_back(
          simulate_situation(sc, sc.fabric.gpus, sc.name, "", seed, situation_progress(0), 0, std::move(checked)));
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        throw_if_cancelled();
        const std::size_t capacity = i > 0 ? plan_capacity_for(outcomes.back(), phases[i].gpus) : 0;
        outcomes.push_back(simulate_situation(sc, phases[i].gpus, phases[i].name, phases[i].key, seed,
                                              situation_progress(i), capacity, i == 0 ? std::move(checked) : nullptr));
      }
    }
    throw_if_cancelled();

    report("time-to-train (Monte Carlo)", 0.9);
    // A target loss becomes tokens through the scaling law, with the workload's parameter count
    // (checked by check_scenario with the same function).
    const reliability::TrainingSpec training = resolved_training(sc);
    reliability::PhasedResult ttt;
    if (phases.empty()) {
      ttt.overall = reliability::time_to_train(training, reliability_situation(sc, outcomes.front()), seed);
    } else {
      std::vector<reliability::PhaseSituation> ps;
      for (std::size_t i = 0; i < phases.size(); ++i)
        ps.push_back({phases[i].name, phases[i].start, reliability_situation(sc, outcomes[i])});
      ttt = reliability::time_to_train_phased(training, ps, seed);
    }
    report("results", 0.99);
    Results results = build_results(sc, seed, outcomes, ttt);
    report("done", 1.0);
    return results;
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw sc.locate(e);
  }
}

}  // namespace aidcsim
