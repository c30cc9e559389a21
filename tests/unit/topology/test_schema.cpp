// Scenario keys -> FabricSpec (spec_from), including the failures list.
#include <catch2/catch.hpp>

#include "models/topology/fabric.hpp"
#include "models/topology/topology_schema.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::topology;

TEST_CASE("spec_from reads the default scenario's fabric", "[topology]") {
  const FabricSpec s = spec_from(test::stargate_params());
  CHECK(s.gpus == 8064);
  CHECK(s.kind == FabricKind::Clos3);
  CHECK(s.wiring == Wiring::RailOptimized);
  CHECK(s.gpus_per_leaf == 0);
  CHECK(s.failures.empty());
  CHECK(build_fabric(s).bom().leaves == 252);
}

TEST_CASE("spec_from reads fabric.failures items with their keys", "[topology]") {
  Params p = test::stargate_params();
  Params item("fabric.failures[0]");
  item.set("type", std::string("degrade"));
  item.set("element", std::string("leaf2-spine0.3"));
  item.set("factor", 0.25);
  item.set("at", 60.0);
  Params bad("fabric.failures[1]");
  bad.set("type", std::string("degrade"));
  bad.set("element", std::string("leaf2-spine0.3"));
  bad.set("factor", 0.0);
  p.set("fabric.failures", Params::List{item});
  const FabricSpec s = spec_from(p);
  REQUIRE(s.failures.size() == 1);
  CHECK(s.failures[0].type == FailureSpec::Type::Degrade);
  CHECK(s.failures[0].factor == 0.25);
  CHECK(s.failures[0].at == 60.0);
  CHECK(s.failures[0].key == "fabric.failures[0]");
  p.set("fabric.failures", Params::List{item, bad});
  try {
    spec_from(p);
    FAIL("no exception");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "fabric.failures[1].factor");
  }
  // Every key this area reads is declared.
  bool has_failures = false;
  for (const Field& f : schema()) has_failures |= f.key == "fabric.failures[].element";
  CHECK(has_failures);
}

TEST_CASE("spec_from reads fabric.storage; without it there is none; a partial block names the missing key",
          "[topology][storage]") {
  Params p = test::stargate_params();
  CHECK(spec_from(p).storage.nodes == 0);
  p.set("fabric.storage.nics_per_node", 2.0);  // schema defaults: present, not written
  p.set("fabric.storage.nic_rate", 50e9);
  p.set("fabric.storage.attach", std::string("own_leaves"));
  CHECK(spec_from(p).storage.nodes == 0);
  p.set("fabric.storage.nodes", 16.0, "16");
  p.set("fabric.storage.write_bandwidth", 20e9, "20 GB/s");
  try {
    spec_from(p);
    FAIL("no error");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "fabric.storage.read_bandwidth");
  }
  p.set("fabric.storage.read_bandwidth", 40e9, "40 GB/s");
  p.set("fabric.storage.attach", std::string("per_pod"), "per_pod");
  const FabricSpec s = spec_from(p);
  CHECK(s.storage.nodes == 16);
  CHECK(s.storage.nics_per_node == 2);
  CHECK(s.storage.attach == StorageSpec::Attach::PerPod);
  CHECK(s.storage.write_bandwidth == 20e9);
  CHECK(s.storage.read_bandwidth == 40e9);
  const Fabric f = build_fabric(s);
  CHECK(f.storage_count() == 16);
  CHECK(f.node(f.storage_node(5)).pod == 5 % f.layout().pods);
}
