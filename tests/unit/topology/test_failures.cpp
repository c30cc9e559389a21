// Failures and degradations: routes avoid dead elements, disconnected GPUs raise SimulationError.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

TEST_CASE("spine link down: routes avoid it, path count drops, restore brings it back", "[topology]") {
  Fabric f = build_fabric(superpod(4));
  const auto dead = f.find_links("leaf0-spine0.0");
  REQUIRE(dead.size() == 2);  // 2 parallel links
  CHECK(f.find_links("leaf0-spine0.0/1") == std::vector<int>{dead[1]});
  for (int id : dead) f.set_link_up(id, false);
  CHECK(f.path_count(0, 9) == 15 * 2 * 2);
  int through_spine0 = 0;
  for (int i = 0; i < 4000; ++i) {
    const auto hops = f.route(0, 9, splitmix64(i));
    for (const Hop& h : hops) {
      REQUIRE(f.link(h.link).up);
      if (f.link(h.link).b == f.find_node("spine0.0")) ++through_spine0;
    }
  }
  CHECK(through_spine0 == 0);
  for (int id : dead) f.set_link_up(id, true);
  CHECK(f.path_count(0, 9) == 16 * 2 * 2);
}

TEST_CASE("switch down: spine and core failures reroute", "[topology]") {
  Fabric f = build_fabric(fat_tree(8));
  CHECK(f.path_count(0, 127) == 16);
  f.fail_switch(f.find_node("core0"));
  CHECK_FALSE(f.node_up(f.find_node("core0")));
  CHECK(f.path_count(0, 127) == 15);
  f.fail_switch(f.find_node("spine0.0"));  // plane 0 of pod 0: cores 0..3 unreachable from pod 0
  CHECK(f.path_count(0, 127) == 12);
  for (int i = 0; i < 500; ++i)
    for (const Hop& h : f.route(0, 127, splitmix64(i))) REQUIRE(f.link(h.link).up);
}

TEST_CASE("leaf down disconnects its GPUs with a clear SimulationError", "[topology]") {
  Fabric f = build_fabric(superpod(1));
  const int leaf = f.leaf_of(9);
  f.fail_switch(leaf);
  CHECK(f.path_count(0, 9) == 0);
  try {
    f.route(0, 9, 1);
    FAIL("no exception");
  } catch (const aidcsim::SimulationError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("gpu9") != std::string::npos);
    CHECK(msg.find(f.node(leaf).name) != std::string::npos);
    CHECK(msg.find("down") != std::string::npos);
  }
  CHECK_THROWS_AS(f.route(9, 0, 1), aidcsim::SimulationError);
  // NVLink inside the node still works, and the other rails are unaffected.
  CHECK(f.route(8, 9, 1).size() == 2);
  CHECK(f.route(0, 10, 1).size() == 4);
}

TEST_CASE("failures from the spec: applied at build, names checked, degrade scales the rate", "[topology]") {
  FabricSpec s = superpod(4);
  FailureSpec a;
  a.type = FailureSpec::Type::SwitchDown;
  a.element = "spine0.3";
  a.key = "fabric.failures[0]";
  FailureSpec b;
  b.type = FailureSpec::Type::Degrade;
  b.element = "leaf0-spine0.1";
  b.factor = 0.5;
  b.key = "fabric.failures[1]";
  FailureSpec c;  // timed: only checked at build
  c.type = FailureSpec::Type::LinkDown;
  c.element = "gpu0-leaf0";
  c.at = 3600;
  c.key = "fabric.failures[2]";
  s.failures = {a, b, c};
  Fabric f = build_fabric(s);
  CHECK_FALSE(f.node_up(f.find_node("spine0.3")));
  CHECK(f.path_count(0, 9) == 15 * 4);
  for (int id : f.find_links("leaf0-spine0.1")) CHECK(f.link(id).rate == Approx(25e9));
  CHECK(f.link(f.access_link(0)).up);  // not yet
  f.apply(c);
  CHECK_FALSE(f.link(f.access_link(0)).up);
  CHECK_THROWS_AS(f.route(0, 9, 1), aidcsim::SimulationError);

  s.failures = {a};
  s.failures[0].element = "spine9.9";
  try {
    build_fabric(s);
    FAIL("no exception");
  } catch (const aidcsim::InvalidParameter& e) {
    CHECK(e.key() == "fabric.failures[0].element");
    CHECK(e.value() == "spine9.9");
  }
  s.failures[0].type = FailureSpec::Type::LinkDown;
  s.failures[0].element = "spine0.3";  // a node, not a link
  CHECK_THROWS_AS(build_fabric(s), aidcsim::InvalidParameter);
}

TEST_CASE("resilient ECMP: a failure moves only the flows that crossed the failed element", "[topology]") {
  for (const bool switch_failure : {false, true}) {
    Fabric f = build_fabric(fat_tree(8));
    const int n = f.gpu_count();
    std::vector<std::vector<Hop>> before;
    for (int src = 0; src < n; ++src) before.push_back(f.route(src, (src + n / 2) % n, ecmp_hash(3, src, 0, 0)));
    // Fail the aggregation->core hop of flow 0 (a link, or the core switch itself).
    const Link& up = f.link(before[0][2].link);
    const int core = f.link(before[0][2].link).b;
    if (switch_failure)
      f.fail_switch(core);
    else
      f.set_link_up(before[0][2].link, false);
    INFO((switch_failure ? "switch " + f.node(core).name : "link " + up.name));
    int crossed = 0, moved = 0;
    for (int src = 0; src < n; ++src) {
      const auto after = f.route(src, (src + n / 2) % n, ecmp_hash(3, src, 0, 0));
      REQUIRE(test::walk(f, src, after) == f.gpu_node((src + n / 2) % n));
      bool hit = false;
      for (const auto& h : before[src]) hit = hit || !f.link(h.link).up;
      bool same = after.size() == before[src].size();
      for (std::size_t i = 0; same && i < after.size(); ++i) same = after[i].link == before[src][i].link;
      crossed += hit;
      moved += !same;
      CHECK(same == !hit);  // unaffected flows keep their path, affected ones move
    }
    CHECK(crossed > 0);
    CHECK(moved == crossed);
  }
}

TEST_CASE("disconnected_gpus names the GPUs a failure cuts off, and only those", "[topology]") {
  Fabric f = build_fabric(fat_tree(4));  // 16 hosts, 2 per edge switch
  const int n = f.gpu_count();
  CHECK(f.disconnected_gpus(n).empty());
  // A NIC link: that GPU only.
  f.set_link_up(f.access_link(5), false);
  CHECK(f.disconnected_gpus(n) == std::vector<int>{5});
  // Its leaf: both GPUs under it.
  f.fail_switch(f.leaf_of(0));
  CHECK(f.disconnected_gpus(n) == std::vector<int>{0, 1, 5});
  // Only the job's GPUs are considered.
  CHECK(f.disconnected_gpus(1) == std::vector<int>{0});
  // A spine (aggregation switch) down leaves every GPU reachable through the other.
  Fabric g = build_fabric(fat_tree(4));
  g.fail_switch(g.link(g.route(0, 15, 0)[1].link).b);
  CHECK(g.disconnected_gpus(n).empty());
}
