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

// The day's mean multiplier: harmonic, the mean work rate (1/m averaged over equal samples; a
// halted sample does no work).
double daily_mean(const thermal::TransientResult& day, double base, double slow) {
  double rate = 0;
  for (const auto& s : day.samples) rate += 1.0 / multiplier(s.min_clock, base, slow, day.min_clock);
  return static_cast<double>(day.samples.size()) / rate;
}

// Appends the daily profile from time `from` on (> the profile's last time): the day's multiplier
// in force at `from` (its sample at or before `from` modulo a day), the day's later samples until
// kCombinedProfileDays, then the day's mean.
void append_daily_from(reliability::StepTimeProfile& p, const thermal::TransientResult& day, double from, double base,
                       double slow) {
  const double days_end = kCombinedProfileDays * kDay;
  if (!(from < days_end)) {
    p.times.push_back(from);
    p.multipliers.push_back(daily_mean(day, base, slow));
    return;
  }
  const double first = std::floor(from / kDay);
  const double tod = from - first * kDay;
  double m = multiplier(day.samples.front().min_clock, base, slow, day.min_clock);
  for (const auto& s : day.samples)
    if (s.time <= tod) m = multiplier(s.min_clock, base, slow, day.min_clock);
  p.times.push_back(from);
  p.multipliers.push_back(m);
  for (int d = static_cast<int>(first); d < kCombinedProfileDays; ++d)
    append_samples(p, day, d * kDay, base, slow, (d + 1) * kDay);
  p.times.push_back(days_end);
  p.multipliers.push_back(daily_mean(day, base, slow));
}

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
  // hid it), until its hold ends when only that keeps it.
  const double end = o.fault_transient_duration;
  // A fault that started within the transient and is still on at its end (the transient is at most
  // 72 h) holds the transient's last state until the last such fault ends (never, without a repair),
  // then the site is back to steady (1, or the daily profile). Until 2026-12 the profile held that
  // state forever when the fault was finite (no daily cycle), and went to the daily profile at the
  // transient's end when there was one, dropping an unrepaired fault after 72 h. What the site does
  // after such a repair is not simulated: a power cap on at the end is taken to lift with the fault.
  // Faults that start after the transient are counted by their verdicts (thermal_report.cpp).
  double fault_until = end;
  for (const auto& v : o.fault_verdicts)
    if (v.fault.at < end) fault_until = std::max(fault_until, v.fault.at + v.fault.duration);
  const bool still_on = end > 0 && fault_until > end;
  if (still_on) {
    append_samples(p, o.fault_transient, 0.0, base, o.step_during_fault.step_time,
                   std::numeric_limits<double>::infinity());
    if (!std::isfinite(fault_until) || p.multipliers.empty()) return p;
    if (!daily) {
      if (p.multipliers.back() != 1.0) {
        p.times.push_back(fault_until);
        p.multipliers.push_back(1.0);
      }
      return p;
    }
    append_daily_from(p, o.daily_transient, fault_until, base, day_slow);
    return p;
  }
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
  p.times.push_back(kCombinedProfileDays * kDay);
  p.multipliers.push_back(daily_mean(o.daily_transient, base, day_slow));
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
