#pragma once
// BomSpec: the physical layout, parts (switch models, optics, NICs), power and indicative prices
// that turn a built fabric into a priced bill of materials (topology::price_fabric). SI units,
// prices in US dollars. The defaults are data: models/topology/bom_parts.yaml (compiled in, every
// figure with its source); a scenario's `bom:` section overrides them key by key, and its
// `bom.switches` / `bom.optics` items replace built-in items of the same name or add new ones.
#include <string>
#include <vector>

namespace aidcsim::topology {

/// Where racks and switches stand, for cable lengths (see price_fabric for the model).
struct PhysicalLayout {
  int gpus_per_rack = 0;       ///< 0: the NVLink domain when it has >= 32 GPUs, else 32 GPUs
  int racks_per_row = 16;      ///< compute racks per row
  double rack_pitch = 0.6;     ///< m, rack width along a row
  double row_pitch = 2.4;      ///< m, row centre to row centre (rack depth + one aisle)
  int switches_per_rack = 16;  ///< scale-out switches per network rack
  double cable_slack = 5.0;    ///< m added to every rack-to-rack cable (risers to the tray at both ends, service loops)
  double in_rack_length = 2.0;  ///< m, a cable that stays in its rack (ToR to server)
};

/// A scale-out switch model.
struct SwitchModel {
  std::string name;
  int ports = 0;           ///< ports at port_rate
  double port_rate = 0;    ///< B/s per port
  int ports_per_cage = 1;  ///< ports per pluggable cage (2: twin-port OSFP on Quantum-2 / Spectrum-4)
  double power = 0;        ///< W, the switch without its pluggable optics
  double price = 0;        ///< USD, indicative
  std::string source;      ///< where the figures come from ("estimate: ..." when not published)
};

enum class Medium { Copper, Multimode, Singlemode };
const char* medium_name(Medium m);

/// A pluggable module (or one end of a copper cable) at one end of a link.
struct OpticModel {
  std::string name;
  Medium medium = Medium::Multimode;
  double rate = 0;          ///< B/s per port
  int ports = 1;            ///< link ports per module (2: twin-port)
  std::string form_factor;  ///< "OSFP", "QSFP112", ...
  bool switch_end = true;   ///< true: plugs into a switch cage; false: into a NIC
  double reach = 0;         ///< m, longest link
  double power = 0;         ///< W per module
  double price = 0;         ///< USD per module (for copper: the cable's share at this end), indicative
  std::string source;
};

struct BomSpec {
  PhysicalLayout layout;
  /// Switch model: "" picks the first of `switches` with the fabric's radix and port rate.
  std::string switch_model;
  std::vector<SwitchModel> switches;
  std::vector<OpticModel> optics;
  double nic_power = 0;  ///< W per GPU scale-out NIC (all its ports)
  double nic_price = 0;  ///< USD per NIC, indicative
  std::string nic_source;
};

}  // namespace aidcsim::topology
