// A monitoring sensor's threshold takes the unit of its type's kind (a temperature for a
// temperature sensor, a volume flow for flow_rate, a power for power); a plain number keeps the
// brief's units (°C, L/min, kW per rack); a unit of another kind is a file:line:column error that
// names the value, the kind expected and the sensor type.
#include <catch2/catch.hpp>

#include <string>

#include "sim/scenario/default_scenario.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;

namespace {
// The default scenario with a cooling_monitoring section of the given sensors (flow-style items).
std::string with_sensors(const std::string& sensors) {
  return std::string(default_scenario_text()) + "\ncooling_monitoring:\n  sensors:\n" + sensors;
}

int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}
}  // namespace

TEST_CASE("monitoring thresholds take a unit of their sensor's kind", "[loader][monitoring]") {
  const std::string text = with_sensors(
      "    - {type: temperature, location: GPU inlet, threshold: \"45 degC\"}\n"
      "    - {type: temperature, location: GPU outlet, threshold: \"140 degF\", alert_level: critical}\n"
      "    - {location: GPU outlet, threshold: \"333.15 K\"}\n"  // type defaults to temperature
      "    - {type: flow_rate, location: main loop, threshold: \"10 L/min\"}\n"
      "    - {threshold: \"0.5 L/min\", location: loop flow, type: flow}\n"  // the type after the threshold
      "    - {type: power, location: rack power, threshold: \"30 kW\"}\n"
      "    - {type: pue, location: PUE, threshold: 1.3}\n");
  const Scenario s = load_scenario_text(text, "monitor.yaml");
  const auto& ss = s.cooling.monitoring.sensors;
  REQUIRE(ss.size() == 7);
  CHECK(ss[0].threshold == Approx(318.15).epsilon(1e-15));
  CHECK(ss[1].threshold == Approx(333.15).epsilon(1e-12));  // 140 degF = 60 degC
  CHECK(ss[2].threshold == Approx(333.15).epsilon(1e-15));
  CHECK(ss[3].threshold == Approx(10.0 / 60000).epsilon(1e-15));
  CHECK(ss[4].type == "flow_rate");
  CHECK(ss[4].threshold == Approx(0.5 / 60000).epsilon(1e-15));
  CHECK(ss[5].threshold == Approx(30e3).epsilon(1e-15));
  CHECK(ss[6].threshold == Approx(1.3).epsilon(1e-15));
}

TEST_CASE("plain monitoring thresholds keep the brief's units", "[loader][monitoring]") {
  const std::string plain = with_sensors(
      "    - {type: temperature, location: GPU inlet, threshold: 45.0}\n"
      "    - {type: flow_rate, location: main loop, threshold: 10.0}\n"
      "    - {type: power, location: rack power, threshold: 30}\n");
  const std::string units = with_sensors(
      "    - {type: temperature, location: GPU inlet, threshold: 45.0 degC}\n"
      "    - {type: flow_rate, location: main loop, threshold: 10.0 L/min}\n"
      "    - {type: power, location: rack power, threshold: 30 kW}\n");
  const auto a = load_scenario_text(plain, "plain.yaml").cooling.monitoring.sensors;
  const auto b = load_scenario_text(units, "units.yaml").cooling.monitoring.sensors;
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].threshold == b[i].threshold);  // bit for bit
  CHECK(a[0].threshold == Approx(318.15).epsilon(1e-15));
}

