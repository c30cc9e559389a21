#include "models/thermal/hx.hpp"

#include <algorithm>
#include <cmath>

#include "models/common/errors.hpp"

namespace aidcsim::thermal {

namespace {
constexpr double kCrOne = 1e-9;  // below this |1-Cr| use the Cr = 1 limit (0/0 otherwise)
}

double counterflow_effectiveness(double ntu, double cr) {
  if (ntu <= 0) return 0;
  if (std::abs(1 - cr) < kCrOne) return ntu / (1 + ntu);
  const double e = std::exp(-ntu * (1 - cr));
  return (1 - e) / (1 - cr * e);
}

double counterflow_ntu(double eps, double cr) {
  if (eps >= 1 || eps < 0) throw SimulationError("heat exchanger: effectiveness outside [0, 1)");
  if (std::abs(1 - cr) < kCrOne) return eps / (1 - eps);
  return std::log((1 - eps * cr) / (1 - eps)) / (1 - cr);
}

double wall_effectiveness(double ntu) { return ntu <= 0 ? 0.0 : -std::expm1(-ntu); }

HxResult counterflow(double ua, double th_in, double ch, double tc_in, double cc) {
  const double cmin = std::min(ch, cc), cmax = std::max(ch, cc);
  if (cmin <= 0) return {0, th_in, tc_in, 0};
  const double eps = counterflow_effectiveness(ua / cmin, cmin / cmax);
  const double q = eps * cmin * (th_in - tc_in);
  return {q, th_in - q / ch, tc_in + q / cc, eps};
}

double cdu_ua_from_approach(double q, double approach, double ch, double cc) {
  // Hot inlet = supply + q/ch; eps = q / (Cmin (th_in - tc_in)).
  const double cmin = std::min(ch, cc), cmax = std::max(ch, cc);
  const double dt_max = approach + q / ch;
  const double eps = q / (cmin * dt_max);
  if (!(approach > 0) || eps >= 1)
    throw SimulationError("CDU: the design approach cannot be reached with these flows (eps >= 1)");
  return counterflow_ntu(eps, cmin / cmax) * cmin;
}

double cold_plate_ha(double ha0, double flow, double ref_flow, double exponent) {
  if (flow <= 0) return 0;
  return ha0 * std::pow(flow / ref_flow, exponent);
}

}  // namespace aidcsim::thermal
