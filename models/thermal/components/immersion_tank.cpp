// Chip slot "immersion_tank": single-phase immersion, one tank per rack. Every part of the server
// sits in a dielectric bath (cooling.coolant pao or fluorinated); the rack loop circulates the bath
// through the CDU. Per GPU: junction J -> case C (R_jc) -> bath M through an immersed heatsink by
// forced convection (R_cf); the CPU, NIC, switch-tray and PSU heat goes straight into the bath.
// The bath is one well-mixed node (advection S -> M -> R at the rack-loop flow) holding the tank's
// fluid: its heat capacity (rho cp V, ~2 MJ/K for 1.2 m^3 of PAO) sets how long the GPUs ride
// through a CDU or pump fault. Resistances [estimate]: an immersed GPU heatsink in PAO-class fluid
// at ~0.04 K/W case-to-fluid, about twice a water cold plate's (PAO conducts 0.14 W/m K vs 0.61).
#include <cmath>

#include "models/common/errors.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

class ImmersionTank final : public ChipCooler {
 public:
  ImmersionTank(const CoolingSpec& s) : p_(s.immersion), fluid_(coolant(s.coolant)) {}

  double coverage() const override { return 1.0; }
  double rack_capacitance() const override { return fluid_.density * fluid_.cp * p_.fluid_volume; }

  GpuLiquidPath build_gpu(BuildContext& b, int j, int, int m, double copies, double) const override {
    GpuLiquidPath path;
    path.plate = b.node(BuildContext::Level::Gpu, "plate", 0.0, copies);  // the case (lid) under the heatsink
    b.net.add_conductance(j, path.plate, 1.0 / p_.r_junction_case, copies);
    b.net.add_conductance(path.plate, m, 1.0 / p_.r_case_fluid, copies);
    return path;
  }

  void build_rack(BuildContext& b, int s, int m, double copies, double c_rack) const override {
    b.net.add_advection(s, m, c_rack, copies);
  }

  double path_conductance(double) const override { return 1.0 / (p_.r_junction_case + p_.r_case_fluid); }

 private:
  ImmersionTankSpec p_;
  const Coolant& fluid_;
};

}  // namespace

void install_immersion_tank(const CoolingSpec& s, Plant& p) {
  const auto& t = s.immersion;
  if (!(t.r_junction_case > 0))
    throw InvalidParameter("cooling.immersion_tank.r_junction_case", std::to_string(t.r_junction_case),
                           "a positive resistance");
  if (!(t.r_case_fluid > 0))
    throw InvalidParameter("cooling.immersion_tank.r_case_fluid", std::to_string(t.r_case_fluid),
                           "a positive resistance");
  if (!(t.fluid_volume > 0))
    throw InvalidParameter("cooling.immersion_tank.fluid_volume", std::to_string(t.fluid_volume), "a positive volume");
  if (s.coolant == "water" || s.coolant == "pg25")
    throw InvalidParameter("cooling.coolant", s.coolant,
                           "a dielectric coolant for plant.chip immersion_tank (pao or fluorinated)");
  p.chip = std::make_unique<ImmersionTank>(s);
}

void immersion_tank_schema(Schema& out) {
  using Q = Quantity;
  out.insert(out.end(),
             {
                 {"cooling.immersion_tank",
                  Q::Map,
                  "",
                  false,
                  {},
                  {},
                  false,
                  {},
                  "Single-phase immersion tank per rack (plant.chip immersion_tank; coolant pao or fluorinated)."},
                 {"cooling.immersion_tank.r_junction_case",
                  Q::ThermalResistance,
                  "0.02 K/W",
                  false,
                  1e-3,
                  1,
                  false,
                  {},
                  "GPU junction to case incl. TIM [estimate]."},
                 {"cooling.immersion_tank.r_case_fluid",
                  Q::ThermalResistance,
                  "0.04 K/W",
                  false,
                  1e-3,
                  1,
                  false,
                  {},
                  "Case to dielectric bath through an immersed heatsink [estimate: PAO-class fluid, forced flow]."},
                 {"cooling.immersion_tank.fluid_volume",
                  Q::Number,
                  "1.2",
                  false,
                  0.05,
                  100,
                  false,
                  {},
                  "Dielectric in one tank, m^3 [estimate: 42U single-phase tank 1-1.5 m^3]."},
             });
}

void read_immersion_tank(const Params& root, CoolingSpec& c) {
  using keys::num;
  auto& t = c.immersion;
  t.r_junction_case = num(root, "cooling.immersion_tank.r_junction_case", t.r_junction_case);
  t.r_case_fluid = num(root, "cooling.immersion_tank.r_case_fluid", t.r_case_fluid);
  t.fluid_volume = num(root, "cooling.immersion_tank.fluid_volume", t.fluid_volume);
}

}  // namespace aidcsim::thermal
