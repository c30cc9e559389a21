// Checklist consistency: every item's headroom sign agrees with its pass flag (the results describe
// headroom as "limit - value in the direction of safety, negative = violated"), bands report the
// binding bound, and the rack-power item compares what it actually checks.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/thermal/site.hpp"

using namespace aidcsim::thermal;

namespace {
// Items whose brief limit is a strict "<": they fail at headroom == 0 exactly.
const std::set<std::string> kStrict = {"coolant inlet",
                                       "coolant outlet",
                                       "loop delta T",
                                       "hot spot (cold plate)",
                                       "GPU junction vs throttle limit",
                                       "pump failover time",
                                       "coolant stays single-phase"};

void check_rule(const std::vector<ChecklistItem>& items) {
  for (const auto& c : items) {
    INFO(c.item << ": value " << c.value << ", limit " << c.limit << ", headroom " << c.headroom << ", pass "
                << c.pass);
    if (c.headroom != 0)
      CHECK(c.pass == (c.headroom > 0));
    else
      CHECK(c.pass == (kStrict.count(c.item) == 0));
  }
}

const ChecklistItem& find(const std::vector<ChecklistItem>& items, const std::string& name) {
  for (const auto& c : items)
    if (c.item == name) return c;
  FAIL("no checklist item " << name);
  throw 0;
}

// A solved-looking report with every figure set by hand (SI), all inside the brief's limits.
SiteReport report(double flow_per_gpu, double rack_power, double captured = 0.85) {
  SiteReport r;
  r.state.flow_per_gpu = flow_per_gpu;
  r.coolant_inlet = 273.15 + 20;
  r.coolant_outlet = 273.15 + 35;
  r.loop_delta_t = 12;
  r.max_cold_plate_temp = 273.15 + 50;
  r.max_gpu_temp = 273.15 + 70;
  r.gpu_temp_limit = 273.15 + 87;
  r.pue = 1.1;
  r.it_power = 10e6;
  r.facility_power = 11e6;
  r.state.facility_supply = 273.15 + 18;
  r.state.rack_power = {rack_power};
  r.state.rack_liquid_heat = {captured * rack_power};
  r.state.rack_air_heat = {(1 - captured) * rack_power};
  r.max_air_inlet = 273.15 + 25;
  return r;
}
}  // namespace

TEST_CASE("checklist: pass == (headroom >= 0) for every item, default site and variants", "[thermal][checklist]") {
  SiteLayout l;  // default scenario: 8064 GB200, 72 per rack
  check_rule(steady_state(CoolingSpec{}, l, {GpuLoad{0.8, 0.15}}, {}).checklist);
  CoolingSpec low_flow;  // below the band
  low_flow.flow_per_gpu = 0.4 / 60000;
  check_rule(steady_state(low_flow, l, {GpuLoad{0.8, 0.15}}, {}).checklist);
  CoolingSpec no_liquid;  // ~90-110 kW racks, 10 % to cold plates: must fail, with negative headroom
  no_liquid.liquid_fraction = 0.1;
  const auto nl = steady_state(no_liquid, l, {GpuLoad{0.8, 0.15}}, {}).checklist;
  check_rule(nl);
  CHECK_FALSE(find(nl, "liquid capture needed by rack power").pass);
  CoolingSpec all_liquid;
  all_liquid.liquid_fraction = 0.95;
  all_liquid.pumps.spare = 0;
  all_liquid.room.rh_min = 0.30;
  const auto al = steady_state(all_liquid, l, {GpuLoad{0.8, 0.15}}, {}).checklist;
  check_rule(al);
  // No standby pump: nothing takes over, so the failover check cannot pass on the configured 5 s
  // (it passed, "standby starts in 5.0 s", with 0 standby pumps).
  CHECK_FALSE(find(al, "pump failover time").pass);
  CHECK(find(al, "pump failover time").note.find("no standby pump") != std::string::npos);

  // Hand-made reports around every bound.
  CoolingSpec s;
  for (double lpm : {0.3, 0.5, 0.6, 0.75, 0.9, 1.0, 1.2})
    for (double kw : {10.0, 20.0, 89.8, 200.0}) check_rule(cooling_checklist(s, l, report(lpm / 60000, kw * 1e3)));
}

