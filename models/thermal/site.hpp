#pragma once
// Site-level thermal and power model: GPUs on cold plates or air heatsinks (or in immersion tanks)
// in NVL72-style racks, rack loops on CDUs, facility water, rack coolers, the hall air, and the
// power/PUE breakdown; steady state and the brief's cooling checklist. The engine calls
// steady_state() with the busy profile of a simulated training step and the clocks it runs at, and
// solve_throttled_clocks() to close the clocks <-> temperatures loop.
//
// The cooling plant is a set of registered components, one per slot (cooling.plant.*,
// components/component.hpp); site_model.hpp draws the network they attach to. Each GPU junction has
// two paths in parallel: its cold plate (coverage c = cooling.liquid_fraction of the package) into
// the rack loop, and an air heatsink (the rest, 1 - c) into the server air, which the rack cooler
// (rear door, in-row) and the hall's CRAH cool. Junction temperatures therefore depend on both, and
// less liquid capture never cools a GPU.
//
// Fidelity tiers (SolveOptions::group_identical): "grouped" merges GPUs, racks and CDUs that are
// identical (same load, clock, state and, in transients, the same temperatures) into one node
// standing for all copies - exact for identical members, and what makes a 31K-GPU, 72-h transient
// cheap; "per_gpu" builds every GPU, rack and CDU as its own nodes.
#include <limits>
#include <string>
#include <vector>

#include "models/thermal/cooling_spec.hpp"
#include "models/thermal/power.hpp"

