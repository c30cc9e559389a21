#include "sim/scenario/reference.hpp"

#include <algorithm>

#include "sim/scenario/schema_registry.hpp"
#include "sim/scenario/unit_parser.hpp"

namespace aidcsim {
namespace {

std::string si_unit(Quantity q) {
  switch (q) {
    case Quantity::DataRate:
      return "B/s";
    case Quantity::DataSize:
      return "B";
    case Quantity::Power:
      return "W";
    case Quantity::Temperature:
      return "K";
    case Quantity::TemperatureDelta:
      return "K";
    case Quantity::VolumeFlow:
      return "m³/s";
    case Quantity::Time:
      return "s";
    case Quantity::FlopRate:
      return "FLOP/s";
    case Quantity::ThermalResistance:
      return "K/W";
    case Quantity::Energy:
      return "J";
    case Quantity::Pressure:
      return "Pa";
    case Quantity::Length:
      return "m";
    case Quantity::Money:
      return "USD";
    case Quantity::Date:
      return "s since 1970-01-01 UTC";
    case Quantity::Fraction:
      return "number in [0, 1]";
    case Quantity::Bool:
      return "true / false";
    case Quantity::String:
      return "string";
    case Quantity::List:
      return "list of items";
    case Quantity::Map:
      return "-";
    default:
      return "number";
  }
}

std::string cell(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '|')
      r += "\\|";
    else if (c == '\n')
      r += ' ';
    else
      r += c;
  }
  return r;
}

std::string section_of(const std::string& key) {
  const auto end = key.find_first_of(".[");
  return end == std::string::npos ? key : key.substr(0, end);
}

std::string kind_of(const Field& f) {
  if (!f.quantity_by.empty()) {  // "temperature, volume flow or power (by `type`)"
    std::vector<std::string> kinds;
    for (const auto& k : f.quantity_by)
      if (k.quantity != Quantity::String &&  // a String kind takes no value (schema.hpp)
          std::find(kinds.begin(), kinds.end(), quantity_name(k.quantity)) == kinds.end())
        kinds.push_back(quantity_name(k.quantity));
    std::string s;
    for (std::size_t i = 0; i < kinds.size(); ++i)
      s += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i];
    return s + " (by `" + f.quantity_from + "`)";
  }
  if (f.quantity == Quantity::String && !f.choices.empty()) return "choice";
  return quantity_name(f.quantity);
}

std::string allowed_of(const Field& f) {
  if (!f.quantity_by.empty()) {  // "`temperature`: from -50 degC to 150 degC; ..." (aliases once)
    std::string s, none;
    for (std::size_t i = 0; i < f.quantity_by.size(); ++i) {
      const QuantityChoice& k = f.quantity_by[i];
      if (k.quantity == Quantity::String) {  // takes no value (schema.hpp)
        none += (none.empty() ? "`" : ", `") + k.value + "`";
        continue;
      }
      const bool alias = std::any_of(f.quantity_by.begin(), f.quantity_by.begin() + i,
                                     [&](const QuantityChoice& e) { return same_range(e, k); });
      if (alias) continue;
      s += (s.empty() ? "`" : "; `") + k.value + "`: " + choice_range_phrase(f, k);
    }
    return none.empty() ? s : s + "; " + none + ": none (writing one is an error)";
  }
  if (!f.choices.empty()) {
    std::string s;
    for (std::size_t i = 0; i < f.choices.size(); ++i) s += (i ? ", `" : "`") + f.choices[i] + "`";
    return s;
  }
  if (!is_numeric(f.quantity)) return "";
  DisplayUnit u = display_unit(f.quantity, f.default_value);
  if (f.quantity == Quantity::Fraction) u = DisplayUnit{};
  return range_phrase(f, u, /*autoscale=*/true);
}

std::string default_of(const Field& f) {
  if (f.quantity == Quantity::Map) return "";
  if (!f.default_value.empty()) return "`" + f.default_value + "`";
  return f.required ? "**required**" : "(none)";
}

void row(std::string& out, const Field& f) {
  out += "| `" + f.key + "` | " + kind_of(f) + " | " + cell(default_of(f)) + " | " + cell(allowed_of(f)) + " | " +
         cell(f.doc) + " |\n";
}

}  // namespace

