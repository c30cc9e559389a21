#include "sim/scenario/unit_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "models/common/errors.hpp"
#include "models/common/units.hpp"

namespace aidcsim {
namespace {

// One accepted spelling. `family` groups spellings that differ only by prefix (for autoscaled
// display); `nice` marks the spellings the reference page and messages may pick.
struct UnitDef {
  std::string symbol;
  Quantity dim;
  double factor;
  double offset;
  std::string family;
  bool nice;
};

struct Prefix {
  const char* p;
  double f;
  bool nice;
};

constexpr double kUsGallon = 3.785411784e-3;   // m^3, NIST Handbook 44 App. C
constexpr double kCubicFoot = 0.028316846592;  // m^3, NIST SP 811 App. B
constexpr double kPsi = 6894.757293168;        // Pa, NIST SP 811 App. B
constexpr double kAtm = 101325.0;              // Pa, CGPM 1954
constexpr double kFoot = 0.3048;               // m, international foot (1959)

void add_prefixed(std::vector<UnitDef>& t, Quantity q, const std::vector<Prefix>& prefixes,
                  const std::vector<std::string>& suffixes, double base, const std::string& family,
                  const std::string& nice_suffix) {
  for (const auto& pr : prefixes)
    for (const auto& s : suffixes) t.push_back({pr.p + s, q, pr.f * base, 0.0, family, pr.nice && s == nice_suffix});
}

// The unit table (long by nature: one line per unit family).
const std::vector<UnitDef>& table() {
  static const std::vector<UnitDef> t = [] {
    using Q = Quantity;
    std::vector<UnitDef> t;
    const std::vector<Prefix> dec = {{"", 1, true},    {"k", 1e3, true},  {"K", 1e3, false}, {"M", 1e6, true},
                                     {"G", 1e9, true}, {"T", 1e12, true}, {"P", 1e15, true}};
    const std::vector<Prefix> bin = {
        {"Ki", 0x1p10, true}, {"Mi", 0x1p20, true}, {"Gi", 0x1p30, true}, {"Ti", 0x1p40, true}, {"Pi", 0x1p50, true}};
    // Data rate (B/s): bits are 1/8 byte.
    add_prefixed(t, Q::DataRate, dec, {"bps", "b/s", "bit/s", "bits/s"}, 0.125, "bit/s", "bps");
    add_prefixed(t, Q::DataRate, dec, {"B/s", "Bps", "byte/s", "bytes/s"}, 1.0, "B/s", "B/s");
    add_prefixed(t, Q::DataRate, bin, {"bps", "b/s", "bit/s", "bits/s"}, 0.125, "ibit/s", "bps");
    add_prefixed(t, Q::DataRate, bin, {"B/s", "Bps", "byte/s", "bytes/s"}, 1.0, "iB/s", "B/s");
    // Data size (B).
    add_prefixed(t, Q::DataSize, dec, {"B", "byte", "bytes"}, 1.0, "B", "B");
    add_prefixed(t, Q::DataSize, dec, {"b", "bit", "bits"}, 0.125, "bit", "bit");
    add_prefixed(t, Q::DataSize, bin, {"B", "byte", "bytes"}, 1.0, "iB", "B");
    add_prefixed(t, Q::DataSize, bin, {"b", "bit", "bits"}, 0.125, "ibit", "bit");
    // Power (W).
    add_prefixed(
        t, Q::Power,
        {{"m", 1e-3, false}, {"", 1, true}, {"k", 1e3, true}, {"K", 1e3, false}, {"M", 1e6, true}, {"G", 1e9, true}},
        {"W"}, 1.0, "W", "W");
    // Absolute temperature (K): K = degC + 273.15 = (degF + 459.67) * 5/9.
    for (const char* s : {"K", "kelvin"}) t.push_back({s, Q::Temperature, 1, 0, "K", s == std::string("K")});
    for (const char* s : {"degC", "°C", "℃", "C", "deg C", "celsius", "Celsius"})
      t.push_back({s, Q::Temperature, 1, units::kZeroCelsius, "degC", s == std::string("degC")});
    for (const char* s : {"degF", "°F", "℉", "F", "deg F", "fahrenheit", "Fahrenheit"})
      t.push_back({s, Q::Temperature, 5.0 / 9.0, 459.67 * 5.0 / 9.0, "degF", s == std::string("degF")});
    // Temperature difference (K): a degree Celsius step is one kelvin, a Fahrenheit step 5/9 K.
    t.push_back({"K", Q::TemperatureDelta, 1, 0, "K", true});
    t.push_back({"mK", Q::TemperatureDelta, 1e-3, 0, "K", true});
    for (const char* s : {"delta_degC", "delta_C", "degC", "°C", "℃", "C", "deg C"})
      t.push_back({s, Q::TemperatureDelta, 1, 0, "degC", s == std::string("delta_degC")});
    for (const char* s : {"delta_degF", "delta_F", "degF", "°F", "℉", "F", "deg F"})
      t.push_back({s, Q::TemperatureDelta, 5.0 / 9.0, 0, "degF", s == std::string("delta_degF")});
    // Volume flow (m^3/s).
    for (const char* s : {"L/min", "l/min", "LPM", "lpm", "L/m"})
      t.push_back({s, Q::VolumeFlow, 1e-3 / 60, 0, "L/min", s == std::string("L/min")});
    for (const char* s : {"mL/min", "ml/min"})
      t.push_back({s, Q::VolumeFlow, 1e-6 / 60, 0, "mL/min", s == std::string("mL/min")});
    for (const char* s : {"L/s", "l/s"}) t.push_back({s, Q::VolumeFlow, 1e-3, 0, "L/s", s == std::string("L/s")});
    for (const char* s : {"L/h", "l/h"})
      t.push_back({s, Q::VolumeFlow, 1e-3 / 3600, 0, "L/h", s == std::string("L/h")});
    for (const char* s : {"m3/s", "m^3/s", "m³/s"})
      t.push_back({s, Q::VolumeFlow, 1, 0, "m3/s", s == std::string("m3/s")});
    for (const char* s : {"m3/min", "m^3/min", "m³/min"})
      t.push_back({s, Q::VolumeFlow, 1.0 / 60, 0, "m3/min", s == std::string("m3/min")});
    for (const char* s : {"m3/h", "m^3/h", "m³/h"})
      t.push_back({s, Q::VolumeFlow, 1.0 / 3600, 0, "m3/h", s == std::string("m3/h")});
    for (const char* s : {"gpm", "GPM", "gal/min"})
      t.push_back({s, Q::VolumeFlow, kUsGallon / 60, 0, "gpm", s == std::string("gpm")});
    for (const char* s : {"cfm", "CFM", "ft3/min", "ft^3/min"})
      t.push_back({s, Q::VolumeFlow, kCubicFoot / 60, 0, "cfm", s == std::string("cfm")});
    // Time (s).
    struct T {
      std::vector<const char*> s;
      double f;
      bool nice;
    };
    for (const T& u : std::vector<T>{{{"ps"}, 1e-12, false},
                                     {{"ns"}, 1e-9, true},
                                     {{"us", "µs", "μs"}, 1e-6, true},
                                     {{"ms"}, 1e-3, true},
                                     {{"s", "sec", "secs", "second", "seconds"}, 1, true},
                                     {{"min", "mins", "minute", "minutes"}, units::kMinute, true},
                                     {{"h", "hr", "hrs", "hour", "hours"}, units::kHour, true},
                                     {{"d", "day", "days"}, units::kDay, true},
                                     {{"w", "wk", "week", "weeks"}, units::kWeek, false},
                                     {{"yr", "year", "years"}, units::kJulianYear, false}})
      for (std::size_t i = 0; i < u.s.size(); ++i) t.push_back({u.s[i], Q::Time, u.f, 0, "s", u.nice && i == 0});
    // FLOP rate (FLOP/s).
    add_prefixed(t, Q::FlopRate,
                 {{"", 1, false},
                  {"k", 1e3, false},
                  {"M", 1e6, false},
                  {"G", 1e9, true},
                  {"T", 1e12, true},
                  {"P", 1e15, true},
                  {"E", 1e18, true}},
                 {"FLOP/s", "FLOPS", "FLOPs/s", "FLOPs", "flop/s", "flops", "Flop/s", "Flops"}, 1.0, "FLOP/s",
                 "FLOP/s");
    // Thermal resistance (K/W).
    for (const char* s : {"K/W", "degC/W", "°C/W", "C/W"})
      t.push_back({s, Q::ThermalResistance, 1, 0, "K/W", s == std::string("K/W")});
    t.push_back({"mK/W", Q::ThermalResistance, 1e-3, 0, "K/W", true});
    t.push_back({"K/kW", Q::ThermalResistance, 1e-3, 0, "K/kW", true});
    // Energy (J).
    add_prefixed(
        t, Q::Energy,
        {{"", 1, true}, {"k", 1e3, true}, {"M", 1e6, true}, {"G", 1e9, true}, {"T", 1e12, true}, {"P", 1e15, true}},
        {"J"}, 1.0, "J", "J");
    add_prefixed(t, Q::Energy, {{"", 1, true}, {"k", 1e3, true}, {"M", 1e6, true}, {"G", 1e9, true}, {"T", 1e12, true}},
                 {"Wh"}, units::kHour, "Wh", "Wh");
    // Pressure (Pa).
    add_prefixed(t, Q::Pressure, {{"", 1, true}, {"h", 1e2, false}, {"k", 1e3, true}, {"M", 1e6, true}}, {"Pa"}, 1.0,
                 "Pa", "Pa");
    t.push_back({"bar", Q::Pressure, 1e5, 0, "bar", true});
    t.push_back({"mbar", Q::Pressure, 1e2, 0, "bar", true});
    t.push_back({"psi", Q::Pressure, kPsi, 0, "psi", true});
    t.push_back({"atm", Q::Pressure, kAtm, 0, "atm", true});
    // Length (m).
    add_prefixed(t, Q::Length, {{"m", 1e-3, true}, {"c", 1e-2, true}, {"", 1, true}, {"k", 1e3, true}}, {"m"}, 1.0, "m",
                 "m");
    t.push_back({"ft", Q::Length, kFoot, 0, "ft", true});
    // Money (USD; no currency conversion: prices are written in US dollars).
    add_prefixed(t, Q::Money, {{"", 1, true}, {"k", 1e3, true}, {"M", 1e6, true}, {"G", 1e9, false}}, {"USD"}, 1.0,
                 "USD", "USD");
    return t;
  }();
  return t;
}

const UnitDef* find_unit(Quantity q, std::string_view sym) {
  for (const auto& u : table())
    if (u.dim == q && u.symbol == sym) return &u;
  return nullptr;
}

const UnitDef* find_any_unit(std::string_view sym) {
  for (const auto& u : table())
    if (u.symbol == sym) return &u;
  return nullptr;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// A leading decimal number ("1.8", "-5", ".5", "1e6") and what follows it, trimmed. No inf/nan,
// no hex: only what people write in scenario files.
bool lex_number(std::string_view s, double& value, std::string_view& rest) {
  std::size_t i = 0;
  const bool plus = i < s.size() && s[i] == '+';
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      i = j;
    }
  }
  const std::size_t from = plus ? 1 : 0;
  const auto r = std::from_chars(s.data() + from, s.data() + i, value);
  if (r.ec != std::errc() || r.ptr != s.data() + i || !std::isfinite(value)) return false;
  rest = trim(s.substr(i));
  return true;
}

[[noreturn]] void fail(Quantity q, std::string_view key, std::string_view text, const std::string& detail) {
  std::string expected = quantity_expectation(q);
  if (!detail.empty()) expected += " (" + detail + ")";
  throw InvalidParameter(std::string(key), std::string(text), expected);
}

std::string with_article(const std::string& noun) {
  const bool vowel = !noun.empty() && std::string("aeiou").find(noun[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + noun;
}

// Why `unit` is not a unit of `q`: another dimension, a percentage, a case slip, or unknown.
std::string wrong_unit_detail(Quantity q, std::string_view unit) {
  if (const UnitDef* other = find_any_unit(unit); other && other->dim != q)
    return "got " + with_article(quantity_name(other->dim));
  if (unit == "%") return "got a percentage";
  std::vector<std::string> near;
  for (const auto& u : table())
    if (u.dim == q && lower(u.symbol) == lower(unit) && std::find(near.begin(), near.end(), u.symbol) == near.end())
      near.push_back(u.symbol);
  std::string d = "unknown unit '" + std::string(unit) + "'";
  if (!near.empty()) {
    d += "; units are case-sensitive: ";
    for (std::size_t i = 0; i < near.size(); ++i) d += (i ? " or '" : "'") + near[i] + "'";
    d += "?";
  }
  return d;
}

bool parse_int(std::string_view s, long long& v) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

// "15:00", "15:30", "1:30:36": a clock time, read as hours (H:MM or H:MM:SS). `seconds_field`:
// whether it has the third field (H:MM:SS); without it, "15:00" is also M:SS (a 15-minute duration).
bool clock_hours(std::string_view t, double& hours, bool* seconds_field = nullptr) {
  const std::size_t c1 = t.find(':');
  if (c1 == std::string_view::npos || c1 == 0 || c1 > 2) return false;
  long long h = 0, m = 0, s = 0;
  if (!parse_int(t.substr(0, c1), h) || h < 0) return false;
  const std::string_view r = t.substr(c1 + 1);
  const std::size_t c2 = r.find(':');
  const std::string_view mm = r.substr(0, c2);
  if (mm.size() != 2 || !parse_int(mm, m) || m < 0 || m > 59) return false;
  if (c2 != std::string_view::npos) {
    const std::string_view ss = r.substr(c2 + 1);
    if (ss.size() != 2 || !parse_int(ss, s) || s < 0 || s > 59) return false;
  }
  hours = static_cast<double>(h) + static_cast<double>(m) / 60 + static_cast<double>(s) / 3600;
  if (seconds_field) *seconds_field = c2 != std::string_view::npos;
  return true;
}

// "1 d 15 h", "2 h 30 min", "1min30s": two or more terms, each a number and a time unit. Gives the
// sum in seconds and the largest unit written.
bool sum_of_times(std::string_view t, double& seconds, const UnitDef*& largest) {
  int terms = 0;
  seconds = 0;
  largest = nullptr;
  while (!t.empty()) {
    double v = 0;
    std::string_view rest;
    if (!lex_number(t, v, rest) || v < 0) return false;
    std::size_t n = 0;
    while (n < rest.size() && !std::isdigit(static_cast<unsigned char>(rest[n])) && rest[n] != ' ' && rest[n] != '.' &&
           rest[n] != '+' && rest[n] != '-')
      ++n;
    const UnitDef* u = find_unit(Quantity::Time, rest.substr(0, n));
    if (!u) return false;
    seconds += v * u->factor;
    if (!largest || u->factor > largest->factor) largest = u;
    t = trim(rest.substr(n));
    ++terms;
  }
  return terms >= 2;
}

// "3pm", "3 pm", "3:30 PM", "12am": a 12-hour clock time, read as hours after midnight.
bool clock_hours_12(std::string_view t, double& hours) {
  if (t.size() < 3) return false;
  const std::string ampm = lower(std::string(t.substr(t.size() - 2)));
  if (ampm != "am" && ampm != "pm") return false;
  std::string_view h = t.substr(0, t.size() - 2);
  while (!h.empty() && h.back() == ' ') h.remove_suffix(1);
  long long whole = 0;
  if (!clock_hours(h, hours)) {
    if (!parse_int(h, whole)) return false;
    hours = static_cast<double>(whole);
  }
  if (hours < 1 || hours >= 13) return false;
  hours = std::fmod(hours, 12.0) + (ampm == "pm" ? 12 : 0);
  return true;
}

bool parse_date(std::string_view s, double& seconds);

// Why a time is not read, when it is a clock time, a date or a sum of times: the one-unit spelling
// meant. A time is counted from the run's start (t = 0, midnight of its first day: cooling.faults[].at).
std::string time_spelling_hint(std::string_view t) {
  double hours = 0, seconds = 0;
  const UnitDef* u = nullptr;
  bool hms = false;
  // "15:00" reads two ways: 15 h as a time of day (cooling.faults[].at counts from midnight of the
  // run's first day) and 15 min as a duration written M:SS (a hold, an interval); naming only the
  // first read a 15-minute hold as 15 hours. H:MM:SS and 12-hour clocks read one way.
  if (clock_hours(t, hours, &hms) && !hms)
    return "written like a clock, H:MM or M:SS; a time here is one number and one unit: '" + format_number(hours) +
           " h' if hours:minutes (a time of day from the run's start), '" + format_number(hours) +
           " min' if minutes:seconds";
  if (hms || clock_hours_12(t, hours))
    return std::string(hms ? "written like a clock, H:MM:SS" : "a clock time") +
           "; a time here is one number and one unit, from the run's start for a time of day: did you mean '" +
           format_number(hours) + " h'?";
  if (parse_date(t, seconds)) {
    const std::string why =
        "; a time here is one number and one unit, from the run's start (t = 0, midnight of its first day), not a "
        "calendar date: ";
    if (t.size() <= 10) return "a date" + why + "the second day starts at '24 h', the third at '48 h'";
    const double tod = std::fmod(seconds, units::kDay) / units::kHour;
    return "a date and time" + why + std::string(t.substr(11, 5)) + " on the first day is '" + format_number(tod) +
           " h', on the second '" + format_number(tod + 24) + " h'";
  }
  if (sum_of_times(t, seconds, u))
    return "one number and one unit: did you mean '" + format_number(seconds / u->factor) + " " + u->symbol + "'?";
  return {};
}

// "2026-03-01", optionally followed by "T12:30[:00][Z]" or " 12:30[:00]"; UTC.
bool parse_date(std::string_view s, double& seconds) {
  using namespace std::chrono;
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return false;
  long long y, m, d, hh = 0, mm = 0, ss = 0;
  if (!parse_int(s.substr(0, 4), y) || !parse_int(s.substr(5, 2), m) || !parse_int(s.substr(8, 2), d)) return false;
  std::string_view rest = s.substr(10);
  if (!rest.empty()) {
    if (rest.back() == 'Z') rest.remove_suffix(1);
    if (rest.size() < 6 || (rest[0] != 'T' && rest[0] != ' ') || rest[3] != ':') return false;
    if (!parse_int(rest.substr(1, 2), hh) || !parse_int(rest.substr(4, 2), mm)) return false;
    if (rest.size() > 6) {
      if (rest.size() != 9 || rest[6] != ':' || !parse_int(rest.substr(7, 2), ss)) return false;
    }
    if (hh > 23 || mm > 59 || ss > 59 || hh < 0 || mm < 0 || ss < 0) return false;
  }
  const year_month_day ymd{year{static_cast<int>(y)}, month{static_cast<unsigned>(m)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || m < 1 || d < 1) return false;
  seconds = static_cast<double>(sys_days{ymd}.time_since_epoch().count()) * units::kDay + hh * units::kHour +
            mm * units::kMinute + ss;
  return true;
}

std::string format_date(double seconds) {
  using namespace std::chrono;
  const long long s = static_cast<long long>(std::floor(seconds));
  const long long days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  const long long tod = s - days * 86400;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  std::string r = buf;
  if (tod != 0) {
    std::snprintf(buf, sizeof buf, "T%02lld:%02lld:%02lldZ", tod / 3600, tod / 60 % 60, tod % 60);
    r += buf;
  }
  return r;
}

}  // namespace

bool is_numeric(Quantity q) {
  return q != Quantity::String && q != Quantity::Bool && q != Quantity::List && q != Quantity::Map;
}

std::string quantity_name(Quantity q) {
  switch (q) {
    case Quantity::Number:
      return "number";
    case Quantity::Integer:
      return "integer";
    case Quantity::Count:
      return "count";
    case Quantity::Ratio:
      return "ratio";
    case Quantity::Fraction:
      return "fraction";
    case Quantity::DataRate:
      return "data rate";
    case Quantity::DataSize:
      return "data size";
    case Quantity::Power:
      return "power";
    case Quantity::Temperature:
      return "temperature";
    case Quantity::TemperatureDelta:
      return "temperature difference";
    case Quantity::VolumeFlow:
      return "volume flow";
    case Quantity::Time:
      return "time";
    case Quantity::FlopRate:
      return "FLOP rate";
    case Quantity::ThermalResistance:
      return "thermal resistance";
    case Quantity::Energy:
      return "energy";
    case Quantity::Pressure:
      return "pressure";
    case Quantity::Length:
      return "length";
    case Quantity::Money:
      return "price";
    case Quantity::Date:
      return "date";
    case Quantity::String:
      return "string";
    case Quantity::Bool:
      return "boolean";
    case Quantity::List:
      return "list";
    case Quantity::Map:
      return "mapping";
  }
  return "value";
}

std::string quantity_expectation(Quantity q) {
  switch (q) {
    case Quantity::Number:
      return "a plain number such as 1.5";
    case Quantity::Integer:
      return "a plain integer such as 64";
    case Quantity::Count:
      return "a count such as 8064, '16M' or '15T'";
    case Quantity::Ratio:
      return "a downlink:uplink ratio >= 1 such as 2, '2:1' or '7:1'";
    case Quantity::Fraction:
      return "a fraction such as 0.85 or '85 %'";
    case Quantity::DataRate:
      return "a data rate such as '400 Gbps' or '50 GB/s'";
    case Quantity::DataSize:
      return "a data size such as '80 GB' or '512 MiB'";
    case Quantity::Power:
      return "a power such as '700 W' or '1.2 kW'";
    case Quantity::Temperature:
      return "a temperature such as '25 degC' or '298.15 K'";
    case Quantity::TemperatureDelta:
      return "a temperature difference such as '15 K' or '15 delta_degC'";
    case Quantity::VolumeFlow:
      return "a volume flow such as '1 L/min' or '100 m3/h'";
    case Quantity::Time:
      return "a time such as '600 ns', '5 min' or '54 d'";
    case Quantity::FlopRate:
      return "a FLOP rate such as '989 TFLOP/s' or '2.5 PFLOPS'";
    case Quantity::ThermalResistance:
      return "a thermal resistance such as '0.02 K/W'";
    case Quantity::Energy:
      return "an energy such as '1 kWh' or '3.6 MJ'";
    case Quantity::Pressure:
      return "a pressure such as '200 kPa', '2 bar' or '30 psi'";
    case Quantity::Length:
      return "a length such as '3 m', '50 cm' or '10 ft'";
    case Quantity::Money:
      return "a price in US dollars such as '36000 USD' or '1.2 kUSD'";
    case Quantity::Date:
      return "a date such as 2026-03-01";
    case Quantity::String:
      return "a string";
    case Quantity::Bool:
      return "true or false";
    case Quantity::List:
      return "a list of mappings";
    case Quantity::Map:
      return "a mapping of keys";
  }
  return "a value";
}

std::string unit_syntax(Quantity q) {
  const std::string dec = "a prefix k, M, G, T, P (powers of 1000) or Ki, Mi, Gi, Ti, Pi (powers of 1024)";
  switch (q) {
    case Quantity::Number:
      return "plain number: `1.5`, `-3`, `2e-3`";
    case Quantity::Integer:
      return "plain integer: `64`, `-8` (no fraction, no exponent, no unit)";
    case Quantity::Count:
      return "number with optional suffix K (1e3), M (1e6), B (1e9), T (1e12): `8064`, `4K`, `16M`, `2.5B`, `15T`, "
             "`1e6`";
    case Quantity::Ratio:
      return "number or `a:b` = a/b, downlink:uplink, a >= b: `7:1` = 7, `1:1` = 1 (`1:7` is an error)";
    case Quantity::Fraction:
      return "number in [0, 1] or percentage: `0.85`, `85 %`, `85%`";
    case Quantity::DataRate:
      return "bits: `bps`, `b/s`, `bit/s`; bytes: `Bps`, `B/s`, `byte/s`; with " + dec +
             ": `400 Gbps`, `400 Gb/s`, `50 GB/s`, `1.8 TB/s`";
    case Quantity::DataSize:
      return "bytes: `B`, `byte`; bits: `b`, `bit`; with " + dec + ": `80 GB`, `80 GiB`, `512 MiB`, `1.5 TB`";
    case Quantity::Power:
      return "`mW`, `W`, `kW`, `MW`, `GW`: `700 W`, `1.2 kW`, `230 MW`";
    case Quantity::Temperature:
      return "`K`, `degC` (`°C`, `C`), `degF` (`°F`, `F`): `25 degC`, `298.15 K`, `77 degF`";
    case Quantity::TemperatureDelta:
      return "`K`, `mK`, `delta_degC` (`degC`, `°C`, `C`), `delta_degF` (`degF`, `°F`, `F`; 1 degF = 5/9 K): `15 K`, "
             "`15 delta_degC`";
    case Quantity::VolumeFlow:
      return "`L/min` (`l/min`, `LPM`), `mL/min`, `L/s`, `L/h`, `m3/s`, `m3/min`, `m3/h` (`m^3/h`, `m³/h`), `gpm` (US "
             "gallon), `cfm`: `1 L/min`, `100 m3/h`, `26 gpm`";
    case Quantity::Time:
      return "`ps`, `ns`, `us` (`µs`), `ms`, `s`, `min`, `h`, `d` (`day`, `days`), `w` (`week`), `yr` (Julian year, "
             "365.25 d): `600 ns`, `5 min`, `54 d`";
    case Quantity::FlopRate:
      return "`FLOP/s` (`FLOPS`, `flop/s`) with a prefix k, M, G, T, P, E: `989 TFLOP/s`, `2.5 PFLOPS`";
    case Quantity::ThermalResistance:
      return "`K/W` (`degC/W`, `°C/W`), `mK/W`, `K/kW`: `0.02 K/W`";
    case Quantity::Energy:
      return "`J`, `kJ`, `MJ`, `GJ`, `TJ`, `PJ`, `Wh`, `kWh`, `MWh`, `GWh`, `TWh`: `1 kWh`, `3.6 MJ`";
    case Quantity::Pressure:
      return "`Pa`, `hPa`, `kPa`, `MPa`, `mbar`, `bar`, `psi`, `atm`: `200 kPa`, `2 bar`, `30 psi`";
    case Quantity::Length:
      return "`mm`, `cm`, `m`, `km`, `ft`: `3 m`, `50 cm`, `10 ft`";
    case Quantity::Money:
      return "`USD`, `kUSD`, `MUSD` (US dollars, no conversion): `36000 USD`, `1.2 kUSD`";
    case Quantity::Date:
      return "ISO 8601 date, UTC: `2026-03-01`, or `2026-03-01T12:00Z`";
    case Quantity::String:
      return "text";
    case Quantity::Bool:
      return "`true` / `false` (also `yes`/`no`, `on`/`off`)";
    case Quantity::List:
      return "a YAML sequence of mappings (`- key: value` items)";
    case Quantity::Map:
      return "a YAML mapping grouping the keys below it";
  }
  return {};
}

// Long by nature: one case per kind of quantity (dimensionless, ratio, date, bool, ... then the
// dimensioned ones through the unit table), each with its own error text.
double parse_quantity(Quantity q, std::string_view text, std::string_view key, DisplayUnit* used) {
  const std::string_view t = trim(text);
  if (used) *used = DisplayUnit{};
  if (t.empty()) fail(q, key, text, "");
  double v = 0;
  std::string_view rest;
  switch (q) {
    case Quantity::String:
    case Quantity::Bool:
    case Quantity::List:
    case Quantity::Map:
      throw Error("parse_quantity: " + quantity_name(q) + " is not a numeric quantity");

    case Quantity::Date:
      if (!parse_date(t, v)) fail(q, key, text, "year-month-day, a real calendar date");
      return v;

    case Quantity::Integer: {
      long long i = 0;
      if (parse_int(t, i)) {
        if (std::llabs(i) > (1LL << 53)) fail(q, key, text, "too large");
        return static_cast<double>(i);
      }
      if (!lex_number(t, v, rest)) fail(q, key, text, "not a number");
      if (!rest.empty()) fail(q, key, text, "no unit or suffix allowed");
      if (t.find_first_of(".eE") == std::string_view::npos) fail(q, key, text, "too large");
      fail(q, key, text, "got a number with a fraction or exponent");
    }

    case Quantity::Number:
      if (!lex_number(t, v, rest)) fail(q, key, text, "not a number");
      if (!rest.empty()) fail(q, key, text, "no unit allowed");
      return v;

    case Quantity::Count: {
      // A count of things (tokens, parameters, sequences, components) is a whole number: a count
      // range from 0 let '1e-320' or '0.5' components through, changing the model silently (case
      // input/01's kind: a denormal passing a range check). "1.1K" (1100.0000000000002) is whole
      // within rounding and kept as read: the same input gives the same numbers as before.
      const auto whole = [&](double x) {
        if (std::isfinite(x) && std::fabs(x - std::nearbyint(x)) > 1e-9 * std::fabs(x))
          fail(q, key, text, "not a whole number");
        return x;
      };
      if (!lex_number(t, v, rest)) fail(q, key, text, "not a number");
      if (rest.empty()) return whole(v);
      static const std::vector<std::pair<std::string_view, double>> suffix = {
          {"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}};
      for (const auto& [s, f] : suffix)
        if (rest == s) {
          if (!std::isfinite(v * f)) fail(q, key, text, "too large");  // "1e300T" overflows
          return whole(v * f);
        }
      if (const UnitDef* other = find_any_unit(rest))
        fail(q, key, text, "got " + with_article(quantity_name(other->dim)));
      fail(q, key, text, "unknown suffix '" + std::string(rest) + "'; use K, M, B or T");
    }

    case Quantity::Ratio: {
      if (const auto colon = t.find(':'); colon != std::string_view::npos) {
        double a = 0, b = 0;
        std::string_view ra, rb;
        if (!lex_number(trim(t.substr(0, colon)), a, ra) || !ra.empty() ||
            !lex_number(trim(t.substr(colon + 1)), b, rb) || !rb.empty())
          fail(q, key, text, "'a:b' needs two plain numbers");
        if (a <= 0 || b <= 0) fail(q, key, text, "both sides of 'a:b' must be positive");
        // Oversubscription is downlink:uplink capacity ("7:1" = 7). A smaller first side would be
        // undersubscription, which no tier is built as; reading "1:2" as 2 would hide a slip.
        if (a < b)
          throw InvalidParameter(std::string(key), std::string(text),
                                 "a downlink:uplink ratio >= 1, e.g. 3:1 (got downlink < uplink)");
        if (!std::isfinite(a / b)) fail(q, key, text, "too large");  // "1e308:1e-308"
        return a / b;
      }
      if (!lex_number(t, v, rest)) fail(q, key, text, "not a number");
      if (!rest.empty()) fail(q, key, text, "no unit allowed");
      return v;
    }

    case Quantity::Fraction: {
      if (!lex_number(t, v, rest)) fail(q, key, text, "not a number");
      if (rest == "%") {
        v /= 100.0;
        if (used) *used = DisplayUnit{"%", 0.01, 0.0};
      } else if (!rest.empty()) {
        fail(q, key, text, wrong_unit_detail(q, rest));
      }
      if (v < 0 || v > 1) {
        std::string d = "outside [0, 1]";
        if (rest.empty() && v > 1 && v <= 100) d += "; write '" + format_number(v) + " %' for a percentage";
        fail(q, key, text, d);
      }
      return v;
    }

    default:
      break;  // dimensioned quantities below
  }
  if (!lex_number(t, v, rest)) fail(q, key, text, "not a number followed by a unit");
  if (rest.empty()) fail(q, key, text, "got a plain number without a unit");
  const UnitDef* u = find_unit(q, rest);
  if (!u && q == Quantity::Time)
    if (std::string hint = time_spelling_hint(t); !hint.empty()) fail(q, key, text, hint);
  if (!u) fail(q, key, text, wrong_unit_detail(q, rest));
  const double si = v * u->factor + u->offset;
  // A finite number times its unit can overflow ("1e308 EFLOP/s"): found by tests/fuzz/fuzz_units.
  if (!std::isfinite(si)) fail(q, key, text, "too large once converted to SI units");
  if (q == Quantity::Temperature && si < 0) fail(q, key, text, "below absolute zero");
  if (used) *used = DisplayUnit{u->symbol, u->factor, u->offset};
  return si;
}

bool is_plain_number(std::string_view text) {
  double v = 0;
  std::string_view rest;
  return lex_number(trim(text), v, rest) && rest.empty();
}

bool parse_bool(std::string_view text, std::string_view key) {
  const std::string_view t = trim(text);
  for (const char* s : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
    if (t == s) return true;
  for (const char* s : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
    if (t == s) return false;
  throw InvalidParameter(std::string(key), std::string(text), "true or false");
}

DisplayUnit display_unit(Quantity q, std::string_view example) {
  if (!example.empty() && is_numeric(q)) {
    try {
      DisplayUnit u;
      parse_quantity(q, example, {}, &u);
      if (!u.symbol.empty()) return u;
    } catch (const Error&) {
    }
  }
  auto canonical = [q](const char* sym) {
    const UnitDef* u = find_unit(q, sym);
    return u ? DisplayUnit{u->symbol, u->factor, u->offset} : DisplayUnit{};
  };
  switch (q) {
    case Quantity::DataRate:
      return canonical("Gbps");
    case Quantity::DataSize:
      return canonical("GB");
    case Quantity::Power:
      return canonical("W");
    case Quantity::Temperature:
      return canonical("degC");
    case Quantity::TemperatureDelta:
      return canonical("K");
    case Quantity::VolumeFlow:
      return canonical("L/min");
    case Quantity::Time:
      return canonical("s");
    case Quantity::FlopRate:
      return canonical("TFLOP/s");
    case Quantity::ThermalResistance:
      return canonical("K/W");
    case Quantity::Energy:
      return canonical("kWh");
    case Quantity::Pressure:
      return canonical("kPa");
    case Quantity::Length:  // without these, a length's range read "from 0.1 to 10", no unit
      return canonical("m");
    case Quantity::Money:
      return canonical("USD");
    default:
      return DisplayUnit{};
  }
}

std::string format_number(double x) {
  if (x == 0) return "0";
  char buf[64];
  if (std::floor(x) == x && std::fabs(x) <= 0x1p53) {  // exact integers in full (seeds, GPU counts)
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.6g", x);
  const double r = std::strtod(buf, nullptr);  // rounded to 6 significant digits
  if (std::fabs(r) < 1e15 && std::floor(r) == r) {
    std::snprintf(buf, sizeof buf, "%.0f", r);
    return buf;
  }
  return buf;
}

std::string format_quantity(Quantity q, double si, const DisplayUnit& unit, bool autoscale) {
  if (q == Quantity::Date) return format_date(si);
  if (unit.symbol.empty()) return format_number(si);
  DisplayUnit u = unit;
  if (autoscale && u.offset == 0 && si != 0) {
    if (const UnitDef* def = find_unit(q, unit.symbol)) {
      // The largest unit not above the value in which the value is shown exactly: 1e12 s is
      // "1000000000000 s", not "11574100 d" (11574074.07 d rounded, above the bound it states;
      // a range's bound must read back as itself). Without an exact one, the largest unit.
      auto exact = [&](const UnitDef& c) {
        const double back = std::strtod(format_number(si / c.factor).c_str(), nullptr) * c.factor;
        return std::fabs(back - si) <= 1e-9 * std::fabs(si);
      };
      const UnitDef* best = nullptr;
      const UnitDef* best_exact = nullptr;
      const UnitDef* smallest = nullptr;
      for (const auto& c : table()) {
        if (c.dim != q || c.family != def->family || !c.nice) continue;
        if (!smallest || c.factor < smallest->factor) smallest = &c;
        if (c.factor > std::fabs(si) * (1 + 1e-12)) continue;
        if (!best || c.factor > best->factor) best = &c;
        if (exact(c) && (!best_exact || c.factor > best_exact->factor)) best_exact = &c;
      }
      if (best_exact) best = best_exact;
      if (!best) best = smallest;
      if (best) u = DisplayUnit{best->symbol, best->factor, best->offset};
    }
  }
  return format_number((si - u.offset) / u.factor) + " " + u.symbol;
}

std::string format_bound(Quantity q, double si, const DisplayUnit& unit, const DisplayUnit& reference) {
  const std::string shown = format_quantity(q, si, unit);
  if (q == Quantity::Date || unit.symbol.empty()) return shown;
  const double x = std::strtod(shown.c_str(), nullptr);
  const bool exact = std::fabs(x * unit.factor + unit.offset - si) <= 1e-9 * std::fabs(si);
  const bool awkward = x != 0 && (std::fabs(x) >= 1e6 || std::fabs(x) < 1e-3);
  if (exact && !awkward) return shown;
  const std::string ref = format_quantity(q, si, reference, /*autoscale=*/true);
  if (ref == shown) return shown;
  return (exact ? "" : "~") + shown + " (" + ref + ")";
}

std::string range_phrase(const Field& f, const DisplayUnit& unit, bool autoscale) {
  auto show = [&](double si) {
    return autoscale ? format_quantity(f.quantity, si, unit, true)
                     : format_bound(f.quantity, si, unit, display_unit(f.quantity, f.default_value));
  };
  const bool before = f.quantity == Quantity::Date;
  if (f.min && f.max) {
    if (f.min_exclusive) return (before ? "after " : "greater than ") + show(*f.min) + " and at most " + show(*f.max);
    return "from " + show(*f.min) + " to " + show(*f.max);
  }
  if (f.min)
    return (f.min_exclusive ? (before ? "after " : "greater than ") : (before ? "on or after " : "at least ")) +
           show(*f.min);
  if (f.max) return (before ? "on or before " : "at most ") + show(*f.max);
  return {};
}

std::string choice_range_phrase(const Field& f, const QuantityChoice& k) {
  Field g = f;
  g.quantity = k.quantity;
  g.min = k.min;
  g.max = k.max;
  g.min_exclusive = false;
  const DisplayUnit u = k.plain_unit.empty() ? DisplayUnit{} : display_unit(k.quantity, "1 " + k.plain_unit);
  return range_phrase(g, u, /*autoscale=*/true);
}

bool same_range(const QuantityChoice& a, const QuantityChoice& b) {
  return a.quantity == b.quantity && a.min == b.min && a.max == b.max && a.plain_unit == b.plain_unit;
}

}  // namespace aidcsim
