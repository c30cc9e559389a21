#pragma once
// Coolant property table (single-phase liquids used in direct-to-chip loops).
#include <string>

namespace aidcsim::thermal {

/// Properties of a coolant near 25-40 °C, SI. Sources per entry in coolant.cpp.
struct Coolant {
  std::string name;
  double density = 0;       ///< kg/m^3
  double cp = 0;            ///< J/(kg K)
  double conductivity = 0;  ///< W/(m K)
  double viscosity = 0;     ///< Pa s (dynamic)
  /// Heat capacity rate of a volume flow: m_dot cp = rho Q cp, W/K. `flow` in m^3/s.
  double capacity_rate(double flow) const { return density * flow * cp; }
};

/// Looks up "water", "pg25" (25 % propylene glycol), "pao" (dielectric synthetic hydrocarbon,
/// PAO-2 class) or "fluorinated" (dielectric fluorinated fluid, HFE-7100 class). Throws
/// InvalidParameter("cooling.coolant") for any other name.
const Coolant& coolant(const std::string& name);

/// Factor by which the convective conductance hA of a cold plate changes when `c` replaces water
/// at the same volume flow: Dittus-Boelter Nu = 0.023 Re^0.8 Pr^0.4 (Incropera & DeWitt,
/// Fundamentals of Heat and Mass Transfer, eq. 8.60) gives hA ~ k^0.6 rho^0.8 cp^0.4 mu^-0.4.
double convection_factor_vs_water(const Coolant& c);

}  // namespace aidcsim::thermal
