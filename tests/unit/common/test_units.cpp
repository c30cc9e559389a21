// models/common/units.hpp: the constants are exact definitions (SI Brochure 9th ed.; IAU Julian
// year; IEC 80000-13 octet), checked here against their definitions written out independently.
#include <catch2/catch.hpp>

#include "models/common/units.hpp"

using namespace aidcsim;

TEST_CASE("unit constants are their definitions", "[units]") {
  STATIC_REQUIRE(units::kZeroCelsius == 273.15);
  STATIC_REQUIRE(units::kHour == 60 * units::kMinute);
  STATIC_REQUIRE(units::kDay == 24 * 60 * 60.0);
  STATIC_REQUIRE(units::kWeek == 604800.0);
  STATIC_REQUIRE(units::kJulianYear == 31557600.0);  // 365.25 d, exact in binary
  STATIC_REQUIRE(units::kBitsPerByte == 8.0);
}

TEST_CASE("temperature conversions are the exact offset, bit for bit", "[units]") {
  // The same operation as the `t - 273.15` they replace: results stay bit-identical.
  for (double k : {0.0, 273.15, 298.15, 300.0, 353.7}) {
    CHECK(units::to_celsius(k) == k - 273.15);
    CHECK(units::from_celsius(units::to_celsius(k)) == Approx(k).epsilon(1e-15));
  }
  CHECK(units::from_celsius(25.0) == 25.0 + 273.15);
}
