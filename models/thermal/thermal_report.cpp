#include "models/thermal/thermal_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "models/thermal/checks.hpp"

namespace aidcsim::thermal {
namespace {

// The run's lowest GPU clock factor, a shut-down GPU's 0 included (its samples' min_clock).
double lowest_clock(const TransientResult& t) { return t.halted_time > 0 ? 0.0 : t.min_clock; }

using units::kMega;

double celsius(double kelvin) { return units::to_celsius(kelvin); }

std::vector<double> to_celsius(const std::vector<double>& kelvin) {
  std::vector<double> c(kelvin.size());
  std::transform(kelvin.begin(), kelvin.end(), c.begin(), celsius);
  return c;
}

// One time series of a thermal transient: `field` of every sample, along the "time" axis.
void add_series(Results& r, std::string path, const std::vector<Sample>& samples,
                const std::function<double(const Sample&)>& field, std::string unit, std::string description) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (const auto& s : samples) v.push_back(field(s));
  r.datasets.push_back(vector_dataset(std::move(path), std::move(v), std::move(unit), std::move(description), "time"));
}

// Whether a check in seconds reads better in microseconds: its smallest non-zero magnitude (value or
// limit) is sub-millisecond and neither reaches a second. A limit of 0 s says nothing about scale
// (a fault's 701 s above "0 s" stays in seconds); a network latency of a few us, or of a few ms
// against a limit of a few us, reads in us.
bool shown_in_microseconds(double value, double limit) {
  const double a = std::fabs(value), b = std::fabs(limit);
  const double largest = std::max(a, b);
  const double smallest_nonzero = (a == 0 || b == 0) ? largest : std::min(a, b);
  return smallest_nonzero > 0 && smallest_nonzero < 1e-3 && largest < 1.0;
}

}  // namespace

Check display_check(const ChecklistItem& c) {
  Check d{c.item, c.value, c.limit, c.unit, c.headroom, c.pass, c.note};
  if (c.unit == "K" && c.limit > 200.0) {
    d.value = celsius(c.value);
    d.limit = celsius(c.limit);
    d.unit = "degC";  // headroom stays a difference, in K
  } else if (c.unit == "m^3/s") {
    constexpr double kLitresPerMinute = units::kMinute / units::kLitre;  // (L/min) per (m^3/s)
    d.value *= kLitresPerMinute;
    d.limit *= kLitresPerMinute;
    d.headroom *= kLitresPerMinute;
    d.unit = "L/min";
  } else if (c.unit == "s" && shown_in_microseconds(c.value, c.limit)) {  // network latencies
    d.value *= 1e6;
    d.limit *= 1e6;
    d.headroom *= 1e6;
    d.unit = "us";
  } else if (c.unit == "B/s") {
    d.value *= 8 / 1e9;
    d.limit *= 8 / 1e9;
    d.headroom *= 8 / 1e9;
    d.unit = "Gb/s";
  } else if (c.unit == "W") {
    d.value /= 1e3;
    d.limit /= 1e3;
    d.headroom /= 1e3;
    d.unit = "kW";
  }
  return d;
}

