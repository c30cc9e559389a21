// Unit syntax -> SI, one check per accepted spelling family, and the errors for wrong input.
// Expected values are exact definitions (SI prefixes, 1 byte = 8 bit, 0 degC = 273.15 K,
// US gallon = 3.785411784 L, psi = 6894.757293168 Pa).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "models/common/errors.hpp"
#include "models/common/suggest.hpp"
#include "sim/scenario/schema_registry.hpp"
#include "sim/scenario/unit_parser.hpp"

using aidcsim::InvalidParameter;
using aidcsim::parse_quantity;
using Q = aidcsim::Quantity;

namespace {
double si(Q q, const char* text) { return parse_quantity(q, text, "k"); }

// The `expected` text of the error parse_quantity raises for `text`, or "" when it parses.
std::string error_of(Q q, const char* text) {
  try {
    parse_quantity(q, text, "x.key");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "x.key");
    CHECK(e.value() == text);
    return e.expected();
  }
  return "";
}
}  // namespace

TEST_CASE("data rates: bits and bytes, decimal and binary prefixes", "[units]") {
  CHECK(si(Q::DataRate, "400 Gbps") == Approx(50e9));
  CHECK(si(Q::DataRate, "400 Gb/s") == Approx(50e9));
  CHECK(si(Q::DataRate, "400 Gbit/s") == Approx(50e9));
  CHECK(si(Q::DataRate, "400Gbps") == Approx(50e9));
  CHECK(si(Q::DataRate, "50 GB/s") == Approx(50e9));
  CHECK(si(Q::DataRate, "50 GBps") == Approx(50e9));
  CHECK(si(Q::DataRate, "1.8 TB/s") == Approx(1.8e12));
  CHECK(si(Q::DataRate, "100 Mbps") == Approx(12.5e6));
  CHECK(si(Q::DataRate, "1 GiB/s") == Approx(1073741824.0));
  CHECK(si(Q::DataRate, " 800 Gbps ") == Approx(100e9));
}

TEST_CASE("data sizes", "[units]") {
  CHECK(si(Q::DataSize, "80 GB") == Approx(80e9));
  CHECK(si(Q::DataSize, "80 GiB") == Approx(80.0 * 1073741824.0));
  CHECK(si(Q::DataSize, "1.5 TB") == Approx(1.5e12));
  CHECK(si(Q::DataSize, "512 MiB") == Approx(512.0 * 1048576.0));
  CHECK(si(Q::DataSize, "4 GB") == Approx(4e9));
  CHECK(si(Q::DataSize, "8 Gbit") == Approx(1e9));
}

TEST_CASE("power, energy, pressure, FLOP rate, thermal resistance", "[units]") {
  CHECK(si(Q::Power, "700 W") == Approx(700));
  CHECK(si(Q::Power, "1.2 kW") == Approx(1200));
  CHECK(si(Q::Power, "230 MW") == Approx(230e6));
  CHECK(si(Q::Energy, "1 kWh") == Approx(3.6e6));
  CHECK(si(Q::Energy, "3.6 MJ") == Approx(3.6e6));
  CHECK(si(Q::Pressure, "200 kPa") == Approx(200e3));
  CHECK(si(Q::Pressure, "2 bar") == Approx(2e5));
  CHECK(si(Q::Pressure, "30 psi") == Approx(30 * 6894.757293168));
  CHECK(si(Q::FlopRate, "989 TFLOP/s") == Approx(989e12));
  CHECK(si(Q::FlopRate, "2.5 PFLOPS") == Approx(2.5e15));
  CHECK(si(Q::ThermalResistance, "0.02 K/W") == Approx(0.02));
  CHECK(si(Q::ThermalResistance, "0.02 degC/W") == Approx(0.02));
}

