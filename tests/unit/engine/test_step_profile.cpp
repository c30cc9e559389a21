// The thermal step-time profile the time-to-train model reads (sim/engine/step_profile.hpp): what
// holds after the cooling-fault transient ends.
#include <catch2/catch.hpp>

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
  const auto p = step_profile(capped_after_fault(50.0, 1e9));
  REQUIRE_FALSE(p.multipliers.empty());
  CHECK(p.multipliers.back() > 1.0);
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
