// The console summary shows every headline figure with its unit, the checklist and the notes.
#include <catch2/catch.hpp>
#include <limits>

#include "sim/results/console_writer.hpp"
#include "tests/unit/results/sample_results.hpp"

using namespace aidcsim;
using aidcsim::test::sample_results;

TEST_CASE("numbers are printed with sensible precision", "[results][console]") {
  CHECK(format_figure(8064) == "8,064");
  CHECK(format_figure(12.3456) == "12.35");
  CHECK(format_figure(0.123456) == "0.1235");
  CHECK(format_figure(1.183) == "1.183");
  CHECK(format_figure(1189234.7) == "1,189,235");
  CHECK(format_figure(-2.5) == "-2.500");
  CHECK(format_figure(0) == "0");
  CHECK(format_figure(-0.0) == "0");
  CHECK(format_figure(3.2e-6) == "3.200e-06");
  CHECK(format_figure(2.5e18) == "2.500e+18");
  CHECK(format_figure(std::numeric_limits<double>::quiet_NaN()) == "n/a");
}

TEST_CASE("console summary contains the key figures, checks and notes", "[results][console]") {
  const std::string s = format_console_summary(sample_results());
  CHECK_THAT(s, Catch::Contains("stargate-uk-8k"));
  CHECK_THAT(s, Catch::Contains("gpus"));
  CHECK_THAT(s, Catch::Contains("8,064"));
  CHECK_THAT(s, Catch::Contains("12.35 s"));
  CHECK_THAT(s, Catch::Contains("41.27 %"));
  CHECK_THAT(s, Catch::Contains("52.25 degC"));
  CHECK_THAT(s, Catch::Contains("Model FLOPs utilization"));
  CHECK_THAT(s, Catch::Contains("Checks (1 of 2 passed)"));
  CHECK_THAT(s, Catch::Contains("PASS  coolant outlet < 40 degC"));
  CHECK_THAT(s, Catch::Contains("headroom 4.500 K"));  // degC difference shown in K
  CHECK_THAT(s, Catch::Contains("FAIL  loop delta T < 15 K"));
  CHECK_THAT(s, Catch::Contains("- ΔT from steady state"));
}

TEST_CASE("dotted keys are grouped under their prefix", "[results][console]") {
  Results r;
  r.add("network.max_link_utilization", 87.5, "%", "Busiest link");
  r.add("thermal.max_gpu_temperature", 52.0, "degC", "Hottest GPU");
  r.add("network.links_above_80", 12, "1", "Links above 80 %");
  const std::string s = format_console_summary(r);
  const auto net = s.find("\nnetwork\n");
  const auto th = s.find("\nthermal\n");
  REQUIRE(net != std::string::npos);
  REQUIRE(th != std::string::npos);
  CHECK(net < s.find("links_above_80"));
  CHECK(s.find("links_above_80") < th);  // both network keys together, before thermal
  CHECK(s.find("network.") == std::string::npos);
}