TEST_CASE("absolute temperatures go to kelvin with their offset", "[units]") {
  CHECK(si(Q::Temperature, "25 degC") == Approx(298.15));
  CHECK(si(Q::Temperature, "25 °C") == Approx(298.15));
  CHECK(si(Q::Temperature, "25 C") == Approx(298.15));
  CHECK(si(Q::Temperature, "298.15 K") == Approx(298.15));
  CHECK(si(Q::Temperature, "77 degF") == Approx(298.15));
  CHECK(si(Q::Temperature, "-40 degF") == Approx(233.15));  // -40 F = -40 C
  CHECK_THAT(error_of(Q::Temperature, "-300 degC"), Catch::Contains("below absolute zero"));
  CHECK_THAT(error_of(Q::Temperature, "15 delta_degC"), Catch::Contains("got a temperature difference"));
}

TEST_CASE("temperature differences have no offset", "[units]") {
  CHECK(si(Q::TemperatureDelta, "15 K") == Approx(15));
  CHECK(si(Q::TemperatureDelta, "15 degC") == Approx(15));
  CHECK(si(Q::TemperatureDelta, "15 delta_degC") == Approx(15));
  CHECK(si(Q::TemperatureDelta, "9 degF") == Approx(5));
}

TEST_CASE("volume flows go to m^3/s", "[units]") {
  CHECK(si(Q::VolumeFlow, "1 L/min") == Approx(1e-3 / 60));
  CHECK(si(Q::VolumeFlow, "1 LPM") == Approx(1e-3 / 60));
  CHECK(si(Q::VolumeFlow, "1.5 l/min") == Approx(1.5e-3 / 60));
  CHECK(si(Q::VolumeFlow, "100 m3/h") == Approx(100.0 / 3600));
  CHECK(si(Q::VolumeFlow, "2 m^3/h") == Approx(2.0 / 3600));
  CHECK(si(Q::VolumeFlow, "26 gpm") == Approx(26 * 3.785411784e-3 / 60));
}

TEST_CASE("times go to seconds", "[units]") {
  CHECK(si(Q::Time, "600 ns") == Approx(600e-9));
  CHECK(si(Q::Time, "2 us") == Approx(2e-6));
  CHECK(si(Q::Time, "2 µs") == Approx(2e-6));
  CHECK(si(Q::Time, "5 ms") == Approx(5e-3));
  CHECK(si(Q::Time, "10 s") == Approx(10));
  CHECK(si(Q::Time, "5 min") == Approx(300));
  CHECK(si(Q::Time, "3 h") == Approx(10800));
  CHECK(si(Q::Time, "54 d") == Approx(54 * 86400.0));
  CHECK(si(Q::Time, "2 days") == Approx(2 * 86400.0));
  CHECK(si(Q::Time, "1 week") == Approx(7 * 86400.0));
}

TEST_CASE("counts take K/M/B/T suffixes", "[units]") {
  CHECK(si(Q::Count, "16M") == Approx(16e6));
  CHECK(si(Q::Count, "15T") == Approx(15e12));
  CHECK(si(Q::Count, "2.5B") == Approx(2.5e9));
  CHECK(si(Q::Count, "4K") == Approx(4e3));
  CHECK(si(Q::Count, "1e6") == Approx(1e6));
  CHECK(si(Q::Count, "8064") == 8064);
  CHECK_THAT(error_of(Q::Count, "16 GB"), Catch::Contains("got a data size"));
  CHECK_THAT(error_of(Q::Count, "16X"), Catch::Contains("unknown suffix 'X'"));
}

TEST_CASE("ratios: downlink:uplink, first side over second", "[units]") {
  CHECK(si(Q::Ratio, "7:1") == 7);
  CHECK(si(Q::Ratio, "3:2") == 1.5);
  CHECK(si(Q::Ratio, "1:1") == 1);
  CHECK(si(Q::Ratio, "2") == 2);
  CHECK_THAT(error_of(Q::Ratio, "0:1"), Catch::Contains("positive"));
  // Below 1 is undersubscription, not "1:2 read as 2:1" (issue 3: oversubscription < 1 is an error).
  CHECK_THAT(error_of(Q::Ratio, "1:2"), Catch::Contains("downlink:uplink ratio >= 1, e.g. 3:1"));
  CHECK_THAT(error_of(Q::Ratio, "1:7"), Catch::Contains("downlink:uplink ratio >= 1"));
  CHECK_THAT(error_of(Q::Ratio, "a:b"), Catch::Contains("two plain numbers"));
}

