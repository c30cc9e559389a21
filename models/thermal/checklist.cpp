// The product brief's cooling checklist ("Cooling" and "Power" sections of BRIEF.md), evaluated on
// a solved site state. Each item: value, limit, unit (SI), headroom, pass, note.
// Rule every item follows (tests/unit/thermal/test_checklist_consistency.cpp): headroom = limit -
// value in the direction of safety, and pass == (headroom >= 0); the one exception is headroom == 0
// exactly on the brief's strict "<" limits (inlet, outlet, loop ΔT, hot spot, junction, failover),
// which fail there. For a band (flow, humidity) `limit` is the bound nearer to the value (the
// binding one) and headroom is measured to it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/common/units.hpp"
#include "models/thermal/checks.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/coolant.hpp"
#include "models/thermal/psychrometrics.hpp"
#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

namespace {
constexpr double kK0 = units::kZeroCelsius;
}  // namespace

ChecklistItem limit_below(std::string item, double value, double limit, std::string unit, std::string note,
                          bool strict) {
  ChecklistItem c{std::move(item), value, limit, std::move(unit), limit - value, false, std::move(note)};
  c.pass = strict ? value < limit : value <= limit;
  return c;
}

ChecklistItem limit_above(std::string item, double value, double limit, std::string unit, std::string note) {
  ChecklistItem c{std::move(item), value, limit, std::move(unit), value - limit, value >= limit, std::move(note)};
  return c;
}

ChecklistItem limit_band(std::string item, double value, double lo, double hi, std::string unit, double tol,
                         std::string note) {
  const bool low_binds = value - lo < hi - value;
  ChecklistItem c{
      std::move(item), value,          low_binds ? lo : hi, std::move(unit), low_binds ? value - lo : hi - value,
      false,           std::move(note)};
  if (std::abs(c.headroom) <= tol) c.headroom = 0;
  c.pass = c.headroom >= 0;
  return c;
}

std::pair<double, double> air_inlet_allowable(const std::string& cls) {
  if (cls == "A1") return {kK0 + 15, kK0 + 32};
  if (cls == "A2") return {kK0 + 10, kK0 + 35};
  if (cls == "A3") return {kK0 + 5, kK0 + 40};
  if (cls == "A4") return {kK0 + 5, kK0 + 45};
  throw InvalidParameter("cooling.limits.air_inlet_class", cls, "an ASHRAE air class: A1, A2, A3 or A4");
}

std::string degc(double k) { return fmt::format("{:.1f} °C", k - kK0); }

