#pragma once
// CoolingSpec: liquid loop, CDUs, pumps, rear doors, facility water, heat rejection, power model,
// throttling, monitoring and scheduled faults (SI; temperatures in K, flows in m^3/s, power in W).
// Owner: models/thermal. Filled by spec_from() (schema.cpp) from the cooling.* and power.* keys.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace aidcsim::thermal {

/// Checklist limits. Defaults: product brief "Cooling"/"Power" sections unless noted.
struct CoolingLimits {
  double inlet_max = 298.15;       ///< K, coolant inlet to the cold plates (brief: < 25 °C)
  double outlet_max = 313.15;      ///< K, coolant outlet (brief: < 40 °C)
  double delta_t_max = 15.0;       ///< K, loop ΔT (brief: < 15 K)
  double hotspot_max = 333.15;     ///< K, cold-plate hot spot (brief: < 60 °C)
  double flow_min = 0.5 / 60000;   ///< m^3/s per GPU (brief: 0.5 L/min)
  double flow_max = 1.0 / 60000;   ///< m^3/s per GPU (brief: 1 L/min)
  double gpu_temp_limit = 360.15;  ///< K, GPU junction throttle threshold (H100 SW throttle 87 °C, published-figures §6.1)
  double pue_max = 1.2;            ///< brief: alert above 1.2
  double failover_max = 10.0;      ///< s, standby pump takeover (brief: < 10 s)
  double pump_margin_min = 1.2;    ///< pumps sized at 120 % of the load (brief)
  double rack_air_max = 20e3;      ///< W per rack that air can carry efficiently (brief: ~20 kW)
  double dew_point_margin = 1.0;   ///< K, coldest water above room dew point (IBM RDHx: 18 °C water vs 17 °C max dew point)
};

/// Direct-to-chip cold plate of one GPU. Junction -> plate base (R_jc, incl. TIM), plate -> coolant
/// by convection with hA(Q) = hA0 (Q/Q0)^0.8 (Dittus-Boelter, Nu ~ Re^0.8 Pr^0.4; Incropera &
/// DeWitt eq. 8.60). Values: published-figures §6.2 (junction-to-inlet ~0.04-0.07 K/W) [estimate].
struct ColdPlateSpec {
  double r_junction_plate = 0.02;   ///< K/W junction -> plate base
  double r_convection = 0.012;      ///< K/W = 1/hA0 at ref_flow with water
  double ref_flow = 1.0 / 60000;    ///< m^3/s, Q0
  double flow_exponent = 0.8;       ///< Dittus-Boelter Re exponent
  double c_junction = 60.0;         ///< J/K die + package + HBM [estimate]
  double c_plate = 400.0;           ///< J/K copper plate ~1 kg [estimate]
  double branch_volume = 0.15e-3;   ///< m^3 coolant in the plate and its hoses [estimate]
};

/// Coolant distribution unit (liquid-to-liquid, counter-flow plate heat exchanger).
struct CduSpec {
  int racks_per_cdu = 8;            ///< one DGX GB200 SU = 8 racks ~1.2 MW (STULZ 1,200 kW unit, §6.2)
  double facility_flow_ratio = 1.0; ///< facility-side / rack-side flow (STULZ: 103.8 m^3/h each side)
  double rack_manifold_volume = 30e-3;  ///< m^3 per rack (manifolds + hoses) [estimate]
  double loop_volume = 0.3;         ///< m^3 per CDU (tank, HX, headers) [estimate]
};

/// CDU pump group: N running + spare, sized at capacity_margin x design flow.
struct PumpSpec {
  int running = 2;                  ///< N
  int spare = 1;                    ///< standby pumps (N+1: 1)
  double capacity_margin = 1.2;     ///< installed running capacity / design flow (brief: 120 %)
  double failover_time = 5.0;       ///< s, standby start (NVIDIA CDU qualification <= 5 s, §6.2)
  double power_fraction = 0.017;    ///< pump power / design heat (STULZ 20 kW / 1,200 kW, §6.2)
};

/// Rear-door heat exchanger (active, fan-assisted) per rack.
struct RdhxSpec {
  double passive_effectiveness = 0.35;  ///< fans failed (passive door) [estimate]
  double fan_power = 1000.0;        ///< W per door (vendor range 0.5-2 kW, §6.2)
  double air_delta_t = 15.0;        ///< K server air temperature rise at design [estimate]
};

/// Room (hall) air: CRAH-held temperature and the humidity band.
struct RoomSpec {
  double temperature = 298.15;      ///< K cold-aisle air
  double rh_min = 0.40;             ///< brief: humidity 40-60 %
  double rh_max = 0.60;
  double crah_fan_fraction = 0.05;  ///< CRAH fan power / room heat [estimate]
};

