#pragma once
// Unit-carrying scenario scalars -> SI numbers. One parser for every Quantity of
// models/common/schema.hpp, strict about dimensions: "400" for a data rate (no unit) and "400 GB"
// for a data rate (a data size) are errors that say what was expected and what was given.
//
// Conventions (documented on the reference page, docs/scenario-reference.md):
// - Decimal prefixes are SI (k = K = 1e3, M = 1e6, G = 1e9, T = 1e12, P = 1e15); binary prefixes
//   are IEC (Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40).
// - "b", "bit", "bps" are bits; "B", "byte", "Bps" are bytes (8 bits). Data rates are stored in B/s.
// - Temperatures are stored in K; degC/degF are converted with their offsets for absolute
//   temperatures and as pure scale factors for temperature differences.
// - Gallons are US gallons (3.785411784 L, NIST HB 44 App. C); psi = 6894.757293168 Pa (NIST SP 811);
//   a year is the Julian year (365.25 d, IAU).
#include <string>
#include <string_view>
#include <vector>

#include "models/common/schema.hpp"

namespace aidcsim {

/// A unit a value can be shown or written in: SI = value * factor + offset.
struct DisplayUnit {
  std::string symbol;   ///< as written, e.g. "Gbps", "degC"; empty for plain numbers
  double factor = 1.0;  ///< SI per unit
  double offset = 0.0;  ///< SI offset (absolute temperatures only)
};

/// True for the quantities parse_quantity() handles (every Quantity except String, Bool, List, Map).
bool is_numeric(Quantity q);

/// Parses one YAML scalar as quantity `q` and returns its SI value (see Quantity for the SI unit
/// of each kind). `used`, when given, receives the unit the value was written in (for messages
/// that echo the user's unit). Throws InvalidParameter(key, text, expected), e.g. expected =
/// "a data rate such as '400 Gbps' or '50 GB/s' (got a data size)". Fraction values are checked
/// to lie in [0, 1]; other ranges are the caller's (schema min/max).
double parse_quantity(Quantity q, std::string_view text, std::string_view key = {}, DisplayUnit* used = nullptr);

/// True when `text` is a plain number without a unit or suffix ("45", "-5.5", "1e3").
bool is_plain_number(std::string_view text);

/// YAML booleans: true/false, yes/no, on/off (any of lower, Capitalised or UPPER case).
/// Throws InvalidParameter(key, text, "true or false").
bool parse_bool(std::string_view text, std::string_view key = {});

/// Short name of a quantity kind: "data rate", "temperature difference", ...
std::string quantity_name(Quantity q);
/// What a value of kind `q` looks like: "a data rate such as '400 Gbps' or '50 GB/s'".
std::string quantity_expectation(Quantity q);
/// The accepted spellings of `q` in words (for the reference page): "`bps`, `b/s`, `bit/s` (bits)
/// or `Bps`, `B/s`, `byte/s` (bytes), with a prefix k, M, G, T, P or Ki, Mi, Gi, Ti".
std::string unit_syntax(Quantity q);

/// The unit `example` was written in (e.g. the schema default "1 L/min"), or the canonical display
/// unit of `q` when `example` is empty or unitless.
DisplayUnit display_unit(Quantity q, std::string_view example = {});
/// `si` shown in `unit`: "60 L/min", "25 degC", "2026-03-01" (Date), "8064" (unitless).
/// With `autoscale`, picks the prefix of the same family that gives a value >= 1 ("1 ms" rather
/// than "1000000 ns").
std::string format_quantity(Quantity q, double si, const DisplayUnit& unit, bool autoscale = false);
/// Compact number: exact integers up to 2^53 in full, otherwise 6 significant digits (shown in
/// full when that rounds to an integer below 1e15): 10000000, 60, 0.125, 1e+18.
std::string format_number(double x);

/// A range bound `si` in exactly `unit` (no other prefix: a bound for a value written in min is in
/// min), 6 significant digits. Where those do not read back as the bound (1e-9 relative) it is
/// marked "~", and where they do not or the number is below 1e-3 or from 1e6 on, the bound follows
/// in `reference`, autoscaled (exact): "0.05 L/min", "~0.000833333 L/s (0.05 L/min)",
/// "3600000 ms (1 h)". Unitless and Date values as format_quantity.
std::string format_bound(Quantity q, double si, const DisplayUnit& unit, const DisplayUnit& reference);

/// Human phrase for a schema range in `unit`: "from 1 to 64", "greater than 0 L/min and at most
/// 60 L/min", "at least 0 K"; empty when there is no bound. With `autoscale`, each bound in the
/// prefix of `unit`'s family that suits it (format_quantity; for the reference page); without, in
/// `unit` itself (format_bound, the reference unit the field's default's; for an error on a value
/// written in `unit`).
std::string range_phrase(const Field& f, const DisplayUnit& unit, bool autoscale = false);

/// range_phrase of one kind `k` of a sibling-chosen key `f` (Field::quantity_by), in the unit a
/// plain number of that kind is read in: "from -50 degC to 150 degC".
std::string choice_range_phrase(const Field& f, const QuantityChoice& k);
/// Two kinds of a sibling-chosen key that read alike (same quantity, bounds and plain unit):
/// aliases ("flow_rate", "flow"), listed together.
bool same_range(const QuantityChoice& a, const QuantityChoice& b);

}  // namespace aidcsim
