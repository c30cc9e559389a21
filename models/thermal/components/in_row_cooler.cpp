// Rack slot "in_row_cooler": air-to-water coils with their own fans placed in the row, one unit per
// racks_per_unit racks, taking hot-aisle air and returning it to the cold aisle. Same exchange law as
// a rear door on each rack's share of the unit (air is Cmin):
//   q = eps C_air (T_exhaust - T_water)
// but the unit's fans move the air (their failure leaves natural convection through the coil), and a
// unit has a rated capacity, checked against the heat it takes. Values [estimate]: vendor in-row
// chilled-water units of 30-70 kW with 1-2 kW of EC fans.
#include "models/common/errors.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

constexpr double kAirRhoCp = 1.2 * 1006.0;  // J/(m^3 K)

class InRowCooler final : public RackCooler {
 public:
  InRowCooler(const CoolingSpec& s) : p_(s.in_row), air_volume_(s.server_air.rack_air_volume) {}

  int build(BuildContext& b, int x, double copies, double c_air, bool fans_ok, int& term) const override {
    const int d = b.node(BuildContext::Level::Rack, "air_out", kAirRhoCp * 0.1 * air_volume_, copies);
    b.net.add_advection(x, d, c_air, copies);
    term = b.net.add_transfer(d, b.facility, x, b.facility,
                              (fans_ok ? p_.effectiveness : p_.failed_effectiveness) * c_air, copies);
    return d;
  }
  double fan_power(bool fans_ok, double) const override { return fans_ok ? p_.fan_power / p_.racks_per_unit : 0.0; }
  double capacity_per_rack() const override { return p_.capacity / p_.racks_per_unit; }

 private:
  InRowCoolerSpec p_;
  double air_volume_;
};

}  // namespace

void install_in_row_cooler(const CoolingSpec& s, Plant& p) {
  if (!(s.in_row.effectiveness > 0 && s.in_row.effectiveness <= 1))
    throw InvalidParameter("cooling.in_row_cooler.effectiveness", std::to_string(s.in_row.effectiveness),
                           "an effectiveness in (0, 1]");
  if (s.in_row.racks_per_unit < 1)
    throw InvalidParameter("cooling.in_row_cooler.racks_per_unit", std::to_string(s.in_row.racks_per_unit),
                           "at least 1");
  p.rack = std::make_unique<InRowCooler>(s);
}

void in_row_cooler_schema(Schema& out) {
  using Q = Quantity;
  out.insert(out.end(),
             {
                 {"cooling.in_row_cooler",
                  Q::Map,
                  "",
                  false,
                  {},
                  {},
                  false,
                  {},
                  "In-row chilled-water cooler (plant.rack in_row_cooler)."},
                 {"cooling.in_row_cooler.effectiveness",
                  Q::Fraction,
                  "0.75",
                  false,
                  0.05,
                  1,
                  false,
                  {},
                  "Air-side effectiveness with its fans running [estimate]."},
                 {"cooling.in_row_cooler.failed_effectiveness",
                  Q::Fraction,
                  "0.1",
                  false,
                  0,
                  1,
                  false,
                  {},
                  "Effectiveness with its fans failed (rdhx_fan_failure fault) [estimate]."},
                 {"cooling.in_row_cooler.racks_per_unit",
                  Q::Integer,
                  "2",
                  false,
                  1,
                  100,
                  false,
                  {},
                  "Racks served by one unit [estimate]."},
                 {"cooling.in_row_cooler.capacity",
                  Q::Power,
                  "60 kW",
                  false,
                  1e3,
                  1e7,
                  false,
                  {},
                  "Rated capacity of one unit, checked against the heat it takes [estimate: vendor range 30-70 kW]."},
                 {"cooling.in_row_cooler.fan_power",
                  Q::Power,
                  "1.5 kW",
                  false,
                  0,
                  1e5,
                  false,
                  {},
                  "Fan power of one unit [estimate]."},
             });
}

void read_in_row_cooler(const Params& root, CoolingSpec& c) {
  using keys::num;
  auto& r = c.in_row;
  r.effectiveness = num(root, "cooling.in_row_cooler.effectiveness", r.effectiveness);
  r.failed_effectiveness = num(root, "cooling.in_row_cooler.failed_effectiveness", r.failed_effectiveness);
  r.racks_per_unit = keys::integer(root, "cooling.in_row_cooler.racks_per_unit", r.racks_per_unit);
  r.capacity = num(root, "cooling.in_row_cooler.capacity", r.capacity);
  r.fan_power = num(root, "cooling.in_row_cooler.fan_power", r.fan_power);
}

}  // namespace aidcsim::thermal
