#pragma once
// Dew point of moist air (condensation check of the coldest water surfaces).

namespace aidcsim::thermal {

/// Dew point (K) of air at dry-bulb `temp` (K) and relative humidity `rh` in (0, 1], Magnus
/// formula with Sonntag (1990) constants b = 17.62, c = 243.12 °C (WMO-No. 8, Annex 4.B):
/// g = ln(rh) + b t/(c + t), t_d = c g/(b - g), t in °C. Valid -45..60 °C within ~0.35 K.
double dew_point(double temp, double rh);

}  // namespace aidcsim::thermal
