// Priced bill of materials: cable lengths from a stated rack layout, media and modules by reach and
// rate, switch/optics/NIC power and indicative cost (see bom_price.hpp for the model).
#include "models/topology/bom_price.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "models/common/errors.hpp"
#include "models/topology/fabric_impl.hpp"
#include "models/topology/rack_layout.hpp"

namespace aidcsim::topology {
namespace {

struct Place {
  double x = 0, y = 0;
  int rack = -1;  ///< unique rack id (compute racks first, then network racks)
};

bool same_rate(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(a, b); }

std::string gbps(double rate) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0fG", rate * 8 / 1e9);
  return b;
}

std::string gbit(double rate) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f Gb/s", rate * 8 / 1e9);
  return b;
}

// The switch model priced, per BomSpec::switch_model rules.
void choose_switch(const FabricSpec& fs, const BomSpec& spec, FabricCost& c) {
  const SwitchModel* pick = nullptr;
  for (const auto& m : spec.switches)
    if (!spec.switch_model.empty() ? m.name == spec.switch_model
                                   : m.ports == fs.switch_radix && same_rate(m.port_rate, fs.link_rate)) {
      pick = &m;
      break;
    }
  if (pick) {
    c.switch_model = pick->name;
    c.switch_power = pick->power;
    c.switch_price = pick->price;
    if (pick->source.find("estimate") != std::string::npos)
      c.notes.push_back("switch " + pick->name +
                        " has estimated figures (its source in bom_parts.yaml or the scenario says which)");
    // A named model is priced as asked (an 800G switch broken out to 400G ports is a real build),
    // but not silently when it is not the switch the fabric was sized for.
    if (pick->ports != fs.switch_radix || !same_rate(pick->port_rate, fs.link_rate))
      c.notes.push_back("bom.switch_model " + pick->name + " is " + std::to_string(pick->ports) + " x " +
                        gbps(pick->port_rate) + ", the fabric's switches " + std::to_string(fs.switch_radix) + " x " +
                        gbps(fs.link_rate) +
                        " (fabric.switch_radix, fabric.link_rate): priced per switch as that model, "
                        "the fabric sized and simulated with its own");
    return;
  }
  if (spec.switches.empty()) {
    c.notes.push_back("no switch models in bom.switches: switches not priced");
    return;
  }
  const SwitchModel* near = &spec.switches.front();
  for (const auto& m : spec.switches)
    if (std::abs(std::log(m.port_rate / fs.link_rate)) < std::abs(std::log(near->port_rate / fs.link_rate))) near = &m;
  const double scale = static_cast<double>(fs.switch_radix) / near->ports;
  c.switch_estimated = true;
  c.switch_model = near->name + " scaled to " + std::to_string(fs.switch_radix) + " x " + gbps(fs.link_rate);
  c.switch_power = near->power * scale;
  c.switch_price = near->price * scale;
  c.notes.push_back("no switch model with " + std::to_string(fs.switch_radix) + " x " + gbps(fs.link_rate) +
                    " ports in bom.switches: power and price are " + near->name + "'s per port x " +
                    std::to_string(fs.switch_radix) + " ports (estimate; add the model to bom.switches)");
}

// Racks and rows of the layout model (c.gpus_per_rack, compute_racks, rows, network_racks), and
// where every GPU and switch sits: compute racks in rows, switches in a network row in the middle
// of the hall, except rack-local leaves (top of rack, in the rack of their first GPU).
std::vector<Place> place_nodes(const Fabric::Impl& f, const PhysicalLayout& L, FabricCost& c) {
  const FabricSpec& fs = f.spec;
  const int gpus = fs.gpus;
  c.gpus_per_rack = gpus_per_rack(L, fs.nvlink_domain);
  c.compute_racks = (gpus + c.gpus_per_rack - 1) / c.gpus_per_rack;
  c.rows = (c.compute_racks + L.racks_per_row - 1) / L.racks_per_row;
  const int net_row = c.rows / 2;  // the network row sits between compute rows net_row-1 and net_row
  auto compute_place = [&](int rack) {
    const int row = rack / L.racks_per_row;
    return Place{(rack % L.racks_per_row) * L.rack_pitch, (row + (row >= net_row ? 1 : 0)) * L.row_pitch, rack};
  };
  // Rack-local leaves are ToR switches in the rack of their first GPU.
  std::vector<int> first_gpu(f.n_nodes, -1);
  for (int g = 0; g < gpus; ++g)
    for (int p = 0; p < f.planes; ++p) {
      int& fg = first_gpu[f.gpu_leaf[static_cast<std::size_t>(g) * f.planes + p]];
      if (fg < 0) fg = g;
    }
  std::vector<Place> place(f.n_nodes);
  for (int g = 0; g < gpus; ++g) place[g] = compute_place(g / c.gpus_per_rack);
  int slot = 0;
  for (int n = f.first_leaf; n < f.n_nodes; ++n) {
    if (fs.wiring == Wiring::RackLocal && f.nodes[n].kind == NodeKind::Leaf && first_gpu[n] >= 0) {
      place[n] = place[first_gpu[n]];
      continue;
    }
    const int rack = slot++ / L.switches_per_rack;
    place[n] = Place{rack * L.rack_pitch, net_row * L.row_pitch, c.compute_racks + rack};
  }
  c.network_racks = (slot + L.switches_per_rack - 1) / L.switches_per_rack;
  return place;
}

