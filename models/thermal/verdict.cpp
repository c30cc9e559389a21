#include "models/thermal/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/common/errors.hpp"
#include "models/common/units.hpp"
#include "models/thermal/checks.hpp"
#include "models/thermal/coolant.hpp"
#include "models/thermal/faults/fault_type.hpp"

namespace aidcsim::thermal {

namespace {

std::string span(double s) {
  if (!std::isfinite(s)) return "the rest of the run";
  if (s < 120) return fmt::format("{:g} s", s);
  if (s < 2 * units::kHour) return fmt::format("{:g} min", std::round(s / 6) / 10);
  if (s < 2 * units::kDay) return fmt::format("{:g} h", std::round(s / 360) / 10);
  return fmt::format("{:g} d", std::round(s / 8640) / 10);
}

std::string describe(const FaultSpec& f) {
  std::string what = f.type;
  const FaultType& type = fault_type(f.type);
  if (type.where) what += type.where(f);
  return what + " at " + span(f.at) + (std::isfinite(f.duration) ? " for " + span(f.duration) : ", not repaired");
}

// A sensor reading in the brief's units: °C, L/min, kW per rack, plain PUE.
std::string reading(double v, const std::string& sensor) {
  if (sensor == "main loop" || sensor == "loop flow") return fmt::format("{:.3g} L/min", v * 60000);
  if (sensor == "PUE") return fmt::format("{:.3f}", v);
  if (sensor == "rack power") return fmt::format("{:.1f} kW", v / 1e3);
  return degc(v);
}

}  // namespace

std::vector<FaultVerdict> judge_faults(const CoolingSpec& spec, const SiteLayout& layout,
                                       const std::vector<GpuLoad>& loads, const VerdictOptions& opt) {
  std::vector<FaultVerdict> out;
  const auto& lim = spec.limits;
  const bool liquid = has_liquid_loop(spec);
  for (size_t i = 0; i < spec.faults.size(); ++i) {
    FaultVerdict v;
    v.index = static_cast<int>(i);
    v.fault = spec.faults[i];
    v.name = fmt::format("fault {}: {}", i + 1, v.fault.type);
    v.description = describe(v.fault);
    CoolingSpec one = spec;
    one.faults = {v.fault};
    TransientOptions t;
    t.start = std::max(0.0, v.fault.at - opt.lead);
    // Its end + the settling after it; a fault not repaired (duration inf) runs to the cap.
    t.duration = std::min(v.fault.at + v.fault.duration + opt.settle - t.start, opt.max_duration);
    t.dt = opt.dt;
    t.sample_interval = opt.sample_interval;
    t.sample_extremes = true;  // its series holds the extremes its checks judge
    t.clock_sensitivity = opt.clock_sensitivity;
    try {
      v.transient = simulate_transient(one, layout, loads, t);
    } catch (const InvalidParameter& e) {  // name the fault in the list, not the copy's index 0
      std::string key = e.key();
      const std::string copy = "cooling.faults[0]";
      if (key.rfind(copy, 0) == 0) key = "cooling.faults[" + std::to_string(i) + "]" + key.substr(copy.size());
      throw InvalidParameter(key, e.value(), e.expected());
    }
    const TransientResult& r = v.transient;
    v.peak_gpu_temp = r.max_gpu_temp;
    v.time_above_throttle = r.time_above_throttle;
    v.time_at_shutdown = r.halted_time;
    v.gpus_shutdown = r.gpus_shutdown;
    v.lost_training_time = r.lost_training_time;
    v.lost_gpu_hours = r.lost_training_time * layout.gpus / units::kHour;
    v.min_clock = r.min_clock;
    v.actions = r.actions;
    v.judged_until = t.start + t.duration;
    // The step-time multiplier of the run's last state (inf: a GPU still shut down, the job halted).
    const double c_end = r.final_clock.empty() ? 1.0 : *std::min_element(r.final_clock.begin(), r.final_clock.end());
    v.final_slowdown =
        c_end > 0 ? 1 + opt.clock_sensitivity * (1 / c_end - 1) : std::numeric_limits<double>::infinity();

    // The state just before the fault (first sample: steady operation) tells which limits the site
    // already breaks; those do not decide the fault's verdict.
    const Sample& before = r.samples.front();
    auto& c = v.checks;
    auto add = [&](ChecklistItem item, bool broken_before) {
      if (!item.pass && broken_before) {
        item.note += "; already over the limit before the fault";
        v.inherited.push_back(item.item);
      } else if (!item.pass) {
        v.failed.push_back(item.item);
      }
      c.push_back(std::move(item));
    };
    add(limit_below(
            "peak GPU junction vs throttle limit", r.max_gpu_temp, lim.gpu_temp_limit, "K",
            fmt::format("{} at the hottest moment (limit < {})", degc(r.max_gpu_temp), degc(lim.gpu_temp_limit))),
        before.max_gpu_temp >= lim.gpu_temp_limit);
    add(limit_below("time above throttle limit", r.time_above_throttle, 0.0, "s",
                    fmt::format("{:.0f} s with a GPU throttling; lowest clock {:.3f} (brief: training runs without "
                                "throttling)",
                                r.time_above_throttle, r.min_clock),
                    false),
        before.max_gpu_temp > lim.gpu_temp_limit);
    add(limit_below("GPUs at shutdown", r.gpus_shutdown, 0.0, "GPUs",
                    fmt::format("{} GPUs shut down, job halted {:.0f} s (no GPU may reach {})", r.gpus_shutdown,
                                r.halted_time, degc(spec.throttle.shutdown_temp)),
                    false),
        false);
    if (liquid) {
      add(limit_below("peak coolant inlet", r.max_coolant_inlet, lim.inlet_max, "K",
                      fmt::format("{} (limit < {})", degc(r.max_coolant_inlet), degc(lim.inlet_max))),
          before.coolant_inlet >= lim.inlet_max);
      add(limit_below("peak coolant outlet", r.max_coolant_outlet, lim.outlet_max, "K",
                      fmt::format("{} (limit < {})", degc(r.max_coolant_outlet), degc(lim.outlet_max))),
          before.coolant_outlet >= lim.outlet_max);
      if (const Coolant& fl = coolant(spec.coolant); std::isfinite(fl.boiling_point))
        add(limit_below("peak coolant vs boiling point", r.max_coolant_temp, fl.boiling_point, "K",
                        fmt::format("hottest coolant {} vs {} boiling point {} at 1 atm{}", degc(r.max_coolant_temp),
                                    spec.coolant, degc(fl.boiling_point),
                                    r.max_coolant_temp < fl.boiling_point
                                        ? ""
                                        : ": the coolant would boil, the single-phase answer is outside the model")),
            before.max_coolant_temp >= fl.boiling_point);
      add(limit_below("peak loop delta T", r.max_loop_delta_t, lim.delta_t_max, "K",
                      fmt::format("{:.1f} K (limit < {:.1f} K)", r.max_loop_delta_t, lim.delta_t_max)),
          before.max_loop_delta_t >= lim.delta_t_max);
      if (std::isfinite(r.max_cold_plate_temp))
        add(limit_below("peak hot spot (cold plate)", r.max_cold_plate_temp, lim.hotspot_max, "K",
                        fmt::format("{} (limit < {})", degc(r.max_cold_plate_temp), degc(lim.hotspot_max))),
            before.max_cold_plate_temp >= lim.hotspot_max);
      add(limit_above(
              "lowest coolant flow per GPU", r.min_flow_per_gpu, lim.flow_min, "m^3/s",
              fmt::format("{:.2f} L/min (limit >= {:.2f} L/min)", r.min_flow_per_gpu * 60000, lim.flow_min * 60000)),
          before.min_flow_per_gpu < lim.flow_min);
    }
    if (std::isfinite(r.max_air_inlet)) {
      const double hi = air_inlet_allowable(lim.air_inlet_class).second;
      add(limit_below("peak server inlet air (ASHRAE " + lim.air_inlet_class + ")", r.max_air_inlet, hi, "K",
                      fmt::format("{} (allowable <= {})", degc(r.max_air_inlet), degc(hi)), false),
          before.max_air_inlet > hi);
    }
    if (const FaultType& type = fault_type(v.fault.type); type.rule)
      if (auto item = type.rule(spec, r)) add(std::move(*item), false);
    v.pass = v.failed.empty();
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<ActionVerdict> judge_actions(const std::vector<FaultVerdict>& verdicts) {
  std::vector<ActionVerdict> out;
  for (const auto& v : verdicts)
    for (const auto& a : v.actions) {
      ActionVerdict av;
      av.fault = v.index;
      av.record = a;
      const bool cleared = std::isfinite(a.cleared);
      // Still on at the end by its hold time alone (every alert calling for it cleared): the
      // operator's policy, not a cause that lasts.
      const bool held = !cleared && std::isfinite(a.release_due);
      av.pass = (cleared || held) && a.shutdown_time_after == 0;
      av.note =
          fmt::format("{} alert at {} ({} vs {}), {}; {:.2f} h of training lost from then, peak junction {}{}",
                      a.alert_level, a.sensor, reading(a.value, a.sensor), reading(a.threshold, a.sensor),
                      held       ? "alert cleared, action held to " + span(a.release_due - a.time) + " by its hold"
                      : !cleared ? std::string("not cleared in the run")
                      : a.action == "notify" ? "cleared after " + span(a.cleared - a.time)
                                             : "cleared after " + span(a.cleared - a.time) + ", action released",
                      a.lost_training_time / units::kHour, degc(a.peak_gpu_temp_after),
                      a.shutdown_time_after > 0 ? fmt::format(", {:.0f} s at shutdown", a.shutdown_time_after) : "");
      out.push_back(std::move(av));
    }
  return out;
}

}  // namespace aidcsim::thermal
