#include "models/thermal/site.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "models/common/errors.hpp"
#include "models/thermal/site_model.hpp"

namespace aidcsim::thermal {

SiteLayout make_layout(const CoolingSpec& spec, int gpus, int gpus_per_rack, double gpu_tdp, double gpu_idle_power,
                       int switches) {
  SiteLayout l;
  l.gpus = gpus;
  l.gpus_per_rack = gpus_per_rack;
  l.switches = switches;
  l.gpu_tdp = gpu_tdp;
  l.gpu_idle_power = gpu_idle_power;
  l.cpu_power_per_gpu = spec.power.cpu_per_gpu;
  l.nic_power_per_gpu = spec.power.nic_per_gpu;
  // rack_overhead is given for a 72-GPU NVL72 rack; scale it for other rack sizes.
  l.rack_overhead_power = spec.power.rack_overhead * gpus_per_rack / 72.0;
  l.switch_power = spec.power.switch_power;
  l.psu_efficiency = spec.power.psu_efficiency;
  l.comm_power_factor = spec.power.comm_factor;
  return l;
}

namespace {

std::vector<double> expand_util(const SiteLayout& layout, const std::vector<GpuLoad>& loads) {
  if (loads.size() != 1 && loads.size() != static_cast<size_t>(layout.gpus))
    throw SimulationError("thermal: loads must have 1 or " + std::to_string(layout.gpus) + " entries, got " +
                          std::to_string(loads.size()));
  for (const GpuLoad& l : loads) check_gpu_load(l, "thermal");
  std::vector<double> u(layout.gpus);
  for (int g = 0; g < layout.gpus; ++g)
    u[g] = gpu_utilization(loads.size() == 1 ? loads[0] : loads[g], layout.comm_power_factor);
  return u;
}

std::vector<double> expand_clock(const SiteLayout& layout, const std::vector<double>& clock) {
  if (clock.empty()) return std::vector<double>(layout.gpus, 1.0);
  if (clock.size() == 1) return std::vector<double>(layout.gpus, clock[0]);
  if (clock.size() != static_cast<size_t>(layout.gpus))
    throw SimulationError("thermal: clock_factor must have 0, 1 or " + std::to_string(layout.gpus) + " entries");
  for (double f : clock)
    if (!(f > 0 && f <= 1)) throw SimulationError("thermal: clock factor outside (0, 1]");
  return clock;
}

// Largest finite value (NaN when there is none: the plant has no such element).
double max_finite(const std::vector<double>& v) {
  double m = std::numeric_limits<double>::quiet_NaN();
  for (double x : v)
    if (std::isfinite(x) && !(x <= m)) m = x;
  return m;
}

SiteReport report_from(const SiteModel& m) {
  SiteReport r;
  r.state = m.state();
  const SiteState& s = r.state;
  r.liquid = m.liquid();
  r.gpu_temp_limit = m.spec().limits.gpu_temp_limit;
  r.max_gpu_temp = max_finite(s.gpu_junction);
  r.max_cold_plate_temp = max_finite(s.gpu_cold_plate);
  r.max_air_inlet = max_finite(s.rack_air_inlet);
  r.coolant_inlet = max_finite(s.cdu_supply);
  r.coolant_outlet = r.liquid ? max_finite(s.rack_outlet) : std::numeric_limits<double>::quiet_NaN();
  r.loop_delta_t = r.liquid ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  if (r.liquid)
    r.max_coolant_temp = std::fmax(std::fmax(max_finite(s.gpu_outlet), max_finite(s.rack_outlet)),
                                   std::fmax(max_finite(s.cdu_return), max_finite(s.cdu_supply)));
  if (r.liquid)
    for (size_t k = 0; k < s.rack_outlet.size(); ++k)
      r.loop_delta_t = std::max(r.loop_delta_t, s.rack_outlet[k] - s.rack_inlet[k]);
  r.min_clock = *std::min_element(s.gpu_clock.begin(), s.gpu_clock.end());
  for (double t : s.gpu_junction) r.gpus_over_limit += t > r.gpu_temp_limit + 1e-9;
  r.it_power = s.power.it;
  r.cooling_power = s.power.cooling;
  r.facility_power = s.power.facility;
  r.pue = s.power.pue;
  r.network_nodes = m.network().size();
  return r;
}

}  // namespace

SiteReport steady_state(const CoolingSpec& spec, const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                        const std::vector<double>& clock_factor, const SolveOptions& options) {
  SiteModel m(spec, layout);
  m.build(expand_util(layout, loads), expand_clock(layout, clock_factor), m.design_conditions(), nullptr,
          options.group_identical);
  m.network().solve_steady();
  SiteReport r = report_from(m);
  std::vector<double> clocks = expand_clock(layout, clock_factor);
  r.swing = power_swing(layout, loads, clocks, 0.0, r.state.power.server_fans);
  r.checklist = cooling_checklist(spec, layout, r);
  return r;
}

std::vector<double> solve_throttled_clocks(const CoolingSpec& spec, const SiteLayout& layout,
                                           const std::vector<GpuLoad>& loads, const SolveOptions& options) {
  SiteModel m(spec, layout);
  m.build(expand_util(layout, loads), std::vector<double>(layout.gpus, 1.0), m.design_conditions(), nullptr,
          options.group_identical);
  const double limit = spec.limits.gpu_temp_limit, fmin = spec.throttle.min_clock, n = spec.throttle.power_exponent;
  // Newton on P per GPU group: dTj/dP ~ R_self (junction -> plate -> branch inlet); the loop
  // coupling through the rack and CDU adds a few % (converges monotonically or with small overshoot).
  for (int it = 0; it < 200; ++it) {
    m.network().solve_steady();
    double worst = 0;
    for (auto& g : m.gpu_groups()) {
      const double tj = m.network().temperature(g.J);
      const double over = tj - limit;
      if (over <= 0 && g.clock >= 1.0) continue;
      if (over > 0 && g.clock <= fmin) continue;  // cannot throttle further
      const double p_target = g.power - over / m.self_resistance(g);
      const double f = clock_for_power_cap(p_target, layout.gpu_tdp, layout.gpu_idle_power, g.util, n, fmin);
      worst = std::max(worst, std::abs(f - g.clock));
      g.clock = f;
    }
    m.update_sources();
    if (worst < 1e-9) break;
  }
  std::vector<double> clocks(layout.gpus, 1.0);
  for (const auto& g : m.gpu_groups())
    for (int k : g.members) clocks[k] = g.clock;
  return clocks;
}

PowerSwing power_swing(const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                       const std::vector<double>& clock_factor, double step_time, double server_fans) {
  std::vector<double> u = expand_util(layout, loads);
  std::vector<double> f = expand_clock(layout, clock_factor);
  PowerSwing s;
  s.period = step_time;
  const double n = 3.0, eff = layout.psu_efficiency;
  for (int g = 0; g < layout.gpus; ++g) {
    const GpuLoad& l = loads.size() == 1 ? loads[0] : loads[g];
    s.peak += gpu_power(layout.gpu_tdp, layout.gpu_idle_power, 1.0, f[g], n);
    s.trough +=
        gpu_power(layout.gpu_tdp, layout.gpu_idle_power, l.comm_busy > 0 ? layout.comm_power_factor : 0.0, f[g], n);
    s.mean += gpu_power(layout.gpu_tdp, layout.gpu_idle_power, u[g], f[g], n);
  }
  s.peak /= eff;
  s.trough /= eff;
  s.mean /= eff;
  s.amplitude = s.peak - s.trough;
  // Constant through the step: CPUs, NICs, the rack overhead (with its own fans), the server fans
  // (they move the design air flow), switches.
  const double rest = (layout.gpus * (layout.cpu_power_per_gpu + layout.nic_power_per_gpu) +
                       layout.rack_overhead_power * layout.gpus / layout.gpus_per_rack + server_fans) /
                          eff +
                      layout.switches * layout.switch_power;
  s.peak += rest;
  s.trough += rest;
  s.mean += rest;
  return s;
}

}  // namespace aidcsim::thermal
