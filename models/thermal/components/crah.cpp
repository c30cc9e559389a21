// Room slot "crah": computer-room air handlers hold the cold aisle at cooling.room.temperature
// (a boundary of the network) and take every watt that reaches the hall air: rack exhaust left
// after the rack coolers, air-cooled network racks, liquid-to-air CDUs, the auxiliary air coils.
// Power: fans (fraction of the heat) + chilled water from a chiller at cooling.heat_rejection.chiller_cop:
//   P = q (f_fan + 1 / COP).
// Capacity (W for the hall): 0 = sized to the design room heat; checked against the heat it takes.
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

class Crah final : public RoomCooler {
 public:
  Crah(const CoolingSpec& s) : p_(s.crah), supply_(s.room.temperature), cop_(s.rejection.chiller_cop) {}
  double supply_temperature() const override { return supply_; }
  double power(double q) const override { return q > 0 ? q * (p_.fan_power_fraction + 1.0 / cop_) : 0.0; }
  double capacity() const override { return p_.capacity; }

 private:
  CrahSpec p_;
  double supply_, cop_;
};

}  // namespace

void install_crah(const CoolingSpec& s, Plant& p) { p.room = std::make_unique<Crah>(s); }

void crah_schema(Schema& out) {
  using Q = Quantity;
  out.insert(
      out.end(),
      {
          {"cooling.crah", Q::Map, "", false, {}, {}, false, {}, "Computer-room air handlers (plant.room crah)."},
          {"cooling.crah.fan_power_fraction",
           Q::Fraction,
           "0.05",
           false,
           0,
           1,
           false,
           {},
           "CRAH fan power / hall heat [estimate]."},
          {"cooling.crah.capacity",
           Q::Power,
           "0 W",
           false,
           0,
           1e10,
           false,
           {},
           "Rated CRAH capacity for the hall; 0 = sized to the design heat that reaches the hall air (checked)."},
      });
}

void read_crah(const Params& root, CoolingSpec& c) {
  using keys::num;
  c.crah.fan_power_fraction = num(root, "cooling.crah.fan_power_fraction", c.crah.fan_power_fraction);
  c.crah.capacity = num(root, "cooling.crah.capacity", c.crah.capacity);
}

}  // namespace aidcsim::thermal
