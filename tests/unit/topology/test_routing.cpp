// Routing: NVLink inside a domain, equal-cost shortest paths and per-flow ECMP hashing.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

TEST_CASE("same NVLink domain: gpu -> nvswitch -> gpu", "[topology]") {
  const Fabric f = build_fabric(superpod(1));
  const auto hops = f.route(3, 5, 11);
  REQUIRE(hops.size() == 2);
  CHECK(f.link(hops[0].link).tier == Tier::NvLink);
  CHECK(f.link(hops[0].link).rate == 450e9);
  CHECK(test::walk(f, 3, hops) == f.gpu_node(5));
  CHECK(f.nvlink_domain_of(5) == 0);
  CHECK(f.nvlink_domain_of(8) == 1);
  CHECK(f.route(4, 4, 1).empty());
}

TEST_CASE("routes are valid shortest paths and deterministic per flow hash", "[topology]") {
  const Fabric f = build_fabric(fat_tree(8));
  const Fabric g = build_fabric(fat_tree(8));
  for (int src = 0; src < f.gpu_count(); src += 7) {
    const int dst = (src * 37 + 11) % f.gpu_count();
    if (dst == src) continue;
    const std::uint64_t h = ecmp_hash(42, src, dst, 0);
    const auto a = f.route(src, dst, h);
    REQUIRE(test::walk(f, src, a) == f.gpu_node(dst));
    const bool same_leaf = f.leaf_of(src) == f.leaf_of(dst);
    const bool same_pod = f.node(f.leaf_of(src)).pod == f.node(f.leaf_of(dst)).pod;
    CHECK(a.size() == (same_leaf ? 2u : same_pod ? 4u : 6u));
    const auto b = f.route(src, dst, h);
    const auto c = g.route(src, dst, h);  // another build of the same spec
    REQUIRE(a.size() == c.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].link == b[i].link);
      CHECK(a[i].link == c[i].link);
    }
  }
}

TEST_CASE("ECMP spreads flows over all spines and cores", "[topology]") {
  const Fabric f = build_fabric(superpod(4));  // 16 spines, 2 parallel links per leaf-spine pair
  std::map<int, int> per_spine;
  const int flows = 16000;
  for (int i = 0; i < flows; ++i) {
    const auto hops = f.route(0, 9, ecmp_hash(1, 0, 9, i));
    REQUIRE(hops.size() == 4);
    ++per_spine[f.link(hops[1].link).b];
  }
  REQUIRE(per_spine.size() == 16);
  for (auto [spine, n] : per_spine) {  // binomial(16000, 1/16): mean 1000, sd ~31
    CHECK(n > 850);
    CHECK(n < 1150);
  }
  // Fat tree k=8: cross-pod flows reach all 16 cores.
  const Fabric t = build_fabric(fat_tree(8));
  std::set<int> cores;
  for (int i = 0; i < 2000; ++i) {
    const auto hops = t.route(0, 127, splitmix64(i));
    cores.insert(t.link(hops[2].link).b);
  }
  CHECK(cores.size() == 16);
}

TEST_CASE("equal-cost path counts", "[topology]") {
  // SuperPOD 1 SU, rail 0 -> rail 1: 4 spines x 8 parallel links up x 8 down.
  const Fabric one = build_fabric(superpod(1));
  CHECK(one.path_count(0, 9) == 4 * 8 * 8);
  CHECK(one.path_count(0, 8) == 1);  // same leaf
  // 4 SU: 16 spines x 2 x 2.
  const Fabric four = build_fabric(superpod(4));
  CHECK(four.path_count(0, 1000) == 16 * 2 * 2);
  // routes() enumerates exactly path_count distinct paths.
  const auto all = four.routes(0, 1000);
  CHECK(all.size() == 64);
  std::set<std::vector<int>> distinct;
  for (const auto& p : all) {
    std::vector<int> ids;
    for (const Hop& h : p) ids.push_back(h.link);
    distinct.insert(ids);
    CHECK(test::walk(four, 0, p) == four.gpu_node(1000));
  }
  CHECK(distinct.size() == 64);
  // A limited sample is spread over every spine (4 consecutive ranks per spine here).
  const auto sample = four.routes(0, 1000, 16);
  REQUIRE(sample.size() == 16);
  std::set<int> spines;
  for (const auto& p : sample) spines.insert(four.link(p[1].link).b);
  CHECK(spines.size() == 16);
}

TEST_CASE("tiny clusters and NVLink fallback", "[topology]") {
  FabricSpec s = test::superpod(1);
  s.gpus = 8;  // one node: one leaf per rail, 8 leaves, spines still join the rails
  Fabric f = build_fabric(s);
  CHECK(f.route(0, 7, 1).size() == 2);
  // NVLink down: the pair falls back to the scale-out fabric.
  f.set_link_up(f.nvlink_link(7), false);
  const auto hops = f.route(0, 7, 1);
  CHECK(hops.size() == 4);
  CHECK(f.link(hops.front().link).tier == Tier::Access);
  // A single leaf needs no spine.
  FabricSpec one = test::fat_tree(8);
  one.gpus = 3;
  const Fabric g = build_fabric(one);
  CHECK(g.bom().switches == 1);
  CHECK(g.route(0, 2, 5).size() == 2);
  CHECK(g.bom().diameter == 1);
}

