// Fabric::route_uncached (routing.cpp): the hops of Fabric::route bit for bit, without the route
// cache, on a 3-tier Clos and a rail-optimized leaf-spine, healthy and after link and switch
// failures (including ones that change distances, so that route() recomputes rather than reuses).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

namespace {

/// route_uncached equals route for 4,000 random (src, dst, hash), src == dst and NVLink pairs
/// included; a pair route() cannot connect throws from route_uncached too. `buf` keeps whatever
/// the previous call left in it (route_uncached must clear it). Returns the pairs compared.
int same_as_route(const Fabric& f, std::mt19937_64& rng, std::vector<Hop>& buf) {
  std::uniform_int_distribution<int> g(0, f.gpu_count() - 1);
  int compared = 0;
  for (int i = 0; i < 4000; ++i) {
    const int s = g(rng);
    // One in four in the source's NVLink domain (its first 8 GPUs; 1 GPU per domain on fat trees).
    const int d = i % 4 == 0 ? s - s % 8 + static_cast<int>(rng() % 8) : g(rng);  // GPU counts: multiples of 8
    const std::uint64_t h = rng();
    std::vector<Hop> want;
    try {
      want = f.route(s, d, h);
    } catch (const std::exception&) {
      CHECK_THROWS(f.route_uncached(s, d, h, buf));
      continue;
    }
    f.route_uncached(s, d, h, buf);
    REQUIRE(buf.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      CHECK(buf[k].link == want[k].link);
      CHECK(buf[k].forward == want[k].forward);
    }
    ++compared;
  }
  return compared;
}

}  // namespace

TEST_CASE("route_uncached gives route()'s hops, healthy and after failures", "[topology][routes]") {
  for (const FabricSpec& spec : {superpod(4), fat_tree(8)}) {
    Fabric f = build_fabric(spec);
    std::mt19937_64 rng(11);
    std::vector<Hop> buf{{0, true}, {1, false}, {2, true}};  // junk to be cleared

    // Uncached first on a cold fabric (nothing cached yet), then against the warm cache.
    {
      Fabric cold = build_fabric(spec);
      std::mt19937_64 r1(5), r2(5);
      std::uniform_int_distribution<int> g(0, cold.gpu_count() - 1);
      for (int i = 0; i < 500; ++i) {
        const int s = g(r1), d = g(r1);
        const std::uint64_t h = r1();
        cold.route_uncached(s, d, h, buf);
        const std::vector<Hop> want = f.route(s, d, h);  // f: the same spec, its cache filled here
        REQUIRE(buf.size() == want.size());
        for (std::size_t k = 0; k < want.size(); ++k)
          CHECK((buf[k].link == want[k].link && buf[k].forward == want[k].forward));
      }
    }
    CHECK(same_as_route(f, rng, buf) > 3000);
    f.route_uncached(3, 3, 42, buf);
    CHECK(buf.empty());
    CHECK_THROWS_AS(f.route_uncached(-1, 3, 42, buf), std::out_of_range);
    CHECK_THROWS_AS(f.route_uncached(0, f.gpu_count(), 42, buf), std::out_of_range);

    std::vector<int> sw_links;
    for (int l = 0; l < f.link_count(); ++l)
      if (f.link(l).tier == Tier::LeafSpine || f.link(l).tier == Tier::SpineCore) sw_links.push_back(l);
    std::uniform_int_distribution<std::size_t> pick(0, sw_links.size() - 1);
    // Links down with distances as built: route() reuses routes cached while healthy.
    for (int k = 0; k < 5; ++k) f.set_link_up(sw_links[pick(rng)], false);
    CHECK(same_as_route(f, rng, buf) > 3000);
    // Every uplink of GPU 0's leaf but one: distances change (a BFS), route() recomputes.
    const int leaf = f.leaf_of(0);
    std::vector<int> up;
    for (int l : sw_links)
      if (f.link(l).a == leaf && f.link(l).up) up.push_back(l);
    REQUIRE(up.size() > 1);
    for (std::size_t k = 1; k < up.size(); ++k) f.set_link_up(up[k], false);
    CHECK(same_as_route(f, rng, buf) > 3000);
    // A spine down too; then GPU 0's NIC link down (its flows off NVLink throw, from both).
    for (int n = f.gpu_count(); n < f.node_count(); ++n)
      if (f.node(n).kind == NodeKind::Spine && f.node_up(n)) {
        f.fail_switch(n);
        break;
      }
    CHECK(same_as_route(f, rng, buf) > 3000);
    for (int l = 0; l < f.link_count(); ++l)
      if (f.link(l).tier == Tier::Access && f.link(l).a == f.gpu_node(0)) f.set_link_up(l, false);
    CHECK_THROWS(f.route(0, f.gpu_count() - 1, 1));
    CHECK_THROWS(f.route_uncached(0, f.gpu_count() - 1, 1, buf));
    CHECK(same_as_route(f, rng, buf) > 3000);
  }
}
