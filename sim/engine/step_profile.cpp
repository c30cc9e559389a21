#include "sim/engine/step_profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/units.hpp"

namespace aidcsim {
namespace {

// Step-time multiplier at clock factor `clock`, given the step at full clock (`base`) and at the
// lowest clock `c_min` (`slow`): interpolated linearly in 1/clock (compute time scales with 1/clock,
// exposed communication does not).
double multiplier(double clock, double base, double slow, double c_min) {
  if (!(clock > 0)) return std::numeric_limits<double>::infinity();  // a GPU shut down: the job is halted
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

using reliability::kCombinedProfileDays;
using units::kDay;

}  // namespace

reliability::StepTimeProfile step_profile(const SituationOutcome& o) {
  reliability::StepTimeProfile p;
  const double base = o.step.step_time;
  const bool fault = o.has_fault_transient && !o.fault_transient.samples.empty() &&
                     ((o.step_during_fault.step_time > base && o.fault_transient.min_clock < 1.0) ||
                      o.fault_transient.halted_time > 0);
  const bool daily = o.has_daily_transient && o.step_daily_worst.step_time > base &&
                     o.daily_transient.min_clock < 1.0 && !o.daily_transient.samples.empty();
  const double day_slow = o.step_daily_worst.step_time;
  if (daily && !fault) {
    append_samples(p, o.daily_transient, 0.0, base, day_slow, kDay);
    p.period = kDay;
    return p;
  }
  if (!fault) return p;
  // The transient ends `settle` after the last fault; when every fault has ended by then the site is
  // back to its steady state (multiplier 1). Its last sample could hold a response action: until
  // 2026-12 the transient never lifted a GPU power cap, and held for the rest of the run it slowed
  // each of the rollout's phases by 2-3 % for a 15-minute CDU loss (+13 d); now the cap lifts when
  // its alerts clear. A GPU power cap still on at the end holds the last state: for good while an
  // alert still calls for it (a policy threshold the repaired site still crosses: the reset to 1
  // hid it), until its hold ends when only that keeps it. A fault still on at the end holds.
  const double end = o.fault_transient_duration;
  const bool all_ended =
      end > 0 && std::all_of(o.fault_verdicts.begin(), o.fault_verdicts.end(),
                             [end](const thermal::FaultVerdict& v) { return v.fault.at + v.fault.duration < end; });
  double capped_until = end;
  for (const auto& a : o.fault_transient.actions)
    if (a.action == "reduce GPU power limit" && !std::isfinite(a.cleared))
      capped_until = std::max(capped_until, a.release_due);
  append_samples(p, o.fault_transient, 0.0, base, o.step_during_fault.step_time,
                 all_ended && !daily ? end : std::numeric_limits<double>::infinity());
  if (!daily) {
    if (all_ended && std::isfinite(capped_until) && !p.multipliers.empty() && p.multipliers.back() != 1.0) {
      p.times.push_back(std::max(end, capped_until));
      p.multipliers.push_back(1.0);
    }
    return p;
  }
  const double start = std::ceil(o.fault_transient_duration / kDay) * kDay;
  // Between the end of the fault transient and the next midnight: the daily profile, shifted.
  for (int d = static_cast<int>(start / kDay) - 1; d < kCombinedProfileDays; ++d)
    append_samples(p, o.daily_transient, d * kDay, base, day_slow, (d + 1) * kDay);
  // The day's mean work rate (1/m averaged over equal samples; a halted sample does no work).
  double rate = 0;
  const auto& ds = o.daily_transient.samples;
  for (const auto& s : ds) rate += 1.0 / multiplier(s.min_clock, base, day_slow, o.daily_transient.min_clock);
  p.times.push_back(kCombinedProfileDays * kDay);
  p.multipliers.push_back(static_cast<double>(ds.size()) / rate);
  return p;
}

reliability::StepTimeProfile fabric_failure_profile(const SituationOutcome& o) {
  reliability::StepTimeProfile p;
  if (o.fabric_events.empty()) return p;
  const double base = o.step.step_time;
  p.times.push_back(0.0);
  p.multipliers.push_back(1.0);
  for (const auto& e : o.fabric_events) {
    const double m = e.step_time / base;
    if (e.at > p.times.back()) {
      p.times.push_back(e.at);
      p.multipliers.push_back(m);
    } else {
      p.multipliers.back() = m;  // same time as the previous failure: the state after both
    }
  }
  return p;
}

}  // namespace aidcsim
