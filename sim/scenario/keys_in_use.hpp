#pragma once
// Keys that only one choice of another key reads: written with another choice, the model would
// ignore them and give bit-identical results (case step/01's kind: an option silently ignored in
// combination). One table, checked for every scenario by the loader.
#include <map>
#include <string>

#include "models/common/params.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Throws ScenarioError at the key's line when `params` gives a key (or a key of a section) that
/// its selector's value leaves unread, e.g. cooling.rdhx.effectiveness with cooling.plant.rack
/// in_row_cooler. `locations`: where each key was written (Walker's map).
void check_keys_in_use(const Params& params, const std::map<std::string, SourceLocation>& locations);

}  // namespace aidcsim