void report_site(Results& r, const SiteReport& t, const std::vector<double>& clocks, double shutdown_temperature,
                 int throttle_iterations) {
  r.add("max_gpu_temperature", celsius(t.max_gpu_temp), "degC", "Hottest GPU junction");
  r.add("gpu_temperature_headroom", t.gpu_temp_limit - t.max_gpu_temp, "K",
        "Throttle limit minus hottest GPU junction");
  r.add("coolant_inlet", celsius(t.coolant_inlet), "degC", "Hottest rack-loop supply to the cold plates");
  r.add("coolant_outlet", celsius(t.coolant_outlet), "degC", "Hottest rack-loop return");
  r.add("coolant_delta_t", t.loop_delta_t, "K", "Largest rack-loop ΔT (return - supply)");
  r.add("max_cold_plate_temperature", celsius(t.max_cold_plate_temp), "degC", "Hottest cold plate (hot spot)");
  r.add("max_server_inlet_air", celsius(t.max_air_inlet), "degC",
        "Hottest server inlet air (cold aisle + recirculation)");
  r.add("gpu_throttle_temperature", celsius(t.gpu_temp_limit), "degC",
        "GPU junction throttle limit (the GPU's, or cooling.limits.gpu_temp_limit)");
  r.add("gpu_shutdown_temperature", celsius(shutdown_temperature), "degC",
        "GPU thermal shutdown (the GPU's, or cooling.throttle.shutdown_temp)");
  r.add("throttled_gpus", t.gpus_over_limit, "1", "GPUs above their temperature limit at full clock");
  r.add("min_gpu_clock", 100.0 * *std::min_element(clocks.begin(), clocks.end()), "%",
        "Lowest GPU clock after throttling");
  r.add("it_power", t.it_power / kMega, "MW", "IT power: GPUs, CPUs, NICs, switches, rack overhead, PSU losses");
  r.add("cooling_power", t.cooling_power / kMega, "MW", "Pumps, rear-door fans, heat rejection");
  r.add("facility_power", t.facility_power / kMega, "MW", "IT + cooling + distribution losses");
  r.add("pue", t.pue, "1", "Power usage effectiveness = facility / IT");
  r.add("power_swing_amplitude", t.swing.amplitude / kMega, "MW",
        "Synchronized power swing of a training step, peak - trough");
  r.add("power_swing_period", t.swing.period, "s", "Period of the power swing (= step time)");
  const auto& st = t.state;
  r.datasets.push_back(vector_dataset("/thermal/gpu_junction_temperature", to_celsius(st.gpu_junction), "degC",
                                      "Per GPU junction temperature, steady state", "gpu"));
  r.datasets.push_back(vector_dataset("/thermal/gpu_power", st.gpu_power, "W", "Per GPU electrical power", "gpu"));
  r.datasets.push_back(
      vector_dataset("/thermal/gpu_clock", clocks, "1", "Per GPU clock factor (1 = full clock)", "gpu"));
  r.datasets.push_back(vector_dataset("/thermal/rack_inlet_temperature", to_celsius(st.rack_inlet), "degC",
                                      "Per rack coolant supply temperature", "rack"));
  r.datasets.push_back(vector_dataset("/thermal/rack_outlet_temperature", to_celsius(st.rack_outlet), "degC",
                                      "Per rack coolant return temperature", "rack"));
  r.datasets.push_back(vector_dataset("/thermal/rack_power", st.rack_power, "W", "Per rack electrical power", "rack"));
  for (const auto& c : t.checklist) {
    r.checks.push_back(display_check(c));
    if (c.item == kSinglePhaseItem && !c.pass)
      r.notes.push_back("thermal: OUTSIDE THE MODEL - " + c.note +
                        "; the loop model is single-phase, so its temperatures, throttling and PUE do not "
                        "describe this state");
  }
  r.notes.push_back("thermal: steady state of an RC network with " + std::to_string(t.network_nodes) +
                    " nodes (identical racks grouped), throttle iterations: " + std::to_string(throttle_iterations));
}

