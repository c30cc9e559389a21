// The thermal step-time profile the time-to-train model reads (sim/engine/step_profile.hpp): what
// holds after the cooling-fault transient ends.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>

#include "sim/engine/step_profile.hpp"

using namespace aidcsim;

namespace {

/// A fault transient of 300 s sampled every 100 s whose clock ends at 0.96 (a power cap the
/// transient never lifts), the step 5 s at full clock and 6 s at the lowest clock 0.8.
SituationOutcome capped_after_fault(double fault_at, double fault_duration) {
  SituationOutcome o;
  o.step.step_time = 5.0;
  o.step_during_fault.step_time = 6.0;
  o.has_fault_transient = true;
  o.fault_transient_duration = 300.0;
  o.fault_transient.min_clock = 0.8;
  const double clocks[] = {1.0, 0.8, 0.96, 0.96};
  for (int i = 0; i < 4; ++i) {
    thermal::Sample s;
    s.time = 100.0 * i;
    s.min_clock = clocks[i];
    o.fault_transient.samples.push_back(s);
  }
  thermal::FaultVerdict v;
  v.fault.type = "cdu_loss";
  v.fault.at = fault_at;
  v.fault.duration = fault_duration;
  o.fault_verdicts.push_back(v);
  return o;
}

}  // namespace

TEST_CASE("Fault profile: back to 1 once every fault has ended, not the transient's last state", "[step_profile]") {
  // The fault ends at 150 s, inside the 300 s transient: from 300 s on the site is repaired. The
  // old profile held the last sample's 0.96 clock (m ~ 1.03) for the rest of the run: +13 d on the
  // rollout scenario's time-to-train for a 15-minute CDU loss.
  const auto p = step_profile(capped_after_fault(50.0, 100.0));
  REQUIRE(p.period == 0.0);
  REQUIRE(p.times.size() == p.multipliers.size());
  REQUIRE(p.times.back() == Approx(300.0));
  CHECK(p.multipliers.back() == 1.0);
  // Within the window the samples are kept: 0.8 is the slow step, 0.96 between.
  CHECK(p.multipliers[1] == Approx(1.2));
  CHECK(p.multipliers[2] > 1.0);
  CHECK(p.multipliers[2] < 1.2);
}

TEST_CASE("Fault profile: a fault still on at the transient's end holds its last state", "[step_profile]") {
  // Not repaired (duration inf): held for good.
  const auto p = step_profile(capped_after_fault(50.0, std::numeric_limits<double>::infinity()));
  REQUIRE_FALSE(p.multipliers.empty());
  CHECK(p.multipliers.back() > 1.0);
  CHECK(p.times.back() <= 300.0);
}

TEST_CASE("Fault profile: a power cap still held at the transient's end is not reset to 1", "[step_profile]") {
  // Every fault ended, but the monitoring policy's GPU power cap is still on: an alert still calls
  // for it (a threshold the repaired site still crosses). The old profile returned to 1 at the
  // transient's end and hid it; the capped clock holds.
  SituationOutcome o = capped_after_fault(50.0, 100.0);
  thermal::ActionRecord cap;
  cap.action = "reduce GPU power limit";
  cap.time = 100.0;  // cleared and release_due +inf: held for good
  o.fault_transient.actions.push_back(cap);
  const auto held = step_profile(o);
  REQUIRE_FALSE(held.multipliers.empty());
  CHECK(held.multipliers.back() > 1.0);
  CHECK(held.times.back() < 300.0);
  // On by its hold time alone, due 1,000 s: the capped clock until then, 1 after.
  o.fault_transient.actions.back().release_due = 1000.0;
  const auto until = step_profile(o);
  REQUIRE(until.times.size() >= 2);
  CHECK(until.times.back() == Approx(1000.0));
  CHECK(until.multipliers.back() == 1.0);
  CHECK(until.multipliers[until.multipliers.size() - 2] > 1.0);
  // A cap that was lifted within the transient changes nothing.
  o.fault_transient.actions.back().cleared = 250.0;
  o.fault_transient.actions.back().release_due = 250.0;
  const auto lifted = step_profile(o);
  CHECK(lifted.times.back() == Approx(300.0));
  CHECK(lifted.multipliers.back() == 1.0);
}

