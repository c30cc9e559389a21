#include "models/thermal/psychrometrics.hpp"

#include <cmath>

#include "models/common/units.hpp"

namespace aidcsim::thermal {

double dew_point(double temp, double rh) {
  constexpr double b = 17.62, c = 243.12, k0 = units::kZeroCelsius;
  const double t = temp - k0;
  const double g = std::log(rh) + b * t / (c + t);
  return c * g / (b - g) + k0;
}

}  // namespace aidcsim::thermal

namespace aidcsim::thermal {

double wet_bulb(double temp, double rh) {
  const double t = units::to_celsius(temp), r = 100.0 * rh;
  const double tw = t * std::atan(0.151977 * std::sqrt(r + 8.313659)) + std::atan(t + r) - std::atan(r - 1.676331) +
                    0.00391838 * std::pow(r, 1.5) * std::atan(0.023101 * r) - 4.686035;
  return units::from_celsius(tw);
}

}  // namespace aidcsim::thermal