std::string scenario_reference_markdown() {
  const Schema schema = full_schema();
  std::string out;
  out +=
      "# Scenario reference\n\n"
      "<!-- Generated from the schemas in models/*/*_schema.cpp and sim/scenario/schema_registry.cpp by\n"
      "     scenario_reference_markdown() (sim/scenario/reference.cpp). Do not edit by hand; regenerate with\n"
      "     AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario \"[reference]\" -->\n\n"
      "A scenario is one YAML file (see `scenarios/stargate-uk-8k.yaml`). This page lists every key the\n"
      "loader accepts. Any other key is an error, reported as `file:line:column: key: ...` with a\n"
      "\"did you mean\" suggestion when a key of the same section is close or the same name is a key\n"
      "elsewhere (none otherwise); so are values with a missing or wrong unit, values out of range and\n"
      "strings that are not one of the choices. Keys not written take the default shown; keys marked\n"
      "**required** must be written.\n\n"
      "## Writing values\n\n"
      "Quantities carry their unit, with or without a space: `\"400 Gbps\"`, `\"700 W\"`, `\"25 degC\"`,\n"
      "`\"1 L/min\"`. A bare number for a quantity that has a dimension is an error (`400` for a data rate),\n"
      "and so is a unit of the wrong dimension (`\"400 GB\"` for a data rate is a data size). Values are\n"
      "converted to SI when loaded; the last column below gives the SI unit the models see.\n\n"
      "- Bits and bytes are never ambiguous: `b`, `bit`, `bps` are bits; `B`, `byte`, `Bps` are bytes\n"
      "  (`400 Gbps` = `50 GB/s`).\n"
      "- Decimal prefixes are SI: k (also K) = 10^3, M = 10^6, G = 10^9, T = 10^12, P = 10^15; binary\n"
      "  prefixes are IEC: Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40 (`80 GiB` = 85.9e9 B).\n"
      "- Absolute temperatures in `degC`/`degF` are offset (`25 degC` = 298.15 K); temperature\n"
      "  differences are not (`15 degC` as a ΔT = 15 K).\n"
      "- Ratios such as oversubscription are downlink:uplink capacity, the larger side first:\n"
      "  `\"7:1\"` means 7; `\"1:7\"` (below 1) is an error. Quote them: unquoted `1:1` is still accepted\n"
      "  but YAML 1.1 tools may read it as a sexagesimal number.\n"
      "- Integers are plain (`64`; `3.5`, `1e3` and `64 ports` are errors). Counts take a suffix:\n"
      "  `16M` = 16e6, `15T` = 15e12.\n\n"
      "| Kind | Syntax | Stored as |\n|---|---|---|\n";
  for (Quantity q : {Quantity::Integer,     Quantity::Number,
                     Quantity::Count,       Quantity::Ratio,
                     Quantity::Fraction,    Quantity::DataRate,
                     Quantity::DataSize,    Quantity::Power,
                     Quantity::Temperature, Quantity::TemperatureDelta,
                     Quantity::VolumeFlow,  Quantity::Time,
                     Quantity::FlopRate,    Quantity::ThermalResistance,
                     Quantity::Energy,      Quantity::Pressure,
                     Quantity::Length,      Quantity::Money,
                     Quantity::Date,        Quantity::Bool,
                     Quantity::String,      Quantity::List})
    out += "| " + quantity_name(q) + " | " + cell(unit_syntax(q)) + " | " + si_unit(q) + " |\n";
  out += "| choice | one of the listed strings, case-sensitive | string |\n";

  // Sections in order of first appearance; the top-level scalars first.
  std::vector<std::string> sections;
  for (const Field& f : schema) {
    const std::string s = section_of(f.key);
    const bool scalar_top = s == f.key && f.quantity != Quantity::Map && f.quantity != Quantity::List;
    const std::string name = scalar_top ? "" : s;
    if (std::find(sections.begin(), sections.end(), name) == sections.end()) sections.push_back(name);
  }
  const std::string header = "| Key | Kind | Default | Allowed | Description |\n|---|---|---|---|---|\n";
  for (const std::string& sec : sections) {
    if (sec.empty()) {
      out += "\n## Top level\n\n" + header;
      for (const Field& f : schema)
        if (section_of(f.key) == f.key && f.quantity != Quantity::Map && f.quantity != Quantity::List) row(out, f);
      continue;
    }
    out += "\n## `" + sec + "`\n\n";
    if (const Field* top = find_field(schema, sec); top && !top->doc.empty()) out += top->doc + "\n\n";
    out += header;
    for (const Field& f : schema)
      if (section_of(f.key) == sec && f.key != sec)
        row(out, f);
      else if (f.key == sec && f.quantity == Quantity::List)
        row(out, f);
  }
  return out;
}

}  // namespace aidcsim
