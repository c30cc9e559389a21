// ECMP walk with next-hop lists (routing.cpp: the next hops of the fabric as built, listed once per
// switch and destination class) against a walk that scans every switch's links at every hop, as
// routing did before: the same switch hops for random (src, dst, hash), healthy and after link and
// switch failures, with the lists filled before the failures and after them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <random>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

namespace {

/// The walk scanning the links: each switch's switch-switch links in link id order (the switch
/// graph's edge order), built and live distances by BFS, resilient hashing as in ecmp_walk.
class ScanWalk {
 public:
  explicit ScanWalk(const Fabric& f) : f_(f), adj_(static_cast<std::size_t>(f.node_count())) {
    for (int l = 0; l < f.link_count(); ++l) {
      const Link& x = f.link(l);
      if (x.tier != Tier::LeafSpine && x.tier != Tier::SpineCore) continue;
      adj_[x.a].push_back({l, x.b});
      adj_[x.b].push_back({l, x.a});
    }
  }
  /// Switch hops from leaf node s to leaf node t (both up and connected).
  std::vector<Hop> walk(int s, int t, std::uint64_t flow_hash) const {
    const std::vector<int> bd = dist(t, false), d = dist(t, true);
    std::vector<Hop> hops;
    for (std::uint64_t h = 0; s != t; ++h) {
      const std::uint64_t hash = splitmix64(flow_hash ^ splitmix64(h));
      if (bd[s] == d[s]) {
        std::vector<std::pair<int, int>> cand;
        for (const auto& [l, w] : adj_[s])
          if (bd[w] + 1 == bd[s]) cand.push_back({l, w});
        if (!cand.empty()) {
          const auto [l, w] = cand[hash % cand.size()];
          if (f_.link(l).up && d[w] + 1 == d[s]) {
            hops.push_back({l, f_.link(l).a == s});
            s = w;
            continue;
          }
        }
      }
      std::vector<std::pair<int, int>> live;
      for (const auto& [l, w] : adj_[s])
        if (f_.link(l).up && d[w] + 1 == d[s]) live.push_back({l, w});
      REQUIRE(!live.empty());
      const auto [l, w] = live[splitmix64(hash ^ 0x2545F4914F6CDD1Dull) % live.size()];
      hops.push_back({l, f_.link(l).a == s});
      s = w;
    }
    return hops;
  }

 private:
  std::vector<int> dist(int t, bool up_only) const {
    constexpr int kFar = 1 << 20;
    std::vector<int> d(adj_.size(), kFar);
    std::deque<int> q{t};
    d[t] = 0;
    while (!q.empty()) {
      const int v = q.front();
      q.pop_front();
      for (const auto& [l, w] : adj_[v])
        if ((!up_only || f_.link(l).up) && d[w] == kFar) {
          d[w] = d[v] + 1;
          q.push_back(w);
        }
    }
    return d;
  }
  const Fabric& f_;
  std::vector<std::vector<std::pair<int, int>>> adj_;  // per node: (link, far end)
};

/// Fabric::route's switch hops equal the scanning walk's for 3,000 random scale-out (src, dst,
/// hash); returns the routes compared.
int same_as_scan(const Fabric& f, const ScanWalk& ref, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> g(0, f.gpu_count() - 1);
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    const int s = g(rng), d = g(rng);
    const std::uint64_t h = rng();
    std::vector<Hop> r;
    try {
      r = f.route(s, d, h);
    } catch (const std::exception&) {
      continue;  // disconnected by the failures
    }
    if (r.size() < 2 || f.link(r.front().link).tier != Tier::Access) continue;  // NVLink or s == d
    const std::vector<Hop> want = ref.walk(f.link(r.front().link).b, f.link(r.back().link).b, h);
    REQUIRE(r.size() == want.size() + 2);
    for (std::size_t k = 0; k < want.size(); ++k) {
      CHECK(r[k + 1].link == want[k].link);
      CHECK(r[k + 1].forward == want[k].forward);
    }
    ++compared;
  }
  return compared;
}

/// Takes down 6 random switch-switch links, every uplink but one of GPU 0's leaf (distances
/// change), the first spine and the first core (if any).
void fail_some(Fabric& f, std::mt19937_64& rng) {
  std::vector<int> sw_links;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == Tier::LeafSpine || f.link(l).tier == Tier::SpineCore) sw_links.push_back(l);
  std::uniform_int_distribution<std::size_t> pick(0, sw_links.size() - 1);
  for (int k = 0; k < 6; ++k) f.set_link_up(sw_links[pick(rng)], false);
  const int leaf = f.leaf_of(0);
  bool kept = false;
  for (int l : sw_links)
    if (f.link(l).a == leaf && f.link(l).up) {
      if (kept) f.set_link_up(l, false);
      kept = true;
    }
  for (NodeKind k : {NodeKind::Spine, NodeKind::Core})
    for (int n = f.gpu_count(); n < f.node_count(); ++n)
      if (f.node(n).kind == k && f.node_up(n)) {
        f.fail_switch(n);
        break;
      }
}

}  // namespace

TEST_CASE("ECMP next-hop lists give the scanning walk's hops, healthy and after failures", "[topology][routes]") {
  for (const FabricSpec& spec : {superpod(4), fat_tree(8), fat_tree(16)}) {
    // Lists filled while healthy, then used after failures.
    {
      Fabric f = build_fabric(spec);
      const ScanWalk ref(f);
      std::mt19937_64 rng(7);
      CHECK(same_as_scan(f, ref, rng) > 2500);
      fail_some(f, rng);
      CHECK(same_as_scan(f, ref, rng) > 1500);
    }
    // Lists first filled with failures present.
    {
      Fabric f = build_fabric(spec);
      const ScanWalk ref(f);
      std::mt19937_64 rng(13);
      fail_some(f, rng);
      CHECK(same_as_scan(f, ref, rng) > 1500);
    }
  }
}
