// Site steady state: Q = m_dot cp dT through the whole model, CDU outlet = e-NTU closed form,
// grouped tier = per-GPU tier, throttled clocks hold the limit, default-scenario checklist.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include "models/common/errors.hpp"

#include "models/thermal/coolant.hpp"
#include "models/thermal/hx.hpp"
#include "models/thermal/site.hpp"

using namespace aidcsim::thermal;

namespace {
// One GPU, everything else zero: 700 W (H100 TDP) entirely into the liquid.
SiteLayout one_gpu(double tdp) {
  SiteLayout l;
  l.gpus = 1;
  l.gpus_per_rack = 1;
  l.gpu_tdp = tdp;
  l.gpu_idle_power = 0;
  l.cpu_power_per_gpu = l.nic_power_per_gpu = l.rack_overhead_power = 0;
  l.psu_efficiency = 1;
  return l;
}
}  // namespace

TEST_CASE("site: 700 W at 0.5 / 1 L/min of water gives ~20 / ~10 K (Q = m_dot cp dT)", "[thermal][site]") {
  for (double lpm : {0.5, 1.0}) {
    CoolingSpec s;
    s.flow_per_gpu = lpm / 60000;
    s.liquid_fraction = 1.0;
    s.cdu.racks_per_cdu = 1;
    const SiteReport r = steady_state(s, one_gpu(700), {GpuLoad{1, 0}}, {});
    const double dt = r.state.gpu_outlet[0] - r.state.rack_inlet[0];
    const double c = coolant("water").capacity_rate(s.flow_per_gpu);
    CHECK(c * dt == Approx(700.0).epsilon(1e-6));
    CHECK(dt == Approx(lpm == 0.5 ? 20.16 : 10.08).margin(0.01));
    CHECK(r.loop_delta_t == Approx(dt).epsilon(1e-6));
    CHECK(r.state.cdu_heat[0] == Approx(700.0).epsilon(1e-6));
  }
}

TEST_CASE("site: CDU supply matches the effectiveness-NTU closed form", "[thermal][site]") {
  CoolingSpec s;
  SiteLayout l;
  l.gpus = 8 * 72;  // one full CDU
  // At the design point (TDP, design flow) the approach is the scenario's.
  SiteReport r = steady_state(s, l, {GpuLoad{1, 0}}, {});
  CHECK(r.state.cdu_supply[0] - s.facility_supply == Approx(s.cdu_approach).epsilon(1e-9));
  const double design_heat = r.state.cdu_heat[0];  // what the CDU takes at the design point
  // Off design (60 % load): supply from the closed form with the design UA.
  r = steady_state(s, l, {GpuLoad{0.6, 0.1}}, {});
  const double ch = coolant("water").capacity_rate(s.flow_per_gpu) * l.gpus;
  const double ua = cdu_ua_from_approach(design_heat, s.cdu_approach, ch, ch);
  const HxResult hx = counterflow(ua, r.state.cdu_return[0], ch, s.facility_supply, ch);
  CHECK(r.state.cdu_supply[0] == Approx(hx.th_out).epsilon(1e-12));
  CHECK(r.state.cdu_heat[0] == Approx(hx.q).epsilon(1e-9));
  // All liquid heat leaves through the CDU.
  double liquid = 0;
  for (double q : r.state.rack_liquid_heat) liquid += q;
  CHECK(r.state.cdu_heat[0] == Approx(liquid).epsilon(1e-9));
}

TEST_CASE("site: facility return and chiller share from the CDUs' facility flow (closed form)", "[thermal][site]") {
  // A 10 °C set point with 12 °C outdoors and a 5 K dry-cooler approach: the dry coolers reach 17 °C,
  // the chiller trims the rest. The facility flow is the CDUs' cold side (facility_flow_ratio x the
  // rack-loop flow), so T_return = T_supply + q / (rho cp Q_facility) and
  // P_chiller = clamp((T_out + approach - T_sup) / (T_ret - T_sup), 0, 1) q / COP (chiller.cpp).
  CoolingSpec s;
  s.plant.heat_rejection = "chiller";
  s.facility_supply = 283.15;
  s.rejection.outdoor_temp = 285.15;
  SiteLayout l;
  l.gpus = 8 * 72;  // one full CDU
  const SiteReport r = steady_state(s, l, {GpuLoad{1, 0}}, {});
  const double q = r.state.power.heat_to_facility_water;
  REQUIRE(q > 0);
  const double c_fw = s.cdu.facility_flow_ratio * coolant("water").capacity_rate(s.flow_per_gpu) * l.gpus;
  const double t_ret = s.facility_supply + q / c_fw;
  REQUIRE(std::isfinite(r.state.facility_return));
  CHECK(r.state.facility_return == Approx(t_ret).epsilon(1e-12));
  const double mech = std::clamp(
      (s.rejection.outdoor_temp + s.rejection.dry_cooler_approach - s.facility_supply) / (t_ret - s.facility_supply),
      0.0, 1.0);
  CHECK(mech > 0.1);
  CHECK(r.state.power.chiller == Approx(mech * q / s.rejection.chiller_cop).epsilon(1e-12));
}

