#pragma once
// aidcsim::Results <-> plain Python data (dict of lists/dicts, datasets as numpy arrays, copied),
// defined in results.cpp, used by engine.cpp; a bill of materials -> dict, defined in topology.cpp,
// used by scenario.cpp too.
#include <pybind11/pybind11.h>

#include "models/common/results.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::bind {

/// {scenario_name, scenario_file, scenario_text, seed, summary: [{key, value, unit, description}],
///  datasets: [{path, data: ndarray(shape, float64), shape, unit, description, dims, flag_meanings}],
///  labels: [{path, values, description, dim}], checks: [{item, value, limit, unit, headroom, pass, note}],
///  notes: [str]}
pybind11::dict results_to_py(const Results& r);
/// Inverse of results_to_py (for the C++ writers). Throws aidcsim::Error on a malformed dict.
Results results_from_py(const pybind11::dict& d);

/// topology::BillOfMaterials -> {gpus, nvswitches, leaves, spines, cores, switches, *_links,
/// scaleout_cables, copper_cables, bisection_bandwidth [B/s], diameter, tiers, oversub_leaf,
/// oversub_spine (None without spine uplinks)}: Fabric.bom()'s dict.
pybind11::dict bom_to_py(const topology::BillOfMaterials& b);

}  // namespace aidcsim::bind