void report_fault_transient(Results& r, const TransientResult& t, double duration, double step_time_during_fault) {
  r.add("fault_max_gpu_temperature", celsius(t.max_gpu_temp), "degC",
        "Hottest GPU junction during the scheduled cooling faults");
  // A shut-down GPU's clock is 0, as in the series (/thermal/transient/min_gpu_clock) and the
  // step-time profile (the job halted); until 2026-12 the summary gave the lowest running clock
  // (TransientResult::min_clock, the clock step_time_during_fault is re-simulated at) instead.
  r.add("fault_min_gpu_clock", 100.0 * lowest_clock(t), "%",
        "Lowest GPU clock during the cooling faults (0 while a GPU is shut down)");
  r.add("fault_throttled_time", t.throttled_time, "s", "Time with any GPU throttled during the fault transient");
  r.add("fault_halted_time", t.halted_time, "s",
        "Time with a GPU at its shutdown temperature (the synchronous job stops)");
  r.add("step_time_during_fault", step_time_during_fault, "s",
        "Step time re-simulated at the lowest clock reached during the cooling faults");
  r.add("fault_energy_error", t.energy_error, "1",
        "Energy balance of the transient: |dissipated - stored - removed| / dissipated");
  const auto& x = t.samples;
  const std::string g = "/thermal/transient/";
  add_series(
      r, g + "time", x, [](const Sample& s) { return s.time; }, "s", "Sample times of the cooling-fault transient");
  add_series(
      r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
      "Hottest GPU junction over time");
  add_series(
      r, g + "max_cold_plate_temperature", x, [](const Sample& s) { return celsius(s.max_cold_plate_temp); }, "degC",
      "Hottest cold plate over time");
  add_series(
      r, g + "coolant_inlet", x, [](const Sample& s) { return celsius(s.coolant_inlet); }, "degC",
      "Hottest rack-loop supply over time");
  add_series(
      r, g + "coolant_outlet", x, [](const Sample& s) { return celsius(s.coolant_outlet); }, "degC",
      "Hottest rack-loop return over time");
  add_series(
      r, g + "min_flow_per_gpu", x,
      [](const Sample& s) { return s.min_flow_per_gpu * (units::kMinute / units::kLitre); }, "L/min",
      "Lowest coolant flow per GPU over time");
  add_series(
      r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1", "Lowest GPU clock factor over time");
  add_series(
      r, g + "it_power", x, [](const Sample& s) { return s.it_power / kMega; }, "MW", "IT power over time");
  add_series(
      r, g + "facility_power", x, [](const Sample& s) { return s.facility_power / kMega; }, "MW",
      "Facility power over time");
  add_series(
      r, g + "pue", x, [](const Sample& s) { return s.pue; }, "1", "PUE over time");
  std::vector<double> alert_time;
  std::vector<std::string> alert_text;
  for (const auto& a : t.alerts) {
    alert_time.push_back(a.time);
    alert_text.push_back(a.level + " [" + a.source + "] " + a.message);
  }
  r.datasets.push_back(
      vector_dataset("/thermal/alerts/time", alert_time, "s", "Time of each monitoring alert or action", "alert"));
  r.labels.push_back({"/thermal/alerts/message", alert_text, "Alert log: level [source] message", "alert"});
  r.notes.push_back("cooling faults: implicit thermal transient over " + std::to_string(static_cast<long>(duration)) +
                    " s at 1 s steps, " + std::to_string(t.alerts.size()) + " alerts");
}

void note_faults_outside_transient(Results& r, const std::vector<FaultVerdict>& vs, double duration) {
  std::string late;
  for (const auto& v : vs)
    if (v.fault.at >= duration) late += (late.empty() ? "" : "; ") + v.name + " (" + v.description + ")";
  if (late.empty()) return;
  r.notes.push_back(
      fmt::format("cooling faults: the shared fault transient covers the first {:.0f} h only, and {} starts after it: "
                  "fault_max_gpu_temperature, fault_min_gpu_clock, fault_throttled_time, fault_halted_time, "
                  "step_time_during_fault and time_to_train's step-time profile leave it out; its own verdict "
                  "(/thermal/faults, its 'fault N' checks, time_to_train_with_faults) judges it",
                  duration / units::kHour, late));
}

void note_idle_monitoring(Results& r, const CoolingSpec& spec) {
  const auto& m = spec.monitoring;
  if ((m.sensors.empty() && m.actions.empty()) || !spec.faults.empty() || has_daily_cycle(spec)) return;
  r.notes.push_back(fmt::format(
      "cooling_monitoring: its {} sensor(s) and {} response action(s) did nothing in this run: they act in the "
      "cooling-fault and daily-cycle transients only, and this scenario has no cooling.faults and no daily outdoor "
      "cycle (cooling.heat_rejection.outdoor_daily_swing 0 K or heat_rejection fixed)",
      m.sensors.size(), m.actions.size()));
}

double time_to_train_with_faults(double time_to_train, const std::vector<FaultVerdict>& vs, double transient_duration,
                                 std::vector<int>* not_counted) {
  std::vector<const FaultVerdict*> by_start;
  for (const auto& v : vs) by_start.push_back(&v);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const FaultVerdict* a, const FaultVerdict* b) { return a->fault.at < b->fault.at; });
  double end = time_to_train;
  for (const FaultVerdict* v : by_start) {
    if (!(v->fault.at < end)) {
      if (not_counted) not_counted->push_back(v->index);
    } else if (!(v->fault.at < transient_duration)) {
      end += v->lost_training_time;  // in time_to_train's step-time profile otherwise: not twice
      // Training still left when the verdict's run ends, while the fault goes on: at its last state.
      const double fault_end = v->fault.at + v->fault.duration, m = v->final_slowdown;
      if (end > v->judged_until && fault_end > v->judged_until && m != 1) {
        const double left = end - v->judged_until;  // s at full speed
        if (!std::isfinite(m)) {
          end = std::isfinite(fault_end) ? fault_end + left : m;  // halted until the repair, or for good
        } else {
          const double work = std::min(left, (fault_end - v->judged_until) / m);  // done while it lasts
          end = v->judged_until + work * m + (left - work);
        }
      }
    }
  }
  return end;
}