// Every scale-out link's length (Manhattan distance between its ends' racks + slack), its medium
// (the cheapest reach that covers it: copper, multimode, single-mode) and the parts at its ends,
// into c.media, c.optics and their power and cost; links no part reaches or prices are counted
// and noted.
void price_links(const Fabric::Impl& f, const BomSpec& spec, const std::vector<Place>& place, FabricCost& c) {
  const PhysicalLayout& L = spec.layout;
  const auto& parts = spec.optics;
  std::vector<long long> nic_ports(parts.size(), 0);
  std::map<std::pair<int, std::size_t>, long long> switch_ports;  // (switch node, part) -> ports
  std::map<double, bool> unpriced_rates;
  auto part_for = [&](Medium m, double rate, bool switch_end, double length, bool ignore_reach) -> int {
    int best = -1;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const OpticModel& p = parts[i];
      if (p.medium != m || p.switch_end != switch_end || !same_rate(p.rate, rate)) continue;
      if (!ignore_reach && p.reach < length) continue;
      if (best < 0 || (ignore_reach && p.reach > parts[best].reach)) best = static_cast<int>(i);
    }
    return best;
  };
  c.link_length.assign(f.links.size(), 0.0);
  c.link_medium.assign(f.links.size(), -1);
  for (std::size_t li = 0; li < f.links.size(); ++li) {
    const Link& k = f.links[li];
    if (k.tier == Tier::NvLink) continue;
    const double rate = f.built_rate[li];
    const bool nic = k.tier == Tier::Access;
    const Place& pa = place[k.a];
    const Place& pb = place[k.b];
    const double length =
        pa.rack == pb.rack ? L.in_rack_length : std::abs(pa.x - pb.x) + std::abs(pa.y - pb.y) + L.cable_slack;
    int lo = -1, hi = -1;
    Medium medium = Medium::Singlemode;
    for (Medium m : {Medium::Copper, Medium::Multimode, Medium::Singlemode}) {
      lo = part_for(m, rate, !nic, length, false);
      hi = part_for(m, rate, true, length, false);
      if (lo >= 0 && hi >= 0) {
        medium = m;
        break;
      }
    }
    if (lo < 0 || hi < 0) {  // beyond every reach: the longest-reach parts at this rate
      double reach = -1;
      for (Medium m : {Medium::Copper, Medium::Multimode, Medium::Singlemode}) {
        const int a = part_for(m, rate, !nic, length, true), b = part_for(m, rate, true, length, true);
        if (a >= 0 && b >= 0 && std::min(parts[a].reach, parts[b].reach) > reach) {
          reach = std::min(parts[a].reach, parts[b].reach);
          lo = a, hi = b, medium = m;
        }
      }
      if (lo < 0 || hi < 0) {
        ++c.links_unpriced;
        unpriced_rates[rate] = true;
        continue;
      }
      ++c.links_beyond_reach;
    }
    MediumLinks& ml = c.media[static_cast<int>(medium)];
    ++ml.links;
    ml.length += length;
    ml.longest = std::max(ml.longest, length);
    c.link_length[li] = length;
    c.link_medium[li] = static_cast<signed char>(medium);
    if (nic)
      ++nic_ports[static_cast<std::size_t>(lo)];
    else
      ++switch_ports[{k.a, static_cast<std::size_t>(lo)}];
    ++switch_ports[{k.b, static_cast<std::size_t>(hi)}];
  }
  std::vector<long long> modules(parts.size(), 0);
  for (const auto& [key, n] : switch_ports)
    modules[key.second] += (n + parts[key.second].ports - 1) / parts[key.second].ports;
  for (std::size_t i = 0; i < parts.size(); ++i) modules[i] += (nic_ports[i] + parts[i].ports - 1) / parts[i].ports;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (modules[i] == 0) continue;
    const OpticModel& p = parts[i];
    c.optics.push_back({p.name, p.medium, p.rate, p.ports, p.form_factor, p.switch_end, modules[i], p.power, p.price});
    c.power_optics += modules[i] * p.power;
    c.cost_optics += modules[i] * p.price;
    if (p.source.find("estimate") != std::string::npos)
      c.notes.push_back(p.name + " has estimated figures (its source says which)");
  }
  for (const auto& [rate, _] : unpriced_rates)
    c.notes.push_back("no parts in bom.optics for " + gbps(rate) + " links: " + std::to_string(c.links_unpriced) +
                      " links have no optics power or cost (add parts at that rate)");
  if (c.links_beyond_reach > 0)
    c.notes.push_back(std::to_string(c.links_beyond_reach) +
                      " links are longer than every part's reach at their rate (the longest-reach parts are counted): "
                      "the layout needs a closer switch placement or longer-reach optics");
}