TEST_CASE("checklist: flow band shows the binding bound", "[thermal][checklist]") {
  CoolingSpec s;
  SiteLayout l;
  // 1 L/min in a 0.5-1 L/min band: on the upper bound, headroom 0, pass.
  auto c = find(cooling_checklist(s, l, report(1.0 / 60000, 90e3)), "coolant flow per GPU");
  CHECK(c.limit == s.limits.flow_max);
  CHECK(c.headroom == 0);
  CHECK(c.pass);
  // 0.6 L/min: the lower bound binds, 0.1 L/min inside.
  c = find(cooling_checklist(s, l, report(0.6 / 60000, 90e3)), "coolant flow per GPU");
  CHECK(c.limit == s.limits.flow_min);
  CHECK(c.headroom * 60000 == Approx(0.1).epsilon(1e-9));
  CHECK(c.pass);
  // 1.2 L/min: over the upper bound by 0.2 L/min.
  c = find(cooling_checklist(s, l, report(1.2 / 60000, 90e3)), "coolant flow per GPU");
  CHECK(c.limit == s.limits.flow_max);
  CHECK(c.headroom * 60000 == Approx(-0.2).epsilon(1e-9));
  CHECK_FALSE(c.pass);
  // Humidity 30-55 %: the low end is 10 points outside.
  s.room.rh_min = 0.30;
  s.room.rh_max = 0.55;
  c = find(cooling_checklist(s, l, report(1.0 / 60000, 90e3)), "room humidity band");
  CHECK(c.value == 0.30);
  CHECK(c.limit == 0.40);
  CHECK(c.headroom == Approx(-0.10));
  CHECK_FALSE(c.pass);
  // The detail names the end outside the brief's band (0abac4e gave the band only), both when both are.
  CHECK_THAT(c.note, Catch::Contains("cooling.room.rh_min below 40 %"));
  CHECK_THAT(c.note, !Catch::Contains("rh_max"));
  s.room.rh_min = 0.45;
  s.room.rh_max = 0.65;
  c = find(cooling_checklist(s, l, report(1.0 / 60000, 90e3)), "room humidity band");
  CHECK(c.value == 0.65);
  CHECK_THAT(c.note, Catch::Contains("cooling.room.rh_max above 60 %") && !Catch::Contains("rh_min"));
  s.room.rh_min = 0.35;
  c = find(cooling_checklist(s, l, report(1.0 / 60000, 90e3)), "room humidity band");
  CHECK_THAT(c.note, Catch::Contains("rh_min below 40 %") && Catch::Contains("rh_max above 60 %"));
}

TEST_CASE("checklist: an 89.8 kW rack needs >= 77.7 % liquid capture", "[thermal][checklist]") {
  CoolingSpec s;  // liquid_fraction 0.85, air limit 20 kW; the capture compared is the state's
  SiteLayout l;
  auto c = find(cooling_checklist(s, l, report(1.0 / 60000, 89.8e3)), "liquid capture needed by rack power");
  CHECK(c.value == 0.85);
  CHECK(c.limit == Approx(1 - 20 / 89.8).epsilon(1e-12));
  CHECK(c.headroom == Approx(0.85 - (1 - 20 / 89.8)).epsilon(1e-12));
  CHECK(c.pass);
  s.liquid_fraction = 0.5;  // the cold plates capture about half of the rack's heat
  c = find(cooling_checklist(s, l, report(1.0 / 60000, 89.8e3, 0.5)), "liquid capture needed by rack power");
  CHECK(c.headroom < 0);
  CHECK_FALSE(c.pass);
  // 15 kW fits air: nothing needed, passes with no liquid at all.
  s.liquid_fraction = 0;
  c = find(cooling_checklist(s, l, report(1.0 / 60000, 15e3, 0.0)), "liquid capture needed by rack power");
  CHECK(c.limit == 0);
  CHECK(c.headroom == 0);
  CHECK(c.pass);
}

TEST_CASE("checklist: strict brief limits fail exactly at the limit", "[thermal][checklist]") {
  CoolingSpec s;
  SiteLayout l;
  SiteReport r = report(1.0 / 60000, 90e3);
  r.coolant_inlet = s.limits.inlet_max;  // brief: inlet < 25 °C
  const auto c = find(cooling_checklist(s, l, r), "coolant inlet");
  CHECK(c.headroom == 0);
  CHECK_FALSE(c.pass);
}
