// Route caching across failures (routing.cpp): a fabric whose routes were cached before links and
// switches failed gives exactly the routes of a fabric built fresh in the same state, whether the
// failures leave the distances as built (cached routes reused, no BFS) or change them (BFS).
#include <catch2/catch.hpp>

#include <random>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

namespace {

/// Fresh fabric with `warm`'s up/down state (switches first, then links).
Fabric cold_copy(const Fabric& warm) {
  Fabric f = build_fabric(warm.spec());
  for (int n = warm.gpu_count(); n < warm.node_count(); ++n)
    if (!warm.node_up(n) && f.node_up(n)) f.fail_switch(n);
  for (int l = 0; l < warm.link_count(); ++l)
    if (!warm.link(l).up && f.link(l).up) f.set_link_up(l, false);
  return f;
}

void same_routes(const Fabric& warm, std::mt19937_64& rng) {
  const Fabric cold = cold_copy(warm);
  const auto bad = warm.disconnected_gpus(warm.gpu_count());
  std::uniform_int_distribution<int> g(0, warm.gpu_count() - 1);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const int s = g(rng), d = g(rng);
    if (std::find(bad.begin(), bad.end(), s) != bad.end() || std::find(bad.begin(), bad.end(), d) != bad.end())
      continue;
    const std::uint64_t h = splitmix64(static_cast<std::uint64_t>(i % 97));
    std::vector<Hop> a, b;
    try {
      a = warm.route(s, d, h);
    } catch (const std::exception&) {
      CHECK_THROWS(cold.route(s, d, h));
      continue;
    }
    b = cold.route(s, d, h);
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      CHECK(a[k].link == b[k].link);
      CHECK(a[k].forward == b[k].forward);
    }
    ++checked;
  }
  CHECK(checked > 1000);
}

}  // namespace

TEST_CASE("routes cached before failures equal a fresh fabric's after them", "[topology][routes]") {
  for (const FabricSpec& spec : {superpod(4), fat_tree(8)}) {
    Fabric warm = build_fabric(spec);
    std::mt19937_64 rng(7);
    same_routes(warm, rng);  // fills the cache of the fabric as built
    std::vector<int> sw_links;
    for (int l = 0; l < warm.link_count(); ++l)
      if (warm.link(l).tier == Tier::LeafSpine || warm.link(l).tier == Tier::SpineCore) sw_links.push_back(l);
    std::uniform_int_distribution<std::size_t> pick(0, sw_links.size() - 1);
    // One link down (distances as built), several (still as built in a full Clos), a switch down,
    // then every uplink of one leaf but one (distances change: a BFS), then restored links.
    const int l0 = sw_links[pick(rng)];
    warm.set_link_up(l0, false);
    same_routes(warm, rng);
    for (int k = 0; k < 6; ++k) warm.set_link_up(sw_links[pick(rng)], false);
    same_routes(warm, rng);
    const int leaf = warm.leaf_of(0);
    std::vector<int> up;
    for (int l : sw_links)
      if (warm.link(l).a == leaf && warm.link(l).up) up.push_back(l);
    for (std::size_t k = 1; k < up.size(); ++k) warm.set_link_up(up[k], false);
    same_routes(warm, rng);
    for (std::size_t k = 1; k < up.size(); ++k) warm.set_link_up(up[k], true);
    warm.set_link_up(l0, true);
    same_routes(warm, rng);
    int sw = -1;
    for (int n = warm.gpu_count(); n < warm.node_count(); ++n)
      if (warm.node(n).kind == NodeKind::Spine) {
        sw = n;
        break;
      }
    warm.fail_switch(sw);
    same_routes(warm, rng);
    // A spine cut off from every core: its distance to other pods' leaves grows (a BFS).
    for (int n = sw + 1; n < warm.node_count(); ++n)
      if (warm.node(n).kind == NodeKind::Spine && warm.node_up(n)) {
        for (int l = 0; l < warm.link_count(); ++l)
          if (warm.link(l).tier == Tier::SpineCore && warm.link(l).a == n) warm.set_link_up(l, false);
        break;
      }
    same_routes(warm, rng);
  }
}
