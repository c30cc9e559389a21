// CDU slot "liquid_to_liquid": counter-flow plate heat exchanger between the rack loop (hot side,
// capacity rate C_h) and the facility water (C_c = facility_flow_ratio C_h). UA is sized so that at
// the design heat the rack-loop supply is cdu_approach above the facility supply (NVIDIA DSX BOD 4 °C,
// STULZ 1,200 kW unit, published-figures §6.2); at other flows and heats
//   q = eps(NTU, Cr) Cmin (T_return - T_facility),  NTU = UA / Cmin,  Cr = Cmin / Cmax
// (counter-flow effectiveness, Incropera & DeWitt Table 11.3). A lost CDU (fault) exchanges nothing.
#include <algorithm>

#include "models/common/errors.hpp"
#include "models/thermal/components/component.hpp"
#include "models/thermal/hx.hpp"

namespace aidcsim::thermal {
namespace {

class LiquidToLiquid final : public Cdu {
 public:
  void size(const CoolingSpec& spec, double design_heat, double ch) override {
    cc_ = spec.cdu.facility_flow_ratio * ch;
    try {
      ua_ = cdu_ua_from_approach(design_heat, spec.cdu_approach, ch, cc_);
    } catch (const SimulationError&) {
      throw InvalidParameter("cooling.cdu_approach", std::to_string(spec.cdu_approach) + " K",
                             "an approach reachable with the facility flow (raise cooling.cdu.facility_flow_ratio)");
    }
  }
  int build(BuildContext& b, int s, int r, double copies, double ch, bool lost) const override {
    double g = 0;
    if (!lost && ch > 0) {
      const double cmin = std::min(ch, cc_), cmax = std::max(ch, cc_);
      g = counterflow_effectiveness(ua_ / cmin, cmin / cmax) * cmin;
    }
    return b.net.add_transfer(s, b.facility, r, b.facility, g, copies);
  }
  bool to_facility_water() const override { return true; }
  double fan_power() const override { return 0.0; }
  double cold_side_rate() const override { return cc_; }

 private:
  double ua_ = 0, cc_ = 0;
};

}  // namespace

void install_liquid_to_liquid(const CoolingSpec&, Plant& p) { p.cdu = std::make_unique<LiquidToLiquid>(); }

}  // namespace aidcsim::thermal
