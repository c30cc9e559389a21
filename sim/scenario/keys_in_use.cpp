#include "sim/scenario/keys_in_use.hpp"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

namespace aidcsim {
namespace {

/// `scope` ("cooling.rdhx." for a section, a full key for one key) is read only while `selector`
/// is one of `values` (a bool as "true"/"false"); `why` says what the other choices lack.
/// A `workload.` row holds for each `jobs:` entry too (its keys are the workload's).
struct KeyInUse {
  const char* scope;
  const char* selector;
  std::vector<std::string> values;
  const char* why;
};

/// `key` is read only when `reads(params)`, a condition no single choice states (a list item's
/// choice, a number's sign); `when` says it in the message, `why` what the key is for (a clause).
struct KeyReadWhen {
  const char* key;
  bool (*reads)(const Params&);
  const char* when;
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

/// Whether an item of list `key` has `field` equal to `value`.
bool any_item(const Params& params, const char* key, const char* field, const char* value) {
  for (const Params& item : params.list(key))
    if (item.has(field) && item.text(field) == value) return true;
  return false;
}

/// Whether the DP algorithm of the workload or of a `jobs:` entry is one of the in-network ones:
/// sharp (CollNet), or nvls across NVLink domains (NVLS + SHARP); auto runs ring across domains
/// (workload::dp_collective) and the other collectives of the step are analytic inside a domain
/// or point to point, so they are the only readers of fabric.sharp (collectives::Layout::sharp).
bool in_network_dp(const Params& params) {
  auto in_network = [](const std::string& a) { return a == "sharp" || a == "nvls"; };
  const char* key = "workload.parallelism.dp_algorithm";
  if (params.has(key) && in_network(params.text(key))) return true;
  for (const Params& job : params.list("jobs"))
    if (job.has("parallelism.dp_algorithm") && in_network(job.text("parallelism.dp_algorithm"))) return true;
  return false;
}

// Each row found by a run of the key alone on the bundled 8K scenario (0abac4e): validate said
// valid and every result but the note of the --set key was identical to the run without it.
const std::vector<KeyReadWhen>& conditions() {
  static const std::vector<KeyReadWhen> rows = {
      {"cooling_monitoring.power_limit_fraction",
       [](const Params& p) {
         return any_item(p, "cooling_monitoring.response_actions", "action", "reduce GPU power limit");
       },
       "a cooling_monitoring.response_actions[] item has action 'reduce GPU power limit'",
       "it is that action's GPU power cap"},
      {"cooling.air_fallback.switch_time",
       [](const Params& p) { return any_item(p, "cooling.faults", "type", "cdu_loss"); },
       "a cooling.faults[] item has type cdu_loss",
       "it is when the auxiliary air takes over from a lost CDU, which only a cdu_loss fault simulates"},
      {"reliability.repair_time",
       [](const Params& p) { return p.has("reliability.hot_spares") && p.number("reliability.hot_spares") >= 0; },
       "reliability.hot_spares is 0 or more",
       "it is how long a failed node stays out of the spare pool, and with unlimited spares (hot_spares -1, the "
       "default) no restart waits for one"},
      {"fabric.sharp",
       [](const Params& p) { return !(p.has("fabric.sharp") && p.flag("fabric.sharp")) || in_network_dp(p); },
       "workload.parallelism.dp_algorithm (or a jobs[] entry's) is sharp or nvls",
       "it enables the switches' in-network reduction, which only those DP algorithms use: auto runs ring across "
       "NVLink domains, and TP, CP and EP stay inside a domain"},
  };
  return rows;
}

/// Keys a `jobs:` scenario leaves unread (sim/engine/jobs_run.cpp reads the fabric, the GPU, the
/// jobs and training / reliability only): `prefix` a section ("cooling.") or a key with its list
/// items ("cluster.gpu_speed"), `why` what is not simulated, `effect` what the key would do. Each
/// found on d097d0b by adding it to a two-job scenario: it validated and ran with every result
/// identical to the scenario without it (training.batch_schedule: unless a convergence model priced
/// its batches, at the one batch's tokens/s).
struct UnreadWithJobs {
  const char* prefix;
  const char* why;
  const char* effect = "the key would be ignored";
};

const std::vector<UnreadWithJobs>& unread_with_jobs() {
  static const std::vector<UnreadWithJobs> rows = {
      {"cooling.", "power, thermal and cooling are not simulated for several jobs"},
      {"cooling_monitoring.", "power, thermal and cooling are not simulated for several jobs"},
      {"power.", "power, thermal and cooling are not simulated for several jobs"},
      {"bom.", "the fabric's bill of materials, power and cost are not computed for several jobs"},
      {"cluster.gpu_speed", "stragglers are not applied to the jobs' steps"},
      {"cluster.gpu_speed_distribution.", "stragglers are not applied to the jobs' steps"},
      {"fabric.storage.",
       "checkpoint writes are not simulated on the fabric for several jobs (reliability.storage_bandwidth sets "
       "each job's)"},
      {"training.batch_schedule",
       "each job's step is simulated at its own global_batch only (a single-job run simulates the step at every "
       "scheduled batch)",
       "the key would change nothing, or with training.convergence change time_to_train at that batch's tokens/s"},
  };
  return rows;
}

/// Whether `key` is `prefix`'s: within the section, or the key itself or one of its list items.
bool under(const std::string& key, const std::string& prefix) {
  if (prefix.back() == '.') return key.compare(0, prefix.size(), prefix) == 0;
  return key == prefix || (key.compare(0, prefix.size(), prefix) == 0 && key.size() > prefix.size() &&
                           (key[prefix.size()] == '[' || key[prefix.size()] == '.'));
}

std::string value_text(const Params& params, const std::string& key) {
  const auto it = params.values().find(key);
  if (it == params.values().end()) return {};
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return params.raw(key);
}

/// The table's row for one holder of its keys: the root (`prefix` "") or a `jobs:` entry
/// (`prefix` "jobs[i].", `params` the entry, keys relative to it without "workload.").
void check_row(const KeyInUse& row, const Params& params, const std::string& prefix, const std::string& strip,
               const std::map<std::string, SourceLocation>& locations) {
  const std::string scope = std::string(row.scope).substr(strip.size());
  const std::string selector = std::string(row.selector).substr(strip.size());
  const bool section = scope.back() == '.';
  const std::string value = value_text(params, selector);
  if (std::find(row.values.begin(), row.values.end(), value) != row.values.end()) return;
  for (const auto& [full, where] : locations) {
    if (full.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string key = full.substr(prefix.size());
    if (section ? key.compare(0, scope.size(), scope) != 0 : key != scope) continue;
    if (!params.given(key)) continue;  // a section heading ("cooling.rdhx:") holds no value
    std::string allowed;
    for (std::size_t i = 0; i < row.values.size(); ++i)
      allowed += (i ? (i + 1 == row.values.size() ? " or " : ", ") : "") + row.values[i];
    throw ScenarioError(where, full, params.raw(key),
                        "no " + full + " unless " + prefix + selector + " is " + allowed + " (it is '" + value +
                            "': the key is " + row.why + " and would be ignored)");
  }
}

}  // namespace

void check_keys_in_use(const Params& params, const std::map<std::string, SourceLocation>& locations) {
  const std::string workload = "workload.";
  const Params::List& jobs = params.list("jobs");
  for (const KeyInUse& row : table()) {
    check_row(row, params, "", "", locations);
    if (std::string(row.scope).compare(0, workload.size(), workload) == 0)
      for (std::size_t i = 0; i < jobs.size(); ++i)
        check_row(row, jobs[i], "jobs[" + std::to_string(i) + "].", workload, locations);
  }
  if (params.has("jobs")) {  // the first such key in the file
    const std::pair<const std::string, SourceLocation>* first = nullptr;
    const UnreadWithJobs* first_row = nullptr;
    for (const auto& entry : locations) {
      const std::string& key = entry.first;
      // A value written, or a list (set only when written; its items' keys are the items' own).
      const auto it = params.values().find(key);
      const bool list = it != params.values().end() && std::holds_alternative<Params::List>(it->second);
      if (key.empty() || !(params.given(key) || list)) continue;
      for (const UnreadWithJobs& row : unread_with_jobs())
        if (under(key, row.prefix) && (!first || std::make_pair(entry.second.line, entry.second.column) <
                                                     std::make_pair(first->second.line, first->second.column))) {
          first = &entry;
          first_row = &row;
        }
    }
    if (first) {
      const std::string& key = first->first;
      const auto& v = params.values().find(key)->second;
      const auto* items = std::get_if<Params::List>(&v);
      throw ScenarioError(
          first->second, key,
          items ? std::to_string(items->size()) + (items->size() == 1 ? " item" : " items") : params.raw(key),
          "no " + key + " with jobs: (" + first_row->why + "; " + first_row->effect + ")");
    }
  }
  for (const KeyReadWhen& row : conditions()) {
    const auto where = locations.find(row.key);
    if (where == locations.end() || !params.given(row.key) || row.reads(params)) continue;
    throw ScenarioError(
        where->second, row.key, params.raw(row.key),
        std::string("no ") + row.key + " unless " + row.when + " (" + row.why + "; the key would be ignored)");
  }
}

}  // namespace aidcsim
