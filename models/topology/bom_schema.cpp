#include "models/topology/bom_schema.hpp"

#include <functional>

namespace aidcsim::topology {

// One table of the bom: keys (long by nature: one entry per key).
Schema bom_schema() {
  using Q = Quantity;
  const char* builtin = " Default: models/topology/bom_parts.yaml.";
  auto d = [&](const std::string& s) { return s + builtin; };
  return {
      {"bom",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Priced bill of materials of the scale-out fabric: layout for cable lengths, switch models, optics, NICs, "
       "power and INDICATIVE prices (docs/architect-guide.md). Every key defaults to the built-in parts file "
       "models/topology/bom_parts.yaml, where each figure has its source."},
      {"bom.layout",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Physical layout: compute racks in rows, all scale-out switches in one network row in the middle of the hall."},
      {"bom.layout.gpus_per_rack",
       Q::Integer,
       "",
       false,
       0,
       4096,
       false,
       {},
       d("GPUs per compute rack; 0 = one NVLink domain per rack when it has >= 32 GPUs, else 32 GPUs.")},
      {"bom.layout.racks_per_row", Q::Integer, "", false, 1, 1000, false, {}, d("Compute racks per row.")},
      {"bom.layout.rack_pitch", Q::Length, "", false, 0.1, 10, false, {}, d("Rack width along a row.")},
      {"bom.layout.row_pitch",
       Q::Length,
       "",
       false,
       0.5,
       50,
       false,
       {},
       d("Row centre to row centre (rack depth + aisle).")},
      {"bom.layout.switches_per_rack",
       Q::Integer,
       "",
       false,
       1,
       100,
       false,
       {},
       d("Scale-out switches per network rack.")},
      {"bom.layout.cable_slack",
       Q::Length,
       "",
       false,
       0,
       100,
       false,
       {},
       d("Length added to every rack-to-rack cable: risers to the overhead tray and service loops.")},
      {"bom.layout.in_rack_length", Q::Length, "", false, 0.1, 10, false, {}, d("Length of a cable inside one rack.")},
      {"bom.switch_model",
       Q::String,
       "",
       false,
       {},
       {},
       false,
       {},
       d("Name of the switch model in bom.switches; empty: the first with the fabric's switch_radix and link_rate "
         "(none: the nearest port rate's power and price per port x radix, stated as an estimate).")},
      {"bom.switches",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       d("Switch models; an item named like a built-in one replaces it.")},
      {"bom.switches[].name", Q::String, "", true, {}, {}, false, {}, "Model name, e.g. QM9700."},
      {"bom.switches[].ports", Q::Integer, "", false, 1, 4096, false, {}, "Ports at port_rate."},
      {"bom.switches[].port_rate", Q::DataRate, "", false, 1e6, 1e12, false, {}, "Rate of one port."},
      {"bom.switches[].ports_per_cage",
       Q::Integer,
       "",
       false,
       1,
       8,
       false,
       {},
       "Ports per pluggable cage (2: twin-port OSFP); default 1."},
      {"bom.switches[].power", Q::Power, "", false, 0, 1e5, false, {}, "The switch without pluggable optics."},
      {"bom.switches[].price", Q::Money, "", false, 0, 1e8, false, {}, "Indicative price of one switch."},
      {"bom.switches[].source", Q::String, "", false, {}, {}, false, {}, "Where the figures come from."},
      {"bom.optics",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       d("Pluggable modules and copper cable ends per medium, rate and end; an item named like a built-in one replaces "
         "it.")},
      {"bom.optics[].name", Q::String, "", true, {}, {}, false, {}, "Part name."},
      {"bom.optics[].medium",
       Q::String,
       "",
       false,
       {},
       {},
       false,
       {"copper", "multimode", "singlemode"},
       "copper: DAC/ACC; multimode: SR optics or AOC; singlemode: DR/FR optics."},
      {"bom.optics[].rate", Q::DataRate, "", false, 1e6, 1e12, false, {}, "Link rate of one port."},
      {"bom.optics[].ports",
       Q::Integer,
       "",
       false,
       1,
       8,
       false,
       {},
       "Link ports per module (2: twin-port); default 1."},
      {"bom.optics[].form_factor", Q::String, "", false, {}, {}, false, {}, "OSFP, QSFP112, ..."},
      {"bom.optics[].switch_end", Q::Bool, "", false, {}, {}, false, {}, "true: a switch cage; false: a NIC."},
      {"bom.optics[].reach", Q::Length, "", false, 0.1, 1e5, false, {}, "Longest link."},
      {"bom.optics[].power", Q::Power, "", false, 0, 1000, false, {}, "Per module."},
      {"bom.optics[].price",
       Q::Money,
       "",
       false,
       0,
       1e6,
       false,
       {},
       "Indicative, per module (copper: the cable's share at this end)."},
      {"bom.optics[].source", Q::String, "", false, {}, {}, false, {}, "Where the figures come from."},
      {"bom.nic", Q::Map, "", false, {}, {}, false, {}, "The GPUs' scale-out NICs (one per GPU)."},
      {"bom.nic.power", Q::Power, "", false, 0, 1000, false, {}, d("Per NIC, without its modules.")},
      {"bom.nic.price", Q::Money, "", false, 0, 1e6, false, {}, d("Indicative, per NIC.")},
      {"bom.nic.source", Q::String, "", false, {}, {}, false, {}, "Where the figures come from."},
  };
}

namespace {

// The Params (scenario, else base) that holds `key`; throws InvalidParameter naming the scenario key.
const Params& holder(const Params& root, const Params& base, const char* key) {
  if (root.has(key)) return root;
  if (base.has(key)) return base;
  root.invalid(key, "a value (missing from the scenario and from bom_parts.yaml)");
}

SwitchModel switch_of(const Params& it) {
  SwitchModel m;
  m.name = it.text("name");
  auto need = [&](const char* k) {
    if (!it.has(k)) it.invalid(k, "a value for a new switch model");
  };
  for (const char* k : {"ports", "port_rate", "power", "price"}) need(k);
  m.ports = static_cast<int>(it.integer("ports"));
  m.port_rate = it.number("port_rate");
  m.ports_per_cage = it.has("ports_per_cage") ? static_cast<int>(it.integer("ports_per_cage")) : 1;
  m.power = it.number("power");
  m.price = it.number("price");
  m.source = it.has("source") ? it.text("source") : "scenario " + it.path() + " (no source given)";
  return m;
}

OpticModel optic_of(const Params& it) {
  OpticModel o;
  o.name = it.text("name");
  for (const char* k : {"medium", "rate", "switch_end", "reach", "power", "price"})
    if (!it.has(k)) it.invalid(k, "a value for a new optics item");
  const std::string& m = it.text("medium");
  o.medium = m == "copper" ? Medium::Copper : m == "singlemode" ? Medium::Singlemode : Medium::Multimode;
  o.rate = it.number("rate");
  o.ports = it.has("ports") ? static_cast<int>(it.integer("ports")) : 1;
  o.form_factor = it.has("form_factor") ? it.text("form_factor") : "";
  o.switch_end = it.flag("switch_end");
  o.reach = it.number("reach");
  o.power = it.number("power");
  o.price = it.number("price");
  o.source = it.has("source") ? it.text("source") : "scenario " + it.path() + " (no source given)";
  return o;
}

// Base items, then the scenario's: same name replaces, a new name is appended.
template <typename T>
std::vector<T> merged(const Params& root, const Params& base, const char* key,
                      const std::function<T(const Params&)>& of) {
  std::vector<T> out;
  if (base.has(key))
    for (const Params& it : base.list(key)) out.push_back(of(it));
  if (root.has(key))
    for (const Params& it : root.list(key)) {
      T v = of(it);
      bool replaced = false;
      for (T& o : out)
        if (o.name == v.name) o = v, replaced = true;
      if (!replaced) out.push_back(std::move(v));
    }
  return out;
}

}  // namespace

const char* medium_name(Medium m) {
  switch (m) {
    case Medium::Copper:
      return "copper";
    case Medium::Multimode:
      return "multimode";
    case Medium::Singlemode:
      return "singlemode";
  }
  return "?";
}

BomSpec bom_spec_from(const Params& root, const Params& base) {
  BomSpec b;
  auto integer = [&](const char* k) { return static_cast<int>(holder(root, base, k).integer(k)); };
  auto number = [&](const char* k) { return holder(root, base, k).number(k); };
  b.layout.gpus_per_rack = integer("bom.layout.gpus_per_rack");
  b.layout.racks_per_row = integer("bom.layout.racks_per_row");
  b.layout.rack_pitch = number("bom.layout.rack_pitch");
  b.layout.row_pitch = number("bom.layout.row_pitch");
  b.layout.switches_per_rack = integer("bom.layout.switches_per_rack");
  b.layout.cable_slack = number("bom.layout.cable_slack");
  b.layout.in_rack_length = number("bom.layout.in_rack_length");
  b.switch_model = holder(root, base, "bom.switch_model").text("bom.switch_model");
  b.switches = merged<SwitchModel>(root, base, "bom.switches", switch_of);
  b.optics = merged<OpticModel>(root, base, "bom.optics", optic_of);
  b.nic_power = number("bom.nic.power");
  b.nic_price = number("bom.nic.price");
  b.nic_source = root.has("bom.nic.power") || root.has("bom.nic.price")
                     ? "scenario bom.nic"
                     : (base.has("bom.nic.source") ? base.text("bom.nic.source") : "");
  if (!b.switch_model.empty()) {
    bool found = false;
    for (const auto& s : b.switches) found = found || s.name == b.switch_model;
    if (!found) {
      std::string names;
      for (const auto& s : b.switches) names += (names.empty() ? "" : ", ") + s.name;
      (root.has("bom.switch_model") ? root : base).invalid("bom.switch_model", "one of bom.switches: " + names);
    }
  }
  return b;
}

}  // namespace aidcsim::topology
