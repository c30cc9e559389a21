#pragma once
// Keys that only one choice of another key reads: written with another choice, the model would
// ignore them and give bit-identical results (case step/01's kind: an option silently ignored in
// combination). One table, checked for every scenario by the loader, the workload's rows for each
// `jobs:` entry too; and keys read only under a condition no single choice states (an item of a
// list: power_limit_fraction needs a 'reduce GPU power limit' action, air_fallback.switch_time a
// cdu_loss fault; a count: repair_time needs hot_spares >= 0; fabric.sharp: true a DP algorithm
// that reduces in the network).
#include <map>
#include <string>

#include "models/common/params.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Throws ScenarioError at the key's line when `params` gives a key (or a key of a section) that
/// its selector's value leaves unread, e.g. cooling.rdhx.effectiveness with cooling.plant.rack
/// in_row_cooler, or jobs[1].parallelism.ddp_bucket_size with that job's overlap_param_gather false,
/// or a key whose condition does not hold ("expected no KEY unless CONDITION (...; the key would be
/// ignored)"). `locations`: where each key was written (Walker's map).
void check_keys_in_use(const Params& params, const std::map<std::string, SourceLocation>& locations);

}  // namespace aidcsim