// Long by nature: one block per item of the brief's cooling checklist, in the brief's order.
std::vector<ChecklistItem> cooling_checklist(const CoolingSpec& spec, const SiteLayout& layout, const SiteReport& r) {
  const auto& lim = spec.limits;
  const SiteState& s = r.state;
  std::vector<ChecklistItem> out;
  const Plant plant = make_plant(spec);

  if (r.liquid) {
    // Brief: "Flow 0.5-1 L/min per GPU".
    const double q = s.flow_per_gpu;
    out.push_back(limit_band(
        "coolant flow per GPU", q, lim.flow_min, lim.flow_max, "m^3/s", 1e-15,
        fmt::format("{:.2f} L/min, band {:.2f}-{:.2f} L/min", q * 60000, lim.flow_min * 60000, lim.flow_max * 60000)));
    out.push_back(limit_below(
        "coolant inlet", r.coolant_inlet, lim.inlet_max, "K",
        fmt::format("hottest rack-loop supply {} (limit < {})", degc(r.coolant_inlet), degc(lim.inlet_max))));
    out.push_back(
        limit_below("coolant outlet", r.coolant_outlet, lim.outlet_max, "K",
                    fmt::format("hottest rack return {} (limit < {})", degc(r.coolant_outlet), degc(lim.outlet_max))));
    out.push_back(limit_below("loop delta T", r.loop_delta_t, lim.delta_t_max, "K",
                              fmt::format("{:.1f} K (limit < {:.1f} K)", r.loop_delta_t, lim.delta_t_max)));
    // The loop model is single-phase: liquid at or above its boiling point (1 atm: the loop pressure
    // is not modelled, and a pressurised loop boils later, so this is conservative) puts the thermal
    // answer outside the model. PAO has no boiling point in range (coolant.cpp): no item.
    if (const Coolant& fl = coolant(spec.coolant); std::isfinite(fl.boiling_point))
      out.push_back(limit_below(
          kSinglePhaseItem, r.max_coolant_temp, fl.boiling_point, "K",
          fmt::format("hottest coolant {} vs {} boiling point {} at 1 atm{}", degc(r.max_coolant_temp), spec.coolant,
                      degc(fl.boiling_point),
                      r.max_coolant_temp < fl.boiling_point ? ""
                                                            : ": the coolant would boil, the single-phase thermal "
                                                              "answer is outside the model")));
    if (std::isfinite(r.max_cold_plate_temp))
      out.push_back(limit_below("hot spot (cold plate)", r.max_cold_plate_temp, lim.hotspot_max, "K",
                                fmt::format("{} (limit < {})", degc(r.max_cold_plate_temp), degc(lim.hotspot_max))));
  }
  out.push_back(limit_below("GPU junction vs throttle limit", r.max_gpu_temp, lim.gpu_temp_limit, "K",
                            fmt::format("{} (limit < {}; {} GPUs above, lowest clock {:.3f})", degc(r.max_gpu_temp),
                                        degc(lim.gpu_temp_limit), r.gpus_over_limit, r.min_clock)));
  if (std::isfinite(r.max_air_inlet)) {
    const auto [lo, hi] = air_inlet_allowable(lim.air_inlet_class);
    out.push_back(limit_band("server inlet air (ASHRAE " + lim.air_inlet_class + ")", r.max_air_inlet, lo, hi, "K", 0.0,
                             fmt::format("hottest server inlet air {} (ASHRAE {} allowable {}-{})",
                                         degc(r.max_air_inlet), lim.air_inlet_class, degc(lo), degc(hi))));
  }
  if (r.liquid) {
    // Brief: "Pumps sized at 120 % of the load, a standby pump that takes over in under 10 s".
    out.push_back(limit_above("pumps N+1 (standby pumps)", spec.pumps.spare, 1, "pumps",
                              fmt::format("{} running + {} standby per CDU", spec.pumps.running, spec.pumps.spare)));
    out.push_back(limit_above("pump capacity vs load", spec.pumps.capacity_margin, lim.pump_margin_min, "ratio",
                              fmt::format("running pumps deliver {:.0f} % of design flow (>= {:.0f} %)",
                                          spec.pumps.capacity_margin * 100, lim.pump_margin_min * 100)));
    // Without a standby pump nothing takes over: no failover time to pass on.
    const bool standby = spec.pumps.spare > 0;
    out.push_back(limit_below(
        "pump failover time", standby ? spec.pumps.failover_time : std::numeric_limits<double>::infinity(),
        lim.failover_max, "s",
        standby ? fmt::format("standby starts in {:.1f} s (< {:.0f} s)", spec.pumps.failover_time, lim.failover_max)
                : fmt::format("no standby pump (cooling.pumps.spare 0): a failed pump is not taken over (< {:.0f} s)",
                              lim.failover_max)));
    // Brief: "If the liquid cooling fails, fall back to auxiliary air cooling". The air must at least
    // carry a rack with its GPUs idle (training paused, emergency checkpoint).
    const double gpr = layout.gpus_per_rack;
    const double idle_rack = (gpr * (layout.gpu_idle_power + layout.cpu_power_per_gpu + layout.nic_power_per_gpu) +
                              layout.rack_overhead_power) /
                             layout.psu_efficiency;
    double max_rack = 0;
    for (double p : s.rack_power) max_rack = std::max(max_rack, p);
    out.push_back(
        limit_above("air-cooling fallback capacity", spec.air_fallback.capacity_per_rack, idle_rack, "W",
                    fmt::format("{:.1f} kW/rack vs {:.1f} kW idle rack; sustains {:.0f} % of the training rack heat",
                                spec.air_fallback.capacity_per_rack / 1e3, idle_rack / 1e3,
                                100 * spec.air_fallback.capacity_per_rack / std::max(1.0, max_rack))));
  }
  // Rated rack coolers (in-row units) and CRAH: the heat they take against their capacity.
  if (const double cap = plant.rack->capacity_per_rack(); cap > 0 && !s.rack_rdhx_heat.empty()) {
    const double q = *std::max_element(s.rack_rdhx_heat.begin(), s.rack_rdhx_heat.end());
    out.push_back(limit_below("rack cooler capacity", q, cap, "W",
                              fmt::format("{:.1f} kW per rack taken, {:.1f} kW per rack rated", q / 1e3, cap / 1e3),
                              false));
  }
  if (const double cap = plant.room->capacity(); cap > 0)
    out.push_back(limit_below(
        "room cooler (CRAH) capacity", s.power.heat_to_room, cap, "W",
        fmt::format("{:.2f} MW to the hall air, {:.2f} MW rated", s.power.heat_to_room / 1e6, cap / 1e6), false));
  out.push_back(limit_below("PUE", r.pue, lim.pue_max, "ratio",
                            fmt::format("PUE {:.3f} (limit <= {:.2f}; IT {:.2f} MW, facility {:.2f} MW)", r.pue,
                                        lim.pue_max, r.it_power / 1e6, r.facility_power / 1e6),
                            false));
  // Brief: "humidity 40-60 % to avoid condensation": the coldest water (facility supply, feeding
  // the CDUs and rear doors) must stay above the room dew point at the top of the band.
  if (r.liquid || spec.plant.rack != "none") {
    const double td = dew_point(spec.room.temperature, spec.room.rh_max);
    const double margin = s.facility_supply - td;
    out.push_back(limit_above("condensation margin (supply - dew point)", margin, lim.dew_point_margin, "K",
                              fmt::format("water {} vs dew point {} (room {}, {:.0f} % RH)", degc(s.facility_supply),
                                          degc(td), degc(spec.room.temperature), spec.room.rh_max * 100)));
  }
  {
    // The room's band must lie inside the brief's: its low end is held against 40 %, its high end
    // against 60 %; the item shows whichever end is nearer its bound.
    const double lo = spec.room.rh_min - 0.40, hi = 0.60 - spec.room.rh_max;
    ChecklistItem c{"room humidity band",
                    lo < hi ? spec.room.rh_min : spec.room.rh_max,
                    lo < hi ? 0.40 : 0.60,
                    "fraction",
                    std::min(lo, hi),
                    false,
                    fmt::format("{:.0f}-{:.0f} % RH (brief 40-60 %){}{}", spec.room.rh_min * 100,
                                spec.room.rh_max * 100, lo < -1e-12 ? "; cooling.room.rh_min below 40 %" : "",
                                hi < -1e-12 ? "; cooling.room.rh_max above 60 %" : "")};
    if (std::abs(c.headroom) <= 1e-12) c.headroom = 0;  // a band end given as exactly 40 or 60 %
    c.pass = c.headroom >= 0;
    out.push_back(c);
  }
  // Brief: "air cooling loses efficiency above about 20 kW per rack".
  {
    double max_air = 0, max_rack = 0;
    for (double a : s.rack_air_heat) max_air = std::max(max_air, a);
    for (double p : s.rack_power) max_rack = std::max(max_rack, p);
    out.push_back(limit_below(
        "rack heat to air vs air-cooling limit", max_air, lim.rack_air_max, "W",
        fmt::format("{:.1f} kW to air per rack (limit < {:.0f} kW)", max_air / 1e3, lim.rack_air_max / 1e3)));
    // A rack above the air limit needs its cold plates to capture at least 1 - limit/power of its
    // heat so that what is left for air fits the limit; compared with the share they capture in this
    // state (of the hottest rack). Stated as a fraction so that it stays finite when all is liquid.
    double captured = 1.0;
    for (size_t k = 0; k < s.rack_power.size(); ++k)
      if (s.rack_power[k] >= max_rack) captured = s.rack_liquid_heat[k] / s.rack_power[k];
    const double needed = max_rack > lim.rack_air_max ? 1.0 - lim.rack_air_max / max_rack : 0.0;
    out.push_back(
        limit_above("liquid capture needed by rack power", captured, needed, "fraction",
                    max_rack <= lim.rack_air_max
                        ? fmt::format("{:.1f} kW per rack, air-cooling limit {:.0f} kW: air cooling suffices",
                                      max_rack / 1e3, lim.rack_air_max / 1e3)
                        : fmt::format("{:.1f} kW per rack > {:.0f} kW air-cooling limit: cold plates must take "
                                      ">= {:.1f} % of it, they take {:.1f} % (coverage {:.1f} %)",
                                      max_rack / 1e3, lim.rack_air_max / 1e3, needed * 100, captured * 100,
                                      spec.liquid_fraction * 100)));
  }
  return out;
}

}  // namespace aidcsim::thermal
