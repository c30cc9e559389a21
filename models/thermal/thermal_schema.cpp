// Scenario keys of the thermal/power model: cooling.*, cooling_monitoring.* (the brief's policy as
// written) and power.*. Each plant component declares its own keys (components/*.cpp, collected
// through the registry); the shared ones are here.
#include "models/thermal/thermal_schema.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "models/common/units.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"
#include "models/thermal/coolant.hpp"
#include "models/thermal/faults/fault_type.hpp"

namespace aidcsim::thermal {

namespace {

// Plausible coolant flow per GPU cold plate: the OCP 1 kW OAM plate the cold-plate model is fitted
// to is measured from 0.4 to 5 L/min (Chen et al., "OCP OAI System Liquid Cooling Guidelines",
// 2023, Fig. 7-8; docs/thermal.md); a cold plate runs at ~1-2 L/min per kW. 1 L/s (60 L/min, the
// old bound) is no cold plate's flow.
// 5 L/min in m^3/s, as the unit parser reads "5 L/min" (5 x (1e-3 / 60); 5e-3 / 60 is one ulp below
// it, which refused "5 L/min" itself).
constexpr double kColdPlateFlowMax = 5 * (units::kLitre / units::kMinute);
constexpr const char* kColdPlateFlowSource =
    "a cold plate's flow: the OCP 1 kW OAM plate is measured at 0.4-5 L/min, OCP OAI System Liquid Cooling "
    "Guidelines (2023) Fig. 7-8";

// Sensor locations of the monitoring policy and the sensor type each one reads.
struct Location {
  const char* name;
  const char* type;  // temperature | flow | pue | power
};
const std::vector<Location>& locations() {
  static const std::vector<Location> l = {
      {"GPU inlet", "temperature"},    {"GPU outlet", "temperature"},
      {"GPU junction", "temperature"}, {"cold plate", "temperature"},
      {"CDU supply", "temperature"},   {"CDU return", "temperature"},
      {"rack outlet", "temperature"},  {"facility supply", "temperature"},
      {"server inlet", "temperature"}, {"main loop", "flow"},
      {"loop flow", "flow"},           {"PUE", "pue"},
      {"rack power", "power"},
  };
  return l;
}

// The sensor type a location reads ("flow_rate" for flow), or "" for an unknown location.
std::string location_type(const std::string& location) {
  for (const auto& l : locations())
    if (location == l.name) return std::string(l.type) == "flow" ? "flow_rate" : l.type;
  return {};
}

// The locations a sensor of `type` reads, comma-separated.
std::string locations_of(const std::string& type) {
  std::string wanted;
  for (const auto& l : locations())
    if ((std::string(l.type) == "flow" ? "flow_rate" : l.type) == type)
      wanted += (wanted.empty() ? "" : ", ") + std::string(l.name);
  return wanted;
}

std::string plant_doc(const std::string& slot, const std::string& what) {
  std::string d = what + ":";
  for (const auto& c : components())
    if (c.slot == slot) d += " " + c.name + " (" + c.description + ");";
  d.back() = '.';
  return d;
}

}  // namespace

// One table of the area's keys (long by nature: one entry per key, in the order the reference
// page lists them).
Schema schema() {
  using Q = Quantity;
  std::vector<std::string> kLocations;
  for (const auto& l : locations()) kLocations.push_back(l.name);
  Schema out = {
      {"cooling",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Cooling plant: chip cooling, rack coolers, hall air, CDUs, facility water."},
      {"cooling.coolant",
       Q::String,
       "water",
       false,
       {},
       {},
       false,
       {"water", "pg25", "pao", "fluorinated"},
       "Rack-loop coolant: water, pg25 (25 % propylene glycol, NVIDIA TCS), pao (dielectric hydrocarbon), "
       "fluorinated (dielectric, HFE-7100 class). Properties: models/thermal/coolant.cpp (published-figures §6.4)."},
      {"cooling.flow_per_gpu",
       Q::VolumeFlow,
       "1 L/min",
       false,
       0.05e-3 / 60,
       kColdPlateFlowMax,
       false,
       {},
       "Coolant flow per GPU cold plate (brief: 0.5-1 L/min). At most 5 L/min, the highest flow the cold-plate "
       "model's published plate is measured at (cooling.cold_plate); 1 L/s would be 60 L/min.",
       {},
       {},
       kColdPlateFlowSource},
      {"cooling.facility_supply",
       Q::Temperature,
       "18 degC",
       false,
       units::kZeroCelsius,
       333.15,
       false,
       {},
       "Facility water supply temperature (set point) to the CDUs and rear doors. A supply too warm for the "
       "coolant inlet limit is simulated and fails its checks."},
      {"cooling.cdu_approach",
       Q::TemperatureDelta,
       "4 K",
       false,
       0.5,
       30,
       false,
       {},
       "CDU approach at design heat: rack-loop supply minus facility supply (NVIDIA DSX BOD 4 °C, published-figures "
       "§6.2)."},
      {"cooling.liquid_fraction",
       Q::Fraction,
       "0.85",
       false,
       0,
       1,
       false,
       {},
       "Cold-plate coverage: share of every GPU package (and of the rest of the rack's heat) served by cold plates; "
       "the rest goes through air heatsinks to the server air. 0 = air-cooled, else from 0.01 to 1 = fully liquid. The "
       "heat the "
       "liquid takes is computed (both paths leave the same junction)."},
      {"cooling.plant",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "One registered component per slot of the cooling plant."},
      {"cooling.plant.chip",
       Q::String,
       "cold_plate",
       false,
       {},
       {},
       false,
       component_names("chip"),
       plant_doc("chip", "How GPU heat reaches the rack's liquid")},
      {"cooling.plant.rack",
       Q::String,
       "rdhx",
       false,
       {},
       {},
       false,
       component_names("rack"),
       plant_doc("rack", "What cools a rack's exhaust air")},
      {"cooling.plant.room",
       Q::String,
       "crah",
       false,
       {},
       {},
       false,
       component_names("room"),
       plant_doc("room", "What holds the cold aisle")},
      {"cooling.plant.cdu",
       Q::String,
       "liquid_to_liquid",
       false,
       {},
       {},
       false,
       component_names("cdu"),
       plant_doc("cdu", "Where the rack loop rejects its heat")},
      {"cooling.plant.heat_rejection",
       Q::String,
       "chiller",
       false,
       {},
       {},
       false,
       component_names("heat_rejection"),
       plant_doc("heat_rejection", "How the facility water is cooled")},
      {"cooling.heatsink",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Air heatsink on the share of each GPU package no cold plate covers (all of it at liquid_fraction 0)."},
      {"cooling.heatsink.r_junction_sink",
       Q::ThermalResistance,
       "0.02 K/W",
       false,
       1e-3,
       1,
       false,
       {},
       "Junction to heatsink base incl. TIM, whole package [estimate]."},
      {"cooling.heatsink.r_sink_air",
       Q::ThermalResistance,
       "0.03 K/W",
       false,
       1e-3,
       1,
       false,
       {},
       "1/hA heatsink to air at the design air flow, whole package [estimate: H100 SXM5 class; air-cooled HGX H100 "
       "junctions 54-72 °C under load, Latif et al. arXiv:2507.16781]."},
      {"cooling.server_air", Q::Map, "", false, {}, {}, false, {}, "Server air through the racks."},
      {"cooling.server_air.delta_t",
       Q::TemperatureDelta,
       "15 K",
       false,
       1,
       60,
       false,
       {},
       "Air temperature rise through a rack at its design air heat; sizes the server fans (DGX H100: 10.2 kW at "
       "1,105 CFM -> ~15 K) [estimate]."},
      {"cooling.server_air.recirculation",
       Q::Fraction,
       "0",
       false,
       0,
       1,
       false,
       {},
       "Share of server inlet air that is the rack's own exhaust (after its rack cooler) instead of cold-aisle air "
       "[estimate]."},
      {"cooling.server_air.rack_air_volume",
       Q::Number,
       "1.5",
       false,
       0.05,
       100,
       false,
       {},
       "Air in one rack, m^3 (heat capacity of its exhaust) [estimate]."},
      {"cooling.server_air.fan_power_fraction",
       Q::Fraction,
       "0.1",
       false,
       0,
       0.5,
       false,
       {},
       "Server fan power / the heat the server air carries at the design point; IT power (The Green Grid: fans "
       "inside IT equipment are IT), its heat goes to the server air. 0.1 ~ fans 9 % of an air-cooled server, low "
       "end of eWEEK's 10-15 % [secondary, low confidence]."},
      {"cooling.cdu",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Coolant distribution units (plant.cdu chooses the exchanger)."},
      {"cooling.cdu.racks_per_cdu",
       Q::Integer,
       "8",
       false,
       1,
       1000,
       false,
       {},
       "Racks per CDU (8 NVL72 racks ~1.2 MW = one DGX GB200 SU; STULZ 1,200 kW unit, §6.2)."},
      {"cooling.cdu.facility_flow_ratio",
       Q::Number,
       "1",
       false,
       0.1,
       100,
       false,
       {},
       "Facility-side / rack-side heat capacity rate of a CDU (STULZ: equal flows, §6.2)."},
      {"cooling.pumps", Q::Map, "", false, {}, {}, false, {}, "CDU pump group."},
      {"cooling.pumps.running", Q::Integer, "2", false, 1, 64, false, {}, "Running pumps N per CDU."},
      {"cooling.pumps.spare", Q::Integer, "1", false, 0, 64, false, {}, "Standby pumps (N+1: 1; brief)."},
      {"cooling.pumps.capacity_margin",
       Q::Number,
       "1.2",
       false,
       0.1,
       10,
       false,
       {},
       "Installed running capacity / design flow (brief: pumps at 120 % of the load)."},
      {"cooling.pumps.failover_time",
       Q::Time,
       "5 s",
       false,
       0,
       3600,
       false,
       {},
       "Time for the standby pump to take over (NVIDIA CDU qualification <= 5 s, §6.2; brief < 10 s)."},
      {"cooling.pumps.power_fraction",
       Q::Fraction,
       "0.017",
       false,
       0,
       1,
       false,
       {},
       "Pump power / design heat (STULZ SCR: 20 kW / 1,200 kW, §6.2)."},
      {"cooling.room", Q::Map, "", false, {}, {}, false, {}, "Hall air (held by CRAH units)."},
      {"cooling.room.temperature",
       Q::Temperature,
       "25 degC",
       false,
       units::kZeroCelsius,
       323.15,
       false,
       {},
       "Cold-aisle air temperature (ASHRAE A1 recommended 18-27 °C)."},
      {"cooling.room.rh_min",
       Q::Fraction,
       "0.4",
       false,
       0.01,
       1,
       false,
       {},
       "Lowest relative humidity (brief: 40-60 %)."},
      {"cooling.room.rh_max",
       Q::Fraction,
       "0.6",
       false,
       0.01,
       1,
       false,
       {},
       "Highest relative humidity; sets the dew point checked."},
      {"cooling.heat_rejection",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Climate and facility heat rejection (plant.heat_rejection chooses it)."},
      {"cooling.heat_rejection.outdoor_temp",
       Q::Temperature,
       "12 degC",
       false,
       223.15,
       333.15,
       false,
       {},
       "Outdoor dry-bulb (North East England annual mean ~9-10 °C) [estimate]; the daily mean when a swing is set."},
      {"cooling.heat_rejection.outdoor_rh",
       Q::Fraction,
       "0.8",
       false,
       0.05,
       1,
       false,
       {},
       "Outdoor relative humidity, sets the wet bulb of a cooling tower (UK annual mean ~80 %) [estimate]."},
      {"cooling.heat_rejection.outdoor_daily_swing",
       Q::TemperatureDelta,
       "0 K",
       false,
       0,
       40,
       false,
       {},
       "Daily outdoor range (max - min); T(t) = outdoor_temp + swing/2 cos(2 pi (t - peak)/24 h) "
       "(cosine diurnal profile, ASHRAE Fundamentals ch. 14). 0 = constant. Ignored by plant.heat_rejection fixed."},
      {"cooling.heat_rejection.outdoor_peak_time",
       Q::Time,
       "15 h",
       false,
       0,
       units::kDay,
       false,
       {},
       "Time of day of the outdoor maximum (ASHRAE design day: ~15:00), after midnight; the run starts at midnight "
       "(t = 0, also the origin of cooling.faults[].at)."},
      {"cooling.heat_rejection.dry_cooler_approach",
       Q::TemperatureDelta,
       "5 K",
       false,
       0,
       30,
       false,
       {},
       "Dry-cooler approach to outdoor air (NVIDIA DSX raised-bed dry cooler, §6.2)."},
      {"cooling.heat_rejection.chiller_cop",
       Q::Number,
       "5",
       false,
       0.5,
       30,
       false,
       {},
       "Chiller COP, also for the CRAH chilled water [estimate]."},
      {"cooling.air_fallback",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Auxiliary air cooling when liquid cooling fails."},
      {"cooling.air_fallback.capacity_per_rack",
       Q::Power,
       "20 kW",
       false,
       0,
       1e6,
       false,
       {},
       "Heat the auxiliary air removes per rack (brief: air loses efficiency above ~20 kW/rack)."},
      {"cooling.air_fallback.switch_time",
       Q::Time,
       "60 s",
       false,
       0,
       3600,
       false,
       {},
       "Time from a CDU loss until the auxiliary air cooling runs (brief: interruption < 5 min)."},
      {"cooling.limits", Q::Map, "", false, {}, {}, false, {}, "Checklist limits (product brief, Cooling)."},
      {"cooling.limits.inlet_max",
       Q::Temperature,
       "25 degC",
       false,
       units::kZeroCelsius,
       373.15,
       false,
       {},
       "Coolant inlet limit."},
      {"cooling.limits.outlet_max",
       Q::Temperature,
       "40 degC",
       false,
       units::kZeroCelsius,
       373.15,
       false,
       {},
       "Coolant outlet limit."},
      {"cooling.limits.delta_t_max", Q::TemperatureDelta, "15 K", false, 0.5, 100, false, {}, "Loop ΔT limit."},
      {"cooling.limits.hotspot_max",
       Q::Temperature,
       "60 degC",
       false,
       units::kZeroCelsius,
       373.15,
       false,
       {},
       "Hot-spot (cold plate) limit."},
      {"cooling.limits.air_inlet_class",
       Q::String,
       "A1",
       false,
       {},
       {},
       false,
       {"A1", "A2", "A3", "A4"},
       "ASHRAE class whose allowable server inlet air range is checked (A1 15-32, A2 10-35, A3 5-40, A4 5-45 °C; "
       "ASHRAE TC9.9 Thermal Guidelines 2011)."},
      {"cooling.limits.interruption_max",
       Q::Time,
       "5 min",
       false,
       1,
       units::kDay,
       false,
       {},
       "Longest training interruption on a liquid-cooling fault (brief: fall back to air with an interruption under 5 "
       "min)."},
      {"cooling.limits.flow_min",
       Q::VolumeFlow,
       "0.5 L/min",
       false,
       0,
       kColdPlateFlowMax,
       false,
       {},
       "Lowest flow per GPU (brief); at most 5 L/min, like cooling.flow_per_gpu.",
       {},
       {},
       kColdPlateFlowSource},
      {"cooling.limits.flow_max",
       Q::VolumeFlow,
       "1 L/min",
       false,
       0,
       kColdPlateFlowMax,
       false,
       {},
       "Highest flow per GPU (brief); at most 5 L/min, like cooling.flow_per_gpu.",
       {},
       {},
       kColdPlateFlowSource},
      {"cooling.limits.gpu_temp_limit",
       Q::Temperature,
       "",
       false,
       units::kZeroCelsius,
       400,
       false,
       {},
       "GPU junction throttle threshold; default: the GPU's (compute catalogue, throttle_temperature; H100 87 °C, "
       "published-figures §6.1)."},
      {"cooling.limits.pue_max", Q::Number, "1.2", false, 1, 5, false, {}, "PUE alarm level (brief)."},
      {"cooling.limits.failover_max", Q::Time, "10 s", false, 0.1, 3600, false, {}, "Pump failover limit (brief)."},
      {"cooling.limits.rack_air_max",
       Q::Power,
       "20 kW",
       false,
       100,
       1e6,
       false,
       {},
       "Rack heat air can carry (brief)."},
      {"cooling.limits.dew_point_margin",
       Q::TemperatureDelta,
       "1 K",
       false,
       0,
       20,
       false,
       {},
       "Coldest water above the dew point (IBM RDHx: 18 °C water, 17 °C max dew point, §6.2)."},
      {"cooling.throttle", Q::Map, "", false, {}, {}, false, {}, "GPU DVFS throttling."},
      {"cooling.throttle.band",
       Q::TemperatureDelta,
       "5 K",
       false,
       0.1,
       50,
       false,
       {},
       "Static map: clock reaches min_clock this far above the limit."},
      {"cooling.throttle.min_clock", Q::Fraction, "0.5", false, 0.05, 1, false, {}, "Lowest clock factor [estimate]."},
      {"cooling.throttle.shutdown_temp",
       Q::Temperature,
       "",
       false,
       units::kZeroCelsius,
       400,
       false,
       {},
       "Thermal shutdown; default: the GPU's (compute catalogue, shutdown_temperature; A100/H100 92 °C, §6.1)."},
      {"cooling_monitoring",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Monitoring policy in the planners' own format (product brief, 'Monitoring'), key names and units as written "
       "there."},
      {"cooling_monitoring.sensors", Q::List, "", false, {}, {}, false, {}, "Sensors with thresholds."},
      {"cooling_monitoring.sensors[].type",
       Q::String,
       "temperature",
       false,
       {},
       {},
       false,
       {"temperature", "flow_rate", "flow", "pue", "power"},
       "Sensor type (flow = flow_rate)."},
      {"cooling_monitoring.sensors[].location",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       kLocations,
       "Where the sensor reads: temperatures (GPU inlet = rack-loop supply, GPU outlet = cold-plate branch outlet, "
       "server inlet = server inlet air, ...); flow at 'main loop' (a CDU's whole rack loop, the lowest) or 'loop "
       "flow' "
       "(per GPU); PUE; rack power."},
      {"cooling_monitoring.sensors[].threshold",
       Q::Number,
       "",
       true,
       {},
       {},
       false,
       {},
       "Alert threshold, of the sensor type's kind: a temperature for temperature (alerts above; '85 degC', "
       "'185 degF', '358.15 K'), a volume flow for flow_rate (alerts below; '10 L/min', '2.6 gpm'; the loop's "
       "total at 'main loop', per GPU at 'loop flow', at most 5 L/min there, like cooling.flow_per_gpu), a power per "
       "rack for power (alerts "
       "above; '30 kW'), a plain PUE for pue. A unit of another kind is an error. A plain number is read in the "
       "brief's units: °C, L/min, kW per rack (85 = '85 degC' for a temperature sensor).",
       "type",
       {{"temperature", Q::Temperature, "degC", units::from_celsius(-50), units::from_celsius(150)},
        {"flow_rate", Q::VolumeFlow, "L/min", 0.0, 1e5 * units::kLitre / units::kMinute},
        {"flow", Q::VolumeFlow, "L/min", 0.0, 1e5 * units::kLitre / units::kMinute},
        {"pue", Q::Number, "", 1.0, 10.0},
        {"power", Q::Power, "kW", 0.0, 1e6}}},
      {"cooling_monitoring.sensors[].alert_level",
       Q::String,
       "warning",
       false,
       {},
       {},
       false,
       {"warning", "critical"},
       "Alert level."},
      {"cooling_monitoring.sensors[].hysteresis",
       Q::Number,
       "",
       false,
       {},
       {},
       false,
       {},
       "Clear band (deadband) of the alert, of the threshold's kind: a raised alert clears only once the reading is "
       "back past the threshold by this much (a temperature, power or PUE alert at or below threshold - hysteresis; "
       "a flow alert, raised below, at or above threshold + hysteresis): '2 K' for a temperature, '5 L/min' for a "
       "flow, '2 kW' for a power, a plain number for a PUE; a plain number is K, L/min, kW (Redfish Sensor "
       "Threshold.HysteresisReading, IPMI sensor hysteresis). Default none (0): the alert clears as soon as the "
       "reading is back, and a response action that brings it back chatters. The clear level must stay within the "
       "threshold's range.",
       "type",
       {{"temperature", Q::TemperatureDelta, "K", 0.0, 200.0},
        {"flow_rate", Q::VolumeFlow, "L/min", 0.0, 1e5 * units::kLitre / units::kMinute},
        {"flow", Q::VolumeFlow, "L/min", 0.0, 1e5 * units::kLitre / units::kMinute},
        {"pue", Q::Number, "", 0.0, 9.0},
        {"power", Q::Power, "kW", 0.0, 1e6}}},
      {"cooling_monitoring.response_actions",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       "Actions taken when an alert level is raised."},
      {"cooling_monitoring.response_actions[].alert_level",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       {"warning", "critical"},
       "Alert level."},
      {"cooling_monitoring.response_actions[].action",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       {"notify", "adjust pump speed", "reduce GPU power limit"},
       "adjust pump speed: run the pumps at full capacity; reduce GPU power limit: cap GPUs at power_limit_fraction x "
       "TDP."},
      {"cooling_monitoring.response_actions[].hold",
       Q::Time,
       "0 s",
       false,
       0,
       1e9,
       false,
       {},
       "How long the action stays on after the last alert calling for it clears (Prometheus alerting rules' "
       "keep_firing_for, default 0 s there too; Redfish Threshold.HysteresisDuration); an alert raised again within "
       "it continues the same action. Default 0: released when the alert clears."},
      {"cooling_monitoring.power_limit_fraction",
       Q::Fraction,
       "0.8",
       false,
       0.05,
       1,
       false,
       {},
       "GPU power cap of 'reduce GPU power limit'."},
      {"cooling.faults", Q::List, "", false, {}, {}, false, {}, "Scheduled cooling faults (transient simulation)."},
      {"cooling.faults[].type", Q::String, "", true, {}, {}, false, fault_type_names(), fault_types_doc()},
      {"cooling.faults[].at",
       Q::Time,
       "0 s",
       false,
       0,
       1e9,
       false,
       {},
       "Start time, from the start of the run: t = 0 is the training start, taken as midnight of its first day, "
       "the origin of the daily outdoor cycle (cooling.heat_rejection.outdoor_peak_time); so with an outdoor swing "
       "\"15 h\" starts the fault at the outdoor maximum and \"39 h\" at the next day's."},
      {"cooling.faults[].duration",
       Q::Time,
       "",
       false,
       0.1,
       1e12,
       false,
       {},
       "How long the fault lasts. None (the default): not repaired, it lasts to the end of the run (its verdict "
       "judges its first 72 h and takes its last state on from there: docs/thermal.md, section 4)."},
      {"cooling.faults[].target",
       Q::Integer,
       "-1",
       false,
       -1,
       1e7,
       false,
       {},
       "CDU (pump_failure, cdu_loss) or rack (rdhx_fan_failure) index; -1 = all."},
      {"cooling.faults[].magnitude",
       Q::Number,
       "",
       false,
       {},
       {},
       false,
       {},
       "How large the fault is, by type: supply_excursion, the facility supply's rise ('5 K', a plain number is K; "
       "default 0 K); "
       "pump_failure, the running pumps of each targeted CDU that stop at once (a whole number from 1 to "
       "cooling.pumps.running; default 1; the standby pumps, cooling.pumps.spare, take over one each). cdu_loss (the "
       "whole CDU's heat exchange is lost) and rdhx_fan_failure (all of the rack cooler's fans stop) take none: "
       "writing one is an error.",
       "type",
       {{"supply_excursion", Q::TemperatureDelta, "K", 0.0, 100.0},
        {"pump_failure", Q::Integer, "", 1.0, 1000.0},
        {"cdu_loss", Q::String, "", {}, {}},
        {"rdhx_fan_failure", Q::String, "", {}, {}}}},
      {"power",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "IT and facility power model beyond the GPU (GPU TDP/idle come from the catalogue)."},
      {"power.cpu_per_gpu",
       Q::Power,
       "150 W",
       false,
       0,
       1e4,
       false,
       {},
       "Host CPU power per GPU (Grace ~300 W per 2 GPUs) [estimate]."},
      {"power.nic_per_gpu",
       Q::Power,
       "25 W",
       false,
       0,
       1e3,
       false,
       {},
       "Scale-out NIC power per GPU (ConnectX-7) [estimate]."},
      {"power.rack_overhead",
       Q::Power,
       "9 kW",
       false,
       0,
       1e6,
       false,
       {},
       "Per 72-GPU rack: NVLink switch trays, management, fans (NVL72 ~120 kW total, published-figures §5.2) "
       "[estimate]."},
      {"power.psu_efficiency",
       Q::Fraction,
       "0.95",
       false,
       0.5,
       1,
       false,
       {},
       "Rack power-shelf efficiency [estimate]."},
      {"power.comm_factor",
       Q::Fraction,
       "0.35",
       false,
       0,
       1,
       false,
       {},
       "Dynamic power of a GPU in exposed communication (no compute kernel running) relative to computing; "
       "communication hidden under compute adds none (docs/thermal.md section 2) [estimate]."},
      {"power.switch_power",
       Q::Power,
       "1 kW",
       false,
       0,
       1e5,
       false,
       {},
       "Scale-out switch incl. optics (QM9700 class) [estimate]."},
      {"power.distribution_loss",
       Q::Fraction,
       "0.03",
       false,
       0,
       0.5,
       false,
       {},
       "UPS and transformer losses, share of facility power [estimate]."},
  };
  for (const auto& c : components())
    if (c.schema) c.schema(out);
  return out;
}

namespace {
using keys::integer;
using keys::num;
using keys::text;
using units::kZeroCelsius;
std::string fmt_num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}
}  // namespace

// One assignment per key of schema() (long by nature; kept in the table's order).
CoolingSpec spec_from(const Params& root) {
  CoolingSpec c;
  c.coolant = text(root, "cooling.coolant", c.coolant);
  c.flow_per_gpu = num(root, "cooling.flow_per_gpu", c.flow_per_gpu);
  c.facility_supply = num(root, "cooling.facility_supply", c.facility_supply);
  c.cdu_approach = num(root, "cooling.cdu_approach", c.cdu_approach);
  c.liquid_fraction = num(root, "cooling.liquid_fraction", c.liquid_fraction);
  auto& pl = c.plant;
  pl.chip = text(root, "cooling.plant.chip", pl.chip);
  pl.rack = text(root, "cooling.plant.rack", pl.rack);
  pl.room = text(root, "cooling.plant.room", pl.room);
  pl.cdu = text(root, "cooling.plant.cdu", pl.cdu);
  pl.heat_rejection = text(root, "cooling.plant.heat_rejection", pl.heat_rejection);
  c.heatsink.r_junction_sink = num(root, "cooling.heatsink.r_junction_sink", c.heatsink.r_junction_sink);
  c.heatsink.r_sink_air = num(root, "cooling.heatsink.r_sink_air", c.heatsink.r_sink_air);
  c.server_air.delta_t = num(root, "cooling.server_air.delta_t", c.server_air.delta_t);
  c.server_air.recirculation = num(root, "cooling.server_air.recirculation", c.server_air.recirculation);
  c.server_air.rack_air_volume = num(root, "cooling.server_air.rack_air_volume", c.server_air.rack_air_volume);
  c.server_air.fan_power_fraction = num(root, "cooling.server_air.fan_power_fraction", c.server_air.fan_power_fraction);
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
  auto& rj = c.rejection;
  rj.outdoor_temp = num(root, "cooling.heat_rejection.outdoor_temp", rj.outdoor_temp);
  rj.outdoor_rh = num(root, "cooling.heat_rejection.outdoor_rh", rj.outdoor_rh);
  rj.dry_cooler_approach = num(root, "cooling.heat_rejection.dry_cooler_approach", rj.dry_cooler_approach);
  rj.outdoor_daily_swing = num(root, "cooling.heat_rejection.outdoor_daily_swing", rj.outdoor_daily_swing);
  rj.outdoor_peak_time = num(root, "cooling.heat_rejection.outdoor_peak_time", rj.outdoor_peak_time);
  rj.chiller_cop = num(root, "cooling.heat_rejection.chiller_cop", rj.chiller_cop);
  c.air_fallback.capacity_per_rack =
      num(root, "cooling.air_fallback.capacity_per_rack", c.air_fallback.capacity_per_rack);
  c.air_fallback.switch_time = num(root, "cooling.air_fallback.switch_time", c.air_fallback.switch_time);
  auto& l = c.limits;
  l.inlet_max = num(root, "cooling.limits.inlet_max", l.inlet_max);
  l.outlet_max = num(root, "cooling.limits.outlet_max", l.outlet_max);
  l.delta_t_max = num(root, "cooling.limits.delta_t_max", l.delta_t_max);
  l.hotspot_max = num(root, "cooling.limits.hotspot_max", l.hotspot_max);
  l.flow_min = num(root, "cooling.limits.flow_min", l.flow_min);
  l.flow_max = num(root, "cooling.limits.flow_max", l.flow_max);
  // A band with its ends the other way round fails the flow check at every flow: an input slip.
  if (!(l.flow_min <= l.flow_max)) {
    char band[128];
    std::snprintf(band, sizeof band, "a flow band with cooling.limits.flow_min (%.3g L/min) <= flow_max (%.3g L/min)",
                  l.flow_min * 60000, l.flow_max * 60000);
    root.invalid(root.given("cooling.limits.flow_max") ? "cooling.limits.flow_max" : "cooling.limits.flow_min", band);
  }
  l.gpu_temp_limit = num(root, "cooling.limits.gpu_temp_limit", l.gpu_temp_limit);
  l.pue_max = num(root, "cooling.limits.pue_max", l.pue_max);
  l.failover_max = num(root, "cooling.limits.failover_max", l.failover_max);
  l.rack_air_max = num(root, "cooling.limits.rack_air_max", l.rack_air_max);
  l.dew_point_margin = num(root, "cooling.limits.dew_point_margin", l.dew_point_margin);
  l.air_inlet_class = text(root, "cooling.limits.air_inlet_class", l.air_inlet_class);
  l.interruption_max = num(root, "cooling.limits.interruption_max", l.interruption_max);
  c.throttle.band = num(root, "cooling.throttle.band", c.throttle.band);
  c.throttle.min_clock = num(root, "cooling.throttle.min_clock", c.throttle.min_clock);
  c.throttle.shutdown_temp = num(root, "cooling.throttle.shutdown_temp", c.throttle.shutdown_temp);
  for (const auto& comp : components())
    if (comp.read) comp.read(root, c);

  // Monitoring policy (the brief's cooling_monitoring): thresholds arrive in SI, of the kind their
  // sensor type says (the loader parses them by `type`, a plain number in the brief's units).
  for (const Params& s : root.list("cooling_monitoring.sensors")) {
    SensorSpec ss;
    ss.type = text(s, "type", "temperature");
    if (ss.type == "flow") ss.type = "flow_rate";
    ss.location = s.text("location");
    // The location before the threshold: the threshold's range depends on the location, and a
    // location of another type ('GPU inlet' for a flow_rate) is the slip to report, not the range.
    if (const std::string lt = location_type(ss.location); !lt.empty() && lt != ss.type)
      s.invalid("location", "a location a " + ss.type + " sensor reads: " + locations_of(ss.type));
    const double si = s.number("threshold");
    // Bounded per type in the brief's units; a flow at "main loop" is a whole CDU loop (hundreds of
    // L/min), at "loop flow" one GPU's.
    const double th = ss.type == "temperature" ? si - kZeroCelsius
                      : ss.type == "flow_rate" ? si * 60000.0
                      : ss.type == "power"     ? si / 1e3
                                               : si;
    const bool total = ss.location == "main loop";
    const auto [lo, hi, unit] = ss.type == "temperature" ? std::tuple{-50.0, 150.0, "degC"}
                                : ss.type == "flow_rate" ? std::tuple{0.0, total ? 1e5 : kColdPlateFlowMax * 60000.0,
                                                                      total ? "L/min" : "L/min per GPU"}
                                : ss.type == "pue"       ? std::tuple{1.0, 10.0, "(plain PUE)"}
                                                         : std::tuple{0.0, 1000.0, "kW per rack"};
    if (!(th >= lo && th <= hi))
      s.invalid("threshold", "a " + ss.type + " threshold from " + fmt_num(lo) + " to " + fmt_num(hi) + " " + unit +
                                 (ss.type == "flow_rate" && !total ? std::string(" (") + kColdPlateFlowSource + ")"
                                                                   : std::string()));
    ss.threshold = si;
    ss.alert_level = text(s, "alert_level", "warning");
    // The clear level (threshold -/+ hysteresis) in the same range: past it the alert never clears.
    ss.hysteresis = num(s, "hysteresis", 0);
    const bool below = ss.type == "flow_rate";
    const double h = ss.type == "temperature" ? ss.hysteresis
                     : below                  ? ss.hysteresis * 60000.0
                     : ss.type == "power"     ? ss.hysteresis / 1e3
                                              : ss.hysteresis;
    const double clear = below ? th + h : th - h;
    if (!(clear >= lo && clear <= hi))
      s.invalid("hysteresis", "a clear band that keeps the clear level (threshold " + std::string(below ? "+" : "-") +
                                  " hysteresis = " + fmt_num(clear) + " " + unit + ") within the " + ss.type +
                                  " range, " + fmt_num(lo) + " to " + fmt_num(hi) + " " + unit +
                                  ": past it the alert would never clear (threshold " + fmt_num(th) + " " + unit + ")");
    c.monitoring.sensors.push_back(ss);
  }
  for (const Params& a : root.list("cooling_monitoring.response_actions"))
    c.monitoring.actions.push_back({a.text("alert_level"), a.text("action"), num(a, "hold", 0)});
  c.monitoring.power_limit_fraction =
      num(root, "cooling_monitoring.power_limit_fraction", c.monitoring.power_limit_fraction);
  for (const Params& f : root.list("cooling.faults")) {
    FaultSpec fs;
    fs.type = f.text("type");
    fs.at = num(f, "at", 0);
    fs.duration = num(f, "duration", fs.duration);
    fs.target = integer(f, "target", -1);
    // magnitude by type (the loader parsed it as the type's kind): a supply excursion's rise, a pump
    // failure's pumps; the types whose fault is all-or-nothing take none (it would be ignored).
    if (f.given("magnitude")) {
      if (fs.type == "supply_excursion") {
        fs.magnitude = f.number("magnitude");
      } else if (fs.type == "pump_failure") {
        fs.pumps = static_cast<int>(f.integer("magnitude"));
        if (fs.pumps > c.pumps.running)
          f.invalid("magnitude", "a number of pumps from 1 to cooling.pumps.running (" +
                                     std::to_string(c.pumps.running) +
                                     "): a pump_failure stops running pumps of each targeted CDU");
      } else if (fs.type == "cdu_loss" || fs.type == "rdhx_fan_failure") {
        f.invalid("magnitude", std::string("no magnitude for ") + fs.type + " (" +
                                   (fs.type == "cdu_loss" ? "the CDU's whole heat exchange is lost"
                                                          : "all of the rack cooler's fans stop") +
                                   "; magnitude is a supply_excursion's rise, '5 K', or a pump_failure's number of "
                                   "pumps): remove it");
      }
    }
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

  // The humidity band's ends out of order: blame the end the file gives (rh_min 0.7 alone is above
  // the default rh_max 0.6, and rh_min is the key to change), naming the other end's value.
  if (c.room.rh_min > c.room.rh_max) {
    auto pct = [](double f) {
      char b[32];
      std::snprintf(b, sizeof b, "%g", f);
      return std::string(b);
    };
    const bool max_only = root.given("cooling.room.rh_max") && !root.given("cooling.room.rh_min");
    if (max_only)
      root.invalid("cooling.room.rh_max", "at least cooling.room.rh_min (" + pct(c.room.rh_min) +
                                              ", its default): the band's high end (0 < rh_min <= rh_max <= 1)");
    root.invalid("cooling.room.rh_min", "at most cooling.room.rh_max (" + pct(c.room.rh_max) +
                                            (root.given("cooling.room.rh_max") ? "" : ", its default") +
                                            "): the band's low end (0 < rh_min <= rh_max <= 1)");
  }
  try {
    validate(c);
  } catch (const InvalidParameter& e) {
    // Re-raise through Params so the message carries the raw text the user wrote.
    if (root.has(e.key())) root.invalid(e.key(), e.expected());
    throw;
  }
  return c;
}

// One check per cross-key rule (long by nature: a list of independent rules).
void validate(const CoolingSpec& c) {
  auto bad = [](const std::string& key, double v, const std::string& expected) {
    throw InvalidParameter(key, std::to_string(v), expected);
  };
  coolant(c.coolant);  // throws for an unknown coolant
  make_plant(c);       // throws for an unknown component (naming the valid ones) or a bad combination
  if (!(c.flow_per_gpu > 0)) bad("cooling.flow_per_gpu", c.flow_per_gpu * 60000, "a positive flow (L/min)");
  if (!(c.rdhx_effectiveness > 0 && c.rdhx_effectiveness <= 1))
    bad("cooling.rdhx.effectiveness", c.rdhx_effectiveness, "an effectiveness in (0, 1]");
  if (!(c.rdhx.passive_effectiveness >= 0 && c.rdhx.passive_effectiveness <= 1))
    bad("cooling.rdhx.passive_effectiveness", c.rdhx.passive_effectiveness, "an effectiveness in [0, 1]");
  // 0 is an air-cooled site; a cold plate capturing under 1 % of the heat is no liquid-cooled design
  // (and its ~1e-30 conductances made the thermal network singular).
  if (!(c.liquid_fraction == 0 || (c.liquid_fraction >= 0.01 && c.liquid_fraction <= 1)))
    bad("cooling.liquid_fraction", c.liquid_fraction, "0 (air-cooled) or a fraction from 0.01 to 1");
  if (!(c.cdu_approach > 0)) bad("cooling.cdu_approach", c.cdu_approach, "a positive approach (K)");
  if (!(c.cold_plate.r_junction_plate > 0))
    bad("cooling.cold_plate.r_junction_plate", c.cold_plate.r_junction_plate, "a positive resistance");
  if (!(c.cold_plate.r_convection > 0))
    bad("cooling.cold_plate.r_convection", c.cold_plate.r_convection, "a positive resistance");
  if (!(c.cold_plate.ref_flow > 0)) bad("cooling.cold_plate.ref_flow", c.cold_plate.ref_flow, "a positive flow");
  if (!(c.heatsink.r_junction_sink > 0))
    bad("cooling.heatsink.r_junction_sink", c.heatsink.r_junction_sink, "a positive resistance");
  if (!(c.heatsink.r_sink_air > 0)) bad("cooling.heatsink.r_sink_air", c.heatsink.r_sink_air, "a positive resistance");
  if (!(c.server_air.delta_t > 0))
    bad("cooling.server_air.delta_t", c.server_air.delta_t, "a positive temperature rise");
  if (!(c.server_air.recirculation >= 0 && c.server_air.recirculation < 1))
    bad("cooling.server_air.recirculation", c.server_air.recirculation,
        "a share in [0, 1) (some cold-aisle air must enter)");
  if (c.cdu.racks_per_cdu < 1) bad("cooling.cdu.racks_per_cdu", c.cdu.racks_per_cdu, "at least 1");
  if (!(c.cdu.facility_flow_ratio > 0))
    bad("cooling.cdu.facility_flow_ratio", c.cdu.facility_flow_ratio, "a positive ratio");
  if (c.pumps.running < 1) bad("cooling.pumps.running", c.pumps.running, "at least 1 running pump");
  if (c.pumps.spare < 0) bad("cooling.pumps.spare", c.pumps.spare, "0 or more standby pumps");
  if (!(c.pumps.capacity_margin > 0))
    bad("cooling.pumps.capacity_margin", c.pumps.capacity_margin, "a positive margin");
  if (!(c.pumps.failover_time >= 0)) bad("cooling.pumps.failover_time", c.pumps.failover_time, "a time >= 0");
  if (!(c.room.rh_min > 0 && c.room.rh_min <= 1))
    bad("cooling.room.rh_min", c.room.rh_min, "a relative humidity in (0, 1]");
  if (!(c.room.rh_max > 0 && c.room.rh_max <= 1))
    bad("cooling.room.rh_max", c.room.rh_max, "a relative humidity in (0, 1]");
  if (!(c.room.rh_min <= c.room.rh_max))  // the band's low end is the one to blame (reading: by the key given)
    bad("cooling.room.rh_min", c.room.rh_min, "at most cooling.room.rh_max (the band 0 < rh_min <= rh_max <= 1)");
  if (!(c.rejection.outdoor_daily_swing >= 0))
    bad("cooling.heat_rejection.outdoor_daily_swing", c.rejection.outdoor_daily_swing, "a range >= 0 K");
  if (!(c.rejection.outdoor_rh > 0 && c.rejection.outdoor_rh <= 1))
    bad("cooling.heat_rejection.outdoor_rh", c.rejection.outdoor_rh, "a relative humidity in (0, 1]");
  if (!(c.rejection.chiller_cop > 0))
    bad("cooling.heat_rejection.chiller_cop", c.rejection.chiller_cop, "a positive COP");
  if (!(c.throttle.min_clock > 0 && c.throttle.min_clock <= 1))
    bad("cooling.throttle.min_clock", c.throttle.min_clock, "a clock factor in (0, 1]");
  if (!(c.power.psu_efficiency > 0 && c.power.psu_efficiency <= 1))
    bad("power.psu_efficiency", c.power.psu_efficiency, "an efficiency in (0, 1]");
  if (!(c.power.distribution_loss >= 0 && c.power.distribution_loss < 1))
    bad("power.distribution_loss", c.power.distribution_loss, "a fraction in [0, 1)");
  const std::string cls = c.limits.air_inlet_class;
  if (cls != "A1" && cls != "A2" && cls != "A3" && cls != "A4")
    throw InvalidParameter("cooling.limits.air_inlet_class", cls, "an ASHRAE air class: A1, A2, A3 or A4");
  for (size_t i = 0; i < c.monitoring.sensors.size(); ++i) {
    const auto& s = c.monitoring.sensors[i];
    const std::string k = "cooling_monitoring.sensors[" + std::to_string(i) + "]";
    if (!(s.hysteresis >= 0)) bad(k + ".hysteresis", s.hysteresis, "a clear band >= 0 (SI, the threshold's kind)");
    std::string type = s.type == "flow" ? "flow_rate" : s.type;
    if (type != "temperature" && type != "flow_rate" && type != "pue" && type != "power")
      throw InvalidParameter(k + ".type", s.type, "temperature, flow_rate, pue or power");
    if (location_type(s.location) != type)
      throw InvalidParameter(k + ".location", s.location,
                             "a location a " + type + " sensor reads: " + locations_of(type));
    if (s.alert_level != "warning" && s.alert_level != "critical")
      throw InvalidParameter(k + ".alert_level", s.alert_level, "warning or critical");
  }
  for (size_t i = 0; i < c.monitoring.actions.size(); ++i) {
    const auto& a = c.monitoring.actions[i];
    const std::string k = "cooling_monitoring.response_actions[" + std::to_string(i) + "]";
    if (!(a.hold >= 0)) bad(k + ".hold", a.hold, "a time >= 0 s");
    if (a.action != "notify" && a.action != "adjust pump speed" && a.action != "reduce GPU power limit")
      throw InvalidParameter(k + ".action", a.action, "notify, adjust pump speed or reduce GPU power limit");
    // An action runs only when a sensor of its alert level crosses its threshold (transient.cpp: the
    // built-in limit monitors trigger none), so an action of a level no sensor has would never run.
    std::string levels;
    bool raised = false;
    for (const auto& s : c.monitoring.sensors) {
      raised = raised || s.alert_level == a.alert_level;
      if (levels.find(s.alert_level) == std::string::npos) levels += (levels.empty() ? "" : ", ") + s.alert_level;
    }
    if (!raised)
      throw InvalidParameter(k + ".alert_level", a.alert_level,
                             "the alert level of a sensor in cooling_monitoring.sensors (" +
                                 (levels.empty() ? std::string("there are none") : "they raise " + levels) +
                                 "): no sensor raises '" + a.alert_level + "', so '" + a.action + "' would never run");
  }
  const bool loop = has_liquid_loop(c);
  for (size_t i = 0; i < c.faults.size(); ++i) {
    const auto& f = c.faults[i];
    const std::string k = "cooling.faults[" + std::to_string(i) + "]";
    const FaultType& type = fault_type(f.type, k + ".type");
    if (!loop && type.needs_liquid_loop)
      throw InvalidParameter(k + ".type", f.type,
                             "a fault of equipment the plant has (air-cooled: no CDU or pump; "
                             "supply_excursion or rdhx_fan_failure)");
    if (type.needs_rack_cooler && c.plant.rack == "none")
      throw InvalidParameter(k + ".type", f.type,
                             "a fault of equipment the plant has (plant.rack none: no rack cooler fans)");
    if (!(f.at >= 0)) bad(k + ".at", f.at, "a time >= 0");
    if (!(f.duration > 0)) bad(k + ".duration", f.duration, "a positive duration");
    if (f.target < -1) bad(k + ".target", f.target, "an index >= 0, or -1 for all");
    // What a type does not read must not be set (it would be ignored).
    if (f.type == "supply_excursion" ? !(f.magnitude >= 0) : f.magnitude != 0)
      bad(k + ".magnitude", f.magnitude,
          f.type == "supply_excursion" ? "a rise >= 0 K"
                                       : "no magnitude: only supply_excursion has one (pump_failure: pumps)");
    if (f.type == "pump_failure" ? !(f.pumps >= 1 && f.pumps <= c.pumps.running) : f.pumps != 1)
      bad(k + ".magnitude", f.pumps,
          f.type == "pump_failure"
              ? "a number of pumps from 1 to cooling.pumps.running (" + std::to_string(c.pumps.running) + ")"
              : "no pump count: only pump_failure stops pumps");
  }
}

}  // namespace aidcsim::thermal