TEST_CASE("fractions: number in [0, 1] or percentage", "[units]") {
  CHECK(si(Q::Fraction, "0.85") == Approx(0.85));
  CHECK(si(Q::Fraction, "85 %") == Approx(0.85));
  CHECK(si(Q::Fraction, "85%") == Approx(0.85));
  CHECK_THAT(error_of(Q::Fraction, "85"), Catch::Contains("write '85 %'"));
  CHECK_THAT(error_of(Q::Fraction, "-0.1"), Catch::Contains("outside [0, 1]"));
}

TEST_CASE("dates are seconds since the epoch, UTC", "[units]") {
  CHECK(si(Q::Date, "1970-01-02") == 86400);
  CHECK(si(Q::Date, "2026-03-01") == 1772323200.0);  // date -u -d 2026-03-01 +%s
  CHECK(si(Q::Date, "2026-03-01T12:30Z") == 1772323200.0 + 45000);
  CHECK(error_of(Q::Date, "2026-02-30") != "");
  CHECK(error_of(Q::Date, "March 1st") != "");
}

TEST_CASE("integers are plain integers", "[units]") {
  CHECK(si(Q::Integer, "64") == 64);
  CHECK(si(Q::Integer, "-8") == -8);
  CHECK(si(Q::Integer, "+8") == 8);
  CHECK_THAT(error_of(Q::Integer, "3.5"), Catch::Contains("a plain integer"));
  CHECK_THAT(error_of(Q::Integer, "64 ports"), Catch::Contains("no unit"));
  CHECK(error_of(Q::Integer, "1e3") != "");
  CHECK(error_of(Q::Integer, "sixty") != "");
  CHECK_THAT(error_of(Q::Integer, "18446744073709551616"), Catch::Contains("too large"));
}

TEST_CASE("booleans", "[units]") {
  CHECK(aidcsim::parse_bool("true"));
  CHECK(aidcsim::parse_bool("Yes"));
  CHECK_FALSE(aidcsim::parse_bool("false"));
  CHECK_FALSE(aidcsim::parse_bool("off"));
  CHECK_THROWS_AS(aidcsim::parse_bool("maybe", "k"), InvalidParameter);
}

TEST_CASE("a dimensioned quantity needs its unit, of the right dimension", "[units]") {
  CHECK(error_of(Q::DataRate, "400") ==
        "a data rate such as '400 Gbps' or '50 GB/s' (got a plain number without a unit)");
  CHECK(error_of(Q::DataRate, "400 GB") == "a data rate such as '400 Gbps' or '50 GB/s' (got a data size)");
  CHECK_THAT(error_of(Q::Power, "700"), Catch::Contains("without a unit"));
  CHECK_THAT(error_of(Q::Temperature, "25"), Catch::Contains("without a unit"));
  CHECK_THAT(error_of(Q::VolumeFlow, "1 L"), Catch::Contains("unknown unit 'L'"));
  CHECK_THAT(error_of(Q::Power, "700 Gbps"), Catch::Contains("got a data rate"));
  CHECK_THAT(error_of(Q::Time, "5 degC"), Catch::Contains("got a temperature"));
  CHECK_THAT(error_of(Q::DataRate, "400 gbps"), Catch::Contains("case-sensitive"));
  CHECK_THAT(error_of(Q::DataRate, "fast"), Catch::Contains("not a number"));
  CHECK_THAT(error_of(Q::DataRate, "inf Gbps"), Catch::Contains("not a number"));
  CHECK_THAT(error_of(Q::Number, "1.5 W"), Catch::Contains("no unit allowed"));
  CHECK(error_of(Q::DataRate, "") != "");
}

