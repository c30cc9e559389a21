#include "sim/scenario/schema_registry.hpp"

#include <set>
#include <string>

#include "models/compute/compute_schema.hpp"
#include "models/reliability/reliability_schema.hpp"
#include "models/thermal/thermal_schema.hpp"
#include "models/topology/topology_schema.hpp"
#include "models/workload/jobs.hpp"
#include "models/workload/workload_schema.hpp"
#include "sim/scenario/input_limits.hpp"

namespace aidcsim {
namespace {

// The areas' schemas concatenated, before de-duplication.
Schema raw_schema() {
  Schema all = top_level_schema();
  for (Schema part : {topology::schema(), compute::schema(), workload::schema(), workload::jobs_schema(),
                      thermal::schema(), reliability::schema()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Parent key of a dotted key: "a.b[].c" -> "a.b[]"; "a" -> "".
std::string parent_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

}  // namespace

Schema top_level_schema() {
  using Q = Quantity;
  return {
      {"name",
       Q::String,
       "",
       false,
       {},
       {},
       false,
       {},
       "Short name of the scenario, used in reports and result files (default: the file name without extension)."},
      {"description", Q::String, "", false, {}, {}, false, {}, "One-line description of what the scenario models."},
      {"seed",
       Q::Integer,
       "0",
       false,
       0,
       static_cast<double>(kMaxSeed),
       false,
       {},
       "Seed of every random choice (ECMP hashing, failures): same scenario + seed gives the same results bit for "
       "bit."},
  };
}

Schema full_schema() {
  Schema out;
  std::set<std::string> seen;
  // Adds missing Map parents of `key` (outermost first) so that the walker can descend into them.
  auto add_parents = [&](const std::string& key) {
    std::vector<std::string> missing;
    for (std::string p = parent_of(key); !p.empty(); p = parent_of(p)) {
      if (p.size() >= 2 && p.compare(p.size() - 2, 2, "[]") == 0) break;  // a list's items: the List field owns them
      if (seen.count(p)) break;
      missing.push_back(p);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      Field f;
      f.key = *it;
      f.quantity = Quantity::Map;
      out.push_back(f);
      seen.insert(*it);
    }
  };
  for (Field& f : raw_schema()) {
    if (seen.count(f.key)) {
      // A Map declared by two areas (e.g. "cluster"): keep one, with the first doc line given.
      for (Field& g : out)
        if (g.key == f.key && g.quantity == Quantity::Map && g.doc.empty()) g.doc = f.doc;
      continue;
    }
    add_parents(f.key);
    seen.insert(f.key);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> duplicate_keys() {
  std::vector<std::string> dups;
  std::set<std::string> seen;
  for (const Field& f : raw_schema()) {
    if (f.quantity != Quantity::Map && !seen.insert(f.key).second) dups.push_back(f.key);
    if (f.quantity == Quantity::Map) seen.insert(f.key);
  }
  return dups;
}

const Field* find_field(const Schema& schema, std::string_view key) {
  for (const Field& f : schema)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace aidcsim
