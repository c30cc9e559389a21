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
  /// K, saturation temperature at 101.325 kPa (1 atm). The model is single-phase: a loop whose
  /// coolant reaches it is outside the model (checklist item "coolant stays single-phase"). At 1 atm
  /// because a rack loop's pressure is not modelled; real loops run a little above it (raising the
  /// boiling point), so the check is conservative. +infinity: the fluid does not boil anywhere in the
  /// model's range (PAO, initial boiling point far above any loop temperature).
  double boiling_point = 0;
  /// Heat capacity rate of a volume flow: m_dot cp = rho Q cp, W/K. `flow` in m^3/s.
  double capacity_rate(double flow) const { return density * flow * cp; }
};

/// Looks up "water", "pg25" (25 % propylene glycol), "pao" (dielectric synthetic hydrocarbon,
/// PAO-2 class) or "fluorinated" (dielectric fluorinated fluid, HFE-7100 class). Throws
/// InvalidParameter("cooling.coolant") for any other name.
const Coolant& coolant(const std::string& name);

/// Factor by which the convective conductance hA of a channel changes when `c` replaces water at the
/// same volume flow, for a correlation Nu = a Re^n Pr^m (h = Nu k / D, same geometry and velocity):
///   hA_c / hA_water = (k/k_w)^(1-m) (rho/rho_w)^n (cp/cp_w)^m (mu/mu_w)^(m-n).
/// n = 0.8, m = 0.4: Dittus-Boelter turbulent flow (Incropera & DeWitt, Fundamentals of Heat and Mass
/// Transfer, eq. 8.60): k^0.6 rho^0.8 cp^0.4 mu^-0.4. n = m = 0: fully developed laminar flow (Nu
/// constant, Incropera & DeWitt §8.4): the conductivity ratio alone, which reproduces the OCP 1 kW
/// OAM cold plate's PG25 vs water resistances (tests/validation/test_thermal_published.cpp).
double convection_factor_vs_water(const Coolant& c, double re_exponent = 0.8, double pr_exponent = 0.4);

}  // namespace aidcsim::thermal
