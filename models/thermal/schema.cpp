#include "models/thermal/schema.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "models/thermal/coolant.hpp"

namespace aidcsim::thermal {

Schema schema() {
  using Q = Quantity;
  const std::vector<std::string> kLocations = {"GPU inlet",  "GPU outlet",  "GPU junction",    "cold plate",
                                               "CDU supply", "CDU return",  "rack outlet",     "loop flow",
                                               "facility supply", "PUE",    "rack power"};
  return {
      {"cooling", Q::Map, "", false, {}, {}, false, {}, "Direct liquid cooling, CDUs, rear doors and facility water."},
      {"cooling.coolant", Q::String, "water", false, {}, {}, false, {"water", "pg25", "pao", "fluorinated"},
       "Rack-loop coolant: water, pg25 (25 % propylene glycol, NVIDIA TCS), pao (dielectric hydrocarbon), "
       "fluorinated (dielectric, HFE-7100 class). Properties: models/thermal/coolant.cpp (published-figures §6.4)."},
      {"cooling.flow_per_gpu", Q::VolumeFlow, "1 L/min", false, 0.05e-3 / 60, 1e-3, false, {}, "Coolant flow per GPU cold plate (brief: 0.5-1 L/min)."},
      {"cooling.facility_supply", Q::Temperature, "18 degC", false, 273.15, 333.15, false, {},
       "Facility water supply temperature (set point) to the CDUs and rear doors."},
      {"cooling.cdu_approach", Q::TemperatureDelta, "4 K", false, 0.5, 30, false, {},
       "CDU approach at design heat: rack-loop supply minus facility supply (NVIDIA DSX BOD 4 °C, published-figures §6.2)."},
      {"cooling.liquid_fraction", Q::Fraction, "0.85", false, 0.2, 1, false, {}, "Share of rack heat captured by cold plates; from 0.2 (below that a rack is air-cooled, which the cold-plate model does not describe)."},
      {"cooling.rdhx", Q::Map, "", false, {}, {}, false, {}, "Rear-door heat exchanger (one per rack)."},
      {"cooling.rdhx.effectiveness", Q::Fraction, "0.7", false, 0.05, 1, false, {},
       "Effectiveness in (0, 1] with fans running (IBM RDHx: 55-85 % heat removal, §6.2)."},
      {"cooling.rdhx.passive_effectiveness", Q::Fraction, "0.35", false, 0, 1, false, {},
       "Effectiveness with the door fans failed [estimate]."},
      {"cooling.rdhx.fan_power", Q::Power, "1 kW", false, 0, 1e5, false, {}, "Door fan power per rack (vendor range 0.5-2 kW, §6.2)."},
      {"cooling.rdhx.air_delta_t", Q::TemperatureDelta, "15 K", false, 1, 60, false, {},
       "Server air temperature rise at design heat; sets the air flow through the door [estimate]."},
      {"cooling.cold_plate", Q::Map, "", false, {}, {}, false, {}, "GPU cold plate (junction -> plate -> coolant)."},
      {"cooling.cold_plate.r_junction_plate", Q::ThermalResistance, "0.02 K/W", false, 1e-3, 1, false, {},
       "Junction to cold-plate base incl. TIM [estimate; junction-to-inlet 0.04-0.07 K/W, §6.2]."},
      {"cooling.cold_plate.r_convection", Q::ThermalResistance, "0.012 K/W", false, 1e-3, 1, false, {},
       "1/hA of the plate with water at cooling.cold_plate.ref_flow [estimate]."},
      {"cooling.cold_plate.ref_flow", Q::VolumeFlow, "1 L/min", false, 0.05e-3 / 60, 1e-2, false, {}, "Flow at which r_convection holds."},
      {"cooling.cold_plate.flow_exponent", Q::Number, "0.8", false, 0, 2, false, {},
       "hA ~ flow^n; 0.8 = Dittus-Boelter turbulent convection (Incropera & DeWitt eq. 8.60)."},
      {"cooling.cdu", Q::Map, "", false, {}, {}, false, {}, "Coolant distribution units (liquid-to-liquid, counter-flow plate HX)."},
      {"cooling.cdu.racks_per_cdu", Q::Integer, "8", false, 1, 1000, false, {},
       "Racks per CDU (8 NVL72 racks ~1.2 MW = one DGX GB200 SU; STULZ 1,200 kW unit, §6.2)."},
      {"cooling.cdu.facility_flow_ratio", Q::Number, "1", false, 0.1, 100, false, {},
       "Facility-side / rack-side heat capacity rate of a CDU (STULZ: equal flows, §6.2)."},
      {"cooling.pumps", Q::Map, "", false, {}, {}, false, {}, "CDU pump group."},
      {"cooling.pumps.running", Q::Integer, "2", false, 1, 64, false, {}, "Running pumps N per CDU."},
      {"cooling.pumps.spare", Q::Integer, "1", false, 0, 64, false, {}, "Standby pumps (N+1: 1; brief)."},
      {"cooling.pumps.capacity_margin", Q::Number, "1.2", false, 0.1, 10, false, {},
       "Installed running capacity / design flow (brief: pumps at 120 % of the load)."},
      {"cooling.pumps.failover_time", Q::Time, "5 s", false, 0, 3600, false, {},
       "Time for the standby pump to take over (NVIDIA CDU qualification <= 5 s, §6.2; brief < 10 s)."},
      {"cooling.pumps.power_fraction", Q::Fraction, "0.017", false, 0, 1, false, {},
       "Pump power / design heat (STULZ SCR: 20 kW / 1,200 kW, §6.2)."},
      {"cooling.room", Q::Map, "", false, {}, {}, false, {}, "Hall air (held by CRAH units)."},
      {"cooling.room.temperature", Q::Temperature, "25 degC", false, 273.15, 323.15, false, {},
       "Cold-aisle air temperature (ASHRAE A1 recommended 18-27 °C)."},
      {"cooling.room.rh_min", Q::Fraction, "0.4", false, 0.01, 1, false, {}, "Lowest relative humidity (brief: 40-60 %)."},
      {"cooling.room.rh_max", Q::Fraction, "0.6", false, 0.01, 1, false, {}, "Highest relative humidity; sets the dew point checked."},
      {"cooling.heat_rejection", Q::Map, "", false, {}, {}, false, {}, "Facility heat rejection."},
      {"cooling.heat_rejection.type", Q::String, "chiller", false, {}, {}, false, {"fixed", "dry_cooler", "chiller"},
       "chiller/fixed: supply held at the set point, dry coolers free-cool and a chiller trims; "
       "dry_cooler: no chiller, supply = max(set point, outdoor + approach)."},
      {"cooling.heat_rejection.outdoor_temp", Q::Temperature, "12 degC", false, 223.15, 333.15, false, {},
       "Outdoor dry-bulb (North East England annual mean ~9-10 °C) [estimate]; the daily mean when a swing is set."},
      {"cooling.heat_rejection.outdoor_daily_swing", Q::TemperatureDelta, "0 K", false, 0, 40, false, {},
       "Daily outdoor range (max - min); T(t) = outdoor_temp + swing/2 cos(2 pi (t - peak)/24 h) "
       "(cosine diurnal profile, ASHRAE Fundamentals ch. 14). 0 = constant. Ignored by type fixed."},
      {"cooling.heat_rejection.outdoor_peak_time", Q::Time, "15 h", false, 0, 86400, false, {},
       "Time of day of the outdoor maximum (ASHRAE design day: ~15:00)."},
      {"cooling.heat_rejection.dry_cooler_approach", Q::TemperatureDelta, "5 K", false, 0, 30, false, {},
       "Dry-cooler approach to outdoor air (NVIDIA DSX raised-bed dry cooler, §6.2)."},
      {"cooling.heat_rejection.chiller_cop", Q::Number, "5", false, 0.5, 30, false, {}, "Chiller COP [estimate]."},
      {"cooling.air_fallback", Q::Map, "", false, {}, {}, false, {}, "Auxiliary air cooling when liquid cooling fails."},
      {"cooling.air_fallback.capacity_per_rack", Q::Power, "20 kW", false, 0, 1e6, false, {},
       "Heat the auxiliary air removes per rack (brief: air loses efficiency above ~20 kW/rack)."},
      {"cooling.air_fallback.switch_time", Q::Time, "60 s", false, 0, 3600, false, {},
       "Time from a CDU loss until the auxiliary air cooling runs (brief: interruption < 5 min)."},
      {"cooling.limits", Q::Map, "", false, {}, {}, false, {}, "Checklist limits (product brief, Cooling)."},
      {"cooling.limits.inlet_max", Q::Temperature, "25 degC", false, 273.15, 373.15, false, {}, "Coolant inlet limit."},
      {"cooling.limits.outlet_max", Q::Temperature, "40 degC", false, 273.15, 373.15, false, {}, "Coolant outlet limit."},
      {"cooling.limits.delta_t_max", Q::TemperatureDelta, "15 K", false, 0.5, 100, false, {}, "Loop ΔT limit."},
      {"cooling.limits.hotspot_max", Q::Temperature, "60 degC", false, 273.15, 373.15, false, {}, "Hot-spot (cold plate) limit."},
      {"cooling.limits.flow_min", Q::VolumeFlow, "0.5 L/min", false, 0, 1e-3, false, {}, "Lowest flow per GPU (brief)."},
      {"cooling.limits.flow_max", Q::VolumeFlow, "1 L/min", false, 0, 1e-3, false, {}, "Highest flow per GPU (brief)."},
      {"cooling.limits.gpu_temp_limit", Q::Temperature, "87 degC", false, 273.15, 400, false, {},
       "GPU junction throttle threshold (H100 SW throttle 87 °C, published-figures §6.1; Blackwell not published)."},
      {"cooling.limits.pue_max", Q::Number, "1.2", false, 1, 5, false, {}, "PUE alarm level (brief)."},
      {"cooling.limits.failover_max", Q::Time, "10 s", false, 0.1, 3600, false, {}, "Pump failover limit (brief)."},
      {"cooling.limits.rack_air_max", Q::Power, "20 kW", false, 100, 1e6, false, {}, "Rack heat air can carry (brief)."},
      {"cooling.limits.dew_point_margin", Q::TemperatureDelta, "1 K", false, 0, 20, false, {},
       "Coldest water above the dew point (IBM RDHx: 18 °C water, 17 °C max dew point, §6.2)."},
      {"cooling.throttle", Q::Map, "", false, {}, {}, false, {}, "GPU DVFS throttling."},
      {"cooling.throttle.band", Q::TemperatureDelta, "5 K", false, 0.1, 50, false, {}, "Static map: clock reaches min_clock this far above the limit."},
      {"cooling.throttle.min_clock", Q::Fraction, "0.5", false, 0.05, 1, false, {}, "Lowest clock factor [estimate]."},
      {"cooling.throttle.shutdown_temp", Q::Temperature, "92 degC", false, 273.15, 400, false, {},
       "Thermal shutdown (A100/H100 92 °C, §6.1)."},
      {"cooling.monitoring", Q::Map, "", false, {}, {}, false, {}, "Monitoring policy in the planners' cooling_monitoring format (brief)."},
      {"cooling.monitoring.sensors", Q::List, "", false, {}, {}, false, {}, "Sensors with thresholds."},
      {"cooling.monitoring.sensors[].type", Q::String, "temperature", false, {}, {}, false, {"temperature", "flow", "pue", "power"},
       "Sensor type."},
      {"cooling.monitoring.sensors[].location", Q::String, "", true, {}, {}, false, kLocations, "Where the sensor reads."},
      {"cooling.monitoring.sensors[].threshold", Q::Number, "", true, -273.15, 1e6, false, {},
       "Alert threshold as in the brief: °C for temperature, L/min per GPU for flow (alerts below), plain PUE, kW per rack for power."},
      {"cooling.monitoring.sensors[].alert_level", Q::String, "warning", false, {}, {}, false, {"warning", "critical"}, "Alert level."},
      {"cooling.monitoring.response_actions", Q::List, "", false, {}, {}, false, {}, "Actions taken when an alert level is raised."},
      {"cooling.monitoring.response_actions[].alert_level", Q::String, "", true, {}, {}, false, {"warning", "critical"}, "Alert level."},
      {"cooling.monitoring.response_actions[].action", Q::String, "", true, {}, {}, false,
       {"notify", "adjust pump speed", "reduce GPU power limit"},
       "adjust pump speed: run the pumps at full capacity; reduce GPU power limit: cap GPUs at power_limit_fraction x TDP."},
      {"cooling.monitoring.power_limit_fraction", Q::Fraction, "0.8", false, 0.05, 1, false, {}, "GPU power cap of 'reduce GPU power limit'."},
      {"cooling.faults", Q::List, "", false, {}, {}, false, {}, "Scheduled cooling faults (transient simulation)."},
      {"cooling.faults[].type", Q::String, "", true, {}, {}, false,
       {"pump_failure", "cdu_loss", "supply_excursion", "rdhx_fan_failure"},
       "pump_failure: one running pump of a CDU stops (standby takes over after failover_time); cdu_loss: the CDU's "
       "heat exchange to facility water stops (auxiliary air takes over after air_fallback.switch_time); supply_excursion: facility supply rises by magnitude (heat wave); "
       "rdhx_fan_failure: door fans of a rack stop."},
      {"cooling.faults[].at", Q::Time, "0 s", false, 0, 1e9, false, {}, "Start time from the beginning of the run."},
      {"cooling.faults[].duration", Q::Time, "1e9 s", false, 0.1, 1e12, false, {}, "How long the fault lasts (default: rest of the run)."},
      {"cooling.faults[].target", Q::Integer, "-1", false, -1, 1e7, false, {}, "CDU (pump_failure, cdu_loss) or rack (rdhx_fan_failure) index; -1 = all."},
      {"cooling.faults[].magnitude", Q::TemperatureDelta, "0 K", false, 0, 100, false, {}, "Supply rise of supply_excursion."},
      {"power", Q::Map, "", false, {}, {}, false, {}, "IT and facility power model beyond the GPU (GPU TDP/idle come from the catalogue)."},
      {"power.cpu_per_gpu", Q::Power, "150 W", false, 0, 1e4, false, {}, "Host CPU power per GPU (Grace ~300 W per 2 GPUs) [estimate]."},
      {"power.nic_per_gpu", Q::Power, "25 W", false, 0, 1e3, false, {}, "Scale-out NIC power per GPU (ConnectX-7) [estimate]."},
      {"power.rack_overhead", Q::Power, "9 kW", false, 0, 1e6, false, {},
       "Per 72-GPU rack: NVLink switch trays, management, fans (NVL72 ~120 kW total, published-figures §5.2) [estimate]."},
      {"power.psu_efficiency", Q::Fraction, "0.95", false, 0.5, 1, false, {}, "Rack power-shelf efficiency [estimate]."},
      {"power.comm_factor", Q::Fraction, "0.35", false, 0, 1, false, {},
       "Dynamic power of a communication-busy GPU relative to compute-busy [estimate]."},
      {"power.switch_power", Q::Power, "1 kW", false, 0, 1e5, false, {}, "Scale-out switch incl. optics (QM9700 class) [estimate]."},
      {"power.distribution_loss", Q::Fraction, "0.03", false, 0, 0.5, false, {}, "UPS and transformer losses, share of facility power [estimate]."},
  };
}

namespace {
double num(const Params& p, const char* key, double dflt) { return p.has(key) ? p.number(key) : dflt; }
int integer(const Params& p, const char* key, int dflt) { return p.has(key) ? static_cast<int>(p.integer(key)) : dflt; }
std::string text(const Params& p, const char* key, const std::string& dflt) { return p.has(key) ? p.text(key) : dflt; }
std::string fmt_num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}
constexpr double kK0 = 273.15;
}  // namespace