/// Heat rejection of the facility water. "fixed": supply held at the set point, rejection power from
/// free cooling / chiller mix; "dry_cooler": no chiller, supply = max(set point, outdoor + approach);
/// "chiller": dry cooler pre-cools, a chiller trims to the set point (COP).
struct HeatRejectionSpec {
  std::string type = "chiller";
  double outdoor_temp = 285.15;       ///< K dry-bulb (North East England annual mean ~9-10 °C) [estimate]
  double dry_cooler_approach = 5.0;   ///< K (NVIDIA DSX raised-bed dry cooler, §6.2)
  /// Daily outdoor cycle (outdoor_temperature_at): T(t) = outdoor_temp + swing/2 * cos(2 pi (t - peak)/86400),
  /// t in s since midnight; a cosine approximation of the diurnal dry-bulb cycle (ASHRAE Handbook
  /// Fundamentals ch. 14 design-day profile, daily range = max - min). swing 0 = constant outdoor temp.
  double outdoor_daily_swing = 0.0;   ///< K, daily max - min [estimate; UK summer ~8-10 K]
  double outdoor_peak_time = 15 * 3600.0;  ///< s after midnight of the daily maximum (ASHRAE: ~15:00)
  double chiller_cop = 5.0;           ///< W heat / W electric [estimate]
  double fan_power_fraction = 0.01;   ///< dry-cooler fan power / heat [estimate]
  double facility_pump_fraction = 0.005;  ///< facility pumps / heat [estimate]
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
  double band = 5.0;                ///< K above the limit where the static map reaches min_clock
  double min_clock = 0.5;           ///< lowest clock factor
  double governor_gain = 0.02;      ///< 1/(K s) integral governor in the transient
  double power_exponent = 3.0;      ///< P_dyn ~ f^n
  double shutdown_temp = 365.15;    ///< K (A100/H100 shutdown 92 °C, §6.1)
};

/// One monitoring sensor (brief "cooling_monitoring" style). threshold is SI (K, m^3/s per GPU, PUE).
struct SensorSpec {
  std::string type;        ///< temperature | flow | pue | power
  std::string location;    ///< "GPU inlet", "GPU outlet", "GPU junction", "cold plate", "CDU supply", ...
  double threshold = 0;
  std::string alert_level = "warning";  ///< warning | critical
};

/// A response to an alert level.
struct ResponseAction {
  std::string alert_level;  ///< warning | critical
  std::string action;       ///< "notify" | "adjust pump speed" | "reduce GPU power limit"
};

struct MonitoringSpec {
  std::vector<SensorSpec> sensors;
  std::vector<ResponseAction> actions;
  double power_limit_fraction = 0.8;  ///< GPU power cap (fraction of TDP) of "reduce GPU power limit"
};

/// A scheduled fault. target: CDU index for pump_failure/cdu_loss, rack index for rdhx_fan_failure,
/// -1 = all. magnitude: K for supply_excursion.
struct FaultSpec {
  std::string type;   ///< pump_failure | cdu_loss | supply_excursion | rdhx_fan_failure | air_fallback
  double at = 0;      ///< s
  double duration = std::numeric_limits<double>::infinity();  ///< s
  int target = -1;
  double magnitude = 0;
};

struct CoolingSpec {
  std::string coolant = "water";
  double flow_per_gpu = 1.0 / 60000.0;  ///< m^3/s (1 L/min)
  double facility_supply = 291.15;      ///< K
  double cdu_approach = 4.0;            ///< K (rack-loop supply - facility supply at design)
  double liquid_fraction = 0.85;        ///< share of rack heat into the liquid loop
  double rdhx_effectiveness = 0.7;      ///< rear door with fans running, in (0, 1] (key rdhx.effectiveness)
  CoolingLimits limits;
  ColdPlateSpec cold_plate;
  CduSpec cdu;
  PumpSpec pumps;
  RdhxSpec rdhx;
  RoomSpec room;
  HeatRejectionSpec rejection;
  AirFallbackSpec air_fallback;
  PowerSpec power;
  ThrottleSpec throttle;
  MonitoringSpec monitoring;
  std::vector<FaultSpec> faults;
};

/// Checks a spec built in code (spec_from() calls it too). Throws InvalidParameter naming the
/// scenario key: non-positive flow, effectiveness outside (0, 1], supply + approach above the inlet
/// limit, unknown coolant, bad pump group or fault.
void validate(const CoolingSpec& spec);

/// Outdoor dry-bulb temperature (K) at t (s since midnight of day 0; any t, periodic in 86,400 s):
/// outdoor_temp + outdoor_daily_swing/2 * cos(2 pi (t - outdoor_peak_time) / 86400). With a zero
/// swing it is outdoor_temp. Source: cosine fit of the diurnal cycle (ASHRAE Fundamentals ch. 14).
inline double outdoor_temperature_at(const HeatRejectionSpec& r, double t) {
  if (!(r.outdoor_daily_swing > 0)) return r.outdoor_temp;
  constexpr double kDay = 86400.0, kTwoPi = 6.283185307179586;
  return r.outdoor_temp + 0.5 * r.outdoor_daily_swing * std::cos(kTwoPi * (t - r.outdoor_peak_time) / kDay);
}

/// True when the scenario has a daily outdoor cycle that moves the facility water (dry cooler) or
/// the chiller's share (chiller); a "fixed" heat rejection ignores the outdoor temperature.
inline bool has_daily_cycle(const HeatRejectionSpec& r) {
  return r.outdoor_daily_swing > 0 && r.type != "fixed";
}

}  // namespace aidcsim::thermal