namespace {

/// The profile's multiplier at time t (piecewise constant, each value held to the next time).
double at(const reliability::StepTimeProfile& p, double t) {
  double m = 1.0;
  for (size_t i = 0; i < p.times.size() && p.times[i] <= t; ++i) m = p.multipliers[i];
  return m;
}

/// Wall time lost over [0, t_end] by a profile: sum dt (1 - 1/m) (the work not done).
double lost(const reliability::StepTimeProfile& p, double t_end) {
  double sum = 0;
  for (size_t i = 0; i < p.times.size() && p.times[i] < t_end; ++i) {
    const double next = i + 1 < p.times.size() ? std::min(p.times[i + 1], t_end) : t_end;
    sum += (next - p.times[i]) * (1.0 - 1.0 / p.multipliers[i]);
  }
  return sum;
}

/// Adds a daily outdoor cycle that throttles alone: samples at 0, 6, 12, 18 h with clocks 1, 1,
/// 0.9, 1; the step 5.5 s at 0.9 (multiplier 1.1 from 12 h to 18 h each day).
void add_daily(SituationOutcome& o) {
  o.has_daily_transient = true;
  o.step_daily_worst.step_time = 5.5;
  o.daily_transient.min_clock = 0.9;
  const double clocks[] = {1.0, 1.0, 0.9, 1.0};
  for (int i = 0; i < 4; ++i) {
    thermal::Sample s;
    s.time = 6 * 3600.0 * i;
    s.min_clock = clocks[i];
    o.daily_transient.samples.push_back(s);
  }
}

}  // namespace

TEST_CASE("Fault profile: a fault still on at the transient's end holds until its repair, then 1", "[step_profile]") {
  // The fault (50 s + 1,000 s) outlasts the 300 s transient. The old profile held the last state
  // (clock 0.96) for good; it holds until the fault ends at 1,050 s, then the site is steady.
  const auto p = step_profile(capped_after_fault(50.0, 1000.0));
  REQUIRE(p.times.size() == p.multipliers.size());
  const double m_end = 1.0 + (1.0 / 0.96 - 1.0) / (1.0 / 0.8 - 1.0) * (6.0 / 5.0 - 1.0);
  CHECK(at(p, 1000.0) == Approx(m_end));
  CHECK(p.times.back() == Approx(1050.0));
  CHECK(p.multipliers.back() == 1.0);
  // Closed form: the transient's part (100 s at 1.2, 100 s at m_end to its end at 300 s) plus the
  // held state from 300 s to the repair, nothing after.
  const double transient = 100.0 * (1.0 - 1.0 / 1.2) + 100.0 * (1.0 - 1.0 / m_end);
  CHECK(lost(p, 5000.0) == Approx(transient + (1050.0 - 300.0) * (1.0 - 1.0 / m_end)));
}

TEST_CASE("Fault profile: with a daily cycle, a fault never repaired keeps slowing after the transient",
          "[step_profile][daily]") {
  // The old profile switched to the daily profile at the transient's end: a fault not repaired
  // (duration inf) stopped slowing the step after the transient's (at most 72 h) window.
  SituationOutcome o = capped_after_fault(50.0, std::numeric_limits<double>::infinity());
  add_daily(o);
  const auto p = step_profile(o);
  REQUIRE_FALSE(p.multipliers.empty());
  const double m_end = p.multipliers.back();
  CHECK(m_end > 1.0);
  CHECK(p.times.back() <= 300.0);
  CHECK(p.period == 0.0);
  CHECK(at(p, 100 * 86400.0) == Approx(m_end));
}

TEST_CASE("Fault profile: with a daily cycle, a long fault holds until its end, then the daily profile",
          "[step_profile][daily]") {
  // The fault ends at t1 = 53 h (2 days and 5 h), long after the 300 s transient.
  const double t1 = 53 * 3600.0;
  SituationOutcome o = capped_after_fault(50.0, t1 - 50.0);
  add_daily(o);
  const auto p = step_profile(o);
  const double m_end = 1.0 + (1.0 / 0.96 - 1.0) / (1.0 / 0.8 - 1.0) * (6.0 / 5.0 - 1.0);
  // Held through day 0's and day 1's afternoon (the old profile: 1 there, 1.1 in the afternoons).
  CHECK(at(p, 3 * 3600.0) == Approx(m_end));
  CHECK(at(p, 13 * 3600.0) == Approx(m_end));
  CHECK(at(p, 40 * 3600.0) == Approx(m_end));
  // From t1 on, the daily profile: 05:00 on day 2 is 1, its afternoon 1.1, day 3's too.
  CHECK(at(p, t1) == 1.0);
  CHECK(at(p, 61 * 3600.0) == Approx(1.1));
  CHECK(at(p, 67 * 3600.0) == 1.0);
  CHECK(at(p, 85 * 3600.0) == Approx(1.1));
  // Closed form over the first 4 days: the transient's part, the held state to t1, then the
  // afternoons at 1.1 (day 2's and day 3's).
  const double transient = 100.0 * (1.0 - 1.0 / 1.2) + 100.0 * (1.0 - 1.0 / m_end);
  const double expected = transient + (t1 - 300.0) * (1.0 - 1.0 / m_end) + 2 * 6 * 3600.0 * (1.0 - 1.0 / 1.1);
  CHECK(lost(p, 4 * 86400.0) == Approx(expected));
}
