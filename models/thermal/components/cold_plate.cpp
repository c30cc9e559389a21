// Chip slot "cold_plate": direct-to-chip cold plates on every GPU, in parallel branches of the rack
// manifold (NVL72 compute trays are fed in parallel, DGX GB200 user guide "Hardware").
//
// Per GPU: junction J -> plate base P through c / R_jc (c = coverage = cooling.liquid_fraction, the
// share of the package the plate serves: conductances through an area scale with it); plate ->
// coolant by the isothermal-wall e-NTU form against the branch inlet (the CDU supply S):
//   G = C (1 - exp(-c hA / C)),  C = rho cp Q (per GPU),  hA = hA0 (Q / Q0)^n * F(fluid),
// so the branch outlet O never exceeds the plate temperature at any flow (Incropera & DeWitt,
// Fundamentals of Heat and Mass Transfer, §11.4, Table 11.3 with Cr = 0). F: coolant.hpp
// (Nu ~ Re^n Pr^m). The branch then joins the rack manifold M.
// Defaults (spec.hpp ColdPlateSpec): the OCP 1 kW OAM cold plate (Chen et al., OCP OAI System Liquid
// Cooling Guidelines, 2023, Fig. 7-8): hA0 = 74 W/K with water, independent of flow (n = 0).
#include <cmath>

#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"
#include "models/thermal/hx.hpp"

namespace aidcsim::thermal {
namespace {

class ColdPlate final : public ChipCooler {
 public:
  ColdPlate(const CoolingSpec& s)
      : p_(s.cold_plate),
        cover_(s.liquid_fraction),
        fluid_(coolant(s.coolant)),
        manifold_(fluid_.density * fluid_.cp * s.cdu.rack_manifold_volume) {}

  double coverage() const override { return cover_; }
  double rack_capacitance() const override { return manifold_; }

  GpuLiquidPath build_gpu(BuildContext& b, int j, int s, int m, double copies, double cg) const override {
    GpuLiquidPath path;
    const double rho_cp = fluid_.density * fluid_.cp;
    path.plate = b.node(BuildContext::Level::Gpu, "plate", p_.c_plate, copies);
    path.outlet = b.node(BuildContext::Level::Gpu, "outlet", rho_cp * p_.branch_volume, copies);
    b.net.add_conductance(j, path.plate, cover_ / p_.r_junction_plate, copies);
    b.net.add_transfer(path.plate, path.outlet, path.plate, s, plate_g(cg), copies);
    b.net.add_advection(s, path.outlet, cg, copies);
    b.net.add_advection(path.outlet, m, cg, copies);
    return path;
  }

  void build_rack(BuildContext&, int, int, double, double) const override {}

  double path_conductance(double cg) const override {
    const double a = cover_ / p_.r_junction_plate, g = plate_g(cg);
    return a > 0 && g > 0 ? a * g / (a + g) : 0.0;
  }

 private:
  // Plate -> coolant conductance (W/K) of one GPU at capacity rate cg.
  double plate_g(double cg) const {
    if (cg <= 0) return 0;
    const double flow = cg / (fluid_.density * fluid_.cp);
    const double ha0 = convection_factor_vs_water(fluid_, p_.flow_exponent, p_.prandtl_exponent) / p_.r_convection;
    return cg * wall_effectiveness(cover_ * cold_plate_ha(ha0, flow, p_.ref_flow, p_.flow_exponent) / cg);
  }

  ColdPlateSpec p_;
  double cover_;
  const Coolant& fluid_;
  double manifold_;
};

}  // namespace

void install_cold_plate(const CoolingSpec& s, Plant& p) { p.chip = std::make_unique<ColdPlate>(s); }

void cold_plate_schema(Schema& out) {
  using Q = Quantity;
  out.insert(
      out.end(),
      {
          {"cooling.cold_plate",
           Q::Map,
           "",
           false,
           {},
           {},
           false,
           {},
           "GPU cold plate (junction -> plate -> coolant); plant.chip cold_plate."},
          {"cooling.cold_plate.r_junction_plate",
           Q::ThermalResistance,
           "0.02 K/W",
           false,
           1e-3,
           1,
           false,
           {},
           "Junction to cold-plate base (case) incl. TIM [estimate; not published for B200/GB200]."},
          {"cooling.cold_plate.r_convection",
           Q::ThermalResistance,
           "0.0135 K/W",
           false,
           1e-3,
           1,
           false,
           {},
           "1/hA of the plate with water at cooling.cold_plate.ref_flow (OCP 1 kW OAM cold plate: hA = 74 W/K, "
           "Chen et al. 2023 Fig. 8)."},
          {"cooling.cold_plate.ref_flow",
           Q::VolumeFlow,
           "1 L/min",
           false,
           0.05e-3 / 60,
           1e-2,
           false,
           {},
           "Flow at which r_convection holds."},
          {"cooling.cold_plate.flow_exponent",
           Q::Number,
           "0",
           false,
           0,
           2,
           false,
           {},
           "hA ~ flow^n: 0 = laminar microchannels (the OCP plate's hA does not change with flow), 0.8 = turbulent "
           "(Dittus-Boelter, Incropera & DeWitt eq. 8.60)."},
          {"cooling.cold_plate.prandtl_exponent",
           Q::Number,
           "0",
           false,
           0,
           1,
           false,
           {},
           "m in Nu ~ Re^n Pr^m for other coolants than water: 0 = fully developed laminar (hA ~ conductivity), 0.4 = "
           "Dittus-Boelter."},
      });
}

void read_cold_plate(const Params& root, CoolingSpec& c) {
  using keys::num;
  auto& cp = c.cold_plate;
  cp.r_junction_plate = num(root, "cooling.cold_plate.r_junction_plate", cp.r_junction_plate);
  cp.r_convection = num(root, "cooling.cold_plate.r_convection", cp.r_convection);
  cp.ref_flow = num(root, "cooling.cold_plate.ref_flow", cp.ref_flow);
  cp.flow_exponent = num(root, "cooling.cold_plate.flow_exponent", cp.flow_exponent);
  cp.prandtl_exponent = num(root, "cooling.cold_plate.prandtl_exponent", cp.prandtl_exponent);
}

}  // namespace aidcsim::thermal
