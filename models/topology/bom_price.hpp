#pragma once
// The priced bill of materials of a built fabric: links by medium (copper DAC, multimode, single
// mode) from cable lengths of a stated physical layout, pluggable modules by part, rate and form
// factor, and the power and INDICATIVE cost of switches, optics and NICs.
#include <string>
#include <vector>

#include "models/topology/bom_spec.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::topology {

/// Modules of one part in the fabric.
struct OpticsLine {
  std::string name;
  Medium medium = Medium::Multimode;
  double rate = 0;  ///< B/s per port
  int ports = 1;    ///< ports per module
  std::string form_factor;
  bool switch_end = true;
  long long modules = 0;
  double power = 0;  ///< W per module
  double price = 0;  ///< USD per module
};

/// Scale-out links of one medium.
struct MediumLinks {
  long long links = 0;
  double length = 0;   ///< m, total cable length
  double longest = 0;  ///< m
};

struct FabricCost {
  std::string switch_model;       ///< model priced (or "<nearest> scaled" when estimated)
  bool switch_estimated = false;  ///< no model with the fabric's radix and port rate: per-port scaling
  int switches = 0;
  double switch_power = 0;  ///< W per switch, without optics
  double switch_price = 0;  ///< USD per switch
  int nics = 0;             ///< one per GPU
  double nic_power = 0, nic_price = 0;
  int gpus_per_rack = 0, compute_racks = 0, network_racks = 0, rows = 0;
  MediumLinks media[3];              ///< indexed by Medium
  long long links_beyond_reach = 0;  ///< longer than every part at their rate: priced with the longest reach
  long long links_unpriced = 0;      ///< no part at their rate: not in optics power and cost
  std::vector<OpticsLine> optics;    ///< parts with modules > 0, in bom.optics order
  double power_switches = 0, power_optics = 0, power_nics = 0, power_total = 0;  ///< W
  double cost_switches = 0, cost_optics = 0, cost_nics = 0, cost_total = 0;      ///< USD, indicative
  std::vector<std::string> notes;  ///< what was estimated or left out, one sentence each
  /// Per link id (Fabric::link): m, the laid-out cable length of a priced scale-out link; 0 for
  /// NVLink links and links without parts at their rate (not in `media`).
  std::vector<double> link_length;
  /// Per link id: the Medium (as int) of a priced scale-out link, -1 otherwise.
  std::vector<signed char> link_medium;
};

/// Scale-out cables of a priced layout at or over a length limit.
struct LongCables {
  double limit = 0;             ///< m
  long long links = 0;          ///< priced scale-out links of `limit` or longer
  long long by_medium[3] = {};  ///< of them, per Medium
  double longest = 0;           ///< m, the longest priced scale-out cable (0 when none)
  int longest_link = -1;        ///< its link id (the first such), -1 when none
};

/// The priced scale-out links of `c` (price_fabric) of `limit` m or longer (a limit "under L m" is
/// strict: a cable of exactly L m is counted), by medium, and the longest of all.
LongCables cables_at_or_over(const FabricCost& c, double limit);

/// Prices the fabric as built (failed links and switches are still bought).
///
/// Layout (an estimate; every figure in `spec.layout`): compute racks of gpus_per_rack GPUs in GPU
/// rank order, racks_per_row per row, rows row_pitch apart; all scale-out switches (leaves, spines,
/// cores in node order, switches_per_rack per network rack) in one network row inserted in the
/// middle of the compute rows, except rack_local leaves, which are top-of-rack in the rack of their
/// first GPU. Cable length = |dx| + |dy| + cable_slack between racks (Manhattan routing along
/// trays), in_rack_length inside one rack.
/// Medium: the first of copper, multimode, single mode with parts at both ends (NIC end for access
/// links) at the link's rate whose reach covers the length. Modules per switch and part =
/// ceil(ports / part ports) (twin-port cages); NIC ends one module per port.
/// Switch: `spec.switch_model`, else the first model with ports == switch_radix and port_rate ==
/// link_rate, else the model of nearest port rate scaled per port to the radix (switch_estimated).
FabricCost price_fabric(const Fabric& fabric, const BomSpec& spec);

/// Human-readable table (counts, lengths, modules by part, power in kW, cost in USD, notes).
std::string format_fabric_cost(const FabricCost& c);

/// Pluggable optical modules of the priced BOM (every part not copper; a twin-port switch module
/// counts once): the one count the structure table and the run's summary both give.
long long optical_modules(const FabricCost& c);

/// Human-readable structure table of a bill of materials (switches, links per tier, bisection,
/// diameter, oversubscription); its scale-out cables by medium and its optical modules are `cost`'s
/// (price_fabric of the same fabric), so the two tables count alike.
std::string format_bom(const BillOfMaterials& b, const FabricCost& cost);

}  // namespace aidcsim::topology
