// Cooling fault types by name (see fault_type.hpp).
#include <fmt/format.h>

#include "models/common/errors.hpp"
#include "models/thermal/faults/fault_type.hpp"

namespace aidcsim::thermal {

const std::vector<FaultType>& fault_types() {
  static const std::vector<FaultType> types = {pump_failure_type(), cdu_loss_type(), supply_excursion_type(),
                                               rdhx_fan_failure_type()};
  return types;
}

std::vector<std::string> fault_type_names() {
  std::vector<std::string> out;
  for (const auto& t : fault_types()) out.emplace_back(t.name);
  return out;
}

std::string on_target(const FaultSpec& f, const std::string& unit) {
  return f.target < 0 ? " on every " + unit : fmt::format(" on {} {}", unit, f.target);
}

std::string fault_types_doc() {
  std::string out;
  for (const auto& t : fault_types()) out += (out.empty() ? "" : "; ") + std::string(t.name) + ": " + t.description;
  return out + ".";
}

const FaultType& fault_type(const std::string& name, const std::string& key) {
  for (const auto& t : fault_types())
    if (name == t.name) return t;
  throw InvalidParameter(key, name, "one of " + fmt::format("{}", fmt::join(fault_type_names(), ", ")));
}

}  // namespace aidcsim::thermal
