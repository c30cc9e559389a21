#pragma once
// SiteModel: builds the (grouped or per-GPU) RC network of a site from its cooling plant and maps it
// back to physical GPUs, racks and CDUs. Internal to models/thermal (used by site.cpp and
// transient.cpp).
//
// Skeleton (the plant's components attach to it, components/component.hpp):
//   GPU junction J --(chip slot: cold plate branch S->O->M, or immersed heatsink -> bath M)--> rack liquid M
//                 \--(uncovered share: heatsink H -> server air, e-NTU against the inlet air I)
//   rack liquid M -> CDU return R -> (cdu slot: to facility water or hall air) -> CDU supply S
//   server air: cold aisle (boundary) -> inlet I -> exhaust X -> (rack slot: RDHx / in-row / none) -> D
//               -> back to the hall (the room cooler takes it) and, a `recirculation` share, to I
//   air-cooled network racks: cold aisle -> N -> hall
// Everything is inside one RcNetwork, so its energy balance (dissipated = stored + removed into the
// facility-water and cold-aisle boundaries) covers the liquid and the air side together.
#include <map>
#include <string>
#include <vector>

#include "models/thermal/components/component.hpp"
#include "models/thermal/coolant.hpp"
#include "models/thermal/network.hpp"
#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

/// Operating state set by faults and responses (per CDU / per rack).
struct Conditions {
  std::vector<double> flow_fraction;  ///< per CDU, rack-loop flow / design flow
  std::vector<char> cdu_lost;         ///< per CDU: heat exchange of the CDU lost
  std::vector<char> air_fallback;     ///< per CDU: auxiliary air cooling engaged on its racks
  std::vector<char> rdhx_fans_ok;     ///< per rack: the rack cooler's fans run
  double facility_supply = 0;         ///< K
  double outdoor_temp = 0;            ///< K dry-bulb now (daily cycle); sets the chiller's share
};

/// Temperatures (K) of every physical element, by node kind: gpu["junction"][g], rack["exhaust"][r],
/// cdu["supply"][c]. Kinds: gpu junction, plate, outlet, heatsink; rack manifold, air_in, exhaust,
/// air_out; cdu supply, return (those the plant has).
struct PhysicalTemps {
  std::map<std::string, std::vector<double>> gpu, rack, cdu;
};

class SiteModel {
 public:
  /// Throws InvalidParameter for a bad spec or layout (validate(), registry names, unreachable CDU
  /// approach).
  SiteModel(const CoolingSpec& spec, const SiteLayout& layout);

  int cdus() const { return n_cdu_; }
  int racks() const { return n_rack_; }
  int gpus() const { return layout_.gpus; }
  /// The plant has a liquid loop (CDUs, pumps) / racks have server air.
  bool liquid() const { return liquid_; }
  bool air() const { return air_; }
  Conditions design_conditions() const;
  /// Facility supply (K) the heat rejection delivers at outdoor dry-bulb `outdoor` (K).
  double supply_for_outdoor(double outdoor) const;
  /// Moves the facility-water boundary and the outdoor temperature without a rebuild (the LU
  /// factorization stays valid: only the boundary value changes). K.
  void set_rejection(double facility_supply, double outdoor);

  /// (Re)builds the network. util/clock per GPU; temps: current temperatures (grouping then also
  /// requires equal temperatures) or nullptr for a steady build; extra: optional per-GPU value that
  /// must also match for two GPUs to share a group (e.g. the busy profile of a power swing).
  void build(const std::vector<double>& util, const std::vector<double>& clock, const Conditions& cond,
             const PhysicalTemps* temps, bool group, const std::vector<double>* extra = nullptr);

  /// Recomputes heat sources from the group utilizations and clocks (RHS only).
  void update_sources();
  RcNetwork& network() { return net_; }
  const RcNetwork& network() const { return net_; }

