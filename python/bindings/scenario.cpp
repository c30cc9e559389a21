// Scenario loading for Python: the C++ loader is the only validator, so Python errors and CLI
// errors are identical. A loaded Scenario is returned as plain data (its SI params), not as an
// object: Python keeps the editable YAML side (python/aidcsim/scenario.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/bindings/bindings.hpp"
#include "python/bindings/convert.hpp"
#include "sim/engine/validation.hpp"
#include "sim/scenario/default_scenario.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {
namespace {

py::object value_to_py(const Params::Value& v);

/// Params -> {relative dotted key: SI value}; list values become lists of such dicts.
py::dict params_to_py(const Params& p) {
  py::dict d;
  for (const auto& [key, value] : p.values()) d[py::str(key)] = value_to_py(value);
  return d;
}

py::object value_to_py(const Params::Value& v) {
  if (auto x = std::get_if<double>(&v)) return py::float_(*x);
  if (auto s = std::get_if<std::string>(&v)) return py::str(*s);
  if (auto b = std::get_if<bool>(&v)) return py::bool_(*b);
  py::list out;
  for (const auto& item : std::get<Params::List>(v)) out.append(params_to_py(item));
  return out;
}

py::dict scenario_to_py(const Scenario& s) {
  py::dict d;
  d["name"] = s.name;
  d["description"] = s.description;
  d["file"] = s.file;
  d["seed"] = s.seed;
  d["params"] = params_to_py(s.params);
  py::dict loc;
  for (const auto& [key, where] : s.locations) loc[py::str(key)] = py::make_tuple(where.line, where.column);
  d["locations"] = loc;
  return d;
}

}  // namespace

void register_scenario(py::module_& m) {
  m.def(
      "load_text",
      [](const std::string& text, const std::string& name) { return scenario_to_py(load_scenario_text(text, name)); },
      py::arg("text"), py::arg("name") = "<string>",
      "Validates scenario YAML text with the C++ loader (sim/scenario). Returns a dict: name, "
      "description, file, seed, params {dotted key: SI value (float/str/bool/list of dicts)}, "
      "locations {dotted key: (line, column)}. Raises aidcsim.ScenarioError.");
  m.def(
      "validate_text",
      [](const std::string& text, const std::string& name, bool bom) {
        const Scenario s = load_scenario_text(text, name);
        const ValidationReport report = validate_scenario(s, bom);  // what `aidcsim validate` checks
        py::dict d = scenario_to_py(s);
        d["warnings"] = report.warnings;
        d["notes"] = report.notes;
        if (report.bom) d["bom"] = bom_to_py(*report.bom);
        return d;
      },
      py::arg("text"), py::arg("name") = "<string>", py::arg("bom") = false,
      "load_text and then every check `aidcsim validate` makes (sim/engine/validation.hpp: each situation's "
      "job, fabric, failures, DP algorithm, cooling, the Monte Carlo's size with a lower bound of the step "
      "time), without simulating. Returns load_text's dict plus warnings (fabric built otherwise than "
      "written) and notes (list of str); with bom=True also bom, the scenario's fabric's bill of materials "
      "(Fabric.bom()'s dict; from the fabric the checks built when it is that one). Raises "
      "aidcsim.ScenarioError at the key's line.");
  m.def(
      "load_file", [](const std::string& path) { return scenario_to_py(load_scenario_file(path)); }, py::arg("path"),
      "Same as load_text for a file; aidcsim.Error if it cannot be read.");
  m.def(
      "limits",
      [] {
        py::dict d;
        d["MAX_SCENARIO_BYTES"] = kMaxScenarioBytes;
        d["MAX_NESTING_DEPTH"] = kMaxNestingDepth;
        d["MAX_NODES"] = kMaxNodes;
        d["MAX_LIST_ITEMS"] = kMaxListItems;
        d["MAX_SEED"] = kMaxSeed;
        return d;
      },
      "The C++ readers' bounds (sim/scenario/input_limits.hpp), as aidcsim.limits names them.");
  m.def(
      "default_scenario",
      [] { return py::make_tuple(std::string(default_scenario_text()), std::string(default_scenario_name())); },
      "(YAML text, name) of the built-in default scenario (scenarios/stargate-uk-8k.yaml).");
}

}  // namespace aidcsim::bind
