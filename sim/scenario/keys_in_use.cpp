#include "sim/scenario/keys_in_use.hpp"

#include <algorithm>
#include <vector>

namespace aidcsim {
namespace {

/// `scope` ("cooling.rdhx." for a section, a full key for one key) is read only while `selector`
/// is one of `values` (a bool as "true"/"false"); `why` says what the other choices lack.
struct KeyInUse {
  const char* scope;
  const char* selector;
  std::vector<std::string> values;
  const char* why;
};

// Each row found by a run of the key alone on the bundled 8K scenario (and the choice named):
// validate said valid and every summary figure was bit-identical to the run without it.
const std::vector<KeyInUse>& table() {
  static const std::vector<KeyInUse> rows = {
      {"cooling.rdhx.", "cooling.plant.rack", {"rdhx"}, "the rear-door heat exchanger's"},
      {"cooling.in_row_cooler.", "cooling.plant.rack", {"in_row_cooler"}, "the in-row cooler's"},
      {"cooling.immersion_tank.", "cooling.plant.chip", {"immersion_tank"}, "the immersion tank's"},
      {"cooling.cdu.air_approach", "cooling.plant.cdu", {"liquid_to_air"}, "a liquid-to-air CDU's"},
      {"cooling.cdu.air_delta_t", "cooling.plant.cdu", {"liquid_to_air"}, "a liquid-to-air CDU's"},
      {"cooling.cdu.fan_power_fraction", "cooling.plant.cdu", {"liquid_to_air"}, "a liquid-to-air CDU's"},
      {"cooling.cdu.facility_flow_ratio",
       "cooling.plant.cdu",
       {"liquid_to_liquid"},
       "the facility water loop's (a liquid-to-air CDU has none)"},
      {"cooling.heat_rejection.tower_approach",
       "cooling.plant.heat_rejection",
       {"cooling_tower"},
       "the cooling tower's"},
      {"cooling.heat_rejection.dry_cooler_approach",
       "cooling.plant.heat_rejection",
       {"dry_cooler", "chiller", "fixed"},
       "the dry cooler's (a cooling tower uses tower_approach)"},
      {"workload.parallelism.ddp_bucket_size",
       "workload.parallelism.overlap_param_gather",
       {"true"},
       "the overlapped parameter all-gather's bucket size"},
      {"workload.parallelism.ddp_bucket_size",
       "workload.parallelism.param_gather_buckets",
       {"size"},
       "the size-filled buckets' (param_gather_buckets layer makes one per layer)"},
  };
  return rows;
}

std::string value_text(const Params& params, const std::string& key) {
  const auto it = params.values().find(key);
  if (it == params.values().end()) return {};
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return params.raw(key);
}

}  // namespace

void check_keys_in_use(const Params& params, const std::map<std::string, SourceLocation>& locations) {
  for (const KeyInUse& row : table()) {
    const std::string scope = row.scope;
    const bool section = scope.back() == '.';
    const std::string value = value_text(params, row.selector);
    if (std::find(row.values.begin(), row.values.end(), value) != row.values.end()) continue;
    for (const auto& [key, where] : locations) {
      if (section ? key.compare(0, scope.size(), scope) != 0 : key != scope) continue;
      if (!params.given(key)) continue;  // a section heading ("cooling.rdhx:") holds no value
      std::string allowed;
      for (std::size_t i = 0; i < row.values.size(); ++i)
        allowed += (i ? (i + 1 == row.values.size() ? " or " : ", ") : "") + row.values[i];
      throw ScenarioError(where, key, params.raw(key),
                          "no " + key + " unless " + row.selector + " is " + allowed + " (it is '" + value +
                              "': the key is " + row.why + " and would be ignored)");
    }
  }
}

}  // namespace aidcsim
