#pragma once
// Dew point of moist air (condensation check of the coldest water surfaces).

namespace aidcsim::thermal {

/// Dew point (K) of air at dry-bulb `temp` (K) and relative humidity `rh` in (0, 1], Magnus
/// formula with Sonntag (1990) constants b = 17.62, c = 243.12 °C (WMO-No. 8, Annex 4.B):
/// g = ln(rh) + b t/(c + t), t_d = c g/(b - g), t in °C. Valid -45..60 °C within ~0.35 K.
double dew_point(double temp, double rh);

}  // namespace aidcsim::thermal

namespace aidcsim::thermal {

/// Wet-bulb temperature (K) of air at dry-bulb `temp` (K) and relative humidity `rh` in (0, 1] at
/// sea-level pressure, Stull's fit (R. Stull, "Wet-Bulb Temperature from Relative Humidity and Air
/// Temperature", J. Appl. Meteor. Climatol. 50, 2267-2269, 2011, eq. 1), t in °C, RH in %:
///   Tw = t atan(0.151977 (RH + 8.313659)^0.5) + atan(t + RH) - atan(RH - 1.676331)
///        + 0.00391838 RH^1.5 atan(0.023101 RH) - 4.686035.
/// Valid for RH 5-99 % and -20..50 °C within -1..+0.65 K (Stull Fig. 2).
double wet_bulb(double temp, double rh);

}  // namespace aidcsim::thermal
