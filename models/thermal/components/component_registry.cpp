// The cooling-component registry: scenario name -> factory, one-line description, own keys.
// Adding a component: write components/<name>.cpp (class, equations and sources, install_<name>,
// optional <name>_schema / read_<name>), declare those below and add one line to the table.
#include <algorithm>

#include "models/common/errors.hpp"
#include "models/thermal/components/component.hpp"

namespace aidcsim::thermal {

// Factories and keys, one set per component file.
void install_cold_plate(const CoolingSpec&, Plant&);
void cold_plate_schema(Schema&);
void read_cold_plate(const Params&, CoolingSpec&);
void install_immersion_tank(const CoolingSpec&, Plant&);
void immersion_tank_schema(Schema&);
void read_immersion_tank(const Params&, CoolingSpec&);
void install_rdhx(const CoolingSpec&, Plant&);
void rdhx_schema(Schema&);
void read_rdhx(const Params&, CoolingSpec&);
void install_in_row_cooler(const CoolingSpec&, Plant&);
void in_row_cooler_schema(Schema&);
void read_in_row_cooler(const Params&, CoolingSpec&);
void install_no_rack_cooler(const CoolingSpec&, Plant&);
void install_crah(const CoolingSpec&, Plant&);
void crah_schema(Schema&);
void read_crah(const Params&, CoolingSpec&);
void install_liquid_to_liquid(const CoolingSpec&, Plant&);
void install_liquid_to_air(const CoolingSpec&, Plant&);
void liquid_to_air_schema(Schema&);
void read_liquid_to_air(const Params&, CoolingSpec&);
void install_fixed_rejection(const CoolingSpec&, Plant&);
void install_dry_cooler(const CoolingSpec&, Plant&);
void install_chiller(const CoolingSpec&, Plant&);
void install_cooling_tower(const CoolingSpec&, Plant&);
void cooling_tower_schema(Schema&);
void read_cooling_tower(const Params&, CoolingSpec&);

const std::vector<ComponentInfo>& components() {
  static const std::vector<ComponentInfo> table = {
      {"chip", "cold_plate",
       "direct-to-chip cold plates on a share (liquid_fraction) of every package, air heatsinks on the rest",
       install_cold_plate, cold_plate_schema, read_cold_plate},
      {"chip", "immersion_tank", "single-phase immersion: the whole server in a dielectric bath per rack",
       install_immersion_tank, immersion_tank_schema, read_immersion_tank},
      {"rack", "rdhx", "rear-door heat exchanger on every rack, facility water", install_rdhx, rdhx_schema, read_rdhx},
      {"rack", "in_row_cooler", "in-row chilled-water coils with their own fans, one per racks_per_unit racks",
       install_in_row_cooler, in_row_cooler_schema, read_in_row_cooler},
      {"rack", "none", "no rack cooler: exhaust air to the hall", install_no_rack_cooler, {}, {}},
      {"room", "crah", "computer-room air handlers hold the cold aisle, chilled water", install_crah, crah_schema,
       read_crah},
      {"cdu",
       "liquid_to_liquid",
       "plate heat exchanger, rack loop to facility water",
       install_liquid_to_liquid,
       {},
       {}},
      {"cdu", "liquid_to_air", "coil and fans, rack loop to the hall air", install_liquid_to_air, liquid_to_air_schema,
       read_liquid_to_air},
      {"heat_rejection",
       "fixed",
       "supply held at the set point, power at the annual outdoor temperature",
       install_fixed_rejection,
       {},
       {}},
      {"heat_rejection",
       "dry_cooler",
       "dry coolers, no chiller: supply >= outdoor + approach",
       install_dry_cooler,
       {},
       {}},
      {"heat_rejection", "chiller", "dry coolers pre-cool, a chiller trims to the set point", install_chiller, {}, {}},
      {"heat_rejection", "cooling_tower", "evaporative tower + plate HX: supply >= wet bulb + approach",
       install_cooling_tower, cooling_tower_schema, read_cooling_tower},
  };
  return table;
}

const std::vector<std::string>& plant_slots() {
  static const std::vector<std::string> slots = {"chip", "rack", "room", "cdu", "heat_rejection"};
  return slots;
}

std::vector<std::string> component_names(const std::string& slot) {
  std::vector<std::string> out;
  for (const auto& c : components())
    if (c.slot == slot) out.push_back(c.name);
  return out;
}

namespace {
const std::string& chosen(const PlantSpec& p, const std::string& slot) {
  if (slot == "chip") return p.chip;
  if (slot == "rack") return p.rack;
  if (slot == "room") return p.room;
  if (slot == "cdu") return p.cdu;
  return p.heat_rejection;
}
}  // namespace

Plant make_plant(const CoolingSpec& spec) {
  Plant plant;
  for (const auto& slot : plant_slots()) {
    const std::string& name = chosen(spec.plant, slot);
    const auto& all = components();
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const ComponentInfo& c) { return c.slot == slot && c.name == name; });
    if (it == all.end()) {
      std::string valid;
      for (const auto& n : component_names(slot)) valid += (valid.empty() ? "" : ", ") + n;
      throw InvalidParameter("cooling.plant." + slot, name, "one of " + valid);
    }
    it->install(spec, plant);
  }
  return plant;
}

}  // namespace aidcsim::thermal
