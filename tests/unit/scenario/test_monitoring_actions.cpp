// A cooling_monitoring response action runs only when a sensor of its alert level crosses its
// threshold (models/thermal/transient.cpp), so an action of a level no sensor has is a
// file:line:column error on its alert_level naming the levels the sensors raise; it was accepted
// and silently never ran.
#include <catch2/catch.hpp>

#include <string>

#include "sim/scenario/default_scenario.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;

namespace {
// The default scenario with a cooling_monitoring section (flow-style items).
std::string with_policy(const std::string& sensors, const std::string& actions) {
  return std::string(default_scenario_text()) + "\ncooling_monitoring:\n" +
         (sensors.empty() ? "" : "  sensors:\n" + sensors) + "  response_actions:\n" + actions;
}

int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

const std::string kWarningSensor =
    "    - {type: temperature, location: GPU inlet, threshold: 45.0, alert_level: warning}\n";
const std::string kCriticalSensor =
    "    - {type: temperature, location: GPU outlet, threshold: 60.0, alert_level: critical}\n";
const std::string kWarningAction = "    - {alert_level: warning, action: adjust pump speed}\n";
const std::string kCriticalAction = "    - {alert_level: critical, action: reduce GPU power limit}\n";
}  // namespace

TEST_CASE("a response action of an alert level no sensor raises names file, line, key and levels",
          "[loader][monitoring]") {
  struct Case {
    std::string sensors, actions, bad_action, key, message;
  };
  for (const Case& c : {
           Case{kWarningSensor, kWarningAction + kCriticalAction, kCriticalAction,
                "cooling_monitoring.response_actions[1].alert_level",
                "cooling_monitoring.response_actions[1].alert_level: got 'critical', expected the alert level of a "
                "sensor in cooling_monitoring.sensors (they raise warning): no sensor raises 'critical', so 'reduce "
                "GPU power limit' would never run"},
           Case{kCriticalSensor, kWarningAction, kWarningAction, "cooling_monitoring.response_actions[0].alert_level",
                "got 'warning', expected the alert level of a sensor in cooling_monitoring.sensors (they raise "
                "critical): no sensor raises 'warning', so 'adjust pump speed' would never run"},
           Case{"", kCriticalAction, kCriticalAction, "cooling_monitoring.response_actions[0].alert_level",
                "(there are none): no sensor raises 'critical'"},
       }) {
    const std::string text = with_policy(c.sensors, c.actions);
    try {
      load_scenario_text(text, "policy.yaml");
      FAIL("no exception for " + c.actions);
    } catch (const ScenarioError& e) {
      const int line = line_of(text, c.bad_action);
      CHECK(e.key() == c.key);
      CHECK(e.where().file == "policy.yaml");
      CHECK(e.where().line == line);
      CHECK_THAT(e.what(), Catch::StartsWith("policy.yaml:" + std::to_string(line) + ":"));
      CHECK_THAT(e.what(), Catch::Contains(c.message));
    }
  }
}

TEST_CASE("response actions of the levels the sensors raise load", "[loader][monitoring]") {
  const Scenario s =
      load_scenario_text(with_policy(kWarningSensor + kCriticalSensor, kWarningAction + kCriticalAction), "ok.yaml");
  REQUIRE(s.cooling.monitoring.actions.size() == 2);
  CHECK(s.cooling.monitoring.actions[1].alert_level == "critical");
}
