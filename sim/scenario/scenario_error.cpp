// ScenarioError and mapping a model's InvalidParameter back to file:line:column.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/scenario/scenario.hpp"

namespace aidcsim {
namespace {

std::string compose(const SourceLocation& w, const std::string& key, const std::string& value,
                    const std::string& expected, const std::string& hint, const std::string& shown) {
  std::string m = w.file;
  if (w.line > 0) m.append(":").append(std::to_string(w.line)).append(":").append(std::to_string(w.column));
  m.append(": ");
  if (!key.empty()) {
    m.append(key).append(": got ");
    if (!shown.empty())
      m.append(shown);
    else if (value.empty())
      m.append("(nothing)");
    else
      m.append("'").append(value).append("'");
    m.append(", expected ");
  }
  m.append(expected);
  if (!hint.empty()) m.append("; ").append(hint);
  return m;
}

// "rollout.phases[1].gpus" -> "rollout.phases[1]" -> "rollout.phases" -> "rollout" -> "".
std::string enclosing(const std::string& key) {
  if (!key.empty() && key.back() == ']') {
    const auto open = key.rfind('[');
    if (open != std::string::npos) return key.substr(0, open);
  }
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

}  // namespace

ScenarioError::ScenarioError(SourceLocation where, std::string key, std::string value, std::string expected,
                             std::string hint, const std::string& shown)
    : InvalidParameter(key, value, expected, hint),
      where_(std::move(where)),
      message_(compose(where_, key, value, expected, hint, shown)) {}

SourceLocation Scenario::location_of(const std::string& key) const {
  for (std::string k = key; !k.empty(); k = enclosing(k)) {
    auto it = locations.find(k);
    if (it != locations.end()) return it->second;
  }
  if (auto it = locations.find(""); it != locations.end()) return it->second;  // the document's start
  return SourceLocation{file, 0, 0};
}

namespace {

// The Params holding `key` ("a.b[i].c" -> list item i of "a.b", relative key "c").
const Params* holder(const Params& root, const std::string& key, std::string& rel) {
  const auto open = key.rfind('[');
  if (open == std::string::npos) {
    rel = key;
    return &root;
  }
  const auto close = key.find(']', open);
  if (close == std::string::npos || close + 2 > key.size() || key[close + 1] != '.') return nullptr;
  std::string list_rel;
  const Params* parent = holder(root, key.substr(0, open), list_rel);
  if (!parent || !parent->has(list_rel)) return nullptr;
  const auto index = std::strtoul(key.c_str() + open + 1, nullptr, 10);
  const Params::List& items = parent->list(list_rel);
  if (index >= items.size()) return nullptr;
  rel = key.substr(close + 2);
  return &items[index];
}

// A model reports numbers as it computes them ("1.000000", "50000000000.000000"); when that is
// the value the file gives for the key, show it as written ("1.0", "400 Gbps").
// A key the file does not give (its default, or a value a model derived) has no text as written:
// "0.600000" (std::to_string) is shown as "0.6" (cooling.room.rh_max, blamed for an rh_min above it).
std::string as_written(const Params& params, const std::string& key, const std::string& value) {
  std::string rel;
  const Params* p = holder(params, key, rel);
  char* end = nullptr;
  const double shown = std::strtod(value.c_str(), &end);
  const bool number = !value.empty() && *end == '\0';
  if (!p || !p->given(rel)) {
    if (!number || !std::isfinite(shown)) return value;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", shown);
    return buf;
  }
  if (!number) return value;
  const auto it = p->values().find(rel);
  const double* stored = it == p->values().end() ? nullptr : std::get_if<double>(&it->second);
  if (!stored || !(std::fabs(shown - *stored) <= 1e-6 * std::fabs(*stored))) return value;
  return p->raw(rel);
}

}  // namespace

ScenarioError Scenario::locate(const InvalidParameter& e) const {
  if (const auto* located = dynamic_cast<const ScenarioError*>(&e)) return *located;
  return ScenarioError(location_of(e.key()), e.key(), as_written(params, e.key(), e.value()), e.expected(), e.hint());
}

}  // namespace aidcsim