TEST_CASE("formatting back in the user's unit", "[units]") {
  using aidcsim::DisplayUnit;
  using aidcsim::format_quantity;
  CHECK(format_quantity(Q::VolumeFlow, 1e-3, aidcsim::display_unit(Q::VolumeFlow, "1 L/min")) == "60 L/min");
  CHECK(format_quantity(Q::Temperature, 333.15, aidcsim::display_unit(Q::Temperature, "18 degC")) == "60 degC");
  CHECK(format_quantity(Q::Time, 1e-3, aidcsim::display_unit(Q::Time, "600 ns"), true) == "1 ms");
  CHECK(format_quantity(Q::DataRate, 1e12, aidcsim::display_unit(Q::DataRate, "400 Gbps"), true) == "8 Tbps");
  CHECK(format_quantity(Q::Date, 1772323200.0, DisplayUnit{}) == "2026-03-01");
  CHECK(aidcsim::format_number(1e7) == "10000000");
  CHECK(aidcsim::format_number(1e18) == "1e+18");
  CHECK(aidcsim::format_number(0.125) == "0.125");
}

TEST_CASE("every range bound the messages and the reference show reads back as itself", "[units]") {
  // "expected a time from 100 ms to 11574100 d": the bound 1e12 s was shown rounded to 6 digits
  // in days, above the real bound, so a value written as the message says was refused.
  for (const aidcsim::Field& f : aidcsim::full_schema()) {
    if (!aidcsim::is_numeric(f.quantity) || f.quantity == Q::Date) continue;
    aidcsim::DisplayUnit u = aidcsim::display_unit(f.quantity, f.default_value);
    if (f.quantity == Q::Fraction) u = aidcsim::DisplayUnit{};
    for (const auto& bound : {f.min, f.max}) {
      if (!bound) continue;
      const std::string shown = aidcsim::format_quantity(f.quantity, *bound, u, /*autoscale=*/true);
      INFO(f.key << ": " << *bound << " SI shown as '" << shown << "'");
      const double back = parse_quantity(f.quantity, shown, f.key);
      CHECK(std::fabs(back - *bound) <= 1e-9 * std::max(1.0, std::fabs(*bound)));
    }
  }
  CHECK(aidcsim::format_quantity(Q::Time, 1e12, aidcsim::display_unit(Q::Time, "1e9 s"), true) == "1000000000000 s");
  CHECK(aidcsim::format_quantity(Q::Time, 86400 * 200.0, aidcsim::display_unit(Q::Time, "1 h"), true) == "200 d");
}

TEST_CASE("did-you-mean: edit distance with transpositions, only close matches", "[suggest]") {
  CHECK(aidcsim::edit_distance("swich_radix", "switch_radix") == 1);
  CHECK(aidcsim::edit_distance("tpo", "top") == 1);
  CHECK(aidcsim::edit_distance("", "abc") == 3);
  CHECK(aidcsim::closest_match("swich_radix", {"topology", "switch_radix", "link_rate"}) == "switch_radix");
  CHECK(aidcsim::closest_match("Clos3", {"leaf_spine", "clos3"}) == "clos3");
  CHECK_FALSE(aidcsim::closest_match("banana", {"topology", "switch_radix"}).has_value());
}

TEST_CASE("lengths and prices", "[units]") {
  CHECK(si(Q::Length, "3 m") == Approx(3));
  CHECK(si(Q::Length, "50 cm") == Approx(0.5));
  CHECK(si(Q::Length, "2 km") == Approx(2000));
  CHECK(si(Q::Length, "10 ft") == Approx(3.048));
  CHECK(si(Q::Money, "36000 USD") == Approx(36000));
  CHECK(si(Q::Money, "1.2 kUSD") == Approx(1200));
  CHECK(si(Q::Money, "3.5 MUSD") == Approx(3.5e6));
  CHECK_THAT(error_of(Q::Length, "3"), Catch::Contains("a length"));
  CHECK_THAT(error_of(Q::Money, "36000 EUR"), Catch::Contains("unknown unit 'EUR'"));
  CHECK_THAT(error_of(Q::Length, "3 W"), Catch::Contains("got a power"));
}