TEST_CASE("site: grouped tier equals the per-GPU tier", "[thermal][site]") {
  CoolingSpec s;
  s.cdu.racks_per_cdu = 2;
  SiteLayout l;
  l.gpus = 5 * 8 + 3;  // partial last rack and CDU
  l.gpus_per_rack = 8;
  std::vector<GpuLoad> loads(l.gpus);
  for (int g = 0; g < l.gpus; ++g) loads[g] = {g % 3 == 0 ? 0.8 : 0.6, 0.2};  // partitions: compute + comm <= 1
  const SiteReport a = steady_state(s, l, loads, {}, {true});
  const SiteReport b = steady_state(s, l, loads, {}, {false});
  CHECK(a.network_nodes < b.network_nodes);
  for (int g = 0; g < l.gpus; ++g) CHECK(a.state.gpu_junction[g] == Approx(b.state.gpu_junction[g]).epsilon(1e-12));
  CHECK(a.pue == Approx(b.pue).epsilon(1e-12));
}

TEST_CASE("site: throttled clocks hold the junction at the limit", "[thermal][site]") {
  CoolingSpec s;
  s.limits.gpu_temp_limit = 273.15 + 65;  // tighter than the default-scenario junction (~71 °C)
  SiteLayout l;
  l.gpus = 144;
  const auto clocks = solve_throttled_clocks(s, l, {GpuLoad{1, 0}});
  CHECK(clocks[0] < 1.0);
  const SiteReport r = steady_state(s, l, {GpuLoad{1, 0}}, clocks);
  CHECK(r.max_gpu_temp == Approx(s.limits.gpu_temp_limit).margin(1e-6));
  CHECK(r.gpus_over_limit == 0);
  // No throttling when below the limit.
  CoolingSpec cool;
  const auto f1 = solve_throttled_clocks(cool, l, {GpuLoad{1, 0}});
  CHECK(*std::min_element(f1.begin(), f1.end()) == 1.0);
}

TEST_CASE("default 8K scenario: every checklist item of the brief is reported", "[thermal][site][checklist]") {
  CoolingSpec s;
  SiteLayout l;  // 8064 GB200, 72 per rack
  const SiteReport r = steady_state(s, l, {GpuLoad{0.8, 0.15}}, {});
  std::set<std::string> items;
  for (const auto& c : r.checklist) {
    items.insert(c.item);
    CHECK(std::isfinite(c.value));
    CHECK(std::isfinite(c.headroom));
    CHECK(!c.unit.empty());
  }
  for (const char* want :
       {"coolant flow per GPU", "coolant inlet", "coolant outlet", "loop delta T", "hot spot (cold plate)",
        "GPU junction vs throttle limit", "pumps N+1 (standby pumps)", "pump capacity vs load", "pump failover time",
        "air-cooling fallback capacity", "PUE", "condensation margin (supply - dew point)", "room humidity band",
        "rack heat to air vs air-cooling limit", "liquid capture needed by rack power"})
    CHECK(items.count(want) == 1);
  // Figures: 112 racks of ~100-114 kW, PUE well under 1.2, junction under the 87 °C limit.
  CHECK(r.state.rack_power.size() == 112);
  CHECK(r.it_power > 10e6);
  CHECK(r.it_power < 14e6);
  CHECK(r.pue > 1.0);
  CHECK(r.pue < 1.2);
  CHECK(r.max_gpu_temp < r.gpu_temp_limit);
  // Energy: IT heat = liquid (CDUs) + air (doors + room).
  double cdu = 0, air = 0, it_racks = 0;
  for (double q : r.state.cdu_heat) cdu += q;
  for (size_t k = 0; k < r.state.rack_power.size(); ++k) {
    air += r.state.rack_air_heat[k];
    it_racks += r.state.rack_power[k];
  }
  CHECK(cdu + air == Approx(it_racks).epsilon(1e-9));
}

TEST_CASE("power swing of a synchronized step", "[thermal][power]") {
  SiteLayout l;
  const PowerSwing s = power_swing(l, {GpuLoad{0.7, 0.2}}, {}, 12.0, 0.0);
  CHECK(s.period == 12.0);
  CHECK(s.amplitude == Approx(l.gpus * (1200 - (150 + 1050 * 0.35)) / 0.95).epsilon(1e-12));
  CHECK(s.peak > s.mean);
  CHECK(s.mean > s.trough);
}

TEST_CASE("site: inconsistent sizes are reported", "[thermal][site]") {
  CoolingSpec s;
  SiteLayout l;
  l.gpus = 10;
  CHECK_THROWS_AS(steady_state(s, l, std::vector<GpuLoad>(3), {}), aidcsim::SimulationError);
}