// Switches and NICs, their power and cost, and the totals.
void add_totals(const Fabric::Impl& f, const BomSpec& spec, FabricCost& c) {
  const int gpus = f.spec.gpus;
  c.switches = f.n_nodes - f.first_leaf;
  c.nics = gpus;
  c.nic_power = spec.nic_power;
  c.nic_price = spec.nic_price;
  if (spec.nic_source.find("estimate") != std::string::npos)
    c.notes.push_back(
        "NIC power and price are estimates (bom_parts.yaml bom.nic.source), one figure per NIC whatever "
        "its rate (here " +
        gbit(f.spec.nic_rate) + " per GPU): set bom.nic.power and bom.nic.price for another NIC");
  c.power_switches = c.switches * c.switch_power;
  c.cost_switches = c.switches * c.switch_price;
  c.power_nics = c.nics * c.nic_power;
  c.cost_nics = c.nics * c.nic_price;
  c.power_total = c.power_switches + c.power_optics + c.power_nics;
  c.cost_total = c.cost_switches + c.cost_optics + c.cost_nics;
  c.notes.push_back(
      "prices are indicative (models/topology/bom_parts.yaml sources); fibre, patch panels, "
      "management network, installation and NVLink-domain cabling are not priced");
}

// What the priced fabric does not carry, said where its price is: NICs faster than the GPU's PCIe
// path (an 800G NIC on a PCIe Gen5 GPU costs more and moves no more of its traffic), and failed
// elements (bought, so priced, but down in the fabric the run and the structure table describe).
void add_fabric_notes(const FabricSpec& fs, FabricCost& c) {
  if (fs.nic_pcie_rate > 0 && fs.nic_rate > fs.nic_pcie_rate * (1 + 1e-9)) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f %%", 100 * fs.nic_pcie_rate / fs.nic_rate);
    c.notes.push_back("fabric.nic_rate " + gbit(fs.nic_rate) + " per GPU is above the GPU's PCIe path to its NIC (" +
                      gbit(fs.nic_pcie_rate) +
                      " as NCCL rates it, gpus[].pcie_generation): GPU traffic loads the NIC-leaf links to at most " +
                      pct + ", and NICs faster than " + gbit(fs.nic_pcie_rate) +
                      " do not shorten the step (they and their optics are priced at " + gbit(fs.nic_rate) + ")");
  }
  for (const FailureSpec& x : fs.failures) {
    const char* type = x.type == FailureSpec::Type::LinkDown     ? "link_down"
                       : x.type == FailureSpec::Type::SwitchDown ? "switch_down"
                                                                 : "degrade";
    char when[64];
    if (x.at > 0)
      std::snprintf(when, sizeof when, "at %g s", x.at);
    else
      std::snprintf(when, sizeof when, "from the start");
    c.notes.push_back(
        std::string(x.key.empty() ? "fabric.failures" : x.key) + ": " + x.element + " " + type + " " + when +
        ": priced as built (the element is bought); " +
        (x.at > 0 ? "not down in this fabric: a run re-simulates the step after it (step_time_after_fabric_failures)"
                  : std::string("bisection, oversubscription as built and routes are of the fabric with it ") +
                        (x.type == FailureSpec::Type::Degrade ? "degraded" : "down")));
  }
}

}  // namespace

