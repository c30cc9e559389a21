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
  for (std::size_t c = 0; c < header.size(); ++c) out += " " + (c == 0 ? pad(header[c], w[c]) : pad_left(header[c], w[c]));
  out += "\n";
  for (const auto& row : rows) {
    out += " ";
    for (std::size_t c = 0; c < row.size(); ++c) out += " " + (c == 0 ? pad(row[c], w[c]) : pad_left(row[c], w[c]));
    out += "\n";
  }
  return out;
}

}  // namespace

std::string format_console_summary(const Results& r) {
  std::string out;
  out += fmt::format("aidcsim {} - scenario {}", aidcsim::version(), r.scenario_name.empty() ? "(unnamed)" : r.scenario_name);
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
      std::string line = "  " + pad(key, kw) + "  " + pad_left(format_figure(s->value), vw) + " " +
                         pad(shown_unit(s->unit), uw);
      if (!s->description.empty()) line += "  " + s->description;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }

  out += format_phase_table(r);

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
