#include "sim/engine/pipeline.hpp"

#include "models/reliability/scaling_law.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/results_builder.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {
namespace {

// Model state written by a checkpoint: BF16 weights (2 B) + FP32 master weights (4 B) + Adam
// moments (2 x 4 B) = 14 B per parameter; Megatron-LM SC21 §5.10 reports 13.8 TB for its 1T model.
constexpr double kCheckpointBytesPerParameter = 14.0;

// Step-time multiplier over the cooling-fault transient, for the time-to-train model. The step was
// simulated at full clock and at the lowest clock c_min; in between, step time is interpolated
// linearly in 1/clock (compute time scales with 1/clock, exposed communication does not).
reliability::StepTimeProfile fault_profile(const SituationOutcome& o) {
  reliability::StepTimeProfile p;
  const double base = o.step.step_time;
  const double slow = o.step_during_fault.step_time;
  const double c_min = o.fault_transient.min_clock;
  if (!o.has_fault_transient || !(slow > base) || !(c_min < 1.0) || o.fault_transient.samples.empty()) return p;
  const double span = 1.0 / c_min - 1.0;
  for (const auto& s : o.fault_transient.samples) {
    const double x = (1.0 / s.min_clock - 1.0) / span;
    const double m = 1.0 + x * (slow / base - 1.0);
    if (!p.times.empty() && !(s.time > p.times.back())) continue;
    p.times.push_back(p.times.empty() ? 0.0 : s.time);
    p.multipliers.push_back(m);
  }
  return p;
}

reliability::Situation reliability_situation(const Scenario& sc, const SituationOutcome& o) {
  reliability::Situation s;
  s.gpus = o.fabric_spec.gpus;
  s.step_time = o.step.step_time;
  s.tokens_per_step = o.plan.tokens_per_step;
  s.checkpoint_bytes = o.plan.parameters * kCheckpointBytesPerParameter;
  s.counts.gpus = o.fabric_spec.gpus;
  s.counts.nodes = static_cast<double>(o.fabric_spec.gpus) / sc.fabric.gpus_per_node;
  s.counts.switches = o.bom.switches;
  s.counts.links = o.bom.optical_cables;
  s.counts.cdus = static_cast<double>(o.thermal.state.cdu_supply.size());
  s.profile = fault_profile(o);
  return s;
}

}  // namespace

Results simulate(const Scenario& sc, const RunOptions& options) {
  const std::uint64_t seed = options.seed >= 0 ? static_cast<std::uint64_t>(options.seed) : sc.seed;
  const auto& phases = sc.training.phases;
  try {
    // Progress over the whole run: the situations share 90 %, the Monte Carlo the last 10 %.
    const std::size_t n = phases.empty() ? 1 : phases.size();
    auto situation_progress = [&](std::size_t i) -> std::function<void(const std::string&, double)> {
      if (!options.progress) return {};
      return [&options, i, n](const std::string& stage, double f) { options.progress(stage, 0.9 * (i + f) / n); };
    };
    std::vector<SituationOutcome> outcomes;
    if (phases.empty()) {
      outcomes.push_back(simulate_situation(sc, sc.fabric.gpus, sc.name, seed, situation_progress(0)));
    } else {
      for (std::size_t i = 0; i < n; ++i)
        outcomes.push_back(simulate_situation(sc, phases[i].gpus, phases[i].name, seed, situation_progress(i)));
    }

    if (options.progress) options.progress("time-to-train (Monte Carlo)", 0.9);
    // A target loss becomes tokens through the scaling law, with the workload's parameter count.
    reliability::TrainingSpec training = sc.training;
    reliability::resolve_target(training, outcomes.front().plan.parameters);
    reliability::PhasedResult ttt;
    if (phases.empty()) {
      ttt.overall = reliability::time_to_train(training, reliability_situation(sc, outcomes.front()), seed);
    } else {
      std::vector<reliability::PhaseSituation> ps;
      for (std::size_t i = 0; i < phases.size(); ++i)
        ps.push_back({phases[i].name, phases[i].start, reliability_situation(sc, outcomes[i])});
      ttt = reliability::time_to_train_phased(training, ps, seed);
    }
    if (options.progress) options.progress("time-to-train (Monte Carlo)", 1.0);

    return build_results(sc, seed, outcomes, ttt);
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw sc.locate(e);
  }
}

}  // namespace aidcsim
