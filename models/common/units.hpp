#pragma once
// Unit constants and conversions, written once for every area (SI inside: K, s, B, B/s).
//
//   const double t_c = units::to_celsius(r.max_gpu_temp);     // K -> °C for a message
//   r.add("time_to_train", t / units::kDay, "days", ...);     // s -> days for a summary key
//   fmt::format("{:.0f} Gb/s", rate * units::kBitsPerByte / 1e9);
//
// These are exact definitions, not measured values. Python reads the same names: the build
// generates aidcsim/units.py from this file (python/CMakeLists.txt, scripts/units_to_python.cmake),
// so every `inline constexpr double kName = <expression>;` line below must stay a Python
// expression too (numbers, + - * /, and names defined above it).
namespace aidcsim::units {

inline constexpr double kZeroCelsius = 273.15;        ///< K at 0 °C (SI Brochure, 9th ed., 2.3.1)
inline constexpr double kMinute = 60.0;               ///< s
inline constexpr double kHour = 3600.0;               ///< s
inline constexpr double kDay = 86400.0;               ///< s (a civil day without leap seconds)
inline constexpr double kWeek = 7 * kDay;             ///< s
inline constexpr double kJulianYear = 365.25 * kDay;  ///< s (IAU Julian year)
inline constexpr double kLitre = 1e-3;                ///< m^3 (SI Brochure, 9th ed., Table 8)
inline constexpr double kMega = 1e6;                  ///< SI prefix M (SI Brochure, 9th ed., 3)
inline constexpr double kGiga = 1e9;                  ///< SI prefix G (SI Brochure, 9th ed., 3)
inline constexpr double kBitsPerByte = 8.0;           ///< bit/B (an octet, IEC 80000-13)

/// K -> °C (exact: t - 273.15).
constexpr double to_celsius(double kelvin) { return kelvin - kZeroCelsius; }
/// °C -> K (exact: t + 273.15).
constexpr double from_celsius(double celsius) { return celsius + kZeroCelsius; }

}  // namespace aidcsim::units
