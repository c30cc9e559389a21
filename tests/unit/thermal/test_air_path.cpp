// The air path and the plant components: a GPU's heat leaves its junction through the cold plate
// and through an air heatsink in parallel, so less liquid capture never cools a GPU; every
// registered component builds a network whose energy balance closes (steady and transient);
// air-cooled sites have no liquid loop; a design over a limit is simulated and fails its checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/thermal/components/component.hpp"
#include "models/thermal/site.hpp"
#include "models/thermal/transient.hpp"

using namespace aidcsim::thermal;

namespace {
SiteLayout one_cdu() {
  SiteLayout l;  // 8 NVL72 racks of GB200 at 1200 W
  l.gpus = 8 * 72;
  return l;
}

// IT heat leaves through the two boundaries: facility water and hall air (SI, W).
void check_steady_balance(const SiteReport& r) {
  const auto& p = r.state.power;
  double racks = 0;
  for (double q : r.state.rack_power) racks += q;
  INFO("IT " << p.it << " W, to facility water " << p.heat_to_facility_water << " W, to hall " << p.heat_to_room
             << " W");
  CHECK(std::abs(p.heat_to_facility_water + p.heat_to_room - p.it) <= 1e-6 * p.it);
  CHECK(racks + p.switches == Approx(p.it).epsilon(1e-12));
}

// Every registered component in its slot, with the others at their defaults (immersion needs a
// dielectric coolant).
std::vector<CoolingSpec> one_per_component() {
  std::vector<CoolingSpec> out;
  for (const auto& c : components()) {
    CoolingSpec s;
    if (c.slot == "chip") s.plant.chip = c.name;
    if (c.slot == "rack") s.plant.rack = c.name;
    if (c.slot == "room") s.plant.room = c.name;
    if (c.slot == "cdu") s.plant.cdu = c.name;
    if (c.slot == "heat_rejection") s.plant.heat_rejection = c.name;
    if (s.plant.chip == "immersion_tank") s.coolant = "pao";
    out.push_back(s);
  }
  return out;
}
}  // namespace

TEST_CASE("lower liquid capture never cools a GPU: hottest junction is monotone in liquid_fraction", "[thermal][air]") {
  for (const auto& load : {GpuLoad{1, 0}, GpuLoad{0.7, 0.2}}) {
    double previous = -1;
    for (int k = 20; k >= 0; --k) {  // 1.00, 0.95, ..., 0
      CoolingSpec s;
      s.liquid_fraction = k / 20.0;
      const SiteReport r = steady_state(s, one_cdu(), {load}, {});
      INFO("liquid_fraction " << s.liquid_fraction << ": hottest junction " << r.max_gpu_temp - 273.15 << " °C");
      CHECK(r.max_gpu_temp >= previous);
      previous = r.max_gpu_temp;
      check_steady_balance(r);
    }
  }
}

TEST_CASE("air-cooled racks have no liquid loop and report no coolant figures", "[thermal][air]") {
  CoolingSpec s;
  s.liquid_fraction = 0;
  const SiteReport r = steady_state(s, one_cdu(), {GpuLoad{0.8, 0.15}}, {});
  CHECK_FALSE(r.liquid);
  CHECK(r.state.cdu_supply.empty());
  CHECK(std::isnan(r.coolant_inlet));
  CHECK(std::isnan(r.max_cold_plate_temp));
  CHECK(r.state.power.cdu_pumps == 0);
  for (double q : r.state.rack_liquid_heat) CHECK(q == 0);
  // Heat reaches the GPU only through air: junction = inlet air + its heatsink path.
  CHECK(r.max_gpu_temp > r.max_air_inlet + 30);
  check_steady_balance(r);
  for (const auto& c : r.checklist) CHECK(c.item != "coolant inlet");
  // Pump and CDU faults have nothing to act on: physically impossible input.
  s.faults = {{"pump_failure", 10, 10, -1, 0}};
  CHECK_THROWS_AS(validate(s), aidcsim::InvalidParameter);
}

TEST_CASE("every registered component builds a network whose energy balance closes", "[thermal][components]") {
  for (CoolingSpec s : one_per_component()) {
    INFO("plant " << s.plant.chip << " / " << s.plant.rack << " / " << s.plant.room << " / " << s.plant.cdu << " / "
                  << s.plant.heat_rejection);
    s.server_air.recirculation = 0.1;
    const SiteReport r = steady_state(s, one_cdu(), {GpuLoad{0.8, 0.15}}, {});
    check_steady_balance(r);
    CHECK(r.pue > 1.0);
    CHECK(r.max_gpu_temp > r.coolant_inlet);
    TransientOptions o;
    o.duration = 600;
    o.sample_interval = 60;
    s.faults = {{"pump_failure", 100, 200, 0, 0}, {"supply_excursion", 150, 300, -1, 3}};
    if (s.plant.rack != "none") s.faults.push_back({"rdhx_fan_failure", 200, 100, 1, 0});
    const TransientResult t = simulate_transient(s, one_cdu(), {GpuLoad{0.8, 0.15}}, o);
    CHECK(t.energy_error < 1e-9);
    CHECK(t.max_step_error < 1e-9);
  }
}