CoolingSpec spec_from(const Params& root) {
  CoolingSpec c;
  c.coolant = text(root, "cooling.coolant", c.coolant);
  c.flow_per_gpu = num(root, "cooling.flow_per_gpu", c.flow_per_gpu);
  c.facility_supply = num(root, "cooling.facility_supply", c.facility_supply);
  c.cdu_approach = num(root, "cooling.cdu_approach", c.cdu_approach);
  c.liquid_fraction = num(root, "cooling.liquid_fraction", c.liquid_fraction);
  c.rdhx_effectiveness = num(root, "cooling.rdhx.effectiveness", c.rdhx_effectiveness);
  c.rdhx.passive_effectiveness = num(root, "cooling.rdhx.passive_effectiveness", c.rdhx.passive_effectiveness);
  c.rdhx.fan_power = num(root, "cooling.rdhx.fan_power", c.rdhx.fan_power);
  c.rdhx.air_delta_t = num(root, "cooling.rdhx.air_delta_t", c.rdhx.air_delta_t);
  auto& cp = c.cold_plate;
  cp.r_junction_plate = num(root, "cooling.cold_plate.r_junction_plate", cp.r_junction_plate);
  cp.r_convection = num(root, "cooling.cold_plate.r_convection", cp.r_convection);
  cp.ref_flow = num(root, "cooling.cold_plate.ref_flow", cp.ref_flow);
  cp.flow_exponent = num(root, "cooling.cold_plate.flow_exponent", cp.flow_exponent);
  c.cdu.racks_per_cdu = integer(root, "cooling.cdu.racks_per_cdu", c.cdu.racks_per_cdu);
  c.cdu.facility_flow_ratio = num(root, "cooling.cdu.facility_flow_ratio", c.cdu.facility_flow_ratio);
  c.pumps.running = integer(root, "cooling.pumps.running", c.pumps.running);
  c.pumps.spare = integer(root, "cooling.pumps.spare", c.pumps.spare);
  c.pumps.capacity_margin = num(root, "cooling.pumps.capacity_margin", c.pumps.capacity_margin);
  c.pumps.failover_time = num(root, "cooling.pumps.failover_time", c.pumps.failover_time);
  c.pumps.power_fraction = num(root, "cooling.pumps.power_fraction", c.pumps.power_fraction);
  c.room.temperature = num(root, "cooling.room.temperature", c.room.temperature);
  c.room.rh_min = num(root, "cooling.room.rh_min", c.room.rh_min);
  c.room.rh_max = num(root, "cooling.room.rh_max", c.room.rh_max);
  c.rejection.type = text(root, "cooling.heat_rejection.type", c.rejection.type);
  c.rejection.outdoor_temp = num(root, "cooling.heat_rejection.outdoor_temp", c.rejection.outdoor_temp);
  c.rejection.dry_cooler_approach = num(root, "cooling.heat_rejection.dry_cooler_approach", c.rejection.dry_cooler_approach);
  c.rejection.outdoor_daily_swing = num(root, "cooling.heat_rejection.outdoor_daily_swing", c.rejection.outdoor_daily_swing);
  c.rejection.outdoor_peak_time = num(root, "cooling.heat_rejection.outdoor_peak_time", c.rejection.outdoor_peak_time);
  c.rejection.chiller_cop = num(root, "cooling.heat_rejection.chiller_cop", c.rejection.chiller_cop);
  c.air_fallback.capacity_per_rack = num(root, "cooling.air_fallback.capacity_per_rack", c.air_fallback.capacity_per_rack);
  c.air_fallback.switch_time = num(root, "cooling.air_fallback.switch_time", c.air_fallback.switch_time);
  auto& l = c.limits;
  l.inlet_max = num(root, "cooling.limits.inlet_max", l.inlet_max);
  l.outlet_max = num(root, "cooling.limits.outlet_max", l.outlet_max);
  l.delta_t_max = num(root, "cooling.limits.delta_t_max", l.delta_t_max);
  l.hotspot_max = num(root, "cooling.limits.hotspot_max", l.hotspot_max);
  l.flow_min = num(root, "cooling.limits.flow_min", l.flow_min);
  l.flow_max = num(root, "cooling.limits.flow_max", l.flow_max);
  l.gpu_temp_limit = num(root, "cooling.limits.gpu_temp_limit", l.gpu_temp_limit);
  l.pue_max = num(root, "cooling.limits.pue_max", l.pue_max);
  l.failover_max = num(root, "cooling.limits.failover_max", l.failover_max);
  l.rack_air_max = num(root, "cooling.limits.rack_air_max", l.rack_air_max);
  l.dew_point_margin = num(root, "cooling.limits.dew_point_margin", l.dew_point_margin);
  c.throttle.band = num(root, "cooling.throttle.band", c.throttle.band);
  c.throttle.min_clock = num(root, "cooling.throttle.min_clock", c.throttle.min_clock);
  c.throttle.shutdown_temp = num(root, "cooling.throttle.shutdown_temp", c.throttle.shutdown_temp);

  // Monitoring: thresholds in the brief's units -> SI.
  for (const Params& s : root.list("cooling.monitoring.sensors")) {
    SensorSpec ss;
    ss.type = text(s, "type", "temperature");
    ss.location = s.text("location");
    const double th = s.number("threshold");
    // The threshold's unit follows the sensor type (the brief's units): bound it per type.
    const auto [lo, hi, unit] = ss.type == "temperature" ? std::tuple{-50.0, 150.0, "degC"}
                                : ss.type == "flow"      ? std::tuple{0.0, 60.0, "L/min per GPU"}
                                : ss.type == "pue"       ? std::tuple{1.0, 10.0, "(plain PUE)"}
                                                         : std::tuple{0.0, 1000.0, "kW per rack"};
    if (!(th >= lo && th <= hi))
      s.invalid("threshold", "a " + ss.type + " threshold from " + fmt_num(lo) + " to " + fmt_num(hi) + " " + unit);
    ss.threshold = ss.type == "temperature" ? th + kK0 : ss.type == "flow" ? th / 60000.0 : ss.type == "power" ? th * 1e3 : th;
    ss.alert_level = text(s, "alert_level", "warning");
    c.monitoring.sensors.push_back(ss);
  }
  for (const Params& a : root.list("cooling.monitoring.response_actions"))
    c.monitoring.actions.push_back({a.text("alert_level"), a.text("action")});
  c.monitoring.power_limit_fraction = num(root, "cooling.monitoring.power_limit_fraction", c.monitoring.power_limit_fraction);
  for (const Params& f : root.list("cooling.faults")) {
    FaultSpec fs;
    fs.type = f.text("type");
    fs.at = num(f, "at", 0);
    fs.duration = num(f, "duration", fs.duration);
    fs.target = integer(f, "target", -1);
    fs.magnitude = num(f, "magnitude", 0);
    c.faults.push_back(fs);
  }
  auto& p = c.power;
  p.cpu_per_gpu = num(root, "power.cpu_per_gpu", p.cpu_per_gpu);
  p.nic_per_gpu = num(root, "power.nic_per_gpu", p.nic_per_gpu);
  p.rack_overhead = num(root, "power.rack_overhead", p.rack_overhead);
  p.psu_efficiency = num(root, "power.psu_efficiency", p.psu_efficiency);
  p.comm_factor = num(root, "power.comm_factor", p.comm_factor);
  p.switch_power = num(root, "power.switch_power", p.switch_power);
  p.distribution_loss = num(root, "power.distribution_loss", p.distribution_loss);

  try {
    validate(c);
  } catch (const InvalidParameter& e) {
    // Re-raise through Params so the message carries the raw text the user wrote.
    if (root.has(e.key())) root.invalid(e.key(), e.expected());
    throw;
  }
  return c;
}

