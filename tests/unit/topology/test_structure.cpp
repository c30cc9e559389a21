// Structure against published counts: DGX SuperPOD H100 RA Table 4 and the k-ary fat tree.
#include <catch2/catch.hpp>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

TEST_CASE("DGX SuperPOD H100 Table 4: leaves, spines, spine-leaf cables for 1-4 SU", "[topology]") {
  // published-figures.md §4.4 Table 4 (32 node slots per SU; the published node counts are one
  // less because one slot holds the UFM appliance).
  struct Row {
    int su, leaves, spines, spine_leaf_cables;
  };
  for (Row r : {Row{1, 8, 4, 256}, Row{2, 16, 8, 512}, Row{3, 24, 16, 768}, Row{4, 32, 16, 1024}}) {
    INFO("SU = " << r.su);
    const Fabric f = build_fabric(superpod(r.su));
    const BillOfMaterials b = f.bom();
    CHECK(b.gpus == 256 * r.su);
    CHECK(b.leaves == r.leaves);
    CHECK(b.spines == r.spines);
    CHECK(b.cores == 0);
    CHECK(b.leaf_spine_links == r.spine_leaf_cables);
    CHECK(b.access_links == 256 * r.su);
    CHECK(b.nvswitches == 32 * r.su);
    CHECK(b.diameter == 3);
    CHECK(b.oversub_leaf == Approx(1.0));
  }
}

TEST_CASE("rail-optimized: NIC k of every node of a SU on rail leaf k", "[topology]") {
  const Fabric f = build_fabric(superpod(2));
  for (int g = 0; g < f.gpu_count(); ++g) {
    const int node = g / 8, rail = g % 8, su = node / 32;
    REQUIRE(f.node(f.leaf_of(g)).index == su * 8 + rail);
  }
  // "Traffic per rail ... is always one hop away from the other 31 nodes in a SU" (RA):
  // GPU 0 (node 0, rail 0) to GPU 8*31 (node 31, rail 0) crosses only leaf0.
  const auto hops = f.route(0, 8 * 31, 7);
  CHECK(hops.size() == 2);
  CHECK(test::walk(f, 0, hops) == f.gpu_node(8 * 31));
  // Rail 0 to rail 1, or SU 0 to SU 1, goes through the spines.
  CHECK(f.route(0, 9, 7).size() == 4);
  CHECK(f.route(0, 256, 7).size() == 4);
}

TEST_CASE("k-ary fat tree: k^3/4 hosts, 5k^2/4 switches (Al-Fares et al. 2008)", "[topology]") {
  for (int k : {4, 8, 16, 32}) {
    INFO("k = " << k);
    const Fabric f = build_fabric(fat_tree(k));
    const BillOfMaterials b = f.bom();
    CHECK(b.gpus == k * k * k / 4);
    CHECK(b.leaves == k * k / 2);
    CHECK(b.spines == k * k / 2);
    CHECK(b.cores == k * k / 4);
    CHECK(b.switches == 5 * k * k / 4);
    CHECK(f.layout().pods == k);
    CHECK(b.nvswitches == 0);
    CHECK(b.leaf_spine_links == k * k * k / 4);  // every switch port used once
    CHECK(b.spine_core_links == k * k * k / 4);
    CHECK(b.bisection_bandwidth == Approx(k * k * k / 4 * f.spec().nic_rate / 2));
    CHECK(b.diameter == 5);
    // Equal-cost paths: (k/2)^2 between pods, k/2 inside a pod, 1 under one edge switch.
    const int last = b.gpus - 1, half = k / 2;
    CHECK(f.path_count(0, last) == static_cast<std::uint64_t>(half * half));
    CHECK(f.path_count(0, half) == static_cast<std::uint64_t>(half));  // next edge, same pod
    CHECK(f.path_count(0, 1) == 1);
  }
}