void report_fault_verdicts(Results& r, const std::vector<FaultVerdict>& vs, const std::vector<ActionVerdict>& actions,
                           double clock_sensitivity, bool clock_sensitivity_measured, double time_to_train,
                           double transient_duration) {
  std::vector<double> start, duration, peak, above, shutdown, gpus_off, lost_h, lost_gpu_h, clock, pass;
  std::vector<std::string> name, description, failed, inherited;
  int passed = 0;
  auto joined = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
  };
  double total_gpu_h = 0, total_lost = 0;
  for (const auto& v : vs) {
    name.push_back(v.name);
    description.push_back(v.description);
    failed.push_back(joined(v.failed));
    inherited.push_back(joined(v.inherited));
    for (const auto& c : v.checks)
      if (c.item == "peak coolant vs boiling point" && !c.pass)
        r.notes.push_back("cooling fault " + v.name + ": OUTSIDE THE MODEL - " + c.note +
                          "; the transient loop model is single-phase");
    // A fault lasting past its own run (capped at VerdictOptions::max_duration) is judged over its
    // first part only: its losses would otherwise read as the whole fault's.
    // A fault not repaired (duration inf) always is; said only where the part judged cost training
    // time or ended slowed (a harmless excursion's rest is harmless too).
    if (v.judged_until < v.fault.at + v.fault.duration && (v.lost_training_time > 0 || v.final_slowdown != 1)) {
      const double covered = std::max(0.0, v.judged_until - v.fault.at);
      r.warnings.push_back(fmt::format(
          "cooling.faults[{}] ({}): its verdict simulates the fault's first {:.3g} h only (a verdict's run "
          "is capped): its lost training time ({:.4g} h), GPU-hours and time above throttle leave out the rest; "
          "a fault still slowing the GPUs at that time costs more{}",
          v.index, v.description, covered / units::kHour, v.lost_training_time / units::kHour,
          !(v.fault.at >= transient_duration) ? ""
          : v.final_slowdown == 1
              ? "; time_to_train_with_faults adds the lost time judged (the run ends at full speed)"
              : fmt::format("; time_to_train_with_faults takes the rest of it at the run's last state (step time x "
                            "{:.4g}{})",
                            v.final_slowdown, std::isfinite(v.final_slowdown) ? "" : ": the job halted")));
    }
    // A fault of the shared transient still on at its end: time-to-train's step-time profile holds
    // the transient's last state until the repair (sim/engine/step_profile.cpp), an estimate.
    if (v.fault.at < transient_duration && v.fault.at + v.fault.duration > transient_duration)
      r.notes.push_back(fmt::format(
          "cooling.faults[{}] ({}): still on at the fault transient's end ({:.3g} h): ESTIMATE, time-to-train "
          "holds the transient's last step-time multiplier {}, not simulated",
          v.index, v.description, transient_duration / units::kHour,
          std::isfinite(v.fault.duration)
              ? fmt::format("until its repair at {:.4g} h", (v.fault.at + v.fault.duration) / units::kHour)
              : std::string("to the end of training (not repaired)")));
    start.push_back(v.fault.at);
    duration.push_back(v.fault.duration);
    peak.push_back(celsius(v.peak_gpu_temp));
    above.push_back(v.time_above_throttle);
    shutdown.push_back(v.time_at_shutdown);
    gpus_off.push_back(v.gpus_shutdown);
    lost_h.push_back(v.lost_training_time / units::kHour);
    lost_gpu_h.push_back(v.lost_gpu_hours);
    clock.push_back(v.time_at_shutdown > 0 ? 0.0 : v.min_clock);  // a shut-down GPU's clock, as in its series
    pass.push_back(v.pass ? 1 : 0);
    passed += v.pass;
    total_gpu_h += v.lost_gpu_hours;
    total_lost += v.lost_training_time;
    for (const auto& c : v.checks) {
      Check d = display_check(c);
      d.item = v.name + ": " + d.item;
      r.checks.push_back(std::move(d));
    }
    const std::string g = "/thermal/faults/fault_" + std::to_string(v.index + 1) + "/";
    const auto& x = v.transient.samples;
    add_series(
        r, g + "time", x, [](const Sample& s) { return s.time; }, "s",
        v.name + " (" + v.description + "): sample times");
    add_series(
        r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
        "Hottest GPU junction, this fault alone");
    add_series(
        r, g + "max_cold_plate_temperature", x, [](const Sample& s) { return celsius(s.max_cold_plate_temp); }, "degC",
        "Hottest cold plate, this fault alone");
    add_series(
        r, g + "coolant_inlet", x, [](const Sample& s) { return celsius(s.coolant_inlet); }, "degC",
        "Hottest rack-loop supply, this fault alone");
    add_series(
        r, g + "coolant_outlet", x, [](const Sample& s) { return celsius(s.coolant_outlet); }, "degC",
        "Hottest rack-loop return, this fault alone");
    add_series(
        r, g + "max_server_inlet_air", x, [](const Sample& s) { return celsius(s.max_air_inlet); }, "degC",
        "Hottest server inlet air, this fault alone");
    add_series(
        r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1",
        "Lowest GPU clock factor (0 while a GPU is shut down), this fault alone");
  }
  const std::string f = "/thermal/faults/";
  r.labels.push_back({f + "name", name, "Cooling faults judged, one row each (cooling.faults order)", "fault"});
  r.labels.push_back({f + "description", description, "What each fault is, where and when", "fault"});
  r.labels.push_back(
      {f + "failed", failed, "Checks that fail the fault's verdict (comma-separated; empty: pass)", "fault"});
  r.labels.push_back({f + "inherited", inherited,
                      "Checks failing already before the fault (steady state): reported, not counted in the verdict",
                      "fault"});
  r.datasets.push_back(vector_dataset(f + "start", start, "s", "Fault start, from the training start", "fault"));
  r.datasets.push_back(vector_dataset(f + "duration", duration, "s",
                                      "Fault duration (inf: not repaired, cooling.faults[i].duration not given)",
                                      "fault"));
  r.datasets.push_back(
      vector_dataset(f + "peak_gpu_temperature", peak, "degC", "Hottest GPU junction in the fault's run", "fault"));
  r.datasets.push_back(vector_dataset(f + "time_above_throttle", above, "s",
                                      "Time with a GPU junction above its throttle limit", "fault"));
  r.datasets.push_back(vector_dataset(f + "time_at_shutdown", shutdown, "s",
                                      "Time with a GPU at its shutdown temperature (the synchronous job halted)",
                                      "fault"));
  r.datasets.push_back(vector_dataset(
      f + "gpus_at_shutdown", gpus_off, "1",
      "GPUs that reached the thermal shutdown temperature in the fault's run (each counted once)", "fault"));
  r.datasets.push_back(
      vector_dataset(f + "lost_training_time", lost_h, "h",
                     "Training time lost: sum of dt (1 - 1/m), m the step-time multiplier of the slowest GPU's clock "
                     "(1 while halted)",
                     "fault"));
  r.datasets.push_back(vector_dataset(f + "lost_gpu_hours", lost_gpu_h, "h",
                                      "GPU-hours lost: the job's GPUs x training time lost (they wait on the slowest)",
                                      "fault"));
  r.datasets.push_back(vector_dataset(f + "min_gpu_clock", clock, "1",
                                      "Lowest GPU clock factor in the fault's run (0 when a GPU was shut down)",
                                      "fault"));
  Dataset verdict = vector_dataset(f + "pass", pass, "1", "Verdict: 1 when every check of the fault passes", "fault");
  verdict.flag_meanings = {"fail", "pass"};
  r.datasets.push_back(std::move(verdict));
  r.add("cooling_faults", static_cast<double>(vs.size()), "1", "Cooling faults judged, each in its own transient");
  r.add("cooling_faults_passed", passed, "1",
        "Cooling faults that break no limit the site met before them, with no "
        "throttling, no shutdown, failover < 10 s, interruption < 5 min");
  r.add("cooling_faults_lost_gpu_hours", total_gpu_h, "h", "GPU-hours lost over all cooling faults, each judged alone");
  r.add("cooling_faults_lost_training_time", total_lost / units::kHour, "h",
        "Training time lost over all cooling faults, each judged alone (sum of /thermal/faults/lost_training_time; "
        "the verdicts' estimate, not added to time_to_train, which has the faults in its step-time profile)");
  // time_to_train has the faults of the shared transient in its step-time profile; only the faults
  // that start after that transient are added here, so that no fault is counted twice.
  std::vector<int> late;
  const double with_faults = time_to_train_with_faults(time_to_train, vs, transient_duration, &late);
  r.add("time_to_train_with_faults", with_faults / units::kDay, "d",
        "Expected time-to-train with every cooling fault counted once: time_to_train (whose step-time profile has "
        "the faults of the fault transient) + the lost training time of the faults that start after that transient "
        "and before the training ends (one lasting past its verdict's run goes on at that run's last state)");
  if (!late.empty()) {
    std::string which;
    for (int i : late) which += (which.empty() ? "" : ", ") + std::to_string(i + 1);
    r.notes.push_back("time_to_train_with_faults: cooling fault(s) " + which +
                      " start after the training ends and are not counted in it");
  }

  char k[160];
  std::snprintf(k, sizeof k, "%.3f of the step scales with 1/clock (%s)", clock_sensitivity,
                clock_sensitivity_measured ? "measured: step re-simulated at the faults' lowest clock"
                                           : "estimated: compute share of the step");
  r.notes.push_back(
      "cooling-fault verdicts: each fault simulated alone from the steady state 60 s before it to 30 min "
      "after it ends, 72 h at most (a fault not repaired: 72 h; 1 s steps), with the governor and the monitoring "
      "policy; training time lost: " +
      std::string(k) + "; GPU-hours lost = the job's GPUs x time lost (synchronous training)");

  std::vector<double> at, fault, lost, peak_after, off_after, cleared, apass;
  std::vector<std::string> aname, anote;
  for (const auto& a : actions) {
    aname.push_back(a.record.alert_level + " " + a.record.sensor + ": " + a.record.action);
    anote.push_back(a.note);
    at.push_back(a.record.time);
    fault.push_back(a.fault + 1);
    lost.push_back(a.record.lost_training_time / units::kHour);
    peak_after.push_back(celsius(a.record.peak_gpu_temp_after));
    off_after.push_back(a.record.shutdown_time_after);
    cleared.push_back(a.record.cleared - a.record.time);
    apass.push_back(a.pass ? 1 : 0);
  }
  if (aname.empty()) return;
  const std::string g = "/thermal/actions/";
  r.labels.push_back(
      {g + "name", aname, "Monitoring response actions that fired: alert level, sensor, action", "action"});
  r.labels.push_back({g + "note", anote, "What followed each action", "action"});
  r.datasets.push_back(vector_dataset(g + "time", at, "s", "When the action fired, from the training start", "action"));
  r.datasets.push_back(vector_dataset(g + "fault", fault, "1",
                                      "Fault (1-based, /thermal/faults/name) during whose run it fired", "action"));
  r.datasets.push_back(vector_dataset(
      g + "cleared_after", cleared, "s",
      "Time until the alert it answered cleared and, for pumps and power cap, the action was released (inf: not in "
      "the run)",
      "action"));
  r.datasets.push_back(vector_dataset(g + "lost_training_time", lost, "h",
                                      "Training time lost from its firing to the end of the run", "action"));
  r.datasets.push_back(
      vector_dataset(g + "peak_gpu_temperature", peak_after, "degC", "Hottest GPU junction after it fired", "action"));
  r.datasets.push_back(
      vector_dataset(g + "time_at_shutdown", off_after, "s", "Time with a GPU shut down after it fired", "action"));
  Dataset answered = vector_dataset(
      g + "pass", apass, "1",
      "1 when its alert cleared in the run (the action released, or held on by its hold time alone) and no GPU was "
      "at shutdown after it",
      "action");
  answered.flag_meanings = {"fail", "pass"};
  r.datasets.push_back(std::move(answered));
}

