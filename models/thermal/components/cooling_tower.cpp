// Heat-rejection slot "cooling_tower": open evaporative tower with a plate heat exchanger to the
// facility water, no chiller. An evaporative tower cools toward the outdoor wet bulb:
//   T_supply = max(set point, T_wet_bulb(T_outdoor, RH) + approach)
// with the wet bulb from Stull (2011) (psychrometrics.hpp) and the approach covering tower and
// plate HX [estimate: towers 3-5 K, plate HX 1-2 K]. Power: fans and pumps, fractions of the heat
// [estimate]. In the UK climate (wet bulb ~7-8 °C below the dry bulb in summer) a tower holds a
// colder supply than a dry cooler on the hottest days.
#include <algorithm>

#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"
#include "models/thermal/psychrometrics.hpp"

namespace aidcsim::thermal {
namespace {

class CoolingTower final : public HeatRejection {
 public:
  CoolingTower(const CoolingSpec& s) : r_(s.rejection), set_(s.facility_supply) {}
  double supply(double t_out, double rh) const override {
    return std::max(set_, wet_bulb(t_out, rh) + r_.tower_approach);
  }
  Power power(double q, double, double, double, double) const override {
    Power p;
    if (q <= 0) return p;
    p.fans = r_.fan_power_fraction * q;
    p.pumps = r_.facility_pump_fraction * q;
    return p;
  }
  bool follows_outdoor() const override { return true; }

 private:
  HeatRejectionSpec r_;
  double set_;
};

}  // namespace

void install_cooling_tower(const CoolingSpec& s, Plant& p) { p.rejection = std::make_unique<CoolingTower>(s); }

void cooling_tower_schema(Schema& out) {
  using Q = Quantity;
  out.push_back({"cooling.heat_rejection.tower_approach",
                 Q::TemperatureDelta,
                 "4 K",
                 false,
                 0,
                 30,
                 false,
                 {},
                 "cooling_tower: facility supply above the outdoor wet bulb, tower + plate HX [estimate]."});
}

void read_cooling_tower(const Params& root, CoolingSpec& c) {
  c.rejection.tower_approach = keys::num(root, "cooling.heat_rejection.tower_approach", c.rejection.tower_approach);
}

}  // namespace aidcsim::thermal