TEST_CASE("hybrid and air-cooled transients conserve energy, air side included", "[thermal][air]") {
  for (double lf : {0.0, 0.5}) {
    CoolingSpec s;
    s.liquid_fraction = lf;
    s.server_air.recirculation = 0.05;
    s.faults = {{"rdhx_fan_failure", 60, 600, -1, 0}, {"supply_excursion", 300, 600, -1, 4}};
    TransientOptions o;
    o.duration = 1800;
    o.step_time = 7;  // synchronized swing
    const TransientResult t = simulate_transient(s, one_cdu(), {GpuLoad{0.7, 0.2}}, o);
    INFO("liquid_fraction " << lf);
    CHECK(t.dissipated > 0);
    CHECK(t.energy_error < 1e-9);
    CHECK(t.max_step_error < 1e-9);
  }
}

TEST_CASE("rear-door fan failure heats the hall air of an air-cooled site and its GPUs", "[thermal][air]") {
  CoolingSpec s;
  s.liquid_fraction = 0;
  s.server_air.recirculation = 0.3;  // hot exhaust comes back to the inlets
  s.faults = {{"rdhx_fan_failure", 60, 1e9, -1, 0}};
  TransientOptions o;
  o.duration = 900;
  o.sample_interval = 30;
  const TransientResult t = simulate_transient(s, one_cdu(), {GpuLoad{0.8, 0.15}}, o);
  CHECK(t.samples.back().max_air_inlet > t.samples.front().max_air_inlet + 1.0);
  CHECK(t.samples.back().max_gpu_temp > t.samples.front().max_gpu_temp + 1.0);
}

TEST_CASE("immersion: the bath's heat capacity slows a CDU loss down", "[thermal][components]") {
  CoolingSpec plate, tank;
  tank.plant.chip = "immersion_tank";
  tank.coolant = "pao";
  for (auto* s : {&plate, &tank}) {
    s->faults = {{"cdu_loss", 60, 1e9, -1, 0}};
    s->air_fallback.capacity_per_rack = 0;
  }
  TransientOptions o;
  o.duration = 300;
  o.sample_interval = 10;
  const TransientResult a = simulate_transient(plate, one_cdu(), {GpuLoad{0.8, 0.15}}, o);
  const TransientResult b = simulate_transient(tank, one_cdu(), {GpuLoad{0.8, 0.15}}, o);
  const double rise_plate = a.samples.back().max_gpu_temp - a.samples.front().max_gpu_temp;
  const double rise_tank = b.samples.back().max_gpu_temp - b.samples.front().max_gpu_temp;
  INFO("4 min after the loss: cold plates +" << rise_plate << " K, immersion +" << rise_tank << " K");
  CHECK(rise_tank < 0.5 * rise_plate);
  CHECK(b.energy_error < 1e-9);
  // Steady: every watt of the rack goes to the bath (no server air).
  const SiteReport r = steady_state(tank, one_cdu(), {GpuLoad{0.8, 0.15}}, {});
  CHECK(std::isnan(r.max_air_inlet));
  for (size_t k = 0; k < r.state.rack_power.size(); ++k)
    CHECK(r.state.rack_liquid_heat[k] == Approx(r.state.rack_power[k]));
}

TEST_CASE("a 22 °C facility supply is simulated and fails its inlet check with its headroom", "[thermal][checks]") {
  CoolingSpec s;
  s.facility_supply = 273.15 + 22;  // + 4 K CDU approach = 26 °C at the cold plates, limit < 25 °C
  REQUIRE_NOTHROW(validate(s));
  const SiteReport r = steady_state(s, one_cdu(), {GpuLoad{0.8, 0.15}}, {});
  const auto it = std::find_if(r.checklist.begin(), r.checklist.end(),
                               [](const ChecklistItem& c) { return c.item == "coolant inlet"; });
  REQUIRE(it != r.checklist.end());
  CHECK_FALSE(it->pass);
  CHECK(it->headroom < 0);
  CHECK(it->value > s.limits.inlet_max);
}

TEST_CASE("cooling tower supply follows the wet bulb, dry cooler the dry bulb", "[thermal][components]") {
  CoolingSpec tower, dry;
  tower.plant.heat_rejection = "cooling_tower";
  dry.plant.heat_rejection = "dry_cooler";
  for (auto* s : {&tower, &dry}) {
    s->rejection.outdoor_temp = 273.15 + 30;  // a hot afternoon, RH 40 %: wet bulb ~20 °C (Stull 2011)
    s->rejection.outdoor_rh = 0.40;
  }
  const SiteReport t = steady_state(tower, one_cdu(), {GpuLoad{1, 0}}, {});
  const SiteReport d = steady_state(dry, one_cdu(), {GpuLoad{1, 0}}, {});
  CHECK(d.state.facility_supply == Approx(273.15 + 35));  // 30 °C + 5 K approach
  CHECK(t.state.facility_supply == Approx(273.15 + 20.0 + 4.0).margin(0.7));
  CHECK(t.max_gpu_temp < d.max_gpu_temp);
}