namespace aidcsim::thermal {

/// What the thermal model needs to know about the site (counts and per-component power, W).
struct SiteLayout {
  int gpus = 8064;
  int gpus_per_rack = 72;               ///< topology::gpus_per_rack (the BOM layout); 72 for GB200 NVL72
  int switches = 0;                     ///< scale-out switches (air-cooled, in network racks)
  double gpu_tdp = 1200.0;              ///< W (GB200, published-figures §5.1)
  double gpu_idle_power = 150.0;        ///< W (catalogue estimate)
  double cpu_power_per_gpu = 150.0;     ///< W
  double nic_power_per_gpu = 25.0;      ///< W
  double rack_overhead_power = 9000.0;  ///< W per full rack (NVLink switch trays, mgmt, fans)
  double switch_power = 1000.0;         ///< W per scale-out switch
  double psu_efficiency = 0.95;
  double comm_power_factor = 0.35;  ///< k_comm of gpu_utilization()
  int racks() const { return (gpus + gpus_per_rack - 1) / gpus_per_rack; }
};

/// Layout from the cluster counts (cluster.gpus, GPUs per rack from topology::gpus_per_rack - the
/// bill of materials' racks, via thermal_layout in sim/engine/feasibility.hpp -, GPU catalogue TDP/idle)
/// and the power.* keys held in `spec.power`.
SiteLayout make_layout(const CoolingSpec& spec, int gpus, int gpus_per_rack, double gpu_tdp, double gpu_idle_power,
                       int switches = 0);

/// One line of the brief's cooling checklist. Temperatures K, flows m^3/s, power W (SI); `note`
/// restates it in °C / L/min / kW for people. headroom = limit - value in the direction of safety
/// and pass == (headroom >= 0), except that headroom 0 fails on the brief's strict "<" limits; for
/// a band, `limit` is the bound nearer to the value (checklist.cpp).
struct ChecklistItem {
  std::string item;
  double value = 0;
  double limit = 0;
  std::string unit;
  double headroom = 0;
  bool pass = false;
  std::string note;
};

/// Site power, W.
struct PowerBreakdown {
  double gpu = 0, cpu = 0, nic = 0, rack_overhead = 0, psu_loss = 0, switches = 0;
  /// Server fans (DC; their PSU loss is in psu_loss): cooling.server_air.fan_power_fraction x the
  /// design air heat. IT power, as The Green Grid's PUE counts fans inside IT equipment.
  double server_fans = 0;
  double it = 0;  ///< sum of the above
  double cdu_pumps = 0, cdu_fans = 0, facility_pumps = 0, rack_cooler_fans = 0, rejection_fans = 0, chiller = 0,
         crah = 0;
  double cooling = 0;            ///< sum of the cooling terms (rack_cooler_fans: rear-door or in-row fans)
  double distribution_loss = 0;  ///< UPS/transformers
  double facility = 0;           ///< it + cooling + distribution_loss
  double pue = 0;                ///< facility / it
  /// facility / (it - server fans with their PSU loss): PUE with the server fans moved from IT to
  /// cooling, so air and liquid designs compare on the work of cooling (PUE itself rewards moving
  /// cooling work into IT fans; cf. TUE, Patterson et al., ISC 2013).
  double pue_fans_as_cooling = 0;
  double brief_estimate = 0;          ///< brief: GPUs x TDP x 1.2 (server overhead ~20 %)
  double heat_to_facility_water = 0;  ///< W taken by the facility water (CDUs, rack coolers)
  double heat_to_room = 0;            ///< W taken by the hall air (the room cooler's duty; negative when rear
                                      ///< doors on cold water return air below the cold aisle)
};

/// Synchronized power swing of a training step: all GPUs compute together, then communicate or
/// wait together. W at the site IT level; period = step time (s).
struct PowerSwing {
  double peak = 0, trough = 0, mean = 0, amplitude = 0, period = 0;
};

/// Full state, SI. Per GPU (index = global GPU rank), per rack, per CDU. NaN where the plant has no
/// such element (no cold plate on an air-cooled GPU, no heatsink on a fully liquid-cooled one); the
/// CDU vectors are empty without a liquid loop.
struct SiteState {
  std::vector<double> gpu_junction, gpu_cold_plate, gpu_outlet, gpu_heatsink, gpu_power, gpu_clock;
  std::vector<double> rack_inlet, rack_outlet, rack_power, rack_liquid_heat, rack_air_heat, rack_rdhx_heat,
      rack_room_heat;  ///< rack_rdhx_heat: taken by the rack cooler; rack_room_heat: left to the hall
  std::vector<double> rack_air_inlet, rack_exhaust;  ///< K, server inlet air and exhaust before the rack cooler
  std::vector<double> cdu_supply, cdu_return, cdu_heat, cdu_flow;  ///< cdu_flow: m^3/s rack side
  double facility_supply = 0, facility_return = 0;                 ///< K
  double flow_per_gpu = 0;                                         ///< m^3/s, lowest of all CDUs
  PowerBreakdown power;
};

struct SiteReport {
  bool liquid = true;         ///< the plant has a liquid loop (else the coolant figures are NaN)
  double max_gpu_temp = 0;    ///< K junction
  double gpu_temp_limit = 0;  ///< K throttle threshold
  double coolant_inlet = 0;   ///< K, hottest rack-loop supply
  double coolant_outlet = 0;  ///< K, hottest rack return (manifold)
  double loop_delta_t = 0;    ///< K, largest rack return - supply
  /// K, hottest coolant anywhere in the liquid loop (cold-plate outlets, rack returns, CDU); NaN
  /// without a liquid loop. Held against the coolant's boiling point (single-phase model).
  double max_coolant_temp = std::numeric_limits<double>::quiet_NaN();
  double max_cold_plate_temp = 0;  ///< K hot spot (cold plate / case); NaN on air-cooled GPUs
  double max_air_inlet =
      std::numeric_limits<double>::quiet_NaN();  ///< K hottest server inlet air (NaN without server air)
  double it_power = 0, cooling_power = 0, facility_power = 0, pue = 0;  ///< W
  double min_clock = 1;                                                 ///< lowest clock factor given
  int gpus_over_limit = 0;                                              ///< GPUs with junction above gpu_temp_limit
  PowerSwing swing;       ///< period 0 (set by power_swing() with a step time)
  int network_nodes = 0;  ///< size of the solved RC network (tier figure)
  SiteState state;
  std::vector<ChecklistItem> checklist;
};

struct SolveOptions {
  bool group_identical = true;  ///< grouped tier (exact for identical members); false: per GPU
};

/// Steady state of the whole site. loads: size gpus, or 1 (uniform); clock_factor: size gpus, 1,
/// or empty (= 1). Throws InvalidParameter for a bad spec (validate()), SimulationError for
/// inconsistent sizes or a singular network.
SiteReport steady_state(const CoolingSpec& spec, const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                        const std::vector<double>& clock_factor, const SolveOptions& options = {});

/// Clock factor per GPU such that no junction exceeds limits.gpu_temp_limit (the governor holds
/// the limit), clamped to [throttle.min_clock, 1]; 1 where the GPU is below the limit. Solves
/// T_j(f) = limit by Newton steps on the steady network (converges to 1e-6 K). Size gpus.
std::vector<double> solve_throttled_clocks(const CoolingSpec& spec, const SiteLayout& layout,
                                           const std::vector<GpuLoad>& loads, const SolveOptions& options = {});

/// Synchronized swing for a step of `step_time` s: peak = every GPU compute-busy (u = 1), trough
/// = every GPU at its communication level (k_comm if it communicates, else idle); mean from the
/// busy profile. Includes PSU losses; CPUs, NICs, the rack overhead, the server fans
/// (`server_fans`, W DC for the site: PowerBreakdown::server_fans of its steady state) and the
/// switches are constant, so the mean at the steady state's loads is its IT power.
PowerSwing power_swing(const SiteLayout& layout, const std::vector<GpuLoad>& loads,
                       const std::vector<double>& clock_factor, double step_time, double server_fans);

/// The brief's cooling checklist for a solved state (see checklist.cpp for each item's source).
std::vector<ChecklistItem> cooling_checklist(const CoolingSpec& spec, const SiteLayout& layout,
                                             const SiteReport& report);

}  // namespace aidcsim::thermal
