#pragma once
// Cooling-plant components and their slots. The site model (site_model.cpp) owns the fixed skeleton:
// GPU junctions, the rack's liquid node, the server air stream (inlet -> exhaust -> rack cooler ->
// hall), the CDU loop (supply S, return R) and two boundaries (facility water supply, cold-aisle air
// held by the room cooler). Each slot's component adds its own nodes and terms at those attachment
// points, and tells its power draw. One component per file (components/<name>.cpp) with its
// equations and sources; the registry (registry.cpp) maps scenario names to factories.
//
// Slots (cooling.plant.<slot>):
//   chip            how a GPU's heat reaches the rack's liquid: cold_plate | immersion_tank
//   rack            what cools a rack's exhaust air: rdhx | in_row_cooler | none
//   room            what holds the cold aisle: crah
//   cdu             rack loop -> facility water or hall air: liquid_to_liquid | liquid_to_air
//   heat_rejection  facility water -> outdoors: fixed | dry_cooler | chiller | cooling_tower
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/thermal/coolant.hpp"
#include "models/thermal/cooling_spec.hpp"
#include "models/thermal/network.hpp"

namespace aidcsim::thermal {

/// What a component sees while the network is built. Temperatures K, capacity rates W/K.
struct BuildContext {
  /// Level of a node: one per GPU, per rack or per CDU (a group node stands for `copies` of them).
  enum class Level { Gpu, Rack, Cdu };
  RcNetwork& net;
  const CoolingSpec& spec;
  const Coolant& fluid;  ///< rack-loop coolant
  int facility = -1;     ///< boundary node: facility water supply
  int room = -1;         ///< boundary node: cold-aisle air (room cooler supply)
  /// Adds a node named `kind` (e.g. "plate") for the group being built at `level`: heat capacity
  /// (J/K per copy), copies; it starts at the element's previous temperature in a transient
  /// rebuild (else at a design-point guess; a steady solve does not use it). Its temperature is
  /// reported per physical element under `kind`.
  std::function<int(Level level, const std::string& kind, double capacitance, double copies)> node;
};

/// Nodes and terms of one GPU group's liquid path (-1 = none).
struct GpuLiquidPath {
  int plate = -1;   ///< node whose temperature is the "cold plate / case" reading
  int outlet = -1;  ///< node of the coolant leaving this GPU (for the outlet sensor)
};

/// Chip slot: the path from a GPU junction into the rack's liquid node.
class ChipCooler {
 public:
  virtual ~ChipCooler() = default;
  /// Share of each GPU's package, and of the rack's other heat, served by liquid, in [0, 1].
  virtual double coverage() const = 0;
  /// Heat capacity (J/K) of one rack's liquid node: manifold and hoses, or the tank's bath.
  virtual double rack_capacitance() const = 0;
  /// Builds the path of a GPU group (`copies` GPUs) from junction J to the rack's liquid node M,
  /// fed from the CDU supply S; cg = capacity rate of the coolant per GPU (W/K). Returns its nodes.
  virtual GpuLiquidPath build_gpu(BuildContext& b, int j, int s, int m, double copies, double cg) const = 0;
  /// Adds the coolant flow of a rack group (`copies` racks) into M not carried by the GPU paths:
  /// c_rack = capacity rate through the rack (W/K). Cold plates: none (branches carry it).
  virtual void build_rack(BuildContext& b, int s, int m, double copies, double c_rack) const = 0;
  /// Conductance (W/K) of one GPU's liquid path from the junction to the loop supply at cg.
  virtual double path_conductance(double cg) const = 0;
};

/// Rack slot: cools a rack group's exhaust air against the facility water.
class RackCooler {
 public:
  virtual ~RackCooler() = default;
  /// Adds the cooler of a rack group after its exhaust node X (air capacity rate c_air, W/K).
  /// Returns the node of the air leaving the rack (X itself when there is no cooler) and sets
  /// `term` to the heat-transfer term to the water (-1 without one). fans_ok: false after a fan fault.
  virtual int build(BuildContext& b, int x, double copies, double c_air, bool fans_ok, int& term) const = 0;
  /// Fan power of one rack's share, W; design_air_heat: the heat the rack's server air carries at
  /// the design point (W), which sizes the air flow the cooler's fans move.
  virtual double fan_power(bool fans_ok, double design_air_heat) const = 0;
  /// Heat one rack's share of the cooler can take at most (W); 0 = not rated.
  virtual double capacity_per_rack() const = 0;
};

/// Room slot: the cold aisle (supply air temperature) and the power of taking `q` W out of the hall.
class RoomCooler {
 public:
  virtual ~RoomCooler() = default;
  virtual double supply_temperature() const = 0;
  /// Fans and chilled water (chiller COP) for q W of hall heat, W.
  virtual double power(double q) const = 0;
  /// Rated capacity for the hall (W); 0 = sized to the design heat.
  virtual double capacity() const = 0;
};

/// CDU slot: rack loop -> facility water or hall air.
class Cdu {
 public:
  virtual ~Cdu() = default;
  /// Sizes the heat exchanger (UA) for `design_heat` W with the rack-side capacity rate ch (W/K).
  /// Throws InvalidParameter when the design approach cannot be reached (physically impossible).
  virtual void size(const CoolingSpec& spec, double design_heat, double ch) = 0;
  /// Adds the exchanger of a CDU group (supply S, return R); lost: no heat exchange (a fault).
  /// Returns the term whose flow is the heat it takes.
  virtual int build(BuildContext& b, int s, int r, double copies, double ch, bool lost) const = 0;
  /// True when the heat goes to the facility water (the rest goes to the hall air).
  virtual bool to_facility_water() const = 0;
  /// Fan power of one CDU at its design heat (liquid-to-air), W.
  virtual double fan_power() const = 0;
  /// Capacity rate of the cold side of one CDU (W/K), for the facility return temperature.
  virtual double cold_side_rate() const = 0;
};

/// Heat-rejection slot: facility water -> outdoors.
class HeatRejection {
 public:
  virtual ~HeatRejection() = default;
  /// Facility supply (K) it delivers at outdoor dry bulb `t_out` (K) and relative humidity `rh`.
  virtual double supply(double t_out, double rh) const = 0;
  /// Power (W) to reject q_fw W of facility water heat (supply t_sup, return t_ret, K) at outdoor
  /// t_out/rh, and q_room W of hall heat through chilled water. Fills fans, pumps, chiller.
  struct Power {
    double fans = 0, pumps = 0, chiller = 0;
  };
  virtual Power power(double q_fw, double t_sup, double t_ret, double t_out, double rh) const = 0;
  /// True when the outdoor temperature changes the supply or the power (daily cycle).
  virtual bool follows_outdoor() const = 0;
};

/// The plant of a scenario: one component per slot, made by the registry from CoolingSpec::plant.
struct Plant {
  std::unique_ptr<ChipCooler> chip;
  std::unique_ptr<RackCooler> rack;
  std::unique_ptr<RoomCooler> room;
  std::unique_ptr<Cdu> cdu;
  std::unique_ptr<HeatRejection> rejection;
};

/// Builds the plant named in spec.plant. Throws InvalidParameter("cooling.plant.<slot>") naming the
/// valid components of the slot for an unknown name.
Plant make_plant(const CoolingSpec& spec);

/// One registry entry: slot, scenario name, one-line description, and the component's own scenario
/// keys (schema fields; read from Params into CoolingSpec).
struct ComponentInfo {
  std::string slot, name, description;
  std::function<void(const CoolingSpec&, Plant&)> install;  ///< makes the component into its slot
  std::function<void(Schema&)> schema;                      ///< appends its keys (may be empty)
  std::function<void(const Params&, CoolingSpec&)> read;    ///< reads its keys (may be empty)
};
/// Every registered component, in registry order (registry.cpp).
const std::vector<ComponentInfo>& components();
/// Names registered for `slot` ("chip", "rack", "room", "cdu", "heat_rejection").
std::vector<std::string> component_names(const std::string& slot);
/// The slots, in plant order.
const std::vector<std::string>& plant_slots();

}  // namespace aidcsim::thermal
