#include "sim/results/console_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "models/common/version.hpp"

namespace aidcsim {
namespace {

// Inserts ',' every three digits of the integer part of an already formatted number.
std::string group_thousands(const std::string& s) {
  const std::size_t start = (!s.empty() && s[0] == '-') ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  std::string out = s.substr(0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

// "1" is the unit of dimensionless numbers; on screen it reads better blank.
std::string shown_unit(const std::string& unit) { return unit == "1" ? "" : unit; }

// Display width of UTF-8 text (code points; every unit and key we print is single-width).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t w) { return s + std::string(w > width(s) ? w - width(s) : 0, ' '); }
std::string pad_left(const std::string& s, std::size_t w) {
  return std::string(w > width(s) ? w - width(s) : 0, ' ') + s;
}

}  // namespace

std::string format_figure(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // also turns -0 into 0
  const double a = std::fabs(v);
  if (a < 1e15 && v == std::floor(v)) return group_thousands(fmt::format("{:.0f}", v));
  if (a >= 1e5 && a < 1e15) return group_thousands(fmt::format("{:.0f}", v));
  if (a >= 1e-3 && a < 1e5) {
    const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
    return group_thousands(fmt::format("{:.{}f}", v, decimals));
  }
  return fmt::format("{:.3e}", v);
}

namespace {

// Rollout phases: one row per /phases/phase label, one column per /phases/* dataset of that length.
std::string format_phase_table(const Results& r) {
  const Labels* names = nullptr;
  for (const auto& l : r.labels)
    if (l.path == "/phases/phase") names = &l;
  if (names == nullptr || names->values.empty()) return {};
  std::vector<const Dataset*> cols;
  for (const auto& d : r.datasets)
    if (d.path.rfind("/phases/", 0) == 0 && d.data.size() == names->values.size() && d.path != "/phases/start")
      cols.push_back(&d);
  std::vector<std::string> header{"phase"};
  for (const Dataset* d : cols) {
    const std::string u = shown_unit(d->unit);
    header.push_back(d->path.substr(8) + (u.empty() ? "" : " [" + u + "]"));
  }
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < names->values.size(); ++i) {
    std::vector<std::string> row{names->values[i]};
    for (const Dataset* d : cols) row.push_back(format_figure(d->data[i]));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> w(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    w[c] = width(header[c]);
    for (const auto& row : rows) w[c] = std::max(w[c], width(row[c]));
  }
  std::string out = "\nRollout phases\n ";
  for (std::size_t c = 0; c < header.size(); ++c)
    out += " " + (c == 0 ? pad(header[c], w[c]) : pad_left(header[c], w[c]));
  out += "\n";
  for (const auto& row : rows) {
    out += " ";
    for (std::size_t c = 0; c < row.size(); ++c) out += " " + (c == 0 ? pad(row[c], w[c]) : pad_left(row[c], w[c]));
    out += "\n";
  }
  return out;
}

// Cooling-fault verdicts (/thermal/faults/*, one row per fault) and the monitoring actions that fired
// (/thermal/actions/*): one line each, with the checks of the fault that failed.
std::string format_verdicts(const Results& r) {
  auto labels = [&](const std::string& path) -> const std::vector<std::string>* {
    for (const auto& l : r.labels)
      if (l.path == path) return &l.values;
    return nullptr;
  };
  auto column = [&](const std::string& path, std::size_t n) -> const Dataset* {
    for (const auto& d : r.datasets)
      if (d.path == path && d.data.size() == n) return &d;
    return nullptr;
  };
  std::string out;
  const auto* names = labels("/thermal/faults/name");
  const auto* what = labels("/thermal/faults/description");
  const auto* failed = labels("/thermal/faults/failed");
  const auto* inherited = labels("/thermal/faults/inherited");
  if (names && what && !names->empty()) {
    const std::size_t n = names->size();
    const Dataset* pass = column("/thermal/faults/pass", n);
    const Dataset* peak = column("/thermal/faults/peak_gpu_temperature", n);
    const Dataset* above = column("/thermal/faults/time_above_throttle", n);
    const Dataset* off = column("/thermal/faults/time_at_shutdown", n);
    const Dataset* lost = column("/thermal/faults/lost_training_time", n);
    const Dataset* gpu_h = column("/thermal/faults/lost_gpu_hours", n);
    std::size_t passed = 0, nw = 0;
    for (std::size_t i = 0; i < n; ++i) {
      passed += pass && pass->data[i] > 0;
      nw = std::max(nw, width((*names)[i]));
    }
    out += fmt::format("\nCooling-fault verdicts ({} of {} passed; each fault simulated alone)\n", passed, n);
    for (std::size_t i = 0; i < n; ++i) {
      std::string line =
          fmt::format("  {}  {}  {}", pass && pass->data[i] > 0 ? "PASS" : "FAIL", pad((*names)[i], nw), (*what)[i]);
      if (peak) line += ": peak junction " + format_figure(peak->data[i]) + " " + shown_unit(peak->unit);
      if (above) line += ", " + format_figure(above->data[i]) + " s above throttle";
      if (off) line += ", " + format_figure(off->data[i]) + " s at shutdown";
      if (lost) line += ", " + format_figure(lost->data[i]) + " h lost";
      if (gpu_h) line += " (" + format_figure(gpu_h->data[i]) + " GPU-h)";
      if (failed && i < failed->size() && !(*failed)[i].empty()) line += "; failed: " + (*failed)[i];
      if (inherited && i < inherited->size() && !(*inherited)[i].empty())
        line += "; already failing before it: " + (*inherited)[i];
      out += line + "\n";
    }
  }
  const auto* actions = labels("/thermal/actions/name");
  const auto* notes = labels("/thermal/actions/note");
  if (actions && notes && !actions->empty()) {
    const std::size_t n = actions->size();
    const Dataset* pass = column("/thermal/actions/pass", n);
    const Dataset* fault = column("/thermal/actions/fault", n);
    const Dataset* at = column("/thermal/actions/time", n);
    std::size_t passed = 0;
    for (std::size_t i = 0; i < n; ++i) passed += pass && pass->data[i] > 0;
    out += fmt::format("\nMonitoring actions ({} of {} answered their alert without a GPU at shutdown)\n", passed, n);
    for (std::size_t i = 0; i < n; ++i) {
      std::string line = fmt::format("  {}  {}", pass && pass->data[i] > 0 ? "PASS" : "FAIL", (*actions)[i]);
      if (fault && at)
        line += fmt::format(" (fault {}, at {} s)", format_figure(fault->data[i]), format_figure(at->data[i]));
      out += line + ": " + (*notes)[i] + "\n";
    }
  }
  return out;
}

// Which tier of the fabric is loaded, and which link directions peak (/network/*): the console
// answers "which links saturate" without opening the HDF5 file. Tiers that carried nothing and
// never peaked (NVLink when TP is analytic) are left out.
std::string format_fabric_tiers(const Results& r) {
  const std::vector<std::string>* tiers = nullptr;
  const std::vector<std::string>* hot = nullptr;
  for (const auto& l : r.labels) {
    if (l.path == "/network/tier") tiers = &l.values;
    if (l.path == "/network/timeline/hot_link") hot = &l.values;
  }
  if (tiers == nullptr || tiers->empty()) return {};
  const std::size_t n = tiers->size();
  auto find = [&](const std::string& path) -> const Dataset* {
    for (const auto& d : r.datasets)
      if (d.path == path && !d.data.empty() && d.data.size() % n == 0) return &d;
    return nullptr;
  };
  const Dataset* bytes = find("/network/bytes_by_tier");
  const Dataset* avg = find("/network/max_utilization_by_tier");
  const Dataset* p99 = find("/network/p99_utilization_by_tier");
  const Dataset* bins = find("/network/timeline/max_utilization_by_tier");  // (bin, tier)
  auto at = [&](const Dataset* d, std::size_t t) { return d && d->data.size() == n ? d->data[t] : 0.0; };
  auto peak = [&](std::size_t t) {
    double m = 0;
    if (bins)
      for (std::size_t i = t; i < bins->data.size(); i += n) m = std::max(m, bins->data[i]);
    return m;
  };
  auto pct = [](double u) { return format_figure(100 * u) + " %"; };
  const std::vector<std::string> header{"tier", "TB per step", "busiest link, step avg", "p99 link, step avg",
                                        "busiest link, busiest bin"};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t t = 0; t < n; ++t) {
    if (at(bytes, t) == 0 && at(avg, t) == 0 && peak(t) == 0) continue;
    rows.push_back({(*tiers)[t], bytes ? format_figure(at(bytes, t) / 1e12) : "-", avg ? pct(at(avg, t)) : "-",
                    p99 ? pct(at(p99, t)) : "-", bins ? pct(peak(t)) : "-"});
  }
  if (rows.empty()) return {};
  std::vector<std::size_t> w(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    w[c] = width(header[c]);
    for (const auto& row : rows) w[c] = std::max(w[c], width(row[c]));
  }
  std::string out = "\nFabric tiers (link directions; bytes both directions; bins of /network/timeline)\n ";
  for (std::size_t c = 0; c < header.size(); ++c)
    out += (c == 0 ? " " : "  ") + (c == 0 ? pad(header[c], w[c]) : pad_left(header[c], w[c]));
  out += "\n";
  for (const auto& row : rows) {
    out += " ";
    for (std::size_t c = 0; c < row.size(); ++c)
      out += (c == 0 ? " " : "  ") + (c == 0 ? pad(row[c], w[c]) : pad_left(row[c], w[c]));
    out += "\n";
  }
  const Dataset* hot_u = nullptr;
  for (const auto& d : r.datasets)
    if (d.path == "/network/timeline/hot_link_utilization") hot_u = &d;
  if (hot && hot_u && !hot->empty() && hot_u->data.size() % hot->size() == 0) {
    const std::size_t shown = std::min<std::size_t>(hot->size(), 4);
    std::string line = "  hottest link directions (peak bin; up: lower to upper tier; " + std::to_string(shown) +
                       " of " + std::to_string(hot->size()) + " in /network/timeline/hot_link):";
    for (std::size_t k = 0; k < shown; ++k) {
      double m = 0;
      for (std::size_t i = k; i < hot_u->data.size(); i += hot->size()) m = std::max(m, hot_u->data[i]);
      line += (k ? ", " : " ") + (*hot)[k] + " " + pct(m);
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string format_console_summary(const Results& r) {
  std::string out;
  out += fmt::format("aidcsim {} - scenario {}", aidcsim::version(),
                     r.scenario_name.empty() ? "(unnamed)" : r.scenario_name);
  if (!r.scenario_file.empty() && r.scenario_file != r.scenario_name) out += fmt::format(" ({})", r.scenario_file);
  out += fmt::format(", seed {}\n", r.seed);

  // Groups in order of first appearance; keys without a dotted prefix go under "Summary".
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Scalar*>> groups;
  for (const auto& s : r.summary) {
    const auto dot = s.key.find('.');
    const std::string g = dot == std::string::npos ? "" : s.key.substr(0, dot);
    if (!groups.count(g)) order.push_back(g);
    groups[g].push_back(&s);
  }
  std::size_t kw = 0, vw = 0, uw = 0;
  for (const auto& s : r.summary) {
    const auto dot = s.key.find('.');
    kw = std::max(kw, width(dot == std::string::npos ? s.key : s.key.substr(dot + 1)));
    vw = std::max(vw, width(format_figure(s.value)));
    uw = std::max(uw, width(shown_unit(s.unit)));
  }
  for (const auto& g : order) {
    out += fmt::format("\n{}\n", g.empty() ? "Summary" : g);
    for (const Scalar* s : groups[g]) {
      const std::string key = g.empty() ? s->key : s->key.substr(g.size() + 1);
      std::string line =
          "  " + pad(key, kw) + "  " + pad_left(format_figure(s->value), vw) + " " + pad(shown_unit(s->unit), uw);
      if (!s->description.empty()) line += "  " + s->description;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }

  out += format_phase_table(r);
  out += format_fabric_tiers(r);

  if (!r.checks.empty()) {
    const auto passed = std::count_if(r.checks.begin(), r.checks.end(), [](const Check& c) { return c.pass; });
    out += fmt::format("\nChecks ({} of {} passed)\n", passed, r.checks.size());
    std::size_t iw = 0;
    for (const auto& c : r.checks) iw = std::max(iw, width(c.item));
    for (const auto& c : r.checks) {
      const std::string u = shown_unit(c.unit);
      const std::string du = u == "degC" ? "K" : u;  // a headroom between Celsius values is in kelvin
      auto with_unit = [](const std::string& n, const std::string& unit) { return unit.empty() ? n : n + " " + unit; };
      std::string line = fmt::format("  {}  {}  {} (limit {}, headroom {})", c.pass ? "PASS" : "FAIL", pad(c.item, iw),
                                     with_unit(format_figure(c.value), u), with_unit(format_figure(c.limit), u),
                                     with_unit(format_figure(c.headroom), du));
      if (!c.note.empty()) line += "  " + c.note;
      out += line + "\n";
    }
  }

  out += format_verdicts(r);

  if (!r.notes.empty()) {
    out += "\nNotes\n";
    for (const auto& n : r.notes) out.append("  - ").append(n).append("\n");
  }
  if (!r.warnings.empty()) {
    out += "\nWarnings\n";
    for (const auto& w : r.warnings) out.append("  - ").append(w).append("\n");
  }
  return out;
}

}  // namespace aidcsim
