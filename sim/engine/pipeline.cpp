#include "sim/engine/pipeline.hpp"

#include <cmath>
#include <limits>

#include "models/reliability/scaling_law.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/results_builder.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {
namespace {

// Model state written by a checkpoint: BF16 weights (2 B) + FP32 master weights (4 B) + Adam
// moments (2 x 4 B) = 14 B per parameter; Megatron-LM SC21 §5.10 reports 13.8 TB for its 1T model.
constexpr double kCheckpointBytesPerParameter = 14.0;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Step-time multiplier at clock factor `clock`, given the step at full clock (`base`) and at the
// lowest clock `c_min` (`slow`): interpolated linearly in 1/clock (compute time scales with 1/clock,
// exposed communication does not).
double multiplier(double clock, double base, double slow, double c_min) {
  if (!(slow > base) || !(c_min < 1.0)) return 1.0;
  const double x = (1.0 / clock - 1.0) / (1.0 / c_min - 1.0);
  return 1.0 + x * (slow / base - 1.0);
}

// Appends the samples of a transient, shifted by `offset`, to a profile (times strictly increasing).
void append_samples(reliability::StepTimeProfile& p, const thermal::TransientResult& t, double offset, double base,
                    double slow, double until) {
  for (const auto& s : t.samples) {
    const double time = offset + s.time;
    if (!(time < until)) break;
    if (!p.times.empty() && !(time > p.times.back())) continue;
    p.times.push_back(p.times.empty() ? 0.0 : time);
    p.multipliers.push_back(multiplier(s.min_clock, base, slow, t.min_clock));
  }
}

// Days of the daily cycle spelled out after a fault window (a profile is either periodic or one-off);
// beyond them the daily-mean multiplier holds. A year covers every time-to-train we simulate.
constexpr int kCombinedProfileDays = 366;
constexpr double kDay = 86400.0;

// Step-time multiplier over time for the time-to-train model (t = 0: training start, midnight).
// - Cooling faults only: the fault transient's multipliers, one-off (after it: its last value).
// - Daily outdoor cycle only: the day's multipliers, periodic with 86,400 s.
// - Both: the fault transient (which already runs under the outdoor cycle) over its window, then
//   the daily multipliers for kCombinedProfileDays days, then their daily mean. Multiplying the two
//   would count the outdoor heat twice, since the fault transient already includes it.
reliability::StepTimeProfile step_profile(const SituationOutcome& o) {
  reliability::StepTimeProfile p;
  const double base = o.step.step_time;
  const bool fault = o.has_fault_transient && o.step_during_fault.step_time > base &&
                     o.fault_transient.min_clock < 1.0 && !o.fault_transient.samples.empty();
  const bool daily = o.has_daily_transient && o.step_daily_worst.step_time > base &&
                     o.daily_transient.min_clock < 1.0 && !o.daily_transient.samples.empty();
  const double day_slow = o.step_daily_worst.step_time;
  if (daily && !fault) {
    append_samples(p, o.daily_transient, 0.0, base, day_slow, kDay);
    p.period = kDay;
    return p;
  }
  if (!fault) return p;
  append_samples(p, o.fault_transient, 0.0, base, o.step_during_fault.step_time, kInfinity);
  if (!daily) return p;
  const double start = std::ceil(o.fault_transient_duration / kDay) * kDay;
  // Between the end of the fault transient and the next midnight: the daily profile, shifted.
  for (int d = static_cast<int>(start / kDay) - 1; d < kCombinedProfileDays; ++d)
    append_samples(p, o.daily_transient, d * kDay, base, day_slow, (d + 1) * kDay);
  double mean = 0;
  const auto& ds = o.daily_transient.samples;
  for (const auto& s : ds) mean += multiplier(s.min_clock, base, day_slow, o.daily_transient.min_clock);
  p.times.push_back(kCombinedProfileDays * kDay);
  p.multipliers.push_back(mean / static_cast<double>(ds.size()));
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
  s.profile = step_profile(o);
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
