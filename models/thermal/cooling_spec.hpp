#pragma once
// CoolingSpec: liquid loop, CDUs, pumps, rear doors, facility water, heat rejection, power model,
// throttling, monitoring and scheduled faults (SI; temperatures in K, flows in m^3/s, power in W).
// Owner: models/thermal. Filled by spec_from() (schema.cpp) from the cooling.* and power.* keys.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "models/common/units.hpp"

namespace aidcsim::thermal {

/// Checklist limits. Defaults: product brief "Cooling"/"Power" sections unless noted.
struct CoolingLimits {
  double inlet_max = 298.15;      ///< K, coolant inlet to the cold plates (brief: < 25 °C)
  double outlet_max = 313.15;     ///< K, coolant outlet (brief: < 40 °C)
  double delta_t_max = 15.0;      ///< K, loop ΔT (brief: < 15 K)
  double hotspot_max = 333.15;    ///< K, cold-plate hot spot (brief: < 60 °C)
  double flow_min = 0.5 / 60000;  ///< m^3/s per GPU (brief: 0.5 L/min)
  double flow_max = 1.0 / 60000;  ///< m^3/s per GPU (brief: 1 L/min)
  double gpu_temp_limit =
      360.15;                  ///< K, GPU junction throttle threshold (the GPU's, compute::GpuSpec; H100 87 °C, §6.1)
  double pue_max = 1.2;        ///< brief: alert above 1.2
  double failover_max = 10.0;  ///< s, standby pump takeover (brief: < 10 s)
  double pump_margin_min = 1.2;  ///< pumps sized at 120 % of the load (brief)
  double rack_air_max = 20e3;    ///< W per rack that air can carry efficiently (brief: ~20 kW)
  double dew_point_margin =
      1.0;  ///< K, coldest water above room dew point (IBM RDHx: 18 °C water vs 17 °C max dew point)
  std::string air_inlet_class = "A1";  ///< ASHRAE class of the server inlet air limit (A1: 15-32 °C allowable)
  double interruption_max = 300.0;     ///< s, training interruption on a liquid-cooling failure (brief: < 5 min)
};

/// Direct-to-chip cold plate of one GPU. Junction -> plate base ("case", R_jc incl. TIM), plate ->
/// coolant by the isothermal-wall e-NTU form G = C (1 - exp(-hA/C)) against the branch inlet, with
/// hA = hA0 (Q/Q0)^n x (fluid factor, coolant.hpp). Defaults: the OCP 1 kW OAM cold plate (Chen et al.,
/// "OCP OAI System Liquid Cooling Guidelines", 2023, Fig. 7-8, as tabulated in Modelica Buildings
/// LiquidCooled.Racks.LiquidSinglePhase.Data.OCP_1kW_OAM_*): case-to-inlet R of 0.0172-0.0151 K/W at
/// 2-5 L/min water is hA = 74 W/K independent of flow (laminar microchannels, Nu constant: n = 0,
/// Prandtl exponent 0); reproduced in tests/validation/test_thermal_published.cpp.
struct ColdPlateSpec {
  double r_junction_plate = 0.02;  ///< K/W junction -> plate base (case) [estimate; not published for B200/GB200]
  double r_convection = 0.0135;    ///< K/W = 1/hA0 with water at ref_flow (OCP 1 kW OAM: 1/74 W/K)
  double ref_flow = 1.0 / 60000;   ///< m^3/s, Q0
  double flow_exponent = 0.0;      ///< n in hA ~ Q^n: 0 laminar (OCP data), 0.8 turbulent (Dittus-Boelter)
  double prandtl_exponent = 0.0;   ///< m in Nu ~ Re^n Pr^m: 0 laminar fully developed, 0.4 Dittus-Boelter
  double c_junction = 60.0;        ///< J/K die + package + HBM [estimate]
  double c_plate = 400.0;          ///< J/K copper plate ~1 kg [estimate]
  double branch_volume = 0.15e-3;  ///< m^3 coolant in the plate and its hoses [estimate]
};

/// Air heatsink of the part of each GPU package that no cold plate covers (all of it when
/// liquid_fraction is 0): junction -> heatsink base (R, incl. TIM), heatsink -> server air by the
/// e-NTU form against the server inlet air, with the heatsink's share of the server air flow. Both
/// conductances scale with the uncovered share (parallel area). [estimate: an H100 SXM5 700 W
/// heatsink; validated against air-cooled HGX H100 junction temperatures 54-72 °C under load,
/// Latif et al., arXiv:2507.16781 (2025), tests/validation/test_thermal_published.cpp]
struct HeatsinkSpec {
  double r_junction_sink = 0.02;  ///< K/W junction -> heatsink base, whole package [estimate]
  double r_sink_air = 0.03;       ///< K/W = 1/hA heatsink -> air at the design air flow, whole package [estimate]
  double c_sink = 1000.0;         ///< J/K heatsink (~1.1 kg copper/aluminium) [estimate]
};

/// Server air: fans sized so that the air heat of a rack at TDP warms the air by delta_t; inlet air
/// from the cold aisle (CRAH supply), with `recirculation` of it coming back from the rack's own
/// exhaust (after the rack cooler) instead.
struct ServerAirSpec {
  double delta_t = 15.0;         ///< K air rise at design (DGX H100: 10.2 kW at 1,105 CFM max -> ~15 K) [estimate]
  double recirculation = 0.0;    ///< share of server inlet air that is recirculated exhaust [estimate]
  double rack_air_volume = 1.5;  ///< m^3 of air in a rack (heat capacity of the exhaust node) [estimate]
  /// Server fan power (DC, through the PSUs) / the heat the server air carries at the design point.
  /// IT power in PUE terms (The Green Grid counts fans inside IT equipment as IT). 0.1: fans ~9 % of
  /// an air-cooled server's power, the low end of "10 to 15 percent or more" (eWEEK, "How to
  /// Optimize the Energy Efficiency of Your Server", p. 3: 30-75 W of fans for 250-350 W of
  /// components) [secondary, low confidence].
  double fan_power_fraction = 0.1;
};

/// Single-phase immersion tank (one tank per rack): each GPU's package on an immersed heatsink ->
/// dielectric bath (forced convection), the bath circulated through the CDU at the rack-loop flow.
/// Every part of the server is in the bath: no server air. [estimate]
struct ImmersionTankSpec {
  double r_junction_case = 0.02;  ///< K/W junction -> case incl. TIM [estimate, as the cold plate]
  double r_case_fluid =
      0.04;  ///< K/W case -> dielectric via an immersed heatsink, PAO-class fluid at the design flow [estimate]
  double fluid_volume = 1.2;  ///< m^3 of dielectric per tank [estimate: 42U single-phase tank ~1-1.5 m^3]
};

/// Coolant distribution unit: liquid-to-liquid (counter-flow plate HX to facility water) or
/// liquid-to-air (coil and fans to the hall air, e.g. CoolIT AHx); cooling.plant.cdu chooses.
struct CduSpec {
  int racks_per_cdu = 8;                ///< one DGX GB200 SU = 8 racks ~1.2 MW (STULZ 1,200 kW unit, §6.2)
  double facility_flow_ratio = 1.0;     ///< facility-side / rack-side flow (STULZ: 103.8 m^3/h each side)
  double rack_manifold_volume = 30e-3;  ///< m^3 per rack (manifolds + hoses) [estimate]
  double loop_volume = 0.3;             ///< m^3 per CDU (tank, HX, headers) [estimate]
  double air_approach = 12.0;           ///< K, liquid-to-air: rack supply - hall air at design heat [estimate]
  double air_delta_t = 15.0;            ///< K, liquid-to-air: air rise across the coil at design [estimate]
  double fan_power_fraction = 0.02;     ///< liquid-to-air fan power / design heat [estimate]
};

/// CDU pump group: N running + spare, sized at capacity_margin x design flow.
struct PumpSpec {
  int running = 2;                ///< N
  int spare = 1;                  ///< standby pumps (N+1: 1)
  double capacity_margin = 1.2;   ///< installed running capacity / design flow (brief: 120 %)
  double failover_time = 5.0;     ///< s, standby start (NVIDIA CDU qualification <= 5 s, §6.2)
  double power_fraction = 0.017;  ///< pump power / design heat (STULZ 20 kW / 1,200 kW, §6.2)
};

/// Rear-door heat exchanger (active, fan-assisted) per rack.
struct RdhxSpec {
  double passive_effectiveness = 0.35;  ///< fans failed (passive door) [estimate]
  double fan_power_fraction = 0.02;     ///< door fans / rack design air heat (0.5-2 kW on 40-75 kW doors, §6.2)
};

/// In-row cooler: air-to-water coil with its own fans between racks, taking hot-aisle air of
/// racks_per_unit racks and returning it to the cold aisle.
struct InRowCoolerSpec {
  double effectiveness = 0.75;        ///< air-side effectiveness with fans running [estimate]
  double failed_effectiveness = 0.1;  ///< fans failed: natural convection through the coil [estimate]
  int racks_per_unit = 2;             ///< racks served by one unit [estimate]
  double capacity = 60e3;             ///< W per unit (checked, not enforced) [estimate: vendor range 30-70 kW]
  double fan_power = 1500.0;          ///< W per unit [estimate]
};

/// Room (hall) air: CRAH-held cold-aisle temperature and the humidity band.
struct RoomSpec {
  double temperature = 298.15;  ///< K cold-aisle air (CRAH supply)
  double rh_min = 0.40;         ///< brief: humidity 40-60 %
  double rh_max = 0.60;
};

/// Computer-room air handler: holds the cold aisle at room.temperature and takes the heat that reaches
/// the hall air; its coil is fed by chilled water (chiller COP).
struct CrahSpec {
  double fan_power_fraction = 0.05;  ///< fan power / room heat [estimate]
  double capacity = 0.0;             ///< W for the whole hall; 0 = sized to the design room heat (checked)
};

/// Heat rejection of the facility water (cooling.plant.heat_rejection): "fixed" supply held at the set
/// point; "dry_cooler": no chiller, supply = max(set point, outdoor + approach); "chiller": dry coolers
/// pre-cool, a chiller trims to the set point (COP); "cooling_tower": open tower + plate HX, supply =
/// max(set point, wet bulb + approach), no chiller.
struct HeatRejectionSpec {
  double outdoor_temp = 285.15;      ///< K dry-bulb (North East England annual mean ~9-10 °C) [estimate]
  double outdoor_rh = 0.80;          ///< outdoor relative humidity (UK annual mean ~80 %) [estimate]
  double dry_cooler_approach = 5.0;  ///< K (NVIDIA DSX raised-bed dry cooler, §6.2)
  double tower_approach = 4.0;       ///< K to the wet bulb incl. the plate HX [estimate: towers 3-5 K + HX 1-2 K]
  /// Daily outdoor cycle (outdoor_temperature_at): T(t) = outdoor_temp + swing/2 * cos(2 pi (t - peak)/86400),
  /// t in s since midnight; a cosine approximation of the diurnal dry-bulb cycle (ASHRAE Handbook
  /// Fundamentals ch. 14 design-day profile, daily range = max - min). swing 0 = constant outdoor temp.
  double outdoor_daily_swing = 0.0;              ///< K, daily max - min [estimate; UK summer ~8-10 K]
  double outdoor_peak_time = 15 * units::kHour;  ///< s after midnight of the daily maximum (ASHRAE: ~15:00)
  double chiller_cop = 5.0;                      ///< W heat / W electric [estimate]
  double fan_power_fraction = 0.01;              ///< dry-cooler / tower fan power / heat [estimate]
  double facility_pump_fraction = 0.005;         ///< facility pumps / heat [estimate]
};

/// Components chosen per slot of the cooling plant (cooling.plant.*), looked up in the component
/// registry (components/component.hpp; names and descriptions: component_names()).
struct PlantSpec {
  std::string chip = "cold_plate";         ///< cold_plate | immersion_tank
  std::string rack = "rdhx";               ///< rdhx | in_row_cooler | none
  std::string room = "crah";               ///< crah
  std::string cdu = "liquid_to_liquid";    ///< liquid_to_liquid | liquid_to_air
  std::string heat_rejection = "chiller";  ///< fixed | dry_cooler | chiller | cooling_tower
};

/// Auxiliary air cooling used when liquid cooling is lost (brief: interruption < 5 min).
struct AirFallbackSpec {
  double capacity_per_rack = 20e3;  ///< W of heat the auxiliary air can remove per rack
  double switch_time = 60.0;        ///< s to bring it up
};

/// IT power model beyond the GPUs (per-GPU shares of a GB200 NVL72 rack; published-figures §5.2).
struct PowerSpec {
  double cpu_per_gpu = 150.0;       ///< W (Grace ~300 W per 2 GPUs incl. LPDDR5X) [estimate]
  double nic_per_gpu = 25.0;        ///< W (ConnectX-7 400G) [estimate]
  double rack_overhead = 9000.0;    ///< W per NVL72 rack: 9 NVLink switch trays, mgmt, fans [estimate]
  double psu_efficiency = 0.95;     ///< rack power shelves (losses become rack heat) [estimate]
  double comm_factor = 0.35;        ///< k_comm: dynamic power of a comm-busy GPU / compute-busy [estimate]
  double switch_power = 1000.0;     ///< W per scale-out switch incl. optics (QM9700 class) [estimate]
  double distribution_loss = 0.03;  ///< UPS + transformers, fraction of facility load [estimate]
};

/// DVFS throttling: clock factor f in [min_clock, 1]; dynamic power ~ f V^2 ~ f^3.
struct ThrottleSpec {
  double band = 5.0;              ///< K above the limit where the static map reaches min_clock
  double min_clock = 0.5;         ///< lowest clock factor
  double governor_gain = 0.02;    ///< 1/(K s) integral governor in the transient
  double power_exponent = 3.0;    ///< P_dyn ~ f^n
  double shutdown_temp = 365.15;  ///< K (the GPU's, compute::GpuSpec; A100/H100 92 °C, §6.1)
};

/// One monitoring sensor of the brief's cooling_monitoring policy. threshold is SI (K; m^3/s, per
/// GPU at "loop flow", the loop's total at "main loop"; PUE; W per rack).
struct SensorSpec {
  std::string type;      ///< temperature | flow_rate (alias flow) | pue | power
  std::string location;  ///< "GPU inlet", "GPU outlet", "GPU junction", "cold plate", "main loop", ...
  double threshold = 0;
  std::string alert_level = "warning";  ///< warning | critical
  /// Clear band, SI, of the threshold's kind (K, m^3/s, PUE, W): an alert raised above the threshold
  /// clears at or below threshold - hysteresis (a flow alert, raised below, at or above threshold +
  /// hysteresis). 0: clears as soon as the reading is back (no hysteresis).
  double hysteresis = 0;
};

/// A response to an alert level.
struct ResponseAction {
  std::string alert_level;  ///< warning | critical
  std::string action;       ///< "notify" | "adjust pump speed" | "reduce GPU power limit"
  /// s the action stays on after the last alert calling for it clears (Prometheus alerting rule
  /// keep_firing_for); an alert raised again within it continues the same action. 0: released at once.
  double hold = 0;
};

struct MonitoringSpec {
  std::vector<SensorSpec> sensors;
  std::vector<ResponseAction> actions;
  double power_limit_fraction = 0.8;  ///< GPU power cap (fraction of TDP) of "reduce GPU power limit"
};

/// A scheduled fault. target: CDU index for pump_failure/cdu_loss, rack index for rdhx_fan_failure
/// (the rack cooler's fans: rear door or in-row unit), -1 = all. The scenario key `magnitude` is
/// `magnitude` (K) for supply_excursion and `pumps` for pump_failure; the other types take none.
struct FaultSpec {
  std::string type;  ///< pump_failure | cdu_loss | supply_excursion | rdhx_fan_failure
  double at = 0;     ///< s
  double duration = std::numeric_limits<double>::infinity();  ///< s
  int target = -1;
  double magnitude = 0;  ///< K, supply_excursion's rise of the facility supply (0 for the other types)
  int pumps = 1;         ///< pump_failure: running pumps of each targeted CDU that stop, 1..pumps.running
};

struct CoolingSpec {
  std::string coolant = "water";
  double flow_per_gpu = 1.0 / 60000.0;  ///< m^3/s (1 L/min)
  double facility_supply = 291.15;      ///< K
  double cdu_approach = 4.0;            ///< K (rack-loop supply - facility supply at design)
  /// Cold-plate coverage: share of each GPU package's heat path, and of the rest of the rack's heat
  /// (CPU, NIC, switch trays, PSU losses), that cold plates serve; the rest goes through air
  /// heatsinks to the server air. 1 = fully liquid-cooled, 0 = air-cooled. The heat the liquid
  /// actually takes is an output (rack_liquid_heat): both paths leave the same junction.
  double liquid_fraction = 0.85;
  double rdhx_effectiveness = 0.7;  ///< rear door with fans running, in (0, 1] (key rdhx.effectiveness)
  PlantSpec plant;
  CoolingLimits limits;
  ColdPlateSpec cold_plate;
  HeatsinkSpec heatsink;
  ServerAirSpec server_air;
  ImmersionTankSpec immersion;
  CduSpec cdu;
  PumpSpec pumps;
  RdhxSpec rdhx;
  InRowCoolerSpec in_row;
  RoomSpec room;
  CrahSpec crah;
  HeatRejectionSpec rejection;
  AirFallbackSpec air_fallback;
  PowerSpec power;
  ThrottleSpec throttle;
  MonitoringSpec monitoring;
  std::vector<FaultSpec> faults;
};

/// Checks a spec built in code (spec_from() calls it too) for physically impossible input only:
/// non-positive flows or resistances, effectiveness outside (0, 1], an unknown coolant or plant
/// component, a bad pump group, fault or sensor. Limits (inlet, outlet, junction, ...) are never
/// checked here: a design that breaks them is simulated and its checks fail. Throws
/// InvalidParameter naming the scenario key.
void validate(const CoolingSpec& spec);

/// Outdoor dry-bulb temperature (K) at t (s since midnight of day 0; any t, periodic in 86,400 s):
/// outdoor_temp + outdoor_daily_swing/2 * cos(2 pi (t - outdoor_peak_time) / 86400). With a zero
/// swing it is outdoor_temp. Source: cosine fit of the diurnal cycle (ASHRAE Fundamentals ch. 14).
inline double outdoor_temperature_at(const HeatRejectionSpec& r, double t) {
  if (!(r.outdoor_daily_swing > 0)) return r.outdoor_temp;
  constexpr double kDay = units::kDay, kTwoPi = 6.283185307179586;
  return r.outdoor_temp + 0.5 * r.outdoor_daily_swing * std::cos(kTwoPi * (t - r.outdoor_peak_time) / kDay);
}

/// True when the scenario has a daily outdoor cycle that moves the facility water (dry cooler,
/// cooling tower) or the chiller's share (chiller); a "fixed" heat rejection ignores the outdoor
/// temperature.
inline bool has_daily_cycle(const CoolingSpec& s) {
  return s.rejection.outdoor_daily_swing > 0 && s.plant.heat_rejection != "fixed";
}

/// True when the plant has a liquid loop (rack loop, CDUs, pumps): immersion tanks, or cold plates
/// covering some of the heat (liquid_fraction > 0).
inline bool has_liquid_loop(const CoolingSpec& s) { return s.plant.chip != "cold_plate" || s.liquid_fraction > 0; }

}  // namespace aidcsim::thermal
