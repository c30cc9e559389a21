// The built-in fabric parts file (models/topology/bom_parts.yaml) and a scenario's `bom:` overrides.
#include <catch2/catch.hpp>

#include "sim/scenario/bom_parts.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/unit/scenario/scenario_text.hpp"

using namespace aidcsim;

TEST_CASE("built-in parts file: valid, every part sourced, prices and powers set", "[bom]") {
  const topology::BomSpec b = builtin_bom_spec();
  REQUIRE_FALSE(b.switches.empty());
  REQUIRE_FALSE(b.optics.empty());
  CHECK(b.switches.front().name == "QM9700");
  CHECK(b.switches.front().ports == 64);
  CHECK(b.switches.front().port_rate == Approx(50e9));
  CHECK(b.switches.front().ports_per_cage == 2);
  for (const auto& s : b.switches) {
    CHECK_FALSE(s.source.empty());
    CHECK(s.power > 0);
    CHECK(s.price > 0);
  }
  for (const auto& o : b.optics) {
    INFO(o.name);
    CHECK_FALSE(o.source.empty());
    CHECK(o.reach > 0);
  }
  // Read from the NVIDIA part datasheets (bom_parts.yaml): twin-port 2xSR4 15 W, 50 m.
  bool sr = false;
  for (const auto& o : b.optics)
    if (o.name == "MMA4Z00-NS 2xSR4") sr = o.power == 15 && o.reach == 50 && o.ports == 2;
  CHECK(sr);
  CHECK(b.nic_power > 0);
}

TEST_CASE("a scenario's bom: section overrides keys and items by name, adds new items", "[bom]") {
  const Scenario s = load_scenario_text(test::default_with("seed: 42",
                                                           "seed: 42\n"
                                                           "bom:\n"
                                                           "  layout:\n"
                                                           "    racks_per_row: 8\n"
                                                           "  nic:\n"
                                                           "    power: 30 W\n"
                                                           "  switches:\n"
                                                           "    - name: QM9700\n"
                                                           "      ports: 64\n"
                                                           "      port_rate: 400 Gbps\n"
                                                           "      power: 1 kW\n"
                                                           "      price: 40 kUSD\n"
                                                           "    - name: MySwitch\n"
                                                           "      ports: 128\n"
                                                           "      port_rate: 400 Gbps\n"
                                                           "      power: 1.5 kW\n"
                                                           "      price: 60 kUSD"),
                                        "bom.yaml");
  const topology::BomSpec base = builtin_bom_spec();
  CHECK(s.bom.layout.racks_per_row == 8);
  CHECK(s.bom.layout.rack_pitch == base.layout.rack_pitch);  // not given: the parts file's
  CHECK(s.bom.nic_power == 30);
  CHECK(s.bom.nic_price == base.nic_price);
  REQUIRE(s.bom.switches.size() == base.switches.size() + 1);
  CHECK(s.bom.switches.front().power == 1000);  // replaced in place
  CHECK(s.bom.switches.front().price == 40000);
  CHECK(s.bom.switches.back().name == "MySwitch");
  CHECK(s.bom.optics.size() == base.optics.size());
}

TEST_CASE("bom errors point at the scenario line", "[bom]") {
  const std::string text = test::default_with("seed: 42", "seed: 42\nbom:\n  switch_model: QM9999");
  try {
    load_scenario_text(text, "bad.yaml");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(e.where().line == test::line_of(text, "switch_model"));
    CHECK_THAT(e.what(), Catch::Contains("QM9700"));
  }
  const std::string missing =
      test::default_with("seed: 42", "seed: 42\nbom:\n  switches:\n    - name: New\n      ports: 64");
  CHECK_THROWS_WITH(load_scenario_text(missing, "bad.yaml"), Catch::Contains("port_rate"));
}
