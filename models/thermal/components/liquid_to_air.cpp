// CDU slot "liquid_to_air": the rack loop rejects its heat to the hall air through a finned coil and
// fans (e.g. CoolIT AHx240: 240 kW for up to 4 NVL72 racks, published-figures §6.2), for halls
// without facility water at the racks. Counter-flow-like coil, air on the cold side with capacity
// rate C_air = design heat / air_delta_t; UA sized so that at the design heat the rack-loop supply is
// air_approach above the cold-aisle air:
//   q = eps(NTU, Cr) Cmin (T_return - T_room)   (Incropera & DeWitt Table 11.3, counter flow)
// The heat goes to the hall, where the room cooler (CRAH) must take it. Fans: fan_power_fraction of
// the design heat. Values [estimate].
#include <algorithm>

#include "models/common/errors.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/components/keys.hpp"
#include "models/thermal/hx.hpp"

namespace aidcsim::thermal {
namespace {

class LiquidToAir final : public Cdu {
 public:
  LiquidToAir(const CoolingSpec& s) : p_(s.cdu) {}
  void size(const CoolingSpec& spec, double design_heat, double ch) override {
    cc_ = design_heat / p_.air_delta_t;
    fan_ = p_.fan_power_fraction * design_heat;
    try {
      ua_ = cdu_ua_from_approach(design_heat, p_.air_approach, ch, cc_);
    } catch (const SimulationError&) {
      throw InvalidParameter(
          "cooling.cdu.air_approach", std::to_string(p_.air_approach) + " K",
          "an approach reachable with the coil's air flow (raise cooling.cdu.air_approach or air_delta_t)");
    }
  }
  int build(BuildContext& b, int s, int r, double copies, double ch, bool lost) const override {
    double g = 0;
    if (!lost && ch > 0) {
      const double cmin = std::min(ch, cc_), cmax = std::max(ch, cc_);
      g = counterflow_effectiveness(ua_ / cmin, cmin / cmax) * cmin;
    }
    return b.net.add_transfer(s, b.room, r, b.room, g, copies);
  }
  bool to_facility_water() const override { return false; }
  double fan_power() const override { return fan_; }
  double cold_side_rate() const override { return cc_; }

 private:
  CduSpec p_;
  double ua_ = 0, cc_ = 0, fan_ = 0;
};

}  // namespace

void install_liquid_to_air(const CoolingSpec& s, Plant& p) { p.cdu = std::make_unique<LiquidToAir>(s); }

void liquid_to_air_schema(Schema& out) {
  using Q = Quantity;
  out.insert(out.end(), {
                            {"cooling.cdu.air_approach",
                             Q::TemperatureDelta,
                             "12 K",
                             false,
                             0.5,
                             60,
                             false,
                             {},
                             "liquid_to_air CDU: rack-loop supply minus cold-aisle air at design heat [estimate]."},
                            {"cooling.cdu.air_delta_t",
                             Q::TemperatureDelta,
                             "15 K",
                             false,
                             1,
                             60,
                             false,
                             {},
                             "liquid_to_air CDU: air temperature rise across the coil at design heat [estimate]."},
                            {"cooling.cdu.fan_power_fraction",
                             Q::Fraction,
                             "0.02",
                             false,
                             0,
                             1,
                             false,
                             {},
                             "liquid_to_air CDU: fan power / design heat [estimate]."},
                        });
}

void read_liquid_to_air(const Params& root, CoolingSpec& c) {
  using keys::num;
  c.cdu.air_approach = num(root, "cooling.cdu.air_approach", c.cdu.air_approach);
  c.cdu.air_delta_t = num(root, "cooling.cdu.air_delta_t", c.cdu.air_delta_t);
  c.cdu.fan_power_fraction = num(root, "cooling.cdu.fan_power_fraction", c.cdu.fan_power_fraction);
}

}  // namespace aidcsim::thermal
