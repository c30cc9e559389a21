// Fabric::built_route_holds: network::FlowNetwork keeps the healthy fabric's routes across runs
// and takes one again, without asking route(), wherever this says it holds. It must never say so
// for a route that a fresh computation on the current state would not give, and it should say so
// for NVLink routes, routes between GPUs of one leaf and routes whose switches kept their
// distances (the link-down samples of degrade mode then recompute only the transfers that crossed
// the failed link).
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;

namespace {

struct Built {
  int src, dst;
  std::uint64_t hash;
  std::vector<Hop> hops;
};

bool same(const std::vector<Hop>& a, const std::vector<Hop>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Hop& x, const Hop& y) { return x.link == y.link && x.forward == y.forward; });
}

/// Routes held on the current state, by kind; fails where a held route is not route()'s.
struct Held {
  int nvlink = 0, one_leaf = 0, over_spines = 0;
};
Held check_holds(const Fabric& f, const std::vector<Built>& built) {
  Held n;
  for (const Built& b : built) {
    if (!f.built_route_holds(b.hops)) continue;
    std::vector<Hop> fresh;
    f.route_uncached(b.src, b.dst, b.hash, fresh);  // computed on the current state, no cache
    INFO("route " << b.src << " -> " << b.dst << " hash " << b.hash);
    CHECK(same(fresh, b.hops));
    if (f.link(b.hops[0].link).tier == Tier::NvLink)
      ++n.nvlink;
    else if (b.hops.size() == 2)
      ++n.one_leaf;
    else
      ++n.over_spines;
  }
  return n;
}

}  // namespace

TEST_CASE("built_route_holds: a held built route is the one a fresh computation gives", "[topology][route_memo]") {
  // 3-tier fat tree of radix 8 (128 GPUs, 4 per leaf), NVLink domains of 2.
  FabricSpec spec = test::fat_tree(8);
  spec.gpus_per_node = 2;
  spec.nvlink_domain = 2;
  spec.nvlink_bandwidth = 450e9;
  Fabric f = build_fabric(spec);
  std::vector<Built> built;
  for (int src = 0; src < f.gpu_count(); ++src)
    for (int dst : {src ^ 1, (src + 2) % f.gpu_count(), (src * 37 + 11) % f.gpu_count()})
      for (std::uint64_t h : {std::uint64_t{0}, ecmp_hash(7, src, dst, 1), ecmp_hash(7, src, dst, 2)})
        if (dst != src) built.push_back({src, dst, h, f.route(src, dst, h)});
  const Held healthy = check_holds(f, built);
  CHECK(healthy.nvlink + healthy.one_leaf + healthy.over_spines == static_cast<int>(built.size()));
  REQUIRE(healthy.nvlink > 0);
  REQUIRE(healthy.one_leaf > 0);

  // Each link down in turn (every tier), then back up: a built route holds exactly when it does
  // not cross the link (an NVLink route stays on NVLink while its two ports are up; resilient
  // hashing keeps every other route off the failed link as it was), and then it is route()'s.
  int switch_links = 0;
  for (int l = 0; l < f.link_count(); ++l) {
    f.set_link_up(l, false);
    int held = 0, spared = 0;
    for (const Built& b : built) {
      const bool crosses = std::any_of(b.hops.begin(), b.hops.end(), [l](const Hop& h) { return h.link == l; });
      spared += !crosses;
      held += f.built_route_holds(b.hops);
      if (f.built_route_holds(b.hops) == crosses) {
        FAIL_CHECK("link " << f.link(l).name << " down: route " << b.src << " -> " << b.dst
                           << " crosses it: " << crosses << ", holds: " << !crosses);
      }
    }
    const Held h = check_holds(f, built);
    CHECK(h.nvlink + h.one_leaf + h.over_spines == held);
    CHECK(held == spared);
    switch_links += f.link(l).tier == Tier::LeafSpine || f.link(l).tier == Tier::SpineCore;
    f.set_link_up(l, true);
  }
  REQUIRE(switch_links > 0);
  // Back to healthy: all hold again.
  CHECK(check_holds(f, built).over_spines == healthy.over_spines);

  // A spine down: its links too; held routes are still route()'s.
  int spine = -1;
  for (int v = 0; v < f.node_count() && spine < 0; ++v)
    if (f.node(v).kind == NodeKind::Spine) spine = v;
  REQUIRE(spine >= 0);
  FailureSpec down;
  down.type = FailureSpec::Type::SwitchDown;
  down.element = f.node(spine).name;
  f.apply(down);
  const Held h = check_holds(f, built);
  CHECK(h.nvlink == healthy.nvlink);
  CHECK(h.over_spines < healthy.over_spines);
}