TEST_CASE("a threshold with a unit of another kind names the value and the kind expected", "[loader][monitoring]") {
  struct Case {
    std::string sensor, value, expected;
  };
  for (const Case& c : {Case{"{type: temperature, location: GPU inlet, threshold: \"30 kW\"}", "30 kW",
                             "expected a temperature such as '25 degC' or '298.15 K' (got a power for type "
                             "'temperature'; a plain number is degC)"},
                        Case{"{type: flow_rate, location: main loop, threshold: \"85 degC\"}", "85 degC",
                             "expected a volume flow such as '1 L/min' or '100 m3/h' (got a temperature for type "
                             "'flow_rate'; a plain number is L/min)"},
                        Case{"{type: power, location: rack power, threshold: \"10 L/min\"}", "10 L/min",
                             "expected a power such as '700 W' or '1.2 kW' (got a volume flow for type 'power'; a "
                             "plain number is kW)"},
                        Case{"{type: pue, location: PUE, threshold: \"1.3 kW\"}", "1.3 kW",
                             "expected a plain number such as 1.5 (no unit allowed for type 'pue')"}}) {
    const std::string text =
        with_sensors("    - {type: temperature, location: GPU inlet, threshold: 45}\n    - " + c.sensor + "\n");
    try {
      load_scenario_text(text, "monitor.yaml");
      FAIL("no exception for " + c.sensor);
    } catch (const ScenarioError& e) {
      const int line = line_of(text, c.sensor);
      CHECK(e.key() == "cooling_monitoring.sensors[1].threshold");
      CHECK(e.where().file == "monitor.yaml");
      CHECK(e.where().line == line);
      CHECK_THAT(e.what(), Catch::StartsWith("monitor.yaml:" + std::to_string(line) + ":"));
      CHECK_THAT(e.what(),
                 Catch::Contains("cooling_monitoring.sensors[1].threshold: got '" + c.value + "', " + c.expected));
    }
  }
}

TEST_CASE("a threshold out of its type's range names the range in the unit written", "[loader][monitoring]") {
  struct Case {
    std::string sensor, message;
  };
  for (const Case& c :
       {Case{"{type: temperature, location: GPU inlet, threshold: \"200 degC\"}",
             "sensors[0].threshold: got '200 degC', expected a temperature from -50 degC to 150 degC (for type "
             "'temperature'; a plain number is degC)"},
        Case{"{type: temperature, location: GPU inlet, threshold: 200}",
             "sensors[0].threshold: got '200', expected a temperature from -50 degC to 150 degC"},
        Case{"{type: pue, location: PUE, threshold: 0.9}",
             "sensors[0].threshold: got '0.9', expected a number from 1 to 10"},
        // per GPU at "loop flow": cooling.flow_per_gpu's bound (5 L/min) and its source, in the brief's units
        Case{"{type: flow_rate, location: loop flow, threshold: \"6 L/min\"}",
             "sensors[0].threshold: got '6 L/min', expected a flow_rate threshold from 0 to 5 L/min per GPU (a cold "
             "plate's flow: the OCP 1 kW OAM plate is measured at 0.4-5 L/min, OCP OAI System Liquid Cooling "
             "Guidelines (2023) Fig. 7-8)"}}) {
    const std::string text = with_sensors("    - " + c.sensor + "\n");
    try {
      load_scenario_text(text, "monitor.yaml");
      FAIL("no exception for " + c.sensor);
    } catch (const ScenarioError& e) {
      CHECK(e.key() == "cooling_monitoring.sensors[0].threshold");
      CHECK(e.where().line == line_of(text, c.sensor));
      CHECK_THAT(e.what(), Catch::Contains(c.message));
    }
  }
}

// A location of another sensor type is reported as the location's error, even when the threshold
// is out of the range the misread location would give it: a flow_rate sensor at 'GPU inlet' with
// the brief's main-loop threshold (10 L/min) was reported as a threshold above 5 L/min per GPU.
TEST_CASE("a sensor at a location of another type is a location error", "[loader][monitoring]") {
  for (const std::string sensor : {"{type: flow_rate, location: GPU inlet, threshold: 10.0}",
                                   "{type: flow_rate, location: GPU inlet, threshold: 1.0}",
                                   "{type: temperature, location: main loop, threshold: 40}"}) {
    const std::string text = with_sensors("    - " + sensor + "\n");
    try {
      load_scenario_text(text, "monitor.yaml");
      FAIL("no exception for " + sensor);
    } catch (const ScenarioError& e) {
      CHECK(e.key() == "cooling_monitoring.sensors[0].location");
      CHECK(e.where().line == line_of(text, sensor));
      CHECK_THAT(e.what(), Catch::Contains("expected a location a "));
      CHECK_THAT(e.what(), Catch::Contains(sensor.find("flow_rate") != std::string::npos
                                               ? "flow_rate sensor reads: main loop, loop flow"
                                               : "temperature sensor reads: GPU inlet,"));
    }
  }
}
