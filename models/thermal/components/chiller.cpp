// Heat-rejection slot "chiller" (and "fixed"): dry coolers pre-cool the facility return toward
// outdoor + approach; a chiller trims the rest down to the set point. Share of the heat the chiller
// carries (linear water temperature drop across the two stages):
//   mech = clamp((T_outdoor + approach - T_supply) / (T_return - T_supply), 0, 1),
//   P_chiller = mech q / COP,  fans = f_fan q,  pumps = f_pump q.
// The supply stays at the set point in every weather. "fixed": the same plant evaluated at the
// annual outdoor temperature only (no daily cycle).
#include <algorithm>

#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"

namespace aidcsim::thermal {
namespace {

class Chiller final : public HeatRejection {
 public:
  Chiller(const CoolingSpec& s, bool follows) : r_(s.rejection), set_(s.facility_supply), follows_(follows) {}
  double supply(double, double) const override { return set_; }
  Power power(double q, double t_sup, double t_ret, double t_out, double) const override {
    Power p;
    if (q <= 0) return p;
    p.fans = r_.fan_power_fraction * q;
    p.pumps = r_.facility_pump_fraction * q;
    const double mech =
        t_ret > t_sup ? std::clamp((t_out + r_.dry_cooler_approach - t_sup) / (t_ret - t_sup), 0.0, 1.0) : 1.0;
    p.chiller = mech * q / r_.chiller_cop;
    return p;
  }
  bool follows_outdoor() const override { return follows_; }

 private:
  HeatRejectionSpec r_;
  double set_;
  bool follows_;
};

}  // namespace

void install_chiller(const CoolingSpec& s, Plant& p) { p.rejection = std::make_unique<Chiller>(s, true); }
void install_fixed_rejection(const CoolingSpec& s, Plant& p) { p.rejection = std::make_unique<Chiller>(s, false); }

}  // namespace aidcsim::thermal
