// The cooling fault-type registry (models/thermal/faults/): every type is registered once with
// what it targets and needs, unknown names are refused with the registered list, and the scenario
// schema's choices and reference text come from it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/common/errors.hpp"
#include "models/thermal/faults/fault_type.hpp"
#include "models/thermal/thermal_schema.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

TEST_CASE("fault types: one entry per name, each with its schedule", "[thermal][faults][registry]") {
  std::set<std::string> names;
  for (const auto& t : fault_types()) {
    CAPTURE(t.name);
    CHECK(names.insert(t.name).second);
    CHECK(t.schedule != nullptr);
    CHECK(t.where != nullptr);
    CHECK(std::string(t.description).size() > 20);
    CHECK(&fault_type(t.name) == &t);
  }
  CHECK(names == std::set<std::string>{"pump_failure", "cdu_loss", "supply_excursion", "rdhx_fan_failure"});
  CHECK(fault_type("pump_failure").target == FaultTarget::Cdu);
  CHECK(fault_type("rdhx_fan_failure").target == FaultTarget::Rack);
  CHECK(fault_type("supply_excursion").target == FaultTarget::None);
  CHECK(fault_type("cdu_loss").needs_liquid_loop);
  CHECK(fault_type("rdhx_fan_failure").needs_rack_cooler);
  // The brief's own rules: failover for pumps, interruption for a lost CDU.
  CHECK(fault_type("pump_failure").rule != nullptr);
  CHECK(fault_type("cdu_loss").rule != nullptr);
  CHECK(fault_type("supply_excursion").rule == nullptr);
}

TEST_CASE("fault types: an unknown type names the key and the registered list", "[thermal][faults][registry]") {
  try {
    fault_type("chiller_trip", "cooling.faults[2].type");
    FAIL("an unknown fault type was accepted");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "cooling.faults[2].type");
    CHECK(e.value() == "chiller_trip");
    for (const auto& n : fault_type_names()) CHECK(e.expected().find(n) != std::string::npos);
  }
}

TEST_CASE("fault types: the schema's choices are the registry's names", "[thermal][faults][registry]") {
  bool found = false;
  for (const auto& k : schema()) {
    if (k.key != "cooling.faults[].type") continue;
    found = true;
    CHECK(k.choices == fault_type_names());
    for (const auto& t : fault_types())
      CHECK(k.doc.find(std::string(t.name) + ": " + t.description) != std::string::npos);
  }
  CHECK(found);
}
