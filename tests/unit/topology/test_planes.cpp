// Multi-plane fabrics: disjoint copies of the switch fabric, one NIC port per plane.
#include <catch2/catch.hpp>
#include <set>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;

TEST_CASE("two planes: switch counts double, NIC rate splits, flows spread over planes", "[topology]") {
  FabricSpec s = test::superpod(1);
  s.nic_rate = 100e9;  // 800 Gb/s NIC as 2 x 400 Gb/s ports
  s.planes = 2;
  Fabric f = build_fabric(s);
  const BillOfMaterials b = f.bom();
  CHECK(f.planes() == 2);
  CHECK(b.leaves == 16);
  CHECK(b.spines == 8);
  CHECK(b.access_links == 2 * 256);
  CHECK(b.leaf_spine_links == 2 * 256);
  CHECK(f.link(f.access_link(5, 1)).rate == 50e9);
  CHECK(f.node(f.leaf_of(9, 1)).name == "p1.leaf1");
  CHECK(f.find_node("p1.spine0.2") >= 0);
  CHECK(b.bisection_bandwidth == Approx(256 * 100e9 / 2));
  CHECK(f.path_count(0, 9) == 2 * 256);
  int on_plane1 = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto hops = f.route(0, 9, splitmix64(i));
    REQUIRE(test::walk(f, 0, hops) == f.gpu_node(9));
    on_plane1 += hops[0].link == f.access_link(0, 1);
  }
  CHECK(on_plane1 > 850);
  CHECK(on_plane1 < 1150);
  // Routes of a spray sample use both planes.
  std::set<int> first_links;
  for (const auto& p : f.routes(0, 9, 8)) first_links.insert(p[0].link);
  CHECK(first_links.size() == 2);

  // Plane 0's leaf of GPU 9 fails: every flow moves to plane 1, nothing is disconnected.
  f.fail_switch(f.leaf_of(9, 0));
  CHECK(f.path_count(0, 9) == 256);
  for (int i = 0; i < 200; ++i) CHECK(f.route(0, 9, splitmix64(i))[0].link == f.access_link(0, 1));
  f.fail_switch(f.leaf_of(9, 1));
  CHECK_THROWS_AS(f.route(0, 9, 1), aidcsim::SimulationError);
}
