#include "models/thermal/psychrometrics.hpp"

#include <cmath>

namespace aidcsim::thermal {

double dew_point(double temp, double rh) {
  constexpr double b = 17.62, c = 243.12, k0 = 273.15;
  const double t = temp - k0;
  const double g = std::log(rh) + b * t / (c + t);
  return c * g / (b - g) + k0;
}

}  // namespace aidcsim::thermal