void validate(const CoolingSpec& c) {
  auto bad = [](const std::string& key, double v, const std::string& expected) {
    throw InvalidParameter(key, std::to_string(v), expected);
  };
  coolant(c.coolant);  // throws for an unknown coolant
  if (!(c.flow_per_gpu > 0)) bad("cooling.flow_per_gpu", c.flow_per_gpu * 60000, "a positive flow (L/min)");
  if (!(c.rdhx_effectiveness > 0 && c.rdhx_effectiveness <= 1))
    bad("cooling.rdhx.effectiveness", c.rdhx_effectiveness, "an effectiveness in (0, 1]");
  if (!(c.rdhx.passive_effectiveness >= 0 && c.rdhx.passive_effectiveness <= 1))
    bad("cooling.rdhx.passive_effectiveness", c.rdhx.passive_effectiveness, "an effectiveness in [0, 1]");
  if (!(c.liquid_fraction >= 0 && c.liquid_fraction <= 1)) bad("cooling.liquid_fraction", c.liquid_fraction, "a fraction in [0, 1]");
  if (!(c.cdu_approach > 0)) bad("cooling.cdu_approach", c.cdu_approach, "a positive approach (K)");
  if (c.facility_supply + c.cdu_approach > c.limits.inlet_max)
    throw InvalidParameter("cooling.facility_supply", std::to_string(c.facility_supply - kK0) + " degC",
                           "a supply temperature that, plus cooling.cdu_approach, stays below cooling.limits.inlet_max (" +
                               std::to_string(c.limits.inlet_max - kK0) + " degC)");
  if (!(c.cold_plate.r_junction_plate > 0)) bad("cooling.cold_plate.r_junction_plate", c.cold_plate.r_junction_plate, "a positive resistance");
  if (!(c.cold_plate.r_convection > 0)) bad("cooling.cold_plate.r_convection", c.cold_plate.r_convection, "a positive resistance");
  if (!(c.cold_plate.ref_flow > 0)) bad("cooling.cold_plate.ref_flow", c.cold_plate.ref_flow, "a positive flow");
  if (c.cdu.racks_per_cdu < 1) bad("cooling.cdu.racks_per_cdu", c.cdu.racks_per_cdu, "at least 1");
  if (!(c.cdu.facility_flow_ratio > 0)) bad("cooling.cdu.facility_flow_ratio", c.cdu.facility_flow_ratio, "a positive ratio");
  if (c.pumps.running < 1) bad("cooling.pumps.running", c.pumps.running, "at least 1 running pump");
  if (c.pumps.spare < 0) bad("cooling.pumps.spare", c.pumps.spare, "0 or more standby pumps");
  if (!(c.pumps.capacity_margin > 0)) bad("cooling.pumps.capacity_margin", c.pumps.capacity_margin, "a positive margin");
  if (!(c.pumps.failover_time >= 0)) bad("cooling.pumps.failover_time", c.pumps.failover_time, "a time >= 0");
  if (!(c.rdhx.air_delta_t > 0)) bad("cooling.rdhx.air_delta_t", c.rdhx.air_delta_t, "a positive temperature rise");
  if (!(c.room.rh_min > 0 && c.room.rh_max <= 1 && c.room.rh_min <= c.room.rh_max))
    bad("cooling.room.rh_max", c.room.rh_max, "0 < rh_min <= rh_max <= 1");
  if (c.rejection.type != "fixed" && c.rejection.type != "dry_cooler" && c.rejection.type != "chiller")
    throw InvalidParameter("cooling.heat_rejection.type", c.rejection.type, "fixed, dry_cooler or chiller");
  if (!(c.rejection.outdoor_daily_swing >= 0))
    bad("cooling.heat_rejection.outdoor_daily_swing", c.rejection.outdoor_daily_swing, "a range >= 0 K");
  if (!(c.rejection.chiller_cop > 0)) bad("cooling.heat_rejection.chiller_cop", c.rejection.chiller_cop, "a positive COP");
  if (!(c.throttle.min_clock > 0 && c.throttle.min_clock <= 1)) bad("cooling.throttle.min_clock", c.throttle.min_clock, "a clock factor in (0, 1]");
  if (!(c.power.psu_efficiency > 0 && c.power.psu_efficiency <= 1)) bad("power.psu_efficiency", c.power.psu_efficiency, "an efficiency in (0, 1]");
  if (!(c.power.distribution_loss >= 0 && c.power.distribution_loss < 1)) bad("power.distribution_loss", c.power.distribution_loss, "a fraction in [0, 1)");
  for (size_t i = 0; i < c.monitoring.sensors.size(); ++i) {
    const auto& s = c.monitoring.sensors[i];
    const std::string k = "cooling.monitoring.sensors[" + std::to_string(i) + "]";
    if (s.type != "temperature" && s.type != "flow" && s.type != "pue" && s.type != "power")
      throw InvalidParameter(k + ".type", s.type, "temperature, flow, pue or power");
    if (s.alert_level != "warning" && s.alert_level != "critical")
      throw InvalidParameter(k + ".alert_level", s.alert_level, "warning or critical");
  }
  for (size_t i = 0; i < c.monitoring.actions.size(); ++i) {
    const auto& a = c.monitoring.actions[i];
    const std::string k = "cooling.monitoring.response_actions[" + std::to_string(i) + "]";
    if (a.action != "notify" && a.action != "adjust pump speed" && a.action != "reduce GPU power limit")
      throw InvalidParameter(k + ".action", a.action, "notify, adjust pump speed or reduce GPU power limit");
  }
  for (size_t i = 0; i < c.faults.size(); ++i) {
    const auto& f = c.faults[i];
    const std::string k = "cooling.faults[" + std::to_string(i) + "]";
    if (f.type != "pump_failure" && f.type != "cdu_loss" && f.type != "supply_excursion" && f.type != "rdhx_fan_failure")
      throw InvalidParameter(k + ".type", f.type, "pump_failure, cdu_loss, supply_excursion or rdhx_fan_failure");
    if (!(f.at >= 0)) bad(k + ".at", f.at, "a time >= 0");
    if (!(f.duration > 0)) bad(k + ".duration", f.duration, "a positive duration");
    if (f.target < -1) bad(k + ".target", f.target, "an index >= 0, or -1 for all");
  }
}

}  // namespace aidcsim::thermal
