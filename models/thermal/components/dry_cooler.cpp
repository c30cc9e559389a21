// Heat-rejection slot "dry_cooler": dry coolers only, no chiller. The facility supply cannot be
// colder than the outdoor air plus the cooler's approach:
//   T_supply = max(set point, T_outdoor + approach)
// (NVIDIA DSX raised-bed dry cooler: 5 K approach, full free cooling up to 34.8 °C dry bulb for
// 37 °C water, published-figures §6.2). Power: fans and pumps, fractions of the heat [estimate].
#include <algorithm>

#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

class DryCooler final : public HeatRejection {
 public:
  DryCooler(const CoolingSpec& s) : r_(s.rejection), set_(s.facility_supply) {}
  double supply(double t_out, double) const override { return std::max(set_, t_out + r_.dry_cooler_approach); }
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

void install_dry_cooler(const CoolingSpec& s, Plant& p) { p.rejection = std::make_unique<DryCooler>(s); }

}  // namespace aidcsim::thermal
