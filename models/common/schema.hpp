#pragma once
// Declarative description of scenario keys. Each model area publishes the fields it reads
// (models/<area>/schema.hpp: `Schema schema()`); sim/scenario validates a YAML file against the
// union of them (unknown keys, units, ranges, choices) and generates docs/scenario-reference.md
// from the same table, so the reference page and the validator cannot drift apart.
#include <optional>
#include <string>
#include <vector>

namespace aidcsim {

/// What a value is and which unit syntax it takes. Values are stored in SI after parsing:
/// DataRate -> byte/s (B/s), DataSize -> byte, Power -> W, Temperature -> K,
/// TemperatureDelta -> K, VolumeFlow -> m^3/s, Time -> s, FlopRate -> FLOP/s,
/// ThermalResistance -> K/W, Energy -> J, Pressure -> Pa, Count -> plain number (suffix K/M/B/T
/// allowed: "16M" = 16e6), Ratio -> plain number (also "7:1" = 7 as downlink:uplink oversubscription; "1:7" is an error),
/// Fraction -> number in [0,1] (also "40 %"), Date -> seconds since 1970-01-01 UTC ("2026-03-01"),
/// Length -> m, Money -> USD (prices: "36000 USD", "1.2 kUSD", "3.5 MUSD").
enum class Quantity {
  Number,
  Integer,
  Count,
  Ratio,
  Fraction,
  DataRate,
  DataSize,
  Power,
  Temperature,
  TemperatureDelta,
  VolumeFlow,
  Time,
  FlopRate,
  ThermalResistance,
  Energy,
  Pressure,
  Date,
  Length,
  Money,
  String,
  Bool,
  List,  ///< a YAML sequence of mappings; its item fields are keyed "<key>[].<field>"
  Map    ///< a YAML mapping that only groups other fields (documented, holds no value)
};

/// One kind a key whose quantity follows a sibling key may take (Field::quantity_by). Quantity::String
/// marks a sibling value for which the key takes no value: the loader keeps the text and the model
/// that reads the key rejects it with its reason (cooling.faults[].magnitude of a cdu_loss); the
/// reference and `aidcsim schema` show "none".
struct QuantityChoice {
  std::string value;          ///< the sibling's value selecting it ("temperature")
  Quantity quantity;          ///< what the key then is (Temperature)
  std::string plain_unit;     ///< the unit a plain number is read in ("degC"); empty: the quantity's own rule
  std::optional<double> min;  ///< inclusive bounds of this kind, SI (Field::min/max do not apply)
  std::optional<double> max;
};

/// One scenario key.
struct Field {
  std::string key;  ///< dotted path; list items as "rollout.phases[].gpus"
  Quantity quantity = Quantity::Number;
  std::string default_value;         ///< in scenario syntax ("1 L/min"); empty: no default
  bool required = false;             ///< must be given (ignored when default_value is set)
  std::optional<double> min;         ///< inclusive lower bound, SI
  std::optional<double> max;         ///< inclusive upper bound, SI
  bool min_exclusive = false;        ///< lower bound is exclusive (e.g. effectiveness in (0, 1])
  std::vector<std::string> choices;  ///< allowed values of a String field
  std::string doc;                   ///< meaning, and the source of the default (paper/table, datasheet)
  /// A numeric key whose kind follows a sibling's value (a monitoring sensor's threshold is a
  /// temperature, a flow or a power by its `type`): the sibling's name, and the kind per value. The
  /// loader parses the value as that kind (a mismatched unit is an error naming the kind expected),
  /// a plain number in its `plain_unit`, and checks the kind's own bounds (Field::min/max do not
  /// apply: the kinds differ). Such a key has no default_value (its kind is known only where its
  /// sibling is). Empty: `quantity` applies.
  std::string quantity_from = {};
  std::vector<QuantityChoice> quantity_by = {};
  /// Where min/max come from when they bound what is plausible rather than what is possible (a
  /// datasheet's operating range): said with a range error, after the range. Empty: none.
  std::string range_source = {};
};

using Schema = std::vector<Field>;

}  // namespace aidcsim
