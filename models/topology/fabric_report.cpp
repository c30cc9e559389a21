#include "models/topology/fabric_report.hpp"

#include "models/common/units.hpp"

namespace aidcsim::topology {
namespace {

void add_cost(Results& r, const FabricCost& c) {
  const auto& m = c.media;
  r.add("links_copper", static_cast<double>(m[0].links), "1",
        "Scale-out links on copper (DAC), in-reach by the layout model");
  r.add("links_multimode", static_cast<double>(m[1].links), "1", "Scale-out links on multimode optics (SR, <= 50 m)");
  r.add("links_singlemode", static_cast<double>(m[2].links), "1", "Scale-out links on single-mode optics (DR/FR)");
  r.add("optical_modules", static_cast<double>(optical_modules(c)), "1",
        "Pluggable optical modules (twin-port switch modules count once)");
  r.add("cable_length", m[0].length + m[1].length + m[2].length, "m", "Total scale-out cable length (layout estimate)");
  r.add("fabric_power", c.power_total / 1e3, "kW", "Scale-out fabric power: switches + optics + NICs");
  r.add("fabric_power_switches", c.power_switches / 1e3, "kW", "Switches without optics (" + c.switch_model + ")");
  r.add("fabric_power_optics", c.power_optics / 1e3, "kW", "Pluggable optics at both ends of every link");
  r.add("fabric_power_nics", c.power_nics / 1e3, "kW", "GPU scale-out NICs without modules");
  r.add("fabric_cost", c.cost_total / 1e6, "MUSD",
        "INDICATIVE fabric CAPEX: switches + optics + NICs (bom_parts.yaml prices)");
  r.add("fabric_cost_switches", c.cost_switches / 1e6, "MUSD", "INDICATIVE switch cost");
  r.add("fabric_cost_optics", c.cost_optics / 1e6, "MUSD", "INDICATIVE optics and copper cable cost");
  r.add("fabric_cost_nics", c.cost_nics / 1e6, "MUSD", "INDICATIVE NIC cost");
  r.add("fabric_cost_per_gpu", c.nics ? c.cost_total / c.nics : 0.0, "USD", "INDICATIVE fabric cost per GPU");
}

}  // namespace

void report_fabric(Results& r, const BillOfMaterials& bom, const FabricCost& cost) {
  r.add("switches", bom.switches, "1", "Scale-out switches (leaf + spine + core)");
  r.add("fabric_tiers", bom.tiers, "1", "Switch tiers as built (2: leaf-spine, 3: with a core tier)");
  r.add("oversubscription_leaf", bom.oversub_leaf, "1", "Leaf downlink:uplink capacity as built (max over leaves)");
  if (bom.tiers == 3)
    r.add("oversubscription_spine", bom.oversub_spine, "1",
          "Spine downlink:uplink capacity as built (max over spines)");
  r.add("bisection_bandwidth", bom.bisection_bandwidth * units::kBitsPerByte / 1e12, "Tb/s",
        "Fabric bisection bandwidth, one direction");
  add_cost(r, cost);
  r.notes.push_back(
      "fabric BOM: cable lengths from a layout model (" + std::to_string(cost.compute_racks) + " compute racks in " +
      std::to_string(cost.rows) +
      " rows, switches in a mid-hall network row), "
      "media by reach, power and INDICATIVE prices from models/topology/bom_parts.yaml unless the scenario's "
      "bom: section sets them; switch and NIC power with optics feed IT power unless power.switch_power / "
      "power.nic_per_gpu are given (estimate)");
  for (const auto& n : cost.notes) r.notes.push_back("fabric BOM: " + n);
}

}  // namespace aidcsim::topology
