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

TEST_CASE("the console shows the load of each fabric tier and the hottest link directions",
          "[results][console][architect]") {
  // Which links saturate was only in the HDF5 file (/network/*_by_tier, /network/timeline/hot_link).
  Results r;
  r.add("step_time", 9.8, "s", "Step");
  r.labels.push_back({"/network/tier", {"nvlink", "access", "leaf_spine", "spine_core"}, "Fabric tiers"});
  r.datasets.push_back({"/network/bytes_by_tier", {4}, {0, 618.6e12, 19.36e12, 0.5e12}, "B", "", {"tier"}});
  r.datasets.push_back({"/network/max_utilization_by_tier", {4}, {0, 0.0427, 0.0192, 0.002}, "1", "", {"tier"}});
  r.datasets.push_back({"/network/p99_utilization_by_tier", {4}, {0, 0.0416, 0.0128, 0.001}, "1", "", {"tier"}});
  // Two bins x four tiers: the access tier peaks at 96 % in the second bin.
  r.datasets.push_back({"/network/timeline/max_utilization_by_tier",
                        {2, 4},
                        {0, 0.5, 0.72, 0.01, 0, 0.96, 0.3, 0.005},
                        "1",
                        "",
                        {"time", "tier"}});
  r.labels.push_back({"/network/timeline/hot_link", {"gpu1-leaf1 (up)", "leaf0-spine0.0 (up)"}, "Hot links"});
  r.datasets.push_back(
      {"/network/timeline/hot_link_utilization", {2, 2}, {0.2, 0.7, 0.96, 0.1}, "1", "", {"time", "hot_link"}});
  const std::string s = format_console_summary(r);
  REQUIRE_THAT(s, Catch::Contains("Fabric tiers"));
  const std::string table = s.substr(s.find("Fabric tiers"));
  CHECK(table.find("nvlink") == std::string::npos);  // carried nothing
  CHECK_THAT(table, Catch::Matches("(.|\n)*access +618.6 +4.270 % +4.160 % +96 %(.|\n)*"));
  CHECK_THAT(table, Catch::Matches("(.|\n)*leaf_spine +19.36 +1.920 % +1.280 % +72 %(.|\n)*"));
  CHECK_THAT(table, Catch::Matches("(.|\n)*spine_core +0.5000 +0.2000 % +0.1000 % +1 %(.|\n)*"));
  CHECK_THAT(table, Catch::Contains("gpu1-leaf1 (up) 96 %, leaf0-spine0.0 (up) 70 %"));
}

TEST_CASE("no fabric tier table without the network datasets", "[results][console][architect]") {
  Results r;
  r.add("step_time", 9.8, "s", "Step");
  CHECK(format_console_summary(r).find("Fabric tiers") == std::string::npos);
}
