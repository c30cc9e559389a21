#include "models/thermal/transient.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>

#include "models/common/errors.hpp"
#include "models/thermal/checks.hpp"
#include "models/thermal/faults/fault_type.hpp"
#include "models/thermal/site_model.hpp"

namespace aidcsim::thermal {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Monitor {
  std::string location, level, message;
  double threshold;
  bool below;   // alert when the value falls below the threshold (flow)
  bool policy;  // from cooling_monitoring (triggers response actions)
  bool active = false;
  double hysteresis = 0;  // an active alert clears at threshold -/+ hysteresis (SensorSpec::hysteresis)

  /// Whether the alert is on after reading `v`: raised past the threshold, cleared only back past
  /// the clear level (the threshold itself without hysteresis). NaN (no such element): off.
  bool over(double v) const {
    if (!std::isfinite(v)) return false;
    const double edge = !active ? threshold : below ? threshold + hysteresis : threshold - hysteresis;
    return below ? v < edge : v > edge;
  }
};

/// A held response action (pumps to full capacity, GPU power cap): on from its firing while an
/// alert calls for it, then for the longest `hold` of the actions that called for it.
struct Held {
  bool on = false;
  size_t rec = 0;             // index of the record of the firing that holds it
  double hold = 0;            // s, longest hold of the actions that called for it
  double clear_since = kNaN;  // s, since when no alert calls for it (NaN: one does)
  double release_at() const { return clear_since + hold; }
};

/// Current value seen by a sensor at `location` (the brief's location names). NaN: the plant has no
/// such element (the sensor never alerts).
struct Readings {
  double junction = kNaN, plate = kNaN, outlet = kNaN, supply = kNaN, ret = kNaN, manifold = kNaN, delta_t = kNaN,
         flow = kNaN, loop_flow = kNaN, air_inlet = kNaN, rack_power = 0, facility = 0, pue = 0;
  /// Hottest coolant seen: GPU outlets, rack returns, CDU supply and return (NaN without a loop).
  double coolant_max() const { return std::fmax(std::fmax(outlet, manifold), std::fmax(supply, ret)); }
  /// The reading a sensor at `loc` sees (resolved once per monitor, not per step).
  static double Readings::*field(const std::string& loc) {
    if (loc == "GPU inlet" || loc == "CDU supply") return &Readings::supply;
    if (loc == "GPU outlet") return &Readings::outlet;
    if (loc == "GPU junction") return &Readings::junction;
    if (loc == "cold plate") return &Readings::plate;
    if (loc == "CDU return") return &Readings::ret;
    if (loc == "rack outlet") return &Readings::manifold;
    if (loc == "loop flow") return &Readings::flow;
    if (loc == "main loop") return &Readings::loop_flow;
    if (loc == "server inlet") return &Readings::air_inlet;
    if (loc == "facility supply") return &Readings::facility;
    if (loc == "PUE") return &Readings::pue;
    if (loc == "rack power") return &Readings::rack_power;
    throw SimulationError("thermal monitoring: unknown sensor location '" + loc + "'");
  }
};

// The run-wide extremes TransientResult reports, each of which must appear in the samples:
// junction, cold plate, supply, return manifold, loop ΔT, hottest coolant, server inlet air (max),
// flow per GPU and clock (min).
enum Extreme { kJunction, kPlate, kSupply, kManifold, kDeltaT, kCoolant, kAirInlet, kFlow, kClock, kExtremes };

// Whether `v` goes past the extreme `m` so far (NaN: none yet / no such element; fmax semantics).
bool beyond(double v, double m, bool lower) {
  if (std::isnan(v)) return false;
  return std::isnan(m) || (lower ? v < m : v > m);
}

// max that ignores NaN (fmax semantics) and a node id of -1.
void raise(double& m, const RcNetwork& net, int node) {
  if (node >= 0) m = std::fmax(m, net.temperature(node));
}

Readings read(const SiteModel& m, const PowerBreakdown& p) {
  Readings r;
  const RcNetwork& net = m.network();
  for (const auto& g : m.gpu_groups()) {
    raise(r.junction, net, g.J);
    raise(r.plate, net, g.P);
    raise(r.outlet, net, g.O >= 0 ? g.O : (g.P >= 0 ? m.rack_groups()[g.rack_group].M : -1));
  }
  double ff = 1e300;
  for (const auto& c : m.cdu_groups()) {
    raise(r.supply, net, c.S);
    raise(r.ret, net, c.R);
    ff = std::min(ff, c.flow_fraction);
  }
  for (const auto& rg : m.rack_groups()) {
    raise(r.manifold, net, rg.M);
    raise(r.air_inlet, net, rg.I);
    if (rg.M >= 0)
      r.delta_t = std::fmax(r.delta_t, net.temperature(rg.M) - net.temperature(m.cdu_groups()[rg.cdu_group].S));
    r.rack_power = std::max(r.rack_power, rg.heat);
  }
  if (m.liquid()) {
    r.flow = m.spec().flow_per_gpu * ff;
    r.loop_flow = m.min_loop_flow();
  }
  r.facility = m.facility_supply();
  r.pue = p.pue;
  return r;
}

// The CDUs or racks fault `f` of `type` strikes; an index beyond the site names what it indexes.
std::vector<int> targets(const FaultType& type, const FaultSpec& f, int cdus, int racks, const std::string& key) {
  const bool cdu = type.target == FaultTarget::Cdu;
  const int count = cdu ? cdus : racks;
  if (f.target < 0) {
    std::vector<int> all(count);
    for (int i = 0; i < count; ++i) all[i] = i;
    return all;
  }
  if (f.target >= count)
    throw InvalidParameter(key, std::to_string(f.target),
                           "an index below " + std::to_string(count) + ", or -1 for all (" + type.name + " targets a " +
                               (cdu ? "CDU" : "rack") + ": the site has " + std::to_string(count) +
                               (cdu ? " CDUs" : " racks") + ", numbered from 0)");
  return {f.target};
}

/// Schedules fault `f` of `type` on the CDUs or racks its target names (`key`: for errors).
void fault_state_schedule(FaultState& state, const FaultType& type, const FaultSpec& f, int cdus, int racks,
                          const std::string& key) {
  std::vector<int> ts;
  if (type.target != FaultTarget::None) ts = targets(type, f, cdus, racks, key);
  type.schedule(state, f, ts);
}

}  // namespace

