// Fans that move the air-carried heat: server fans (IT power, cooling.server_air.fan_power_fraction)
// and rear-door fans (cooling power, cooling.rdhx.fan_power_fraction) scale with the heat the
// server air carries, so a site that sends more of its heat to air is not cheaper to run: at the
// same GPU load its facility power never falls as liquid_fraction falls, nor does PUE with the
// server fans counted as cooling (docs/thermal.md §2, "Fans").
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "models/thermal/site.hpp"

using namespace aidcsim::thermal;

namespace {

SiteLayout nvl72_576() {
  SiteLayout l;  // 8 GB200 NVL72 racks at 1200 W (the SiteLayout defaults)
  l.gpus = 8 * 72;
  return l;
}

SiteLayout hgx_h100_1024() {
  SiteLayout l;  // 32 racks of 4 HGX H100 servers (topology::gpus_per_rack)
  l.gpus = 1024;
  l.gpus_per_rack = 32;
  l.gpu_tdp = 700;
  l.gpu_idle_power = 70;
  l.rack_overhead_power = 9000.0 * 32 / 72;
  return l;
}

// Design rack heat (every GPU at TDP), as SiteModel sizes the server air with it.
double design_rack_heat(const SiteLayout& l) {
  return (l.gpus_per_rack * (l.gpu_tdp + l.cpu_power_per_gpu + l.nic_power_per_gpu) + l.rack_overhead_power) /
         l.psu_efficiency;
}

// The part of it the server fans move: the rack overhead (NVLink switch trays, management) has its
// own fans, in power.rack_overhead.
double design_server_heat(const SiteLayout& l) {
  return l.gpus_per_rack * (l.gpu_tdp + l.cpu_power_per_gpu + l.nic_power_per_gpu) / l.psu_efficiency;
}

}  // namespace

TEST_CASE("fans: more heat to air never makes the site cheaper to run", "[thermal][fans]") {
  for (const SiteLayout& layout : {nvl72_576(), hgx_h100_1024()}) {
    double facility_prev = 0, pue_fans_prev = 0;
    for (double lf : {1.0, 0.85, 0.75, 0.5, 0.25, 0.0}) {
      CoolingSpec s;
      s.liquid_fraction = lf;
      const SiteReport r = steady_state(s, layout, {GpuLoad{1, 0}}, {});
      const PowerBreakdown& p = r.state.power;
      INFO(layout.gpus << " GPUs, liquid_fraction " << lf << ": facility " << p.facility / 1e3 << " kW, IT "
                       << p.it / 1e3 << " kW, server fans " << p.server_fans / 1e3 << " kW, door fans "
                       << p.rack_cooler_fans / 1e3 << " kW, PUE " << p.pue << ", PUE fans as cooling "
                       << p.pue_fans_as_cooling);
      CHECK(p.facility >= facility_prev);
      CHECK(p.pue_fans_as_cooling >= pue_fans_prev);
      facility_prev = p.facility;
      pue_fans_prev = p.pue_fans_as_cooling;
    }
  }
}

TEST_CASE("fans: server and door fans scale with the design air heat", "[thermal][fans]") {
  const SiteLayout l = hgx_h100_1024();
  CoolingSpec s;
  s.liquid_fraction = 0.25;
  const double air_heat = (1 - s.liquid_fraction) * design_rack_heat(l);  // W per rack
  const SiteReport r = steady_state(s, l, {GpuLoad{0.6, 0.2}}, {});
  const PowerBreakdown& p = r.state.power;
  // Not the rack overhead's share: its fans are in it (they were counted twice).
  CHECK(p.server_fans ==
        Approx(32 * s.server_air.fan_power_fraction * (1 - s.liquid_fraction) * design_server_heat(l)).epsilon(1e-12));
  CHECK(p.rack_cooler_fans == Approx(32 * s.rdhx.fan_power_fraction * air_heat).epsilon(1e-12));
  // Server fans are IT power (through the PSUs); door fans are cooling.
  CHECK(p.it ==
        Approx(p.gpu + p.cpu + p.nic + p.rack_overhead + p.server_fans + p.psu_loss + p.switches).epsilon(1e-12));
  CHECK(p.psu_loss ==
        Approx((p.gpu + p.cpu + p.nic + p.rack_overhead + p.server_fans) * (1 / l.psu_efficiency - 1)).epsilon(1e-12));
  CHECK(p.pue_fans_as_cooling == Approx(p.facility / (p.it - p.server_fans / l.psu_efficiency)).epsilon(1e-12));
  // The fans' heat is in the server air, and the site's heat still balances.
  CHECK(std::abs(p.heat_to_facility_water + p.heat_to_room - p.it) <= 1e-6 * p.it);
  // A fully liquid-cooled site has no server air, hence no fans.
  s.liquid_fraction = 1;
  const PowerBreakdown q = steady_state(s, l, {GpuLoad{1, 0}}, {}).state.power;
  CHECK(q.server_fans == 0);
  CHECK(q.rack_cooler_fans == 0);
}

TEST_CASE("fans: the power swing counts the server fans, constant through the step", "[thermal][fans][power]") {
  // The swing's mean at the steady state's loads is the steady state's IT power; it was low by the
  // server fans with their PSU loss, and so were its peak and trough.
  for (const SiteLayout& layout : {nvl72_576(), hgx_h100_1024()}) {
    CoolingSpec s;
    s.liquid_fraction = 0.5;
    const std::vector<GpuLoad> load{GpuLoad{0.7, 0.2}};
    const SiteReport r = steady_state(s, layout, load, {});
    const PowerBreakdown& p = r.state.power;
    REQUIRE(p.server_fans > 0);
    const PowerSwing w = power_swing(layout, load, {}, 10.0, p.server_fans);
    CHECK(w.mean == Approx(p.it).epsilon(1e-12));
    CHECK(r.swing.mean == Approx(p.it).epsilon(1e-12));
    // Constant terms move peak and trough alike: the amplitude is the GPUs' alone.
    const PowerSwing none = power_swing(layout, load, {}, 10.0, 0.0);
    CHECK(w.peak - none.peak == Approx(p.server_fans / layout.psu_efficiency).epsilon(1e-12));
    CHECK(w.trough - none.trough == Approx(p.server_fans / layout.psu_efficiency).epsilon(1e-12));
    CHECK(w.amplitude == Approx(none.amplitude).epsilon(1e-12));
  }
}
