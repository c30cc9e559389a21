#include "sim/results/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/results/output_set.hpp"

namespace aidcsim {
namespace {

using json = nlohmann::ordered_json;

// nlohmann would write NaN/inf as null anyway; doing it here makes the rule explicit.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

double number_from(const json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }

// The per-stage partition of the step (/step/stage_<part>_fraction, [stage]) in brief: per part
// its mean, min and max over the pipeline stages, and the number of stages. Empty without them.
json stage_fractions(const Results& r) {
  const std::string head = "/step/stage_", tail = "_fraction";
  json b = json::object();
  for (const auto& d : r.datasets) {
    const auto& p = d.path;
    if (d.data.empty() || p.size() <= head.size() + tail.size() || p.rfind(head, 0) != 0 ||
        p.compare(p.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    double sum = 0, lo = d.data.front(), hi = d.data.front();
    for (double v : d.data) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
    if (b.empty()) b["stages"] = d.data.size();
    b[p.substr(head.size(), p.size() - head.size() - tail.size())] = {
        {"unit", d.unit.empty() ? "1" : d.unit},
        {"mean", number(sum / static_cast<double>(d.data.size()))},
        {"min", number(lo)},
        {"max", number(hi)}};
  }
  return b;
}

}  // namespace

nlohmann::ordered_json results_to_json(const Results& r) {
  json doc;
  doc["format_version"] = kJsonFormatVersion;
  doc["aidcsim_version"] = version();
  doc["git_sha"] = git_sha();
  doc["scenario"] = {{"name", r.scenario_name}, {"file", r.scenario_file}, {"seed", r.seed}};
  json summary = json::object();
  for (const auto& s : r.summary)
    summary[s.key] = {
        {"value", number(s.value)}, {"unit", s.unit.empty() ? "1" : s.unit}, {"description", s.description}};
  doc["summary"] = std::move(summary);
  json checks = json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"item", c.item},
                      {"value", number(c.value)},
                      {"limit", number(c.limit)},
                      {"unit", c.unit.empty() ? "1" : c.unit},
                      {"headroom", number(c.headroom)},
                      {"pass", c.pass},
                      {"note", c.note}});
  doc["checks"] = std::move(checks);
  // Tables of the HDF5 file small enough for scripts: rollout phases (/phases/*), cooling-fault
  // verdicts (/thermal/faults/*, one row per fault) and the monitoring actions that fired
  // (/thermal/actions/*). Columns directly under the group only (a fault's own transient is not).
  auto table = [&](const std::string& prefix) {
    json t = json::object();
    auto direct = [&](const std::string& path) {
      return path.rfind(prefix, 0) == 0 && path.find('/', prefix.size()) == std::string::npos;
    };
    for (const auto& l : r.labels)
      if (direct(l.path)) t[l.path.substr(prefix.size())] = l.values;
    for (const auto& d : r.datasets)
      if (direct(d.path)) {
        json values = json::array();
        for (double v : d.data) values.push_back(number(v));
        t[d.path.substr(prefix.size())] = {{"unit", d.unit.empty() ? "1" : d.unit}, {"values", std::move(values)}};
      }
    return t;
  };
  for (const auto& [key, prefix] : {std::pair<const char*, const char*>{"phases", "/phases/"},
                                    {"cooling_faults", "/thermal/faults/"},
                                    {"monitoring_actions", "/thermal/actions/"}})
    if (json t = table(prefix); !t.empty()) doc[key] = std::move(t);
  if (json b = stage_fractions(r); !b.empty()) doc["gpu_busy"] = std::move(b);
  doc["notes"] = r.notes;
  doc["warnings"] = r.warnings;
  return doc;
}

Results results_from_json(const nlohmann::ordered_json& doc) {
  try {
    Results r;
    const auto& sc = doc.at("scenario");
    r.scenario_name = sc.at("name").get<std::string>();
    r.scenario_file = sc.at("file").get<std::string>();
    r.seed = sc.at("seed").get<std::uint64_t>();
    for (const auto& [key, s] : doc.at("summary").items())
      r.summary.push_back(
          {key, number_from(s.at("value")), s.at("unit").get<std::string>(), s.at("description").get<std::string>()});
    for (const auto& c : doc.at("checks"))
      r.checks.push_back({c.at("item").get<std::string>(), number_from(c.at("value")), number_from(c.at("limit")),
                          c.at("unit").get<std::string>(), number_from(c.at("headroom")), c.at("pass").get<bool>(),
                          c.at("note").get<std::string>()});
    r.notes = doc.at("notes").get<std::vector<std::string>>();
    if (doc.contains("warnings")) r.warnings = doc.at("warnings").get<std::vector<std::string>>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("results JSON: ") + e.what());
  }
}

// Bytes that are not UTF-8 (a Latin-1 scenario path: the loader checks the scenario's own text)
// are written as U+FFFD: nlohmann's default threw type_error.316 after the whole run.
std::string json_text(const Results& results) {
  return results_to_json(results).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_json(const Results& results, const std::string& path) { write_output(path, json_text(results)); }

}  // namespace aidcsim
