// Scenario keys -> CoolingSpec, and bad input -> InvalidParameter naming the key.
#include <catch2/catch.hpp>
#include <set>

#include "models/thermal/thermal_schema.hpp"

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
  for (const char* k : {"cooling.coolant",
                        "cooling.flow_per_gpu",
                        "cooling.facility_supply",
                        "cooling.cdu_approach",
                        "cooling.liquid_fraction",
                        "cooling.rdhx.effectiveness",
                        "cooling.limits.inlet_max",
                        "cooling.limits.outlet_max",
                        "cooling.limits.delta_t_max",
                        "cooling.limits.hotspot_max",
                        "cooling_monitoring.sensors[].type",
                        "cooling_monitoring.sensors[].threshold",
                        "cooling_monitoring.response_actions[].action",
                        "cooling.faults[].type",
                        "cooling.faults[].at",
                        "cooling.plant.chip",
                        "cooling.plant.rack",
                        "cooling.plant.room",
                        "cooling.plant.cdu",
                        "cooling.plant.heat_rejection",
                        "cooling.immersion_tank.fluid_volume",
                        "cooling.in_row_cooler.capacity",
                        "cooling.crah.capacity",
                        "cooling.heat_rejection.tower_approach",
                        "cooling.server_air.recirculation",
                        "cooling.faults[].duration",
                        "cooling.pumps.failover_time",
                        "power.distribution_loss"})
    CHECK(keys.count(k) == 1);
  for (const auto& f : schema()) CHECK(!f.doc.empty());
}

TEST_CASE("spec_from reads values and lists; thresholds in SI, ranged in the brief's units", "[thermal][schema]") {
  Params root;
  root.set("cooling.flow_per_gpu", 0.8 / 60000);
  root.set("cooling.coolant", std::string("pg25"));
  Params sensor("cooling_monitoring.sensors[0]");
  sensor.set("type", std::string("temperature"));
  sensor.set("location", std::string("GPU inlet"));
  sensor.set("threshold", 318.15, "45");  // SI, as the loader hands it over (by the sensor type)
  sensor.set("alert_level", std::string("warning"));
  Params flow("cooling_monitoring.sensors[1]");  // the brief's main-loop sensor, as written
  flow.set("type", std::string("flow_rate"));
  flow.set("location", std::string("main loop"));
  flow.set("threshold", 10.0 / 60000, "10");
  root.set("cooling_monitoring.sensors", Params::List{sensor, flow});
  Params fault("cooling.faults[0]");
  fault.set("type", std::string("pump_failure"));
  fault.set("at", 600.0);
  fault.set("target", 2.0);
  root.set("cooling.faults", Params::List{fault});
  const CoolingSpec c = spec_from(root);
  CHECK(c.flow_per_gpu == Approx(0.8 / 60000));
  CHECK(c.coolant == "pg25");
  REQUIRE(c.monitoring.sensors.size() == 2);
  CHECK(c.monitoring.sensors[0].threshold == Approx(318.15));
  CHECK(c.monitoring.sensors[1].type == "flow_rate");
  CHECK(c.monitoring.sensors[1].threshold == Approx(10.0 / 60000));  // the loop's total, m^3/s
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
    Params p;  // 24 °C + 4 K approach > 25 °C inlet limit: a limit, not an error (checked, reported)
    p.set("cooling.facility_supply", 297.15, "24 degC");
    CHECK(key_of(p) == "");
  }
  {
    Params p;  // an unknown component names the slot and the valid ones
    p.set("cooling.plant.rack", std::string("sprinkler"));
    try {
      spec_from(p);
      FAIL("no exception");
    } catch (const InvalidParameter& e) {
      CHECK(e.key() == "cooling.plant.rack");
      CHECK(e.expected() == "one of rdhx, in_row_cooler, none");
    }
  }
  {
    Params p;  // servers cannot be immersed in water
    p.set("cooling.plant.chip", std::string("immersion_tank"));
    CHECK(key_of(p) == "cooling.coolant");
  }
  {
    Params p;  // a flow sensor cannot read a temperature location
    Params sensor("cooling_monitoring.sensors[0]");
    sensor.set("type", std::string("flow_rate"));
    sensor.set("location", std::string("GPU inlet"));
    sensor.set("threshold", 2.0 / 60000, "2");  // 2 L/min: within the flow bound, so the location is what is wrong
    p.set("cooling_monitoring.sensors", Params::List{sensor});
    CHECK(key_of(p) == "cooling_monitoring.sensors[0].location");
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