TEST_CASE("a time written as a clock or with several units gets the one-unit spelling", "[units]") {
  // A risk study schedules a fault "on a hot afternoon": at: 15:00 was "unknown unit ':00'".
  // H:MM or M:SS: both readings, not only the hours one (a `hold: 15:00` meant 15 minutes, and the
  // message's "did you mean '15 h'?" read it as 15 hours).
  CHECK(error_of(Q::Time, "15:00") ==
        "a time such as '600 ns', '5 min' or '54 d' (written like a clock, H:MM or M:SS; a time here is one number "
        "and one unit: '15 h' if hours:minutes (a time of day from the run's start), '15 min' if minutes:seconds)");
  CHECK_THAT(error_of(Q::Time, "15:30"),
             Catch::Contains("'15.5 h' if hours:minutes") && Catch::Contains("'15.5 min' if minutes:seconds"));
  CHECK_THAT(error_of(Q::Time, "0:15"),
             Catch::Contains("'0.25 h' if hours:minutes") && Catch::Contains("'0.25 min' if minutes:seconds"));
  // H:MM:SS reads one way.
  CHECK_THAT(error_of(Q::Time, "1:30:36"),
             Catch::Contains("written like a clock, H:MM:SS") && Catch::Contains("did you mean '1.51 h'?"));
  CHECK_THAT(error_of(Q::Time, "1:30:00"),
             Catch::Contains("did you mean '1.5 h'?") && !Catch::Contains("minutes:seconds"));
  CHECK_THAT(error_of(Q::Time, "1 d 15 h"), Catch::Contains("one number and one unit: did you mean '1.625 d'?"));
  CHECK_THAT(error_of(Q::Time, "2 h 30 min"), Catch::Contains("did you mean '2.5 h'?"));
  CHECK_THAT(error_of(Q::Time, "1min30s"), Catch::Contains("did you mean '1.5 min'?"));
  // Not a clock nor a sum of times: the plain message.
  CHECK(error_of(Q::Time, "2h30m") == "a time such as '600 ns', '5 min' or '54 d' (unknown unit 'h30m')");
  CHECK_THAT(error_of(Q::Time, "15:75"), Catch::Contains("unknown unit ':75'"));
}

TEST_CASE("a time written as a date or a 12-hour clock says what a time is", "[units]") {
  // cooling.faults[].at: "2026-12-03" was "unknown unit '-12-03'", "3pm" "unknown unit 'pm'".
  CHECK(error_of(Q::Time, "2026-12-03") ==
        "a time such as '600 ns', '5 min' or '54 d' (a date; a time here is one number and one unit, from the "
        "run's start (t = 0, midnight of its first day), not a calendar date: the second day starts at '24 h', the "
        "third at '48 h')");
  CHECK_THAT(error_of(Q::Time, "2026-12-03 15:00"),
             Catch::Contains("a date and time; a time here is one number and one unit, from the run's start") &&
                 Catch::Contains("15:00 on the first day is '15 h', on the second '39 h'"));
  CHECK_THAT(error_of(Q::Time, "2026-12-03T15:30Z"), Catch::Contains("15:30 on the first day is '15.5 h'"));
  CHECK_THAT(error_of(Q::Time, "3pm"), Catch::Contains("a clock time") && Catch::Contains("did you mean '15 h'?"));
  CHECK_THAT(error_of(Q::Time, "3:30 PM"), Catch::Contains("did you mean '15.5 h'?"));
  CHECK_THAT(error_of(Q::Time, "12am"), Catch::Contains("did you mean '0 h'?"));
  CHECK_THAT(error_of(Q::Time, "11 am"), Catch::Contains("did you mean '11 h'?"));
  // Durations as users write them still read.
  CHECK(si(Q::Time, "90 min") == Approx(5400));
  CHECK(si(Q::Time, "2 h") == Approx(7200));
  CHECK(si(Q::Time, "2 hours") == Approx(7200));
  // Not a date (month 13) nor a clock (13pm): the plain message.
  CHECK_THAT(error_of(Q::Time, "2026-13-03"), Catch::Contains("unknown unit '-13-03'"));
  CHECK_THAT(error_of(Q::Time, "13pm"), Catch::Contains("unknown unit 'pm'"));
}