void check_fault_targets(const CoolingSpec& spec, int racks, int cdus) {
  for (std::size_t i = 0; i < spec.faults.size(); ++i) {
    const FaultSpec& f = spec.faults[i];
    const std::string key = "cooling.faults[" + std::to_string(i) + "].target";
    const FaultType& type = fault_type(f.type, "cooling.faults[" + std::to_string(i) + "].type");
    if (type.target != FaultTarget::None) targets(type, f, cdus, racks, key);
  }
}

TransientResult simulate_transient(const CoolingSpec& spec, const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                                   const TransientOptions& opt) {
  if (!(opt.dt > 0) || !(opt.duration >= 0) || !(opt.start >= 0))
    throw SimulationError("thermal transient: dt must be > 0, duration and start >= 0");
  SiteModel m(spec, layout);
  const int n = layout.gpus, ncdu = m.cdus(), nrack = m.racks();
  check_fault_targets(spec, nrack, ncdu);
  if (loads.size() != 1 && loads.size() != static_cast<size_t>(n))
    throw SimulationError("thermal transient: loads must have 1 or " + std::to_string(n) + " entries");
  for (const GpuLoad& l : loads) check_gpu_load(l, "thermal transient");
  std::vector<double> util(n), profile(n), clock(n, 1.0);
  {
    std::map<std::pair<double, double>, int> ids;
    for (int g = 0; g < n; ++g) {
      const GpuLoad& l = loads.size() == 1 ? loads[0] : loads[g];
      util[g] = gpu_utilization(l, layout.comm_power_factor);
      profile[g] = ids.emplace(std::make_pair(l.compute_busy, l.comm_busy), static_cast<int>(ids.size())).first->second;
    }
  }
  const bool group = opt.group_identical;
  TransientResult res;
  Conditions cond = m.design_conditions();
  // Daily outdoor cycle: t = 0 is midnight; the facility supply follows the outdoor temperature
  // (dry cooler, cooling tower) and the chiller's share changes (chiller). Supply excursion faults
  // add on top.
  const bool daily = has_daily_cycle(spec);
  double excursion = 0;
  if (daily) {
    cond.outdoor_temp = outdoor_temperature_at(spec.rejection, opt.start);
    cond.facility_supply = m.supply_for_outdoor(cond.outdoor_temp);
  }

  // Initial condition: steady state at the start (mean power, design conditions).
  m.build(util, clock, cond, nullptr, group, &profile);
  m.network().solve_steady();
  auto rebuild = [&]() {
    PhysicalTemps t = m.physical_temps();
    for (const auto& g : m.gpu_groups())
      for (int k : g.members) clock[k] = g.clock;
    m.build(util, clock, cond, &t, group, &profile);
    ++res.rebuilds;
  };
  rebuild();
  res.rebuilds = 0;
  // Pump groups: N running + spares; a VFD holds the design flow while the running capacity allows.
  const int big_n = spec.pumps.running;
  std::vector<int> running(ncdu, big_n), spare(ncdu, spec.pumps.spare);
  Held boost, cap;
  bool changed = false;
  auto refresh_flows = [&]() {
    for (int c = 0; c < ncdu; ++c) {
      const double capf = running[c] * spec.pumps.capacity_margin / big_n;
      cond.flow_fraction[c] = boost.on ? capf : std::min(1.0, capf);
    }
  };
  auto log = [&](double t, std::string level, std::string source, std::string msg, double v = 0, double th = 0) {
    res.alerts.push_back({t, std::move(level), std::move(source), std::move(msg), v, th});
  };

  // Scheduled events (time-ordered; equal times keep insertion order).
  std::multimap<double, std::function<void(double)>> events;
  FaultState fault_state{spec, cond, running, spare, excursion, changed, events, log};
  for (size_t i = 0; i < spec.faults.size(); ++i) {
    const FaultSpec& f = spec.faults[i];
    const std::string key = "cooling.faults[" + std::to_string(i) + "]";
    fault_state_schedule(fault_state, fault_type(f.type, key + ".type"), f, ncdu, nrack, key + ".target");
  }
  // Faults before the start are not part of this run.
  while (!events.empty() && events.begin()->first < opt.start - 1e-9 * opt.dt) events.erase(events.begin());

  // Monitors: the brief's limits as built-in thresholds, then the scenario's policy sensors.
  const auto& lim = spec.limits;
  std::vector<Monitor> mons = {
      {"GPU junction", "critical", "GPU junction above the throttle limit", lim.gpu_temp_limit, false, false},
      {"GPU junction", "critical", "GPU junction at the shutdown temperature", spec.throttle.shutdown_temp, false,
       false},
      {"PUE", "warning", "PUE above limit", lim.pue_max, false, false},
  };
  if (m.liquid()) {
    mons.push_back({"GPU inlet", "warning", "coolant inlet above limit", lim.inlet_max, false, false});
    mons.push_back({"rack outlet", "warning", "coolant outlet above limit", lim.outlet_max, false, false});
    mons.push_back({"cold plate", "warning", "hot spot above limit", lim.hotspot_max, false, false});
    mons.push_back({"loop flow", "warning", "flow per GPU below limit", lim.flow_min, true, false});
  }
  if (m.air())
    mons.push_back({"server inlet", "warning",
                    "server inlet air above the ASHRAE " + lim.air_inlet_class + " allowable",
                    air_inlet_allowable(lim.air_inlet_class).second, false, false});
  for (const auto& s : spec.monitoring.sensors) {
    mons.push_back({s.location, s.alert_level, s.type + " sensor threshold crossed", s.threshold,
                    s.type == "flow_rate" || s.type == "flow", true});
    mons.back().hysteresis = s.hysteresis;
  }

  // Per monitor, resolved once: the reading it sees, and the held actions (pumps to full capacity,
  // GPU power cap) its alert level calls for, in the policy's order with their holds.
  std::vector<double Readings::*> reads;
  std::vector<std::vector<std::pair<bool, double>>> holds(mons.size());  // (pump boost, else power cap; hold)
  for (size_t mi = 0; mi < mons.size(); ++mi) {
    reads.push_back(Readings::field(mons[mi].location));
    if (mons[mi].policy)
      for (const auto& a : spec.monitoring.actions) {
        if (a.alert_level != mons[mi].level) continue;
        if (a.action == "adjust pump speed")
          holds[mi].emplace_back(true, a.hold);
        else if (a.action == "reduce GPU power limit")
          holds[mi].emplace_back(false, a.hold);
      }
  }

  const double fmin = spec.throttle.min_clock, gain = spec.throttle.governor_gain, limit = lim.gpu_temp_limit;
  const double cap_w = spec.monitoring.power_limit_fraction * layout.gpu_tdp;
  const long nsteps = static_cast<long>(std::llround(opt.duration / opt.dt));
  const double sample_every = opt.sample_interval > 0 ? opt.sample_interval : opt.dt;
  double next_sample = opt.start, slow_int = 0, run_time = 0;
  std::vector<double> mean_util;
  auto refresh_mean_util = [&]() {
    mean_util.clear();
    for (const auto& g : m.gpu_groups()) mean_util.push_back(util[g.members.front()]);
  };
  refresh_mean_util();
  res.max_cold_plate_temp = res.max_coolant_inlet = res.max_coolant_outlet = res.max_loop_delta_t = res.max_air_inlet =
      res.max_coolant_temp = kNaN;
  res.min_flow_per_gpu = res.min_loop_flow = m.liquid() ? std::numeric_limits<double>::infinity() : 0.0;
  const double design_loop_flow = m.min_loop_flow();
  // The notifications each policy monitor raised and that are still on: record index, action index
  // (for its hold). Cleared when their alert has been off for their hold; an alert raised again
  // within it continues them.
  struct Notice {
    size_t rec, action;
  };
  std::vector<std::vector<Notice>> raised(mons.size());
  std::vector<double> clear_since(mons.size(), kNaN);  // s, since when a policy monitor is off
  // The held actions (pumps to full capacity, GPU power cap): on while any policy alert of a level
  // that calls for them is active, then for the hold of the actions that called (0: off when the
  // last alert clears).
  const double eps = 1e-9 * opt.dt;
  // Samples off the regular grid (TransientOptions::sample_extremes): the step where a fault event
  // acts, and the step of each run-wide extreme not on the grid (the last such step wins: a later
  // step only replaces it when it goes strictly further). Merged into the samples at the end.
  std::vector<Sample> off_grid;
  std::vector<char> ever_shut;  // per GPU: has reached the shutdown temperature (gpus_shutdown)
  std::array<Sample, kExtremes> extreme_sample{};
  std::array<bool, kExtremes> extreme_off_grid{};

  for (long step = 0; step <= nsteps; ++step) {
    const double t = opt.start + step * opt.dt;
    bool event = false;
    while (!events.empty() && events.begin()->first <= t + 1e-9 * opt.dt) {
      auto node = events.extract(events.begin());
      node.mapped()(node.key());
      event = true;
    }
    if (daily) {
      cond.outdoor_temp = outdoor_temperature_at(spec.rejection, t);
      cond.facility_supply = m.supply_for_outdoor(cond.outdoor_temp) + excursion;
      if (!changed) m.set_rejection(cond.facility_supply, cond.outdoor_temp);
    }
    if (changed) {
      refresh_flows();
      rebuild();
      refresh_mean_util();
      changed = false;
    }
    // Sources: synchronized swing or mean busy profile, at the governed clocks.
    auto& gg = m.gpu_groups();
    for (size_t k = 0; k < gg.size(); ++k) {
      if (opt.step_time > 0) {
        const GpuLoad& l = loads.size() == 1 ? loads[0] : loads[gg[k].members.front()];
        const double phase = std::fmod(t, opt.step_time) / opt.step_time;
        gg[k].util = phase < l.compute_busy                 ? 1.0
                     : phase < l.compute_busy + l.comm_busy ? layout.comm_power_factor
                                                            : 0.0;
      } else {
        gg[k].util = mean_util[k];
      }
    }
    m.update_sources();
    const PowerBreakdown pw = m.power();
    const Readings rd = read(m, pw);

    // Monitoring and the alert log (also at the start: a design already over a limit is reported).
    for (size_t mi = 0; mi < mons.size(); ++mi) {
      auto& mon = mons[mi];
      const double v = rd.*reads[mi];
      const bool over = mon.over(v);
      if (over && !mon.active) {
        log(t, mon.level, mon.location, mon.message, v, mon.threshold);
        clear_since[mi] = kNaN;
        if (mon.policy)
          for (size_t ai = 0; ai < spec.monitoring.actions.size(); ++ai) {
            const auto& a = spec.monitoring.actions[ai];
            if (a.alert_level != mon.level) continue;
            bool fired = false;
            if (a.action == "adjust pump speed" && !boost.on) {
              boost.on = true;
              changed = true;
              fired = true;
              boost.rec = res.actions.size();
              log(t, "info", "action", "pumps to full capacity");
            } else if (a.action == "reduce GPU power limit" && !cap.on) {
              cap.on = true;
              fired = true;
              cap.rec = res.actions.size();
              log(t, "info", "action", fmt::format("GPU power limit {:.0f} W", cap_w));
            } else if (a.action == "notify" && std::none_of(raised[mi].begin(), raised[mi].end(),
                                                            [ai](const Notice& n) { return n.action == ai; })) {
              // (one still on within its hold continues)
              fired = true;
              log(t, "info", "action", "operator notified");
            }
            if (fired) {
              ActionRecord rec;
              rec.time = t;
              rec.action = a.action;
              rec.alert_level = mon.level;
              rec.sensor = mon.location;
              rec.value = v;
              rec.threshold = mon.threshold;
              rec.peak_gpu_temp_after = rd.junction;
              if (a.action == "notify") raised[mi].push_back({res.actions.size(), ai});
              res.actions.push_back(rec);
            }
          }
      } else if (!over && mon.active) {
        log(t, "info", mon.location, "cleared: " + mon.message, v, mon.threshold);
        clear_since[mi] = t;
      }
      mon.active = over;
      // Notifications end once their alert has been off for their hold (at once without one).
      if (!mon.active && !raised[mi].empty()) {
        auto& ns = raised[mi];
        ns.erase(std::remove_if(ns.begin(), ns.end(),
                                [&](const Notice& n) {
                                  if (t + eps < clear_since[mi] + spec.monitoring.actions[n.action].hold) return false;
                                  res.actions[n.rec].cleared = std::min(res.actions[n.rec].cleared, t);
                                  return true;
                                }),
                 ns.end());
      }
    }
    // Release the held actions no alert has called for during their hold (applied from the next
    // step, as their firing is).
    bool call_boost = false, call_cap = false;
    for (size_t mi = 0; mi < mons.size(); ++mi)
      if (mons[mi].active)
        for (const auto& [pumps, hold] : holds[mi]) {
          if (pumps && boost.on) {
            call_boost = true;
            boost.hold = std::max(boost.hold, hold);
          } else if (!pumps && cap.on) {
            call_cap = true;
            cap.hold = std::max(cap.hold, hold);
          }
        }
    auto release = [&](Held& h, bool called, const char* message) {
      if (!h.on) return false;
      if (called) {
        h.clear_since = kNaN;
        return false;
      }
      if (std::isnan(h.clear_since)) h.clear_since = t;
      if (t + eps < h.release_at()) return false;
      h.on = false;
      res.actions[h.rec].cleared = t;
      h.hold = 0;
      h.clear_since = kNaN;
      log(t, "info", "action", message);
      return true;
    };
    if (release(boost, call_boost, "pumps back to their normal speed")) changed = true;
    release(cap, call_cap, "GPU power limit lifted");
    double fmin_now = 1, fsum = 0, copies = 0;
    bool halted = false;
    for (const auto& g : gg) {
      if (g.clock <= 0)
        halted = true;
      else
        fmin_now = std::min(fmin_now, g.clock);
      fsum += g.clock * g.copies;
      copies += g.copies;
    }
    // A sample's min_clock is 0 while any GPU is shut down: the synchronous job is halted.
    const Sample now{t,
                     rd.junction,
                     rd.plate,
                     rd.supply,
                     rd.manifold,
                     rd.flow,
                     rd.air_inlet,
                     halted ? 0.0 : fmin_now,
                     fsum / copies,
                     pw.it,
                     pw.cooling,
                     pw.facility,
                     pw.pue,
                     m.facility_supply(),
                     m.conditions().outdoor_temp,
                     rd.delta_t,
                     rd.coolant_max()};
    const bool on_grid = t + 1e-9 >= next_sample;
    if (on_grid) {
      res.samples.push_back(now);
      next_sample += sample_every;
    } else if (opt.sample_extremes && event) {
      off_grid.push_back(now);
    }
    if (opt.sample_extremes) {
      const std::array<std::pair<double, double>, kExtremes> seen{{{rd.junction, res.max_gpu_temp},
                                                                   {rd.plate, res.max_cold_plate_temp},
                                                                   {rd.supply, res.max_coolant_inlet},
                                                                   {rd.manifold, res.max_coolant_outlet},
                                                                   {rd.delta_t, res.max_loop_delta_t},
                                                                   {rd.coolant_max(), res.max_coolant_temp},
                                                                   {rd.air_inlet, res.max_air_inlet},
                                                                   {m.liquid() ? rd.flow : kNaN, res.min_flow_per_gpu},
                                                                   {fmin_now, res.min_clock}}};
      for (int e = 0; e < kExtremes; ++e)
        if (beyond(seen[e].first, seen[e].second, e >= kFlow)) {
          extreme_sample[e] = now;
          extreme_off_grid[e] = !on_grid;
        }
    }
    res.min_clock = std::min(res.min_clock, fmin_now);  // the last state too: every sample's clock is in it
    res.max_gpu_temp = std::max(res.max_gpu_temp, rd.junction);
    res.max_cold_plate_temp = std::fmax(res.max_cold_plate_temp, rd.plate);
    res.max_coolant_inlet = std::fmax(res.max_coolant_inlet, rd.supply);
    res.max_coolant_outlet = std::fmax(res.max_coolant_outlet, rd.manifold);
    res.max_loop_delta_t = std::fmax(res.max_loop_delta_t, rd.delta_t);
    res.max_coolant_temp = std::fmax(res.max_coolant_temp, rd.coolant_max());
    res.max_air_inlet = std::fmax(res.max_air_inlet, rd.air_inlet);
    if (m.liquid()) {
      res.min_flow_per_gpu = std::min(res.min_flow_per_gpu, rd.flow);
      res.min_loop_flow = std::min(res.min_loop_flow, rd.loop_flow);
    }
    for (auto& a : res.actions) a.peak_gpu_temp_after = std::max(a.peak_gpu_temp_after, rd.junction);
    res.max_network_nodes = std::max(res.max_network_nodes, m.network().size());
    if (step == nsteps) break;

    // Implicit step and energy balance (air and liquid are one network).
    RcNetwork& net = m.network();
    net.step(opt.dt);
    const double d = net.last_dissipated(), s = net.last_stored(), r = net.last_removed();
    res.dissipated += d;
    res.stored += s;
    res.removed += r;
    if (d > 0) res.max_step_error = std::max(res.max_step_error, std::abs(d - s - r) / d);
    ++res.steps;

    // DVFS governor (integral action toward the limit), bounded by the power cap if active.
    for (size_t k = 0; k < gg.size(); ++k) {
      auto& g = gg[k];
      const double fcap = cap.on ? clock_for_power_cap(cap_w, layout.gpu_tdp, layout.gpu_idle_power, mean_util[k],
                                                       spec.throttle.power_exponent, fmin)
                                 : 1.0;
      if (g.clock <= 0) {
        // Shut down: off until the junction has cooled below the throttle limit (the fault is
        // repaired or the loop recovered), then back at the governor's floor clock, from where the
        // integral action raises it. Restart overhead of the job is the reliability model's.
        if (net.temperature(g.J) < limit) {
          g.clock = fmin;
          log(t + opt.dt, "info", "GPU junction",
              fmt::format("restart of {} GPU(s) after cooling below the throttle limit", g.copies),
              net.temperature(g.J), limit);
        }
        continue;
      }
      if (net.temperature(g.J) >= spec.throttle.shutdown_temp) {
        g.clock = 0;
        for (int gpu : g.members) {  // a GPU that shuts down again after a restart is counted once
          if (gpu >= static_cast<int>(ever_shut.size())) ever_shut.resize(gpu + 1, 0);
          if (!ever_shut[gpu]) ++res.gpus_shutdown;
          ever_shut[gpu] = 1;
        }
        log(t + opt.dt, "critical", "GPU junction", fmt::format("thermal shutdown of {} GPU(s)", g.copies),
            net.temperature(g.J), spec.throttle.shutdown_temp);
        continue;
      }
      double f = g.clock;
      if (opt.throttle) f -= gain * (net.temperature(g.J) - limit) * opt.dt;
      g.clock = std::clamp(f, fmin, fcap);
      if (!opt.throttle && !cap.on) g.clock = 1.0;
    }
    // Accounting over the step just taken (state at its start).
    if (fmin_now < 1) res.throttled_time += opt.dt;
    if (rd.junction > limit) res.time_above_throttle += opt.dt;
    if (m.liquid() && rd.loop_flow < design_loop_flow * (1 - 1e-9)) res.flow_deficit_time += opt.dt;
    const double lost = halted ? opt.dt : opt.dt * (1 - 1 / (1 + opt.clock_sensitivity * (1 / fmin_now - 1)));
    res.lost_training_time += lost;
    for (auto& a : res.actions) {
      a.lost_training_time += lost;
      if (halted) a.shutdown_time_after += opt.dt;
    }
    if (halted) {
      res.halted_time += opt.dt;
    } else {
      slow_int += opt.dt / fmin_now;
      run_time += opt.dt;
    }
  }
  res.mean_slowdown = run_time > 0 ? slow_int / run_time : 1.0;
  for (int e = 0; e < kExtremes; ++e)
    if (extreme_off_grid[e]) off_grid.push_back(extreme_sample[e]);
  if (!off_grid.empty()) {
    // Steps are at start + k dt exactly: equal times are the same step (an event that was also an extreme).
    auto by_time = [](const Sample& a, const Sample& b) { return a.time < b.time; };
    std::stable_sort(off_grid.begin(), off_grid.end(), by_time);
    off_grid.erase(std::unique(off_grid.begin(), off_grid.end(),
                               [](const Sample& a, const Sample& b) { return a.time == b.time; }),
                   off_grid.end());
    for (const Sample& x : off_grid)  // a few into the grid's samples, in place (no second copy of them)
      res.samples.insert(std::upper_bound(res.samples.begin(), res.samples.end(), x, by_time), x);
  }
  // When each action ends or would end: still on by its hold alone, the end of that hold.
  for (auto& a : res.actions) a.release_due = a.cleared;
  for (const Held* h : {&boost, &cap})
    if (h->on && !std::isnan(h->clear_since)) res.actions[h->rec].release_due = h->release_at();
  for (size_t mi = 0; mi < mons.size(); ++mi)
    if (!mons[mi].active)
      for (const Notice& n : raised[mi])
        res.actions[n.rec].release_due = clear_since[mi] + spec.monitoring.actions[n.action].hold;
  res.energy_error = res.dissipated > 0 ? std::abs(res.dissipated - res.stored - res.removed) / res.dissipated : 0.0;
  res.factorizations = m.network().factorizations();  // cumulative over rebuilds
  res.final_clock.assign(n, 1.0);
  for (const auto& g : m.gpu_groups())
    for (int k : g.members) res.final_clock[k] = g.clock;
  return res;
}

}  // namespace aidcsim::thermal
