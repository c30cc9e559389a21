// Scenario keys -> CoolingSpec, and bad input -> InvalidParameter naming the key.
#include <catch2/catch.hpp>
#include <set>

#include "models/thermal/schema.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

namespace {
std::string key_of(const Params& p) {
  try {
    spec_from(p);
  } catch (const InvalidParameter& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("schema keeps the lead's keys and declares the new ones", "[thermal][schema]") {
  std::set<std::string> keys;
  for (const auto& f : schema()) keys.insert(f.key);
  for (const char* k : {"cooling.coolant", "cooling.flow_per_gpu", "cooling.facility_supply", "cooling.cdu_approach",
                        "cooling.liquid_fraction", "cooling.rdhx.effectiveness", "cooling.limits.inlet_max",
                        "cooling.limits.outlet_max", "cooling.limits.delta_t_max", "cooling.limits.hotspot_max",
                        "cooling.monitoring.sensors[].type", "cooling.monitoring.sensors[].threshold",
                        "cooling.monitoring.response_actions[].action", "cooling.faults[].type", "cooling.faults[].at",
                        "cooling.faults[].duration", "cooling.pumps.failover_time", "power.distribution_loss"})
    CHECK(keys.count(k) == 1);
  for (const auto& f : schema()) CHECK(!f.doc.empty());
}

TEST_CASE("spec_from reads values, lists and converts brief units", "[thermal][schema]") {
  Params root;
  root.set("cooling.flow_per_gpu", 0.8 / 60000);
  root.set("cooling.coolant", std::string("pg25"));
  Params sensor("cooling.monitoring.sensors[0]");
  sensor.set("type", std::string("temperature"));
  sensor.set("location", std::string("GPU inlet"));
  sensor.set("threshold", 45.0);
  sensor.set("alert_level", std::string("warning"));
  root.set("cooling.monitoring.sensors", Params::List{sensor});
  Params fault("cooling.faults[0]");
  fault.set("type", std::string("pump_failure"));
  fault.set("at", 600.0);
  fault.set("target", 2.0);
  root.set("cooling.faults", Params::List{fault});
  const CoolingSpec c = spec_from(root);
  CHECK(c.flow_per_gpu == Approx(0.8 / 60000));
  CHECK(c.coolant == "pg25");
  REQUIRE(c.monitoring.sensors.size() == 1);
  CHECK(c.monitoring.sensors[0].threshold == Approx(318.15));
  REQUIRE(c.faults.size() == 1);
  CHECK(c.faults[0].at == 600.0);
  CHECK(c.faults[0].target == 2);
}

TEST_CASE("bad input names its key", "[thermal][schema]") {
  {
    Params p;
    p.set("cooling.flow_per_gpu", -1.0 / 60000, "-1 L/min");
    CHECK(key_of(p) == "cooling.flow_per_gpu");
  }
  for (double eff : {0.0, 1.5, -0.2}) {
    Params p;
    p.set("cooling.rdhx.effectiveness", eff);
    CHECK(key_of(p) == "cooling.rdhx.effectiveness");
  }
  {
    Params p;  // 24 °C + 4 K approach > 25 °C inlet limit
    p.set("cooling.facility_supply", 297.15, "24 degC");
    CHECK(key_of(p) == "cooling.facility_supply");
    try {
      spec_from(p);
    } catch (const InvalidParameter& e) {
      CHECK(e.value() == "24 degC");
    }
  }
  {
    Params p;
    Params fault("cooling.faults[0]");
    fault.set("type", std::string("meteor"));
    p.set("cooling.faults", Params::List{fault});
    CHECK(key_of(p) == "cooling.faults[0].type");
  }
  {
    CoolingSpec s;
    s.flow_per_gpu = 0;
    CHECK_THROWS_AS(validate(s), InvalidParameter);
  }
}
