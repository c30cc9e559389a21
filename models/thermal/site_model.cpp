#include "models/thermal/site_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "models/common/errors.hpp"
#include "models/thermal/hx.hpp"

namespace aidcsim::thermal {

SiteModel::SiteModel(const CoolingSpec& spec, const SiteLayout& layout)
    : spec_(spec), layout_(layout), fluid_(&coolant(spec.coolant)) {
  validate(spec_);
  if (layout_.gpus < 1) throw InvalidParameter("cluster.gpus", std::to_string(layout_.gpus), "at least 1 GPU");
  if (layout_.gpus_per_rack < 1)
    throw InvalidParameter("cluster.nvlink_domain", std::to_string(layout_.gpus_per_rack), "at least 1 GPU per rack");
  n_rack_ = layout_.racks();
  n_cdu_ = (n_rack_ + spec_.cdu.racks_per_cdu - 1) / spec_.cdu.racks_per_cdu;

  // Design point: every GPU at TDP, design flow; sizes the CDU (UA from the approach) and the
  // rear-door air flow.
  const double gpr = layout_.gpus_per_rack;
  const double rack_heat = (gpr * (layout_.gpu_tdp + layout_.cpu_power_per_gpu + layout_.nic_power_per_gpu) +
                            layout_.rack_overhead_power) / layout_.psu_efficiency;
  design_cdu_heat_ = spec_.cdu.racks_per_cdu * spec_.liquid_fraction * rack_heat;
  const double ch = spec_.cdu.racks_per_cdu * gpr * branch_capacity_rate(1.0);
  cc_facility_ = spec_.cdu.facility_flow_ratio * ch;
  try {
    ua_ = cdu_ua_from_approach(design_cdu_heat_, spec_.cdu_approach, ch, cc_facility_);
  } catch (const SimulationError&) {
    throw InvalidParameter("cooling.cdu_approach", std::to_string(spec_.cdu_approach) + " K",
                           "an approach reachable with the facility flow (raise cooling.cdu.facility_flow_ratio)");
  }
  c_air_ = std::max(1e-9, (1 - spec_.liquid_fraction) * rack_heat / spec_.rdhx.air_delta_t);
}

Conditions SiteModel::design_conditions() const {
  Conditions c;
  c.flow_fraction.assign(n_cdu_, 1.0);
  c.cdu_lost.assign(n_cdu_, 0);
  c.air_fallback.assign(n_cdu_, 0);
  c.rdhx_fans_ok.assign(n_rack_, 1);
  c.outdoor_temp = spec_.rejection.outdoor_temp;
  c.facility_supply = supply_for_outdoor(c.outdoor_temp);
  return c;
}

double SiteModel::supply_for_outdoor(double outdoor) const {
  if (spec_.rejection.type == "dry_cooler")
    return std::max(spec_.facility_supply, outdoor + spec_.rejection.dry_cooler_approach);
  return spec_.facility_supply;
}

void SiteModel::set_rejection(double facility_supply, double outdoor) {
  cond_.facility_supply = facility_supply;
  cond_.outdoor_temp = outdoor;
  if (fws_ >= 0) net_.set_boundary(fws_, facility_supply);
}

double SiteModel::branch_capacity_rate(double flow_fraction) const {
  return fluid_->capacity_rate(spec_.flow_per_gpu * flow_fraction);
}

double SiteModel::plate_g(double cg) const {
  if (cg <= 0) return 0;
  const double flow = cg / (fluid_->density * fluid_->cp);
  const double ha0 = convection_factor_vs_water(*fluid_) / spec_.cold_plate.r_convection;
  const double ha = cold_plate_ha(ha0, flow, spec_.cold_plate.ref_flow, spec_.cold_plate.flow_exponent);
  return cg * wall_effectiveness(ha / cg);
}

double SiteModel::self_resistance(const GpuGroup& g) const {
  const double gp = plate_g(g.cg);
  return spec_.cold_plate.r_junction_plate + (gp > 0 ? 1.0 / gp : 1e6);
}

void SiteModel::build(const std::vector<double>& util, const std::vector<double>& clock,
                      const Conditions& cond, const PhysicalTemps* temps, bool group,
                      const std::vector<double>* extra) {
  cond_ = cond;
  const int gpr = layout_.gpus_per_rack, rpc = spec_.cdu.racks_per_cdu, n = layout_.gpus;
  // Pass 1: classes by exact key (identical members only), deterministic (std::map order).
  std::vector<int> gclass(n), rclass(n_rack_), cclass(n_cdu_);
  {
    std::map<std::vector<double>, int> keys;
    for (int g = 0; g < n; ++g) {
      std::vector<double> k{util[g], clock[g]};
      if (temps) k.insert(k.end(), {temps->tj[g], temps->tcp[g], temps->tout[g]});
      if (extra) k.push_back((*extra)[g]);
      if (!group) k.push_back(g);
      gclass[g] = keys.emplace(std::move(k), static_cast<int>(keys.size())).first->second;
    }
  }
  {
    std::map<std::vector<double>, int> keys;
    for (int r = 0; r < n_rack_; ++r) {
      std::map<int, int> comp;
      for (int g = r * gpr; g < std::min(n, (r + 1) * gpr); ++g) ++comp[gclass[g]];
      std::vector<double> k{double(cond.rdhx_fans_ok[r])};
      if (temps) k.push_back(temps->manifold[r]);
      if (!group) k.push_back(r);
      for (auto [c, m] : comp) k.insert(k.end(), {double(c), double(m)});
      rclass[r] = keys.emplace(std::move(k), static_cast<int>(keys.size())).first->second;
    }
  }
  {
    std::map<std::vector<double>, int> keys;
    for (int c = 0; c < n_cdu_; ++c) {
      std::map<int, int> comp;
      for (int r = c * rpc; r < std::min(n_rack_, (c + 1) * rpc); ++r) ++comp[rclass[r]];
      std::vector<double> k{cond.flow_fraction[c], double(cond.cdu_lost[c]), double(cond.air_fallback[c])};
      if (temps) k.insert(k.end(), {temps->supply[c], temps->ret[c]});
      if (!group) k.push_back(c);
      for (auto [rc, m] : comp) k.insert(k.end(), {double(rc), double(m)});
      cclass[c] = keys.emplace(std::move(k), static_cast<int>(keys.size())).first->second;
    }
  }
  gg_.clear();
  rg_.clear();
  cg_.clear();
  std::map<int, int> cgroup_of;
  std::map<std::pair<int, int>, int> rgroup_of;
  std::map<std::pair<int, int>, int> ggroup_of;
  for (int c = 0; c < n_cdu_; ++c) {
    auto [cit, cnew] = cgroup_of.emplace(cclass[c], static_cast<int>(cg_.size()));
    if (cnew) cg_.push_back({-1, -1, -1, 0, 0, cond.flow_fraction[c], 0, cond.cdu_lost[c] != 0, {}, {}});
    const int cgi = cit->second;
    cg_[cgi].members.push_back(c);
    for (int r = c * rpc; r < std::min(n_rack_, (c + 1) * rpc); ++r) {
      auto [rit, rnew] = rgroup_of.emplace(std::make_pair(cgi, rclass[r]), static_cast<int>(rg_.size()));
      if (rnew) {
        RackGroup rg{};
        rg.cdu_group = cgi;
        rg.rdhx_ok = cond.rdhx_fans_ok[r] != 0;
        rg.ngpus = std::min(n, (r + 1) * gpr) - r * gpr;
        rg_.push_back(rg);
        cg_[cgi].rack_groups.push_back(rit->second);
      }
      const int rgi = rit->second;
      rg_[rgi].members.push_back(r);
      for (int g = r * gpr; g < std::min(n, (r + 1) * gpr); ++g) {
        auto [git, gnew] = ggroup_of.emplace(std::make_pair(rgi, gclass[g]), static_cast<int>(gg_.size()));
        if (gnew) {
          GpuGroup gg{};
          gg.rack_group = rgi;
          gg.util = util[g];
          gg.clock = clock[g];
          gg_.push_back(gg);
          rg_[rgi].gpu_groups.push_back(git->second);
        }
        gg_[git->second].members.push_back(g);
      }
    }
  }
  // Pass 2: nodes and terms. A group node stands for `copies` physical nodes.
  net_.clear();
  fws_ = net_.add_boundary(cond.facility_supply);
  room_ = net_.add_boundary(spec_.room.temperature);
  // Auxiliary air on a rack loop: removes capacity_per_rack when the rack return is at the outlet
  // limit (air-to-liquid coils fed by room air) - a linear stand-in for the brief's fallback.
  const double g_air = spec_.air_fallback.capacity_per_rack /
                       std::max(1.0, spec_.limits.outlet_max - spec_.room.temperature);
  const double rho_cp = fluid_->density * fluid_->cp;
  const double t0 = cond.facility_supply + spec_.cdu_approach;
  for (auto& c : cg_) {
    c.copies = static_cast<double>(c.members.size());
    const int rep = c.members.front();
    c.S = net_.add_node(rho_cp * spec_.cdu.loop_volume / 2, c.copies, temps ? temps->supply[rep] : t0);
    c.R = net_.add_node(rho_cp * spec_.cdu.loop_volume / 2, c.copies, temps ? temps->ret[rep] : t0);
    const double cgv = branch_capacity_rate(c.flow_fraction);
    double ch = 0;
    for (int rgi : c.rack_groups) {
      RackGroup& r = rg_[rgi];
      r.copies = static_cast<double>(r.members.size());
      r.per_cdu = r.copies / c.copies;
      const int rrep = r.members.front();
      r.M = net_.add_node(rho_cp * spec_.cdu.rack_manifold_volume, r.copies, temps ? temps->manifold[rrep] : t0);
      double c_rack = 0;
      for (int ggi : r.gpu_groups) {
        GpuGroup& g = gg_[ggi];
        g.copies = static_cast<double>(g.members.size());
        g.per_rack = g.copies / r.copies;
        g.cg = cgv;
        const int grep = g.members.front();
        g.J = net_.add_node(spec_.cold_plate.c_junction, g.copies, temps ? temps->tj[grep] : t0);
        g.P = net_.add_node(spec_.cold_plate.c_plate, g.copies, temps ? temps->tcp[grep] : t0);
        g.O = net_.add_node(rho_cp * spec_.cold_plate.branch_volume, g.copies, temps ? temps->tout[grep] : t0);
        net_.add_conductance(g.J, g.P, 1.0 / spec_.cold_plate.r_junction_plate, g.copies);
        g.po_term = net_.add_transfer(g.P, g.O, g.P, c.S, plate_g(cgv), g.copies);
        net_.add_advection(c.S, g.O, cgv, g.copies);
        net_.add_advection(g.O, r.M, cgv, g.copies);
        c_rack += g.per_rack * cgv;
      }
      r.c_rack = c_rack;
      net_.add_advection(r.M, c.R, c_rack, r.copies);
      if (cond.air_fallback[c.members.front()]) net_.add_conductance(r.M, room_, g_air, r.copies);
      ch += r.per_cdu * c_rack;
    }
    c.ch = ch;
    net_.add_advection(c.R, c.S, ch, c.copies);
    double ghx = 0;
    if (!c.lost && ch > 0) {
      const double cmin = std::min(ch, cc_facility_), cmax = std::max(ch, cc_facility_);
      ghx = counterflow_effectiveness(ua_ / cmin, cmin / cmax) * cmin;
    }
    c.hx_term = net_.add_transfer(c.S, fws_, c.R, fws_, ghx, c.copies);
  }
  update_sources();
}

void SiteModel::update_sources() {
  const double gpr = layout_.gpus_per_rack;
  for (auto& g : gg_)  // clock 0 = GPU off after a thermal shutdown
    g.power = g.clock <= 0 ? 0.0
                           : gpu_power(layout_.gpu_tdp, layout_.gpu_idle_power, g.util, g.clock, spec_.throttle.power_exponent);
  const double tf = cond_.facility_supply;
  for (auto& r : rg_) {
    double gsum = 0;
    for (int ggi : r.gpu_groups) gsum += gg_[ggi].per_rack * gg_[ggi].power;
    r.heat = (gsum + r.ngpus * (layout_.cpu_power_per_gpu + layout_.nic_power_per_gpu) +
              layout_.rack_overhead_power * r.ngpus / gpr) / layout_.psu_efficiency;
    r.liquid = spec_.liquid_fraction * r.heat;
    // GPU dies go to their cold plates first; CPU/other cold plates take the rest of the liquid
    // share into the manifold. If the liquid share is below the GPU power, GPUs give the excess to air.
    const double gliq = std::min(gsum, r.liquid);
    const double share = gsum > 0 ? gliq / gsum : 0.0;
    net_.set_source(r.M, r.liquid - gliq);
    for (int ggi : r.gpu_groups) net_.set_source(gg_[ggi].J, share * gg_[ggi].power);
    r.air = r.heat - r.liquid;
    // Rear door (quasi-steady: air holds little heat): servers heat the room air by air/C_air,
    // the door (air = Cmin) cools it toward the facility water; the rest goes to the room (CRAH).
    const double eps = r.rdhx_ok ? spec_.rdhx_effectiveness : spec_.rdhx.passive_effectiveness;
    const double t_hot = spec_.room.temperature + r.air / c_air_;
    r.rdhx = eps * c_air_ * (t_hot - tf);
    r.room = r.air - r.rdhx;
  }
}

double SiteModel::air_heat() const {
  double a = 0;
  for (const auto& r : rg_) a += r.copies * r.air;
  return a;
}

PowerBreakdown SiteModel::power() const {
  PowerBreakdown p;
  const double gpr = layout_.gpus_per_rack;
  for (const auto& g : gg_) p.gpu += g.copies * g.power;
  p.cpu = layout_.gpus * layout_.cpu_power_per_gpu;
  p.nic = layout_.gpus * layout_.nic_power_per_gpu;
  double q_rdhx = 0, q_room = 0;
  for (const auto& r : rg_) {
    p.rack_overhead += r.copies * layout_.rack_overhead_power * r.ngpus / gpr;
    p.rdhx_fans += r.rdhx_ok ? r.copies * spec_.rdhx.fan_power : 0.0;
    q_rdhx += r.copies * r.rdhx;
    q_room += r.copies * r.room;
  }
  const double dc = p.gpu + p.cpu + p.nic + p.rack_overhead;
  p.psu_loss = dc * (1 / layout_.psu_efficiency - 1);
  p.switches = layout_.switches * layout_.switch_power;
  p.it = dc + p.psu_loss + p.switches;

  const double ch_full = spec_.cdu.racks_per_cdu * gpr * branch_capacity_rate(1.0);
  double q_cdu = 0;
  for (const auto& c : cg_) {
    q_cdu += net_.term_flow(c.hx_term);
    const double ratio = c.ch / ch_full;  // pump affinity law: power ~ flow^3
    p.cdu_pumps += c.copies * spec_.pumps.power_fraction * design_cdu_heat_ * ratio * ratio * ratio;
  }
  const double q_fw = std::max(0.0, q_cdu + q_rdhx);
  q_room = std::max(0.0, q_room) + p.switches;
  const auto& rj = spec_.rejection;
  p.facility_pumps = rj.facility_pump_fraction * q_fw;
  p.rejection_fans = rj.fan_power_fraction * q_fw;
  if (rj.type != "dry_cooler" && q_fw > 0) {
    // Dry cooler pre-cools the facility return to outdoor + approach; the chiller trims the rest.
    const double t_sup = cond_.facility_supply;
    const double t_ret = t_sup + q_fw / (n_cdu_ * cc_facility_);
    const double t_dc = cond_.outdoor_temp + rj.dry_cooler_approach;
    const double mech = std::clamp((t_dc - t_sup) / (t_ret - t_sup), 0.0, 1.0);
    p.chiller = mech * q_fw / rj.chiller_cop;
  }
  p.crah = q_room * (spec_.room.crah_fan_fraction + 1.0 / rj.chiller_cop);
  p.cooling = p.cdu_pumps + p.facility_pumps + p.rdhx_fans + p.rejection_fans + p.chiller + p.crah;
  p.facility = (p.it + p.cooling) / (1 - spec_.power.distribution_loss);
  p.distribution_loss = p.facility - p.it - p.cooling;
  p.pue = p.facility / p.it;
  p.brief_estimate = layout_.gpus * layout_.gpu_tdp * 1.2;
  return p;
}

PhysicalTemps SiteModel::physical_temps() const {
  PhysicalTemps t;
  t.tj.resize(layout_.gpus);
  t.tcp.resize(layout_.gpus);
  t.tout.resize(layout_.gpus);
  t.manifold.resize(n_rack_);
  t.supply.resize(n_cdu_);
  t.ret.resize(n_cdu_);
  for (const auto& g : gg_)
    for (int m : g.members) {
      t.tj[m] = net_.temperature(g.J);
      t.tcp[m] = net_.temperature(g.P);
      t.tout[m] = net_.temperature(g.O);
    }
  for (const auto& r : rg_)
    for (int m : r.members) t.manifold[m] = net_.temperature(r.M);
  for (const auto& c : cg_)
    for (int m : c.members) {
      t.supply[m] = net_.temperature(c.S);
      t.ret[m] = net_.temperature(c.R);
    }
  return t;
}

SiteState SiteModel::state() const {
  SiteState s;
  PhysicalTemps t = physical_temps();
  s.gpu_junction = std::move(t.tj);
  s.gpu_cold_plate = std::move(t.tcp);
  s.gpu_outlet = std::move(t.tout);
  s.gpu_power.resize(layout_.gpus);
  s.gpu_clock.resize(layout_.gpus);
  for (const auto& g : gg_)
    for (int m : g.members) {
      s.gpu_power[m] = g.power;
      s.gpu_clock[m] = g.clock;
    }
  s.rack_outlet = std::move(t.manifold);
  s.rack_inlet.resize(n_rack_);
  s.rack_power.resize(n_rack_);
  s.rack_liquid_heat.resize(n_rack_);
  s.rack_air_heat.resize(n_rack_);
  s.rack_rdhx_heat.resize(n_rack_);
  s.rack_room_heat.resize(n_rack_);
  for (const auto& r : rg_)
    for (int m : r.members) {
      s.rack_inlet[m] = net_.temperature(cg_[r.cdu_group].S);
      s.rack_power[m] = r.heat;
      s.rack_liquid_heat[m] = r.liquid;
      s.rack_air_heat[m] = r.air;
      s.rack_rdhx_heat[m] = r.rdhx;
      s.rack_room_heat[m] = r.room;
    }
  s.cdu_supply = std::move(t.supply);
  s.cdu_return = std::move(t.ret);
  s.cdu_heat.resize(n_cdu_);
  s.cdu_flow.resize(n_cdu_);
  double min_ff = 1e300;
  for (const auto& c : cg_) {
    min_ff = std::min(min_ff, c.flow_fraction);
    for (int m : c.members) {
      s.cdu_heat[m] = net_.term_flow(c.hx_term) / c.copies;
      s.cdu_flow[m] = c.ch / (fluid_->density * fluid_->cp);
    }
  }
  s.flow_per_gpu = spec_.flow_per_gpu * min_ff;
  s.power = power();
  s.facility_supply = cond_.facility_supply;
  double q_cdu = 0;
  for (double q : s.cdu_heat) q_cdu += q;
  s.facility_return = cond_.facility_supply + q_cdu / (n_cdu_ * cc_facility_);
  return s;
}

}  // namespace aidcsim::thermal
