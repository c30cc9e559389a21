#pragma once
// SiteModel: builds the (grouped or per-GPU) RC network of a site and maps it back to physical
// GPUs, racks and CDUs. Internal to models/thermal (used by site.cpp and transient.cpp).
#include <vector>

#include "models/thermal/coolant.hpp"
#include "models/thermal/network.hpp"
#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

/// Operating state set by faults and responses (per CDU / per rack).
struct Conditions {
  std::vector<double> flow_fraction;  ///< per CDU, rack-loop flow / design flow
  std::vector<char> cdu_lost;         ///< per CDU: HX to facility water lost
  std::vector<char> air_fallback;     ///< per CDU: auxiliary air cooling engaged on its racks
  std::vector<char> rdhx_fans_ok;     ///< per rack
  double facility_supply = 0;         ///< K
  double outdoor_temp = 0;            ///< K dry-bulb now (daily cycle); sets the chiller's share
};

/// Temperatures of every physical element (K); empty vectors = not known (steady build).
struct PhysicalTemps {
  std::vector<double> tj, tcp, tout;  ///< per GPU
  std::vector<double> manifold;       ///< per rack
  std::vector<double> supply, ret;    ///< per CDU
};

class SiteModel {
 public:
  SiteModel(const CoolingSpec& spec, const SiteLayout& layout);

  int cdus() const { return n_cdu_; }
  int racks() const { return n_rack_; }
  int gpus() const { return layout_.gpus; }
  Conditions design_conditions() const;
  /// Facility supply (K) the heat rejection delivers at outdoor dry-bulb `outdoor` (K): dry_cooler
  /// max(set point, outdoor + approach); chiller/fixed: the set point (the chiller trims).
  double supply_for_outdoor(double outdoor) const;
  /// Moves the facility-water boundary and the outdoor temperature without a rebuild (the LU
  /// factorization stays valid: only the boundary value changes). K.
  void set_rejection(double facility_supply, double outdoor);

  /// (Re)builds the network. util/clock per GPU; temps: current temperatures (grouping then also
  /// requires equal temperatures) or nullptr for a steady build; extra: optional per-GPU value that
  /// must also match for two GPUs to share a group (e.g. the busy profile of a power swing).
  void build(const std::vector<double>& util, const std::vector<double>& clock,
             const Conditions& cond, const PhysicalTemps* temps, bool group,
             const std::vector<double>* extra = nullptr);

  /// Recomputes heat sources from the group utilizations and clocks (RHS only).
  void update_sources();
  RcNetwork& network() { return net_; }
  const RcNetwork& network() const { return net_; }

  /// Groups: clocks and utilizations are per group (identical members).
  struct GpuGroup {
    int rack_group, J, P, O, po_term;
    double copies, per_rack, util, clock, cg, power;
    std::vector<int> members;
  };
  struct RackGroup {
    int cdu_group, M;
    double copies, per_cdu, ngpus, c_rack, heat, liquid, air, rdhx, room;
    bool rdhx_ok;
    std::vector<int> members;
    std::vector<int> gpu_groups;
  };
  struct CduGroup {
    int S, R, hx_term;
    double copies, ch, flow_fraction, heat;
    bool lost;
    std::vector<int> members;
    std::vector<int> rack_groups;
  };
  std::vector<GpuGroup>& gpu_groups() { return gg_; }
  const std::vector<GpuGroup>& gpu_groups() const { return gg_; }
  const std::vector<RackGroup>& rack_groups() const { return rg_; }
  const std::vector<CduGroup>& cdu_groups() const { return cg_; }

  /// Air side (quasi-steady) and power breakdown at the current temperatures and sources.
  PowerBreakdown power() const;
  /// Heat leaving through the air side (rear doors + room), W; part of "removed".
  double air_heat() const;
  /// Expands group temperatures to physical elements.
  PhysicalTemps physical_temps() const;
  /// Fills a SiteState (per GPU / rack / CDU).
  SiteState state() const;
  /// Junction temperature (K) per GPU group, and the self-resistance dTj/dP (K/W) of one GPU.
  double self_resistance(const GpuGroup& g) const;

  const CoolingSpec& spec() const { return spec_; }
  const SiteLayout& layout() const { return layout_; }
  const Coolant& fluid() const { return *fluid_; }
  double cdu_ua() const { return ua_; }
  double design_cdu_heat() const { return design_cdu_heat_; }
  double facility_supply() const { return cond_.facility_supply; }
  const Conditions& conditions() const { return cond_; }

 private:
  double branch_capacity_rate(double flow_fraction) const;
  double plate_g(double cg) const;

  CoolingSpec spec_;
  SiteLayout layout_;
  const Coolant* fluid_;
  int n_rack_, n_cdu_;
  double ua_ = 0, design_cdu_heat_ = 0, c_air_ = 0, cc_facility_ = 0;
  Conditions cond_;
  RcNetwork net_;
  int fws_ = -1, room_ = -1;
  std::vector<GpuGroup> gg_;
  std::vector<RackGroup> rg_;
  std::vector<CduGroup> cg_;
};

}  // namespace aidcsim::thermal