FabricCost price_fabric(const Fabric& fabric, const BomSpec& spec) {
  const Fabric::Impl& f = *fabric.impl_;
  FabricCost c;
  choose_switch(f.spec, spec, c);
  const std::vector<Place> place = place_nodes(f, spec.layout, c);
  price_links(f, spec, place, c);
  add_totals(f, spec, c);
  add_fabric_notes(f.spec, c);
  return c;
}

long long optical_modules(const FabricCost& c) {
  long long n = 0;
  for (const auto& o : c.optics)
    if (o.medium != Medium::Copper) n += o.modules;
  return n;
}

LongCables cables_at_or_over(const FabricCost& c, double limit) {
  LongCables out;
  out.limit = limit;
  for (std::size_t l = 0; l < c.link_length.size(); ++l) {
    if (c.link_medium[l] < 0) continue;
    const double length = c.link_length[l];
    if (length >= limit) {
      ++out.links;
      ++out.by_medium[c.link_medium[l]];
    }
    if (length > out.longest) out.longest = length, out.longest_link = static_cast<int>(l);
  }
  return out;
}

std::string format_fabric_cost(const FabricCost& c) {
  std::string s;
  char line[256];
  auto row = [&](const std::string& what, const std::string& v) {
    std::snprintf(line, sizeof line, "  %-44s %16s\n", what.c_str(), v.c_str());
    s += line;
  };
  auto num = [](double v, const char* fmt) {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return std::string(b);
  };
  s += "Fabric layout, optics, power and cost (indicative prices)\n";
  row("layout (GPUs/rack, compute racks, rows)",
      std::to_string(c.gpus_per_rack) + ", " + std::to_string(c.compute_racks) + ", " + std::to_string(c.rows));
  row("network racks (one row, mid-hall)", std::to_string(c.network_racks));
  for (Medium m : {Medium::Copper, Medium::Multimode, Medium::Singlemode}) {
    const MediumLinks& ml = c.media[static_cast<int>(m)];
    const std::string name = m == Medium::Copper      ? "copper (DAC) links"
                             : m == Medium::Multimode ? "multimode links"
                                                      : "single-mode links";
    row(name + " (count, mean m, longest m)", std::to_string(ml.links) + ", " +
                                                  num(ml.links ? ml.length / ml.links : 0, "%.1f") + ", " +
                                                  num(ml.longest, "%.1f"));
  }
  if (c.links_unpriced) row("links without parts at their rate", std::to_string(c.links_unpriced));
  for (const auto& o : c.optics) {
    char what[160];
    // The end once: parts named "... (switch end)" (bom_parts.yaml) already say it.
    const std::string end = o.switch_end ? "switch end" : "NIC end";
    const bool named = o.name.find(end) != std::string::npos;
    std::snprintf(what, sizeof what, "%s (%s %s%s%s)", o.name.c_str(), o.form_factor.c_str(),
                  o.ports > 1 ? (std::to_string(o.ports) + "x").c_str() : "", gbps(o.rate).c_str(),
                  named ? "" : (", " + end).c_str());
    row(what, std::to_string(o.modules));
  }
  row("switch model" + std::string(c.switch_estimated ? " (estimated)" : ""), c.switch_model);
  row("power: switches (kW)", num(c.power_switches / 1e3, "%.1f"));
  row("power: optics (kW)", num(c.power_optics / 1e3, "%.1f"));
  row("power: NICs (kW)", num(c.power_nics / 1e3, "%.1f"));
  row("power: fabric total (kW)", num(c.power_total / 1e3, "%.1f"));
  row("power per GPU (W)", num(c.nics ? c.power_total / c.nics : 0, "%.1f"));
  row("cost: switches (MUSD)", num(c.cost_switches / 1e6, "%.2f"));
  row("cost: optics and cables (MUSD)", num(c.cost_optics / 1e6, "%.2f"));
  row("cost: NICs (MUSD)", num(c.cost_nics / 1e6, "%.2f"));
  row("cost: fabric total (MUSD)", num(c.cost_total / 1e6, "%.2f"));
  row("cost per GPU (USD)", num(c.nics ? c.cost_total / c.nics : 0, "%.0f"));
  for (const auto& n : c.notes) s += "  note: " + n + "\n";
  return s;
}

}  // namespace aidcsim::topology
