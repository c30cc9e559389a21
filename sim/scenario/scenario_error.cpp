// ScenarioError and mapping a model's InvalidParameter back to file:line:column.
#include "sim/scenario/scenario.hpp"

namespace aidcsim {
namespace {

std::string compose(const SourceLocation& w, const std::string& key, const std::string& value,
                    const std::string& expected, const std::string& hint) {
  std::string m = w.file;
  if (w.line > 0) m.append(":").append(std::to_string(w.line)).append(":").append(std::to_string(w.column));
  m.append(": ");
  if (!key.empty()) {
    m.append(key).append(": got ");
    if (value.empty()) m.append("(nothing)");
    else m.append("'").append(value).append("'");
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
                             std::string hint)
    : InvalidParameter(key, value, expected),
      where_(std::move(where)),
      hint_(std::move(hint)),
      message_(compose(where_, key, value, expected, hint_)) {}

SourceLocation Scenario::location_of(const std::string& key) const {
  for (std::string k = key; !k.empty(); k = enclosing(k)) {
    auto it = locations.find(k);
    if (it != locations.end()) return it->second;
  }
  if (auto it = locations.find(""); it != locations.end()) return it->second;  // the document's start
  return SourceLocation{file, 0, 0};
}

ScenarioError Scenario::locate(const InvalidParameter& e) const {
  if (const auto* located = dynamic_cast<const ScenarioError*>(&e)) return *located;
  return ScenarioError(location_of(e.key()), e.key(), e.value(), e.expected());
}

}  // namespace aidcsim