TEST_CASE("route() is cheap at 8K GPUs: every GPU to a neighbour in another rack", "[topology]") {
  FabricSpec s;
  s.gpus = 8064;
  const Fabric f = build_fabric(s);
  std::map<std::size_t, int> lengths;  // same rail leaf: 2 links, same pod: 4, across pods: 6
  for (int g = 0; g < s.gpus; ++g) {
    const int dst = (g + 72) % s.gpus;
    const auto hops = f.route(g, dst, ecmp_hash(0, g, dst, 0));
    REQUIRE(test::walk(f, g, hops) == f.gpu_node(dst));
    ++lengths[hops.size()];
  }
  CHECK(lengths.size() == 3);
  CHECK(lengths[2] + lengths[4] + lengths[6] == s.gpus);
  // 1024 GPUs per pod: the last 72 GPUs of every pod (and of the cluster) cross pods.
  CHECK(lengths[6] == 8 * 72);
}

TEST_CASE("leaves wired to the same switches share one distance table: paths as a BFS finds them", "[topology]") {
  // Fabric::Impl::built_dist_to_leaf runs one BFS per neighbourhood and derives the tables of the
  // other leaves with the same neighbours (every leaf of a pod here). Checked against a BFS of the
  // test's own over the link list: shortest-path length and number of shortest paths (parallel
  // links counted) between every pair of leaves.
  FabricSpec rail = superpod(4);
  rail.kind = FabricKind::Clos3;
  rail.gpus = 1024;
  rail.switch_radix = 16;
  rail.oversub_spine = 3;
  for (const FabricSpec& spec : {fat_tree(8), rail}) {
    const Fabric f = build_fabric(spec);
    std::vector<std::vector<int>> adj(f.node_count());
    for (int l = 0; l < f.link_count(); ++l) {
      const Link& k = f.link(l);
      const NodeKind a = f.node(k.a).kind, b = f.node(k.b).kind;
      auto sw = [](NodeKind x) { return x == NodeKind::Leaf || x == NodeKind::Spine || x == NodeKind::Core; };
      if (sw(a) && sw(b)) {
        adj[k.a].push_back(k.b);
        adj[k.b].push_back(k.a);
      }
    }
    std::map<int, int> gpu_on_leaf;  // leaf node -> a GPU wired to it (plane 0)
    for (int g = 0; g < f.gpu_count(); ++g) gpu_on_leaf.emplace(f.leaf_of(g), g);
    REQUIRE(gpu_on_leaf.size() > 8);
    int checked = 0;
    for (const auto& [src_leaf, src] : gpu_on_leaf) {
      std::vector<int> dist(f.node_count(), -1);
      std::vector<std::uint64_t> count(f.node_count(), 0);
      std::vector<int> queue{src_leaf};
      dist[src_leaf] = 0;
      count[src_leaf] = 1;
      for (std::size_t q = 0; q < queue.size(); ++q)
        for (int w : adj[queue[q]]) {
          if (dist[w] < 0) {
            dist[w] = dist[queue[q]] + 1;
            queue.push_back(w);
          }
          if (dist[w] == dist[queue[q]] + 1) count[w] += count[queue[q]];
        }
      for (const auto& [dst_leaf, dst] : gpu_on_leaf) {
        if (dst_leaf == src_leaf || f.nvlink_domain_of(src) == f.nvlink_domain_of(dst)) continue;
        INFO(f.node(src_leaf).name << " -> " << f.node(dst_leaf).name);
        REQUIRE(dist[dst_leaf] > 0);
        CHECK(f.path_count(src, dst) == count[dst_leaf]);
        const auto r = f.route(src, dst, 12345u + static_cast<unsigned>(dst));
        CHECK(static_cast<int>(r.size()) == dist[dst_leaf] + 2);  // + the two access links
        CHECK(test::walk(f, src, r) == f.gpu_node(dst));
        ++checked;
      }
    }
    CHECK(checked > 64);
  }
}

TEST_CASE("routes() and routes_strided() keep a pair of one NVLink domain on NVLink", "[topology]") {
  // Sprayed and spread transfers ask routes() / routes_strided(); inside a domain they used to get
  // the scale-out paths (GPU 0 -> NIC -> leaf -> spine -> leaf -> NIC -> GPU 1) while route()
  // gave NVLink: an 8-GPU ring all-reduce inside an NVL72 domain on `ecmp: spray` ran at 40 GB/s
  // busbw instead of 663.
  Fabric f = build_fabric(superpod(1));
  const std::vector<Hop> nvlink = f.route(0, 1, 0);
  REQUIRE(nvlink.size() == 2);
  auto same = [](const std::vector<Hop>& a, const std::vector<Hop>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].link != b[i].link || a[i].forward != b[i].forward) return false;
    return true;
  };
  const auto all = f.routes(0, 1, 4096);
  REQUIRE(all.size() == 1);
  CHECK(same(all[0], nvlink));
  for (bool phase : {false, true}) {
    const auto spread = f.routes_strided(0, 1, 16, 0x9e3779b97f4a7c15ull, phase);
    REQUIRE(spread.size() == 1);
    CHECK(same(spread[0], nvlink));
  }
  CHECK(f.path_count(0, 1) == 1);
  CHECK(f.routes(0, 1, 0).empty());
  CHECK(f.routes(0, 0).empty());
  // Other domains: the scale-out paths as before.
  CHECK(f.routes(0, 9).size() == f.path_count(0, 9));
  CHECK(f.path_count(0, 9) == 4 * 8 * 8);
  // NVLink down: the pair's traffic takes the scale-out fabric, so its paths are listed.
  f.set_link_up(f.nvlink_link(1), false);
  const auto out = f.routes(0, 1, 4096);
  CHECK(out.size() == f.path_count(0, 1));
  CHECK(out.size() > 1);
  for (const auto& p : out) {
    CHECK(f.link(p.front().link).tier == Tier::Access);
    CHECK(test::walk(f, 0, p) == f.gpu_node(1));
  }
  CHECK(f.routes_strided(0, 1, 4, 7).size() == 4);
}
