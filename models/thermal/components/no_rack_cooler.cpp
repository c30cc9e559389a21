// Rack slot "none": rack exhaust air goes straight to the hall; the room cooler (CRAH) takes it all.
#include "models/thermal/components/component.hpp"

namespace aidcsim::thermal {
namespace {

class NoRackCooler final : public RackCooler {
 public:
  int build(BuildContext&, int x, double, double, bool, int& term) const override {
    term = -1;
    return x;
  }
  double fan_power(bool, double) const override { return 0.0; }
  double capacity_per_rack() const override { return 0.0; }
};

}  // namespace

void install_no_rack_cooler(const CoolingSpec&, Plant& p) { p.rack = std::make_unique<NoRackCooler>(); }

}  // namespace aidcsim::thermal