  /// Groups: clocks and utilizations are per group (identical members). Node ids -1 = absent.
  struct GpuGroup {
    int rack_group = -1, J = -1, P = -1, O = -1, H = -1, hs_term = -1;
    double copies = 0, per_rack = 0, util = 0, clock = 1, cg = 0, power = 0;
    std::vector<int> members;
  };
  struct RackGroup {
    int cdu_group = -1, M = -1, I = -1, X = -1, D = -1, cooler_term = -1, room_term = -1;
    double copies = 0, per_cdu = 0, ngpus = 0, heat = 0, other = 0;
    double fan_heat = 0;  ///< W per rack: its server fans' power through the PSUs, all into the server air
    bool rdhx_ok = true;
    std::vector<int> members;
    std::vector<int> gpu_groups;
  };
  struct CduGroup {
    int S = -1, R = -1, hx_term = -1;
    double copies = 0, ch = 0, flow_fraction = 1;
    bool lost = false;
    std::vector<int> members;
    std::vector<int> rack_groups;
  };
  std::vector<GpuGroup>& gpu_groups() { return gg_; }
  const std::vector<GpuGroup>& gpu_groups() const { return gg_; }
  const std::vector<RackGroup>& rack_groups() const { return rg_; }
  const std::vector<CduGroup>& cdu_groups() const { return cg_; }

  /// Power breakdown at the current temperatures and sources.
  PowerBreakdown power() const;
  /// Expands group temperatures to physical elements.
  PhysicalTemps physical_temps() const;
  /// Fills a SiteState (per GPU / rack / CDU).
  SiteState state() const;
  /// dTj/dP (K/W) of one GPU of group g: its liquid and air paths in parallel.
  double self_resistance(const GpuGroup& g) const;
  /// Rack-loop total flow of the CDU with the lowest flow, m^3/s (0 without a liquid loop).
  double min_loop_flow() const;
  /// Server fan power of `gpus` GPU slots, W DC (constant: the fans move the design air flow):
  /// server_air.fan_power_fraction x the design air heat of their GPUs, CPUs and NICs.
  double server_fans(double gpus) const { return spec_.server_air.fan_power_fraction * fan_air_heat_gpu_ * gpus; }

  const CoolingSpec& spec() const { return spec_; }
  const SiteLayout& layout() const { return layout_; }
  const Coolant& fluid() const { return *fluid_; }
  const Plant& plant() const { return plant_; }
  double design_cdu_heat() const { return design_cdu_heat_; }
  double design_room_heat() const { return design_room_heat_; }
  double facility_supply() const { return cond_.facility_supply; }
  double air_capacity_rate() const { return c_air_; }
  const Conditions& conditions() const { return cond_; }

 private:
  double branch_capacity_rate(double flow_fraction) const;
  void size_cdus(double rack_heat);

  CoolingSpec spec_;
  SiteLayout layout_;
  Plant plant_;
  const Coolant* fluid_;
  int n_rack_, n_cdu_;
  bool liquid_ = true, air_ = false;
  double cover_ = 1;
  double design_cdu_heat_ = 0, design_room_heat_ = 0, c_air_ = 0, c_switch_ = 0, c_facility_ = 0;
  double design_air_heat_gpu_ = 0;  ///< W per GPU slot: heat the server air carries at the design point
  double fan_air_heat_gpu_ = 0;     ///< W per GPU slot: the part of it the server fans move (no rack overhead)
  double g_jh_ = 0, g_hs_ = 0;      // per GPU: junction -> heatsink, heatsink -> air (W/K)
  Conditions cond_;
  RcNetwork net_;
  int fws_ = -1, room_ = -1, switch_node_ = -1;
  std::vector<GpuGroup> gg_;
  std::vector<RackGroup> rg_;
  std::vector<CduGroup> cg_;
  // Which group each network node belongs to, for expanding temperatures to physical elements.
  struct NodeRecord {
    BuildContext::Level level;
    std::string kind;
    int group;
  };
  std::vector<std::pair<int, NodeRecord>> records_;
};

}  // namespace aidcsim::thermal
