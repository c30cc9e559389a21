#include "models/thermal/site_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "models/common/errors.hpp"
#include "models/thermal/hx.hpp"

namespace aidcsim::thermal {

namespace {
constexpr double kAirRhoCp = 1.2 * 1006.0;  // J/(m^3 K), air at ~25 °C, sea level
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Facility-water temperature rise assumed when no CDU sets the facility flow (rear doors only), K
// [estimate: a typical 10 K facility ΔT]; it only moves the chiller's share of the heat.
constexpr double kFacilityDeltaT = 10.0;
}  // namespace

SiteModel::SiteModel(const CoolingSpec& spec, const SiteLayout& layout)
    : spec_(spec), layout_(layout), fluid_(&coolant(spec.coolant)) {
  validate(spec_);
  plant_ = make_plant(spec_);
  if (layout_.gpus < 1) throw InvalidParameter("cluster.gpus", std::to_string(layout_.gpus), "at least 1 GPU");
  if (layout_.gpus_per_rack < 1)
    throw InvalidParameter("bom.layout.gpus_per_rack", std::to_string(layout_.gpus_per_rack),
                           "at least 1 GPU per rack");
  n_rack_ = layout_.racks();
  n_cdu_ = (n_rack_ + spec_.cdu.racks_per_cdu - 1) / spec_.cdu.racks_per_cdu;
  cover_ = plant_.chip->coverage();
  liquid_ = cover_ > 0;
  air_ = cover_ < 1;

  // Design point: every GPU at TDP, design flows. Sizes the CDU (UA from its approach), the server
  // fans (air rise server_air.delta_t at the design air heat) and the GPU heatsinks.
  const double gpr = layout_.gpus_per_rack;
  const double rack_heat =
      (gpr * (layout_.gpu_tdp + layout_.cpu_power_per_gpu + layout_.nic_power_per_gpu) + layout_.rack_overhead_power) /
      layout_.psu_efficiency;
  const double dt_air = spec_.server_air.delta_t;
  if (air_) {
    design_air_heat_gpu_ = (1 - cover_) * rack_heat / gpr;
    // The server fans move the air of the GPU, CPU and NIC heat; the rack overhead's own air (NVLink
    // switch trays, management) is moved by the fans inside it, which power.rack_overhead already
    // counts (GB200 NVL72: "networking/storage in tray are air-cooled by fans", NVIDIA DGX GB200
    // user guide, Hardware; published-figures §5.2).
    fan_air_heat_gpu_ = (1 - cover_) * (layout_.gpu_tdp + layout_.cpu_power_per_gpu + layout_.nic_power_per_gpu) /
                        layout_.psu_efficiency;
    c_air_ = (1 - cover_) * rack_heat / dt_air;
    // The uncovered share of a GPU package: conductances scale with (1 - c); the heatsink's air is
    // its share of the server fans' flow, sized like the rack's (TDP heats it by delta_t).
    const double u = 1 - cover_;
    const double c_hs = u * layout_.gpu_tdp / dt_air;
    const double ha = u / spec_.heatsink.r_sink_air;
    g_jh_ = u / spec_.heatsink.r_junction_sink;
    g_hs_ = c_hs > 0 ? c_hs * wall_effectiveness(ha / c_hs) : 0.0;
  }
  c_switch_ = layout_.switches * layout_.switch_power / dt_air;
  // Design heat reaching the hall air: what the rack coolers leave (estimated at their design
  // effectiveness, or all of it), network racks, liquid-to-air CDUs.
  design_room_heat_ = layout_.switches * layout_.switch_power;
  if (air_)  // the server air's design heat and its fans' heat
    design_room_heat_ += n_rack_ * ((1 - cover_) * rack_heat + server_fans(gpr) / layout_.psu_efficiency) *
                         (spec_.plant.rack == "none" ? 1.0 : 1.0 - spec_.rdhx_effectiveness);
  if (liquid_ && !plant_.cdu->to_facility_water()) design_room_heat_ += n_rack_ * cover_ * rack_heat;
  if (liquid_) size_cdus(rack_heat);
  // After sizing: the CDU's facility-side rate is set by size() (zero before), and it gives the
  // facility return temperature, hence the chiller's share of the heat.
  c_facility_ = liquid_ && plant_.cdu->to_facility_water() ? n_cdu_ * plant_.cdu->cold_side_rate()
                                                           : n_rack_ * rack_heat / kFacilityDeltaT;
}

void SiteModel::size_cdus(double rack_heat) {
  // The CDU's approach holds at the heat it takes at the design point (every GPU at TDP, design
  // flows and supply). With a hybrid package that heat is an outcome of the two paths, so the UA is
  // sized on the coverage estimate, the design point solved, and the UA re-sized on the heat the
  // busiest CDU took, until it no longer changes (2-4 rounds; exact at once when all is liquid).
  const double ch = spec_.cdu.racks_per_cdu * layout_.gpus_per_rack * branch_capacity_rate(1.0);
  design_cdu_heat_ = spec_.cdu.racks_per_cdu * cover_ * rack_heat;
  plant_.cdu->size(spec_, design_cdu_heat_, ch);
  if (!air_) return;
  const std::vector<double> full(layout_.gpus, 1.0);
  for (int round = 0; round < 20; ++round) {
    build(full, full, design_conditions(), nullptr, true);
    net_.solve_steady();
    double q = 0;
    for (const auto& c : cg_)
      if (c.members.front() * spec_.cdu.racks_per_cdu + spec_.cdu.racks_per_cdu <= n_rack_ || cg_.size() == 1)
        q = std::max(q, net_.term_flow(c.hx_term) / c.copies);
    // A site smaller than one CDU: scale its heat to a full CDU.
    if (n_rack_ < spec_.cdu.racks_per_cdu) q *= static_cast<double>(spec_.cdu.racks_per_cdu) / n_rack_;
    const bool done = std::abs(q - design_cdu_heat_) <= 1e-10 * design_cdu_heat_;
    design_cdu_heat_ = q;
    plant_.cdu->size(spec_, design_cdu_heat_, ch);
    if (done) break;
  }
  net_.clear();
  net_.reset_factorizations();  // the sizing solves are not the model's
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
  return plant_.rejection->supply(outdoor, spec_.rejection.outdoor_rh);
}

void SiteModel::set_rejection(double facility_supply, double outdoor) {
  cond_.facility_supply = facility_supply;
  cond_.outdoor_temp = outdoor;
  if (fws_ >= 0) net_.set_boundary(fws_, facility_supply);
}

double SiteModel::branch_capacity_rate(double flow_fraction) const {
  return fluid_->capacity_rate(spec_.flow_per_gpu * flow_fraction);
}

double SiteModel::self_resistance(const GpuGroup& g) const {
  double gl = liquid_ ? plant_.chip->path_conductance(g.cg) : 0.0;
  if (g.H >= 0) gl += g_jh_ * g_hs_ / (g_jh_ + g_hs_);
  return gl > 0 ? 1.0 / gl : 1e6;
}

double SiteModel::min_loop_flow() const {
  if (!liquid_ || cg_.empty()) return 0.0;
  double q = std::numeric_limits<double>::infinity();
  for (const auto& c : cg_) q = std::min(q, c.ch / (fluid_->density * fluid_->cp));
  return q;
}

void SiteModel::build(const std::vector<double>& util, const std::vector<double>& clock, const Conditions& cond,
                      const PhysicalTemps* temps, bool group, const std::vector<double>* extra) {
  cond_ = cond;
  const int gpr = layout_.gpus_per_rack, rpc = spec_.cdu.racks_per_cdu, n = layout_.gpus;
  // Pass 1: classes by exact key (identical members only), deterministic (std::map order).
  auto add_temps = [](std::vector<double>& k, const std::map<std::string, std::vector<double>>& m, int i) {
    for (const auto& [kind, v] : m) k.push_back(v[i]);
  };
  // A class is numbered by its key's first appearance. Neighbours mostly share a key: one equal
  // (==, no NaN) to the previous element's is that element's class, as the map would find it, so
  // the map is only searched on a change, and the key buffers are reused (no allocation per GPU).
  struct Classes {
    std::map<std::vector<double>, int> keys;
    std::vector<double> key, last;
    int last_class = -1;
    int classify() {
      if (last_class >= 0 && key == last) return last_class;
      auto it = keys.find(key);
      if (it == keys.end()) it = keys.emplace(key, static_cast<int>(keys.size())).first;
      last.swap(key);
      return last_class = it->second;
    }
  };
  std::vector<int> gclass(n), rclass(n_rack_), cclass(n_cdu_);
  {
    Classes cl;
    std::vector<const std::vector<double>*> cols;  // temps->gpu's kinds, in add_temps' (map) order
    if (temps)
      for (const auto& kv : temps->gpu) cols.push_back(&kv.second);
    const std::size_t len = 2 + cols.size() + (extra ? 1 : 0) + (group ? 0 : 1);
    for (int g = 0; g < n; ++g) {
      cl.key.resize(len);
      double* k = cl.key.data();
      *k++ = util[g];
      *k++ = clock[g];
      for (const auto* col : cols) *k++ = (*col)[g];
      if (extra) *k++ = (*extra)[g];
      if (!group) *k++ = g;
      gclass[g] = cl.classify();
    }
  }
  {
    Classes cl;
    std::map<int, int> comp;
    for (int r = 0; r < n_rack_; ++r) {
      comp.clear();
      for (int g = r * gpr; g < std::min(n, (r + 1) * gpr); ++g) ++comp[gclass[g]];
      std::vector<double>& k = cl.key;
      k.clear();
      k.push_back(double(cond.rdhx_fans_ok[r]));
      if (temps) add_temps(k, temps->rack, r);
      if (!group) k.push_back(r);
      for (auto [c, m] : comp) k.insert(k.end(), {double(c), double(m)});
      rclass[r] = cl.classify();
    }
  }
  {
    Classes cl;
    std::map<int, int> comp;
    for (int c = 0; c < n_cdu_; ++c) {
      comp.clear();
      for (int r = c * rpc; r < std::min(n_rack_, (c + 1) * rpc); ++r) ++comp[rclass[r]];
      std::vector<double>& k = cl.key;
      k.assign({cond.flow_fraction[c], double(cond.cdu_lost[c]), double(cond.air_fallback[c])});
      if (temps) add_temps(k, temps->cdu, c);
      if (!group) k.push_back(c);
      for (auto [rc, m] : comp) k.insert(k.end(), {double(rc), double(m)});
      cclass[c] = cl.classify();
    }
  }
  gg_.clear();
  rg_.clear();
  cg_.clear();
  std::map<int, int> cgroup_of;
  std::map<std::pair<int, int>, int> rgroup_of;
  std::map<std::pair<int, int>, int> ggroup_of;
  std::pair<int, int> last_gpu_key(-1, -1);
  int last_gpu_group = -1;
  for (int c = 0; c < n_cdu_; ++c) {
    auto [cit, cnew] = cgroup_of.try_emplace(cclass[c], static_cast<int>(cg_.size()));
    if (cnew) {
      CduGroup cgn;
      cgn.flow_fraction = cond.flow_fraction[c];
      cgn.lost = cond.cdu_lost[c] != 0;
      cg_.push_back(cgn);
    }
    const int cgi = cit->second;
    cg_[cgi].members.push_back(c);
    for (int r = c * rpc; r < std::min(n_rack_, (c + 1) * rpc); ++r) {
      auto [rit, rnew] = rgroup_of.try_emplace(std::make_pair(cgi, rclass[r]), static_cast<int>(rg_.size()));
      if (rnew) {
        RackGroup rg;
        rg.cdu_group = cgi;
        rg.rdhx_ok = cond.rdhx_fans_ok[r] != 0;
        rg.ngpus = std::min(n, (r + 1) * gpr) - r * gpr;
        rg_.push_back(rg);
        cg_[cgi].rack_groups.push_back(rit->second);
      }
      const int rgi = rit->second;
      rg_[rgi].members.push_back(r);
      for (int g = r * gpr; g < std::min(n, (r + 1) * gpr); ++g) {
        const std::pair<int, int> key(rgi, gclass[g]);
        if (key != last_gpu_key) {  // else the previous GPU's group
          auto [git, gnew] = ggroup_of.try_emplace(key, static_cast<int>(gg_.size()));
          if (gnew) {
            GpuGroup gg;
            gg.rack_group = rgi;
            gg.util = util[g];
            gg.clock = clock[g];
            gg_.push_back(gg);
            rg_[rgi].gpu_groups.push_back(git->second);
          }
          last_gpu_key = key;
          last_gpu_group = git->second;
        }
        gg_[last_gpu_group].members.push_back(g);
      }
    }
  }

  // Pass 2: nodes and terms. A group node stands for `copies` physical nodes.
  net_.clear();
  records_.clear();
  fws_ = net_.add_boundary(cond.facility_supply);
  const double t_room = plant_.room->supply_temperature();
  room_ = net_.add_boundary(t_room);
  const double t_liquid = cond.facility_supply + spec_.cdu_approach;  // design-point start of a liquid node
  int cur_gpu = -1, cur_rack = -1, cur_cdu = -1;
  using Level = BuildContext::Level;
  auto node = [&](Level level, const std::string& kind, double cap, double copies) {
    const int group_index = level == Level::Gpu ? cur_gpu : level == Level::Rack ? cur_rack : cur_cdu;
    double t0 = level == Level::Rack && kind != "manifold" ? t_room : t_liquid;
    if (temps) {
      const auto& m = level == Level::Gpu ? temps->gpu : level == Level::Rack ? temps->rack : temps->cdu;
      const auto& members = level == Level::Gpu    ? gg_[group_index].members
                            : level == Level::Rack ? rg_[group_index].members
                                                   : cg_[group_index].members;
      const auto it = m.find(kind);
      if (it != m.end()) t0 = it->second[members.front()];
    }
    const int id = net_.add_node(cap, copies, t0);
    records_.push_back({id, {level, kind, group_index}});
    return id;
  };
  BuildContext b{net_, spec_, *fluid_, fws_, room_, node};
  // Auxiliary air on a rack loop: removes capacity_per_rack when the rack return is at the outlet
  // limit (air-to-liquid coils fed by hall air) - a linear stand-in for the brief's air fallback.
  const double g_fallback = spec_.air_fallback.capacity_per_rack / std::max(1.0, spec_.limits.outlet_max - t_room);
  const double rho_cp = fluid_->density * fluid_->cp;
  const double recirc = spec_.server_air.recirculation;
  for (size_t ci = 0; ci < cg_.size(); ++ci) {
    CduGroup& c = cg_[ci];
    cur_cdu = static_cast<int>(ci);
    c.copies = static_cast<double>(c.members.size());
    if (liquid_) {
      c.S = node(Level::Cdu, "supply", rho_cp * spec_.cdu.loop_volume / 2, c.copies);
      c.R = node(Level::Cdu, "return", rho_cp * spec_.cdu.loop_volume / 2, c.copies);
    }
    const double cgv = liquid_ ? branch_capacity_rate(c.flow_fraction) : 0.0;
    double ch = 0;
    for (int rgi : c.rack_groups) {
      RackGroup& r = rg_[rgi];
      cur_rack = rgi;
      r.copies = static_cast<double>(r.members.size());
      r.per_cdu = r.copies / c.copies;
      if (liquid_) r.M = node(Level::Rack, "manifold", plant_.chip->rack_capacitance(), r.copies);
      if (air_) {
        r.I = node(Level::Rack, "air_in", 0.0, r.copies);
        r.X = node(Level::Rack, "exhaust", kAirRhoCp * spec_.server_air.rack_air_volume, r.copies);
      }
      double c_rack = 0;
      for (int ggi : r.gpu_groups) {
        GpuGroup& g = gg_[ggi];
        cur_gpu = ggi;
        g.copies = static_cast<double>(g.members.size());
        g.per_rack = g.copies / r.copies;
        g.cg = cgv;
        g.J = node(Level::Gpu, "junction", spec_.cold_plate.c_junction, g.copies);
        if (liquid_) {
          const GpuLiquidPath path = plant_.chip->build_gpu(b, g.J, c.S, r.M, g.copies, cgv);
          g.P = path.plate;
          g.O = path.outlet;
        }
        if (air_) {
          g.H = node(Level::Gpu, "heatsink", spec_.heatsink.c_sink * (1 - cover_), g.copies);
          net_.add_conductance(g.J, g.H, g_jh_, g.copies);
          g.hs_term = net_.add_transfer(g.H, r.X, g.H, r.I, g_hs_, g.copies);
        }
        c_rack += g.per_rack * cgv;
      }
      if (liquid_) {
        plant_.chip->build_rack(b, c.S, r.M, r.copies, c_rack);
        net_.add_advection(r.M, c.R, c_rack, r.copies);
        if (cond.air_fallback[c.members.front()]) net_.add_conductance(r.M, room_, g_fallback, r.copies);
      }
      if (air_) {
        net_.add_advection(room_, r.I, (1 - recirc) * c_air_, r.copies);
        net_.add_advection(r.I, r.X, c_air_, r.copies);
        r.D = plant_.rack->build(b, r.X, r.copies, c_air_, r.rdhx_ok, r.cooler_term);
        if (recirc > 0) net_.add_advection(r.D, r.I, recirc * c_air_, r.copies);
        r.room_term = net_.add_advection(r.D, room_, (1 - recirc) * c_air_, r.copies);
      }
      ch += r.per_cdu * c_rack;
    }
    c.ch = ch;
    if (liquid_) {
      net_.add_advection(c.R, c.S, ch, c.copies);
      c.hx_term = plant_.cdu->build(b, c.S, c.R, c.copies, ch, c.lost);
    }
  }
  switch_node_ = -1;
  if (c_switch_ > 0) {  // air-cooled network racks: cold aisle -> switches -> hall
    switch_node_ = net_.add_node(kAirRhoCp * spec_.server_air.rack_air_volume, 1.0, t_room);
    net_.add_advection(room_, switch_node_, c_switch_);
    net_.add_advection(switch_node_, room_, c_switch_);
  }
  update_sources();
}

void SiteModel::update_sources() {
  const double gpr = layout_.gpus_per_rack;
  for (auto& g : gg_)  // clock 0 = GPU off after a thermal shutdown
    g.power = g.clock <= 0
                  ? 0.0
                  : gpu_power(layout_.gpu_tdp, layout_.gpu_idle_power, g.util, g.clock, spec_.throttle.power_exponent);
  for (auto& r : rg_) {
    double gsum = 0;
    for (int ggi : r.gpu_groups) {
      gsum += gg_[ggi].per_rack * gg_[ggi].power;
      net_.set_source(gg_[ggi].J, gg_[ggi].power);
    }
    // Server fans move the design air flow (fixed, like c_air_): their power is constant per rack.
    const double fans = server_fans(r.ngpus);
    r.heat = (gsum + r.ngpus * (layout_.cpu_power_per_gpu + layout_.nic_power_per_gpu) +
              layout_.rack_overhead_power * r.ngpus / gpr + fans) /
             layout_.psu_efficiency;
    r.fan_heat = fans / layout_.psu_efficiency;
    // CPUs, NICs, switch trays, PSU losses: their cold plates take the covered share into the rack's
    // liquid, the rest heats the server air; the server fans' heat is all in the air.
    r.other = r.heat - gsum;
    if (r.M >= 0) net_.set_source(r.M, cover_ * (r.other - r.fan_heat));
    if (r.X >= 0) net_.set_source(r.X, (1 - cover_) * (r.other - r.fan_heat) + r.fan_heat);
  }
  if (switch_node_ >= 0) net_.set_source(switch_node_, layout_.switches * layout_.switch_power);
}

PowerBreakdown SiteModel::power() const {
  PowerBreakdown p;
  const double gpr = layout_.gpus_per_rack;
  for (const auto& g : gg_) p.gpu += g.copies * g.power;
  p.cpu = layout_.gpus * layout_.cpu_power_per_gpu;
  p.nic = layout_.gpus * layout_.nic_power_per_gpu;
  for (const auto& r : rg_) {
    p.rack_overhead += r.copies * layout_.rack_overhead_power * r.ngpus / gpr;
    p.server_fans += r.copies * server_fans(r.ngpus);
    if (air_) p.rack_cooler_fans += r.copies * plant_.rack->fan_power(r.rdhx_ok, design_air_heat_gpu_ * r.ngpus);
  }
  const double dc = p.gpu + p.cpu + p.nic + p.rack_overhead + p.server_fans;
  p.psu_loss = dc * (1 / layout_.psu_efficiency - 1);
  p.switches = layout_.switches * layout_.switch_power;
  p.it = dc + p.psu_loss + p.switches;

  if (liquid_) {
    const double ch_full = spec_.cdu.racks_per_cdu * gpr * branch_capacity_rate(1.0);
    for (const auto& c : cg_) {
      const double ratio = c.ch / ch_full;  // pump affinity law: power ~ flow^3
      p.cdu_pumps += c.copies * spec_.pumps.power_fraction * design_cdu_heat_ * ratio * ratio * ratio;
      p.cdu_fans += c.copies * plant_.cdu->fan_power();
    }
  }
  // Heat into the two boundaries. The hall's may be negative: rear doors on water colder than the
  // cold aisle return air below it, and the CRAH then has nothing to take (its power uses max(0, q)).
  const double q_fw_raw = net_.heat_into(fws_), q_room_raw = net_.heat_into(room_);
  const double q_fw = std::max(0.0, q_fw_raw), q_room = std::max(0.0, q_room_raw);
  const double t_sup = cond_.facility_supply;
  const auto rej =
      plant_.rejection->power(q_fw, t_sup, t_sup + q_fw / c_facility_, cond_.outdoor_temp, spec_.rejection.outdoor_rh);
  p.facility_pumps = rej.pumps;
  p.rejection_fans = rej.fans;
  p.chiller = rej.chiller;
  p.crah = plant_.room->power(q_room);
  p.cooling = p.cdu_pumps + p.cdu_fans + p.facility_pumps + p.rack_cooler_fans + p.rejection_fans + p.chiller + p.crah;
  p.facility = (p.it + p.cooling) / (1 - spec_.power.distribution_loss);
  p.distribution_loss = p.facility - p.it - p.cooling;
  p.pue = p.facility / p.it;
  p.pue_fans_as_cooling = p.facility / (p.it - p.server_fans / layout_.psu_efficiency);
  p.brief_estimate = layout_.gpus * layout_.gpu_tdp * 1.2;
  p.heat_to_facility_water = q_fw_raw;
  p.heat_to_room = q_room_raw;
  return p;
}

PhysicalTemps SiteModel::physical_temps() const {
  PhysicalTemps t;
  using Level = BuildContext::Level;
  for (const auto& [id, rec] : records_) {
    const double v = net_.temperature(id);
    if (rec.level == Level::Gpu) {
      auto& vec = t.gpu[rec.kind];
      vec.resize(layout_.gpus, kNaN);
      for (int m : gg_[rec.group].members) vec[m] = v;
    } else if (rec.level == Level::Rack) {
      auto& vec = t.rack[rec.kind];
      vec.resize(n_rack_, kNaN);
      for (int m : rg_[rec.group].members) vec[m] = v;
    } else {
      auto& vec = t.cdu[rec.kind];
      vec.resize(n_cdu_, kNaN);
      for (int m : cg_[rec.group].members) vec[m] = v;
    }
  }
  return t;
}

SiteState SiteModel::state() const {
  SiteState s;
  PhysicalTemps t = physical_temps();
  auto take = [](std::map<std::string, std::vector<double>>& m, const char* kind, size_t n) {
    auto it = m.find(kind);
    return it == m.end() ? std::vector<double>(n, kNaN) : std::move(it->second);
  };
  const size_t n = layout_.gpus, nr = n_rack_;
  s.gpu_junction = take(t.gpu, "junction", n);
  s.gpu_cold_plate = take(t.gpu, "plate", n);
  s.gpu_outlet = take(t.gpu, "outlet", n);
  s.gpu_heatsink = take(t.gpu, "heatsink", n);
  s.gpu_power.resize(n);
  s.gpu_clock.resize(n);
  for (const auto& g : gg_)
    for (int m : g.members) {
      s.gpu_power[m] = g.power;
      s.gpu_clock[m] = g.clock;
    }
  s.rack_outlet = take(t.rack, "manifold", nr);
  s.rack_air_inlet = take(t.rack, "air_in", nr);
  s.rack_exhaust = take(t.rack, "exhaust", nr);
  s.rack_inlet.assign(nr, kNaN);
  s.rack_power.resize(nr);
  s.rack_liquid_heat.resize(nr);
  s.rack_air_heat.resize(nr);
  s.rack_rdhx_heat.resize(nr);
  s.rack_room_heat.resize(nr);
  for (const auto& r : rg_) {
    double air = (1 - cover_) * (r.other - r.fan_heat) + r.fan_heat;
    for (int ggi : r.gpu_groups)
      if (gg_[ggi].hs_term >= 0) air += net_.term_flow(gg_[ggi].hs_term) / r.copies;
    if (!air_) air = 0;
    const double door = r.cooler_term >= 0 ? net_.term_flow(r.cooler_term) / r.copies : 0.0;
    const double room = r.room_term >= 0 ? net_.term_flow(r.room_term) / r.copies : 0.0;
    for (int m : r.members) {
      if (liquid_) s.rack_inlet[m] = net_.temperature(cg_[r.cdu_group].S);
      s.rack_power[m] = r.heat;
      s.rack_air_heat[m] = air;
      s.rack_liquid_heat[m] = liquid_ ? r.heat - air : 0.0;
      s.rack_rdhx_heat[m] = door;
      s.rack_room_heat[m] = room;
    }
  }
  // Immersion: the coolant leaving a GPU is the bath.
  if (liquid_ && t.gpu.count("outlet") == 0)
    for (const auto& g : gg_)
      for (int m : g.members) s.gpu_outlet[m] = net_.temperature(rg_[g.rack_group].M);
  if (liquid_) {
    s.cdu_supply = take(t.cdu, "supply", n_cdu_);
    s.cdu_return = take(t.cdu, "return", n_cdu_);
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
  }
  s.power = power();
  s.facility_supply = cond_.facility_supply;
  s.facility_return = cond_.facility_supply + s.power.heat_to_facility_water / c_facility_;
  return s;
}

}  // namespace aidcsim::thermal