void report_daily_transient(Results& r, const TransientResult& t, double step_time_daily_worst, double gpu_temp_limit) {
  r.checks.push_back(display_check(limit_below(
      "GPU junction at the daily outdoor peak vs throttle limit", t.max_gpu_temp, gpu_temp_limit, "K",
      fmt::format("hottest junction over the daily outdoor cycle {} (limit < {}; the steady checklist is at the "
                  "day's mean outdoor temperature); {:.0f} s a day with a GPU throttled, lowest clock {:.3f}",
                  degc(t.max_gpu_temp), degc(gpu_temp_limit), t.throttled_time, lowest_clock(t)))));
  r.add("daily_max_gpu_temperature", celsius(t.max_gpu_temp), "degC",
        "Hottest GPU junction over the daily outdoor cycle");
  r.add("daily_min_gpu_clock", 100.0 * lowest_clock(t), "%",
        "Lowest GPU clock over the daily outdoor cycle (0 while a GPU is shut down)");
  r.add("daily_throttled_time", t.throttled_time, "s", "Time per day with any GPU throttled by the outdoor cycle");
  r.add("step_time_daily_worst", step_time_daily_worst, "s",
        "Step time re-simulated at the lowest clock of the daily outdoor cycle");
  const auto& x = t.samples;
  const std::string g = "/thermal/daily/";
  add_series(
      r, g + "time", x, [](const Sample& s) { return s.time; }, "s", "Sample times of the daily cycle (0 = midnight)");
  add_series(
      r, g + "outdoor_temperature", x, [](const Sample& s) { return celsius(s.outdoor_temp); }, "degC",
      "Outdoor dry-bulb over the day");
  add_series(
      r, g + "facility_supply", x, [](const Sample& s) { return celsius(s.facility_supply); }, "degC",
      "Facility water supply over the day");
  add_series(
      r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
      "Hottest GPU junction over the day");
  add_series(
      r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1",
      "Lowest GPU clock factor over the day");
  add_series(
      r, g + "facility_power", x, [](const Sample& s) { return s.facility_power / kMega; }, "MW",
      "Facility power over the day");
  add_series(
      r, g + "pue", x, [](const Sample& s) { return s.pue; }, "1", "PUE over the day");
  r.notes.push_back(
      "daily outdoor cycle: 24 h thermal transient at 1 s steps from midnight; time-to-train sees its "
      "step-time profile every day (after the cooling-fault transient, which already includes the cycle)");
}

}  // namespace aidcsim::thermal
