#pragma once
// One limit as a check (value, limit, headroom, pass), shared by the steady-state checklist
// (checklist.cpp) and the fault verdicts (verdict.cpp). Rule (tests/unit/thermal/
// test_checklist_consistency.cpp): headroom = limit - value in the direction of safety, and pass ==
// (headroom >= 0), except headroom == 0 exactly on the brief's strict "<" limits, which fail there.
// For a band, `limit` is the bound nearer to the value and headroom is measured to it.
#include <string>
#include <utility>

#include "models/thermal/site.hpp"

namespace aidcsim::thermal {

/// Checklist item holding the hottest coolant below its boiling point (the loop is single-phase).
inline constexpr const char* kSinglePhaseItem = "coolant stays single-phase";

/// value must stay below limit (strict: "<", else "<=").
ChecklistItem limit_below(std::string item, double value, double limit, std::string unit, std::string note,
                          bool strict = true);
/// value must reach at least limit (">=").
ChecklistItem limit_above(std::string item, double value, double limit, std::string unit, std::string note);
/// value must lie in [lo, hi]; |headroom| <= tol counts as on the bound.
ChecklistItem limit_band(std::string item, double value, double lo, double hi, std::string unit, double tol,
                         std::string note);

/// Allowable server inlet air range (K) of an ASHRAE class: A1 15-32 °C, A2 10-35, A3 5-40,
/// A4 5-45 (ASHRAE TC 9.9, "Thermal Guidelines for Data Processing Environments - Expanded Data
/// Center Classes and Usage Guidance", 2011, Table 2). Throws InvalidParameter for another name.
std::pair<double, double> air_inlet_allowable(const std::string& ashrae_class);

/// "21.3 °C" for a temperature in K.
std::string degc(double kelvin);

}  // namespace aidcsim::thermal
