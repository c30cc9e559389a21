#pragma once
// Cooling fault types (cooling.faults[].type). One type per file (faults/<name>.cpp) with what it
// does to the plant during a transient and what its verdict adds; the registry (registry.cpp) maps
// scenario names to them. simulate_transient (transient.cpp) owns the state they act on and runs
// their events in time order; judge_faults (verdict.cpp) asks each for its own check.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/thermal/checks.hpp"
#include "models/thermal/cooling_spec.hpp"
#include "models/thermal/site_model.hpp"

namespace aidcsim::thermal {

struct TransientResult;

/// The transient's state a fault acts on, all owned by simulate_transient while it runs.
struct FaultState {
  const CoolingSpec& spec;
  Conditions& cond;           ///< boundary conditions of the next network build
  std::vector<int>& running;  ///< running pumps per CDU
  std::vector<int>& spare;    ///< standby pumps per CDU
  double& excursion;          ///< K of facility-supply excursion in force (on top of the daily cycle)
  bool& changed;              ///< set when the network must be rebuilt
  /// Scheduled events: time (s) -> action(t); equal times run in insertion order.
  std::multimap<double, std::function<void(double)>>& events;
  /// Alert log: time (s), level (info | warning | critical), source, message, value, threshold (SI).
  std::function<void(double, std::string, std::string, std::string, double, double)> log;
};

/// What a fault's `target` indexes.
enum class FaultTarget { None, Cdu, Rack };

struct FaultType {
  const char* name = "";
  const char* description = "";  ///< one line for the scenario reference
  FaultTarget target = FaultTarget::None;
  bool needs_liquid_loop = false;  ///< a CDU and pumps (not an air-cooled plant)
  bool needs_rack_cooler = false;  ///< rack-cooler fans (plant.rack not none)
  /// Schedules the fault's events from f.at to f.at + f.duration on `targets` (indices of CDUs or
  /// racks, already checked; empty for FaultTarget::None).
  void (*schedule)(FaultState& state, const FaultSpec& f, const std::vector<int>& targets) = nullptr;
  /// Where it strikes, appended to the type in a verdict's description ("on CDU 2", "of +5 K").
  std::string (*where)(const FaultSpec& f) = nullptr;
  /// The brief's rule this fault type is judged by beyond the common checks (null: none).
  std::optional<ChecklistItem> (*rule)(const CoolingSpec& spec, const TransientResult& r) = nullptr;
};

/// Every fault type, in the order the scenario reference lists them.
const std::vector<FaultType>& fault_types();

/// The type named `name`; throws InvalidParameter(key, name, the list of names) when unknown.
const FaultType& fault_type(const std::string& name, const std::string& key = "cooling.faults[].type");

/// " on every <unit>" for target -1, else " on <unit> <target>": where a targeted fault strikes.
std::string on_target(const FaultSpec& f, const std::string& unit);

/// The registered names, in order.
std::vector<std::string> fault_type_names();

/// "pump_failure: <description>; cdu_loss: ...; ..." for the scenario reference.
std::string fault_types_doc();

// Types (faults/<name>.cpp).
FaultType pump_failure_type();
FaultType cdu_loss_type();
FaultType supply_excursion_type();
FaultType rdhx_fan_failure_type();

}  // namespace aidcsim::thermal
