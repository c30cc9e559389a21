#include "models/thermal/coolant.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"

namespace aidcsim::thermal {

namespace {
// Values at ~25 °C. Water: IAPWS-95 standard values (cp 4.18 kJ/kg K, rho 997 kg/m^3;
// published-figures §6.4 [recall, standard]). PG25: ASHRAE Handbook Fundamentals ch. 31 propylene
// glycol tables (cp ~3.9-4.0 kJ/kg K, ~1.02 kg/L; §6.4 [recall, approximate]). PAO: PAO-2 class
// synthetic hydrocarbon datasheet values [recall, approximate]. Fluorinated: 3M Novec 7100
// product datasheet (rho 1510 kg/m^3, cp 1183 J/kg K, 0.38 cSt, k 0.069) [recall].
// Boiling points at 101.325 kPa. Water: 99.97 °C (IAPWS-95 saturation at 1 atm), 100 °C here.
// PG25: Dow, "Engineering and Operating Guide for DOWFROST and DOWFROST HD", boiling points of
// aqueous solutions (~216 °F / 102 °C at 25 % glycol; a glycol mix boils above water) [recall,
// approximate]. Fluorinated: 3M Novec 7100 product datasheet, boiling point 61 °C. PAO: a PAO-2
// class oil has an initial boiling point well above 250 °C and a flash point ~155 °C (ExxonMobil
// SpectraSyn 2 datasheet [recall]); it does not boil in the model's range, so no boiling point.
constexpr double kNoBoiling = std::numeric_limits<double>::infinity();
const std::array<Coolant, 4> kTable = {{
    {"water", 997.0, 4180.0, 0.607, 0.89e-3, 273.15 + 100.0},
    {"pg25", 1020.0, 3930.0, 0.50, 2.0e-3, 273.15 + 102.0},
    {"pao", 800.0, 2200.0, 0.14, 4.0e-3, kNoBoiling},
    {"fluorinated", 1510.0, 1183.0, 0.069, 0.58e-3, 273.15 + 61.0},
}};
}  // namespace

const Coolant& coolant(const std::string& name) {
  for (const auto& c : kTable)
    if (c.name == name) return c;
  throw InvalidParameter("cooling.coolant", name, "one of water, pg25, pao, fluorinated");
}

double convection_factor_vs_water(const Coolant& c, double n, double m) {
  const Coolant& w = kTable[0];
  return std::pow(c.conductivity / w.conductivity, 1 - m) * std::pow(c.density / w.density, n) *
         std::pow(c.cp / w.cp, m) * std::pow(c.viscosity / w.viscosity, m - n);
}

}  // namespace aidcsim::thermal
