// Rack slot "rdhx": rear-door heat exchanger (fan-assisted) on every rack, fed with facility water.
// The rack exhaust X passes the door coil; with air the smaller capacity rate (Cmin = C_air),
//   q = eps C_air (T_X - T_water),   T_out = T_X - q / C_air
// (effectiveness-NTU, Incropera & DeWitt §11.4). eps: cooling.rdhx.effectiveness with the door fans
// running (IBM RDHx: 55-85 % heat removal for 20-32 kW racks, published-figures §6.2), the passive
// value when they fail. Door fans move the rack's server air through the coil: their power is
// cooling.rdhx.fan_power_fraction x the rack's design air heat (active doors 40-75 kW with fans of
// 0.5-2 kW: 1.25-2.7 %, published-figures §6.2 [inferred, low confidence]), facility (cooling)
// power in PUE terms: the door is not IT equipment.
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

constexpr double kAirRhoCp = 1.2 * 1006.0;  // J/(m^3 K), air at ~25 °C

class Rdhx final : public RackCooler {
 public:
  Rdhx(const CoolingSpec& s) : p_(s.rdhx), eps_(s.rdhx_effectiveness), air_volume_(s.server_air.rack_air_volume) {}

  int build(BuildContext& b, int x, double copies, double c_air, bool fans_ok, int& term) const override {
    const int d = b.node(BuildContext::Level::Rack, "air_out", kAirRhoCp * 0.1 * air_volume_, copies);
    b.net.add_advection(x, d, c_air, copies);
    term =
        b.net.add_transfer(d, b.facility, x, b.facility, (fans_ok ? eps_ : p_.passive_effectiveness) * c_air, copies);
    return d;
  }
  double fan_power(bool fans_ok, double design_air_heat) const override {
    return fans_ok ? p_.fan_power_fraction * design_air_heat : 0.0;
  }
  double capacity_per_rack() const override { return 0.0; }

 private:
  RdhxSpec p_;
  double eps_, air_volume_;
};

}  // namespace

void install_rdhx(const CoolingSpec& s, Plant& p) { p.rack = std::make_unique<Rdhx>(s); }

void rdhx_schema(Schema& out) {
  using Q = Quantity;
  out.insert(
      out.end(),
      {
          {"cooling.rdhx",
           Q::Map,
           "",
           false,
           {},
           {},
           false,
           {},
           "Rear-door heat exchanger, one per rack (plant.rack rdhx)."},
          {"cooling.rdhx.effectiveness",
           Q::Fraction,
           "0.7",
           false,
           0.05,
           1,
           false,
           {},
           "Air-side effectiveness in (0, 1] with the door fans running (IBM RDHx: 55-85 % heat removal, §6.2)."},
          {"cooling.rdhx.passive_effectiveness",
           Q::Fraction,
           "0.35",
           false,
           0,
           1,
           false,
           {},
           "Effectiveness with the door fans failed [estimate]."},
          {"cooling.rdhx.fan_power_fraction",
           Q::Fraction,
           "0.02",
           false,
           0,
           0.5,
           false,
           {},
           "Door fan power / the rack's design air heat (active doors of 40-75 kW with 0.5-2 kW of fans: "
           "1.25-2.7 %, §6.2 [inferred, low confidence]); cooling power in PUE."},
      });
}

void read_rdhx(const Params& root, CoolingSpec& c) {
  using keys::num;
  c.rdhx_effectiveness = num(root, "cooling.rdhx.effectiveness", c.rdhx_effectiveness);
  c.rdhx.passive_effectiveness = num(root, "cooling.rdhx.passive_effectiveness", c.rdhx.passive_effectiveness);
  c.rdhx.fan_power_fraction = num(root, "cooling.rdhx.fan_power_fraction", c.rdhx.fan_power_fraction);
}

}  // namespace aidcsim::thermal