TEST_CASE("every switch uses at most radix ports; NVSwitch links = domain size", "[topology]") {
  for (const FabricSpec& s : {superpod(3), fat_tree(8), FabricSpec{[] {
                                FabricSpec x;
                                x.gpus = 8064;
                                return x;
                              }()}}) {
    const Fabric f = build_fabric(s);
    std::vector<int> degree(f.node_count(), 0);
    for (int l = 0; l < f.link_count(); ++l) {
      ++degree[f.link(l).a];
      ++degree[f.link(l).b];
    }
    for (int n = 0; n < f.node_count(); ++n) {
      const Node& x = f.node(n);
      if (x.kind == NodeKind::Leaf || x.kind == NodeKind::Spine || x.kind == NodeKind::Core)
        REQUIRE(degree[n] <= s.switch_radix);
      if (x.kind == NodeKind::NvSwitch) REQUIRE(degree[n] == s.nvlink_domain);
      if (x.kind == NodeKind::Gpu) REQUIRE(degree[n] == (s.nvlink_domain > 1 ? 2 : 1));
    }
  }
}

TEST_CASE("default 8K scenario: 8064 GB200 in NVL72 racks, clos3, radix 64", "[topology]") {
  FabricSpec s;  // defaults are the stargate-uk-8k fabric: 4 GPUs/tray, NVL72, 400G, 1:1, rail-optimized
  s.gpus = 8064;
  const Fabric f = build_fabric(s);
  const BillOfMaterials b = f.bom();
  const Layout& l = f.layout();
  CHECK(b.nvswitches == 112);  // 112 NVL72 racks
  CHECK(l.leaf_down == 32);
  CHECK(l.leaf_up == 32);
  CHECK(l.scalable_units == 63);  // 2016 trays / 32 per SU
  CHECK(b.leaves == 252);         // 63 SU x 4 rails
  CHECK(l.pods == 8);             // 32 leaves (8 SU) per pod
  CHECK(b.spines == 8 * 32);
  CHECK(b.cores == 32 * 4);  // 32 planes x 4 cores (8 pods x 32 uplinks / 64 ports)
  CHECK(b.access_links == 8064);
  CHECK(b.leaf_spine_links == 252 * 32);
  CHECK(b.spine_core_links == 256 * 32);
  CHECK(b.scaleout_cables == 8064 + 252 * 32 + 256 * 32);
  CHECK(b.copper_cables == 8064);
  CHECK(b.diameter == 5);
  CHECK(b.oversub_leaf == Approx(1.0));
  CHECK(b.oversub_spine <= 1.0);
  CHECK(b.bisection_bandwidth == Approx(8064 * 50e9 / 2));
  // A full rack of 72 GPUs sits in one pod (rail-optimized pods hold whole SUs).
  CHECK(f.node(f.gpu_node(0)).pod == 0);
  CHECK(f.node(f.gpu_node(8063)).pod == 7);
}

TEST_CASE("oversubscription as built", "[topology]") {
  FabricSpec s = fat_tree(8);
  s.switch_radix = 64;
  s.oversub_leaf = 2;
  s.gpus = 42 * 8;  // 8 full leaves of 42 GPU ports + 21 uplinks
  s.kind = FabricKind::LeafSpine;
  const Fabric f = build_fabric(s);
  CHECK(f.layout().leaf_down == 42);
  CHECK(f.layout().leaf_up == 21);
  CHECK(f.bom().oversub_leaf == Approx(2.0));
  CHECK(f.bom().bisection_bandwidth == Approx(8 * 21 * s.link_rate / 2));

  // Meta-like: 16-GPU ToRs, 1:1 in the pod, 7:1 at aggregation (Llama 3 §3.3.1).
  FabricSpec m = fat_tree(8);
  m.switch_radix = 64;
  m.gpus_per_leaf = 16;
  m.oversub_spine = 7;
  m.gpus = 16 * 56 * 3;  // 3 pods of 56 ToRs
  const Fabric g = build_fabric(m);
  CHECK(g.layout().spine_down == 56);
  CHECK(g.layout().spine_up == 8);
  CHECK(g.layout().pods == 3);
  CHECK(g.bom().oversub_spine == Approx(7.0));
  CHECK(g.bom().oversub_leaf == Approx(1.0));
}

TEST_CASE("latency per link = cable + switch", "[topology]") {
  const Fabric f = build_fabric(fat_tree(4));
  const auto hops = f.route(0, 15, 3);
  REQUIRE(hops.size() == 6);
  CHECK(f.latency(hops) == Approx(6 * (100e-9 + 600e-9)));
}
