// Routing: equal-cost shortest paths over the switch graph and per-flow ECMP (hash) among them.
// Distances to each destination leaf come from one Boost BFS over the up links of the switch-only
// graph, computed lazily per leaf and dropped when a failure changes the graph; a route is then a
// greedy walk that at each switch hashes among the links one hop closer (resilient: over the fabric
// as built first, listed once per switch and destination class, over the up links only when that
// choice failed): O(path) when healthy, O(path x radix) for hops a failure moved.
// GPUs and NVSwitches never forward scale-out traffic (they are not in the switch graph).
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/common/errors.hpp"
#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {
namespace {

/// Keeps only links that are up.
struct UpLinks {
  const Fabric::Impl* f = nullptr;
  bool operator()(const SwitchGraph::edge_descriptor& e) const { return f->link_up[f->sw[e].link]; }
};

}  // namespace

const std::vector<std::uint8_t>& Fabric::Impl::dist_to_leaf(int leaf_node) const {
  if (!any_down) return built_dist_to_leaf(leaf_node);
  auto& d = dist[leaf_node - first_leaf];
  if (!d.empty()) return d;
  if (dist_as_built.size() != dist.size()) dist_as_built.assign(dist.size(), 0);
  const int s = leaf_node - first_leaf;
  if (node_ok[leaf_node]) {
    const auto& bd = built_dist_to_leaf(leaf_node);
    if (distances_as_built(bd)) {  // the common case: one link or switch of a Clos down
      d = bd;
      for (int n : dead_switches) d[n - first_leaf] = kUnreachable;
      dist_as_built[s] = 1;
      return d;
    }
  }
  dist_as_built[s] = 0;
  d.assign(switch_count(), kUnreachable);
  d[s] = 0;
  if (!node_ok[leaf_node]) return d;
  boost::filtered_graph<SwitchGraph, UpLinks> fg(sw, UpLinks{this});
  auto dmap = boost::make_iterator_property_map(d.begin(), boost::get(boost::vertex_index, fg));
  boost::breadth_first_search(
      fg, static_cast<SwitchGraph::vertex_descriptor>(s),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dmap, boost::on_tree_edge()))));
  return d;
}

bool Fabric::Impl::distances_as_built(const std::vector<std::uint8_t>& bd) const {
  // Switches that lost a link one hop closer to the leaf (or the failed switch they went through).
  std::vector<int> risk;
  auto lost = [&](int u, int w) {  // switch indices; u lost its link to w
    if (bd[u] != kUnreachable && bd[w] != kUnreachable && bd[u] == bd[w] + 1) risk.push_back(u);
  };
  for (int l : down_switch_links) {
    const int u = links[l].a - first_leaf, w = links[l].b - first_leaf;
    lost(u, w);
    lost(w, u);
  }
  for (int n : dead_switches) {
    const int v = n - first_leaf;
    if (bd[v] == 0) return false;  // the destination leaf itself
    for (auto [e, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(v), sw); e != end; ++e)
      lost(static_cast<int>(boost::target(*e, sw)), v);
  }
  if (risk.empty()) return true;
  std::sort(risk.begin(), risk.end(), [&](int x, int y) { return bd[x] < bd[y] || (bd[x] == bd[y] && x < y); });
  risk.erase(std::unique(risk.begin(), risk.end()), risk.end());
  // In increasing distance: a switch keeps its distance when a live link leads to a live switch
  // one hop closer that kept its own (all switches at risk closer than it are decided already).
  std::vector<std::pair<int, char>> decided;  // (switch, kept), sorted like `risk`
  auto kept = [&](int y) {
    for (const auto& [z, k] : decided)
      if (z == y) return k != 0;
    return std::find(risk.begin(), risk.end(), y) == risk.end();  // not at risk
  };
  for (int x : risk) {
    bool ok = false;
    for (auto [e, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(x), sw); e != end && !ok; ++e) {
      const int y = static_cast<int>(boost::target(*e, sw));
      if (bd[y] + 1 != bd[x] || !link_up[sw[*e].link] || !node_ok[y + first_leaf]) continue;
      ok = kept(y);
    }
    if (!ok) return false;
    decided.emplace_back(x, 1);
  }
  return true;
}

const std::vector<std::uint8_t>& Fabric::Impl::built_dist_to_leaf(int leaf_node) const {
  auto& d = built_dist[leaf_node - first_leaf];
  if (!d.empty()) return d;
  const int s = leaf_node - first_leaf;
  // A twin t (same neighbours N, not adjacent since no switch is its own neighbour): for every
  // other switch v, dist(v, s) = 1 + min over N of dist(v, u) = dist(v, t); dist(t, s) = 2.
  // Leaves of one pod (or rail group) are such twins: one BFS per neighbourhood, not per leaf.
  std::vector<int> nb;
  for (auto [e, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(s), sw); e != end; ++e)
    nb.push_back(static_cast<int>(boost::target(*e, sw)));
  std::sort(nb.begin(), nb.end());
  nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
  if (!nb.empty()) {
    const auto [it, fresh] = built_dist_twin.try_emplace(std::move(nb), s);
    if (!fresh) {
      const int t = it->second;
      d = built_dist[t];
      d[t] = 2;
      d[s] = 0;
      return d;
    }
  }
  d.assign(switch_count(), kUnreachable);
  d[s] = 0;
  auto dmap = boost::make_iterator_property_map(d.begin(), boost::get(boost::vertex_index, sw));
  boost::breadth_first_search(
      sw, static_cast<SwitchGraph::vertex_descriptor>(s),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dmap, boost::on_tree_edge()))));
  return d;
}

void Fabric::Impl::disconnected(int src, int dst, const char* why) const {
  throw SimulationError("no route from " + nodes[src].name + " to " + nodes[dst].name + ": " + why);
}

namespace {

/// One plane's ends of a scale-out route: the two leaves, the distance table to the destination
/// leaf, the two access links; dist == nullptr (and `why`) when the plane does not connect them.
struct Ends {
  int s_leaf = 0, d_leaf = 0;  // node ids
  int s_access = 0, d_access = 0;
  const std::vector<std::uint8_t>* dist = nullptr;
  std::string why;
};

Ends plane_ends(const Fabric::Impl& f, int src, int dst, int plane) {
  Ends e;
  const std::size_t is = static_cast<std::size_t>(src) * f.planes + plane,
                    id = static_cast<std::size_t>(dst) * f.planes + plane;
  e.s_leaf = f.gpu_leaf[is];
  e.d_leaf = f.gpu_leaf[id];
  e.s_access = f.gpu_access[is];
  e.d_access = f.gpu_access[id];
  for (int g : {src, dst}) {
    const std::size_t i = static_cast<std::size_t>(g) * f.planes + plane;
    const int leaf = f.gpu_leaf[i];
    if (!f.node_ok[leaf])
      e.why = f.nodes[g].name + "'s leaf " + f.nodes[leaf].name + " is down";
    else if (!f.link_up[f.gpu_access[i]])  // Link::up's compact mirror: Link is a large struct
      e.why = f.nodes[g].name + "'s NIC link " + f.links[f.gpu_access[i]].name + " is down";
    if (!e.why.empty()) {
      e.why += " (GPU disconnected from the fabric)";
      return e;
    }
  }
  const auto& d = f.dist_to_leaf(e.d_leaf);
  if (d[e.s_leaf - f.first_leaf] == Fabric::Impl::kUnreachable) {
    e.why =
        "no up path between " + f.nodes[e.s_leaf].name + " and " + f.nodes[e.d_leaf].name + " (failed links/switches)";
    return e;
  }
  e.dist = &d;
  return e;
}

/// Calls fn(link, forward, next_switch_index) for each up link from switch v one hop closer.
template <class Fn>
void next_hops(const Fabric::Impl& f, const std::vector<std::uint8_t>& d, int v, Fn&& fn) {
  const auto dv = d[v];
  for (auto [e, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(v), f.sw); e != end; ++e) {
    const int w = static_cast<int>(boost::target(*e, f.sw));
    if (d[w] + 1 != dv) continue;
    const int id = f.sw[*e].link;
    if (!f.link_up[id]) continue;
    fn(id, f.links[id].a == v + f.first_leaf, w);
  }
}

bool nvlink_up(const Fabric::Impl& f, int src, int dst) {
  return f.gpu_nvlink[src] >= 0 && src / f.spec.nvlink_domain == dst / f.spec.nvlink_domain &&
         f.links[f.gpu_nvlink[src]].up && f.links[f.gpu_nvlink[dst]].up;
}

/// Destination class of leaf t (switch index; Fabric::Impl::hop_class): its neighbourhood's.
int hop_class(const Fabric::Impl& f, int t) {
  if (f.hop_class.empty()) {
    f.hop_class.assign(f.switch_count(), -1);
    f.last_hops.resize(f.switch_count());
  }
  int& c = f.hop_class[t];
  if (c >= 0) return c;
  std::vector<int> nb;
  for (auto [e, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(t), f.sw); e != end; ++e)
    nb.push_back(static_cast<int>(boost::target(*e, f.sw)));
  std::sort(nb.begin(), nb.end());
  nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
  const int fresh_class = static_cast<int>(f.class_hops.size());
  c = nb.empty() ? fresh_class : f.hop_class_of.try_emplace(std::move(nb), fresh_class).first->second;
  if (c == fresh_class) {
    f.class_hops.emplace_back(static_cast<std::size_t>(f.switch_count()));
  }
  return c;
}

constexpr int kMaxNextHops = 1024;  // next hops hashed over per switch (as many as any radix)

/// The next hops from switch v towards leaf `target` (switch indices) over the fabric as built,
/// in v's edge order (bd = built_dist_to_leaf(target), bd[v] >= 1): a list of f.hop_pool.
Fabric::Impl::HopList built_next_hops(const Fabric::Impl& f, int v, int target, const std::vector<std::uint8_t>& bd,
                                      int cls) {
  Fabric::Impl::HopList* slot = nullptr;
  if (bd[v] >= 2) {
    slot = &f.class_hops[cls][v];
  } else {
    auto& mine = f.last_hops[target];
    for (auto& [u, l] : mine)
      if (u == v) return l;
    mine.emplace_back(v, Fabric::Impl::HopList{});
    slot = &mine.back().second;
  }
  if (slot->begin >= 0) return *slot;
  std::vector<Fabric::Impl::NextHop> c;
  const std::uint8_t dv = bd[v];
  for (auto [x, end] = boost::out_edges(static_cast<SwitchGraph::vertex_descriptor>(v), f.sw); x != end; ++x) {
    const int w = static_cast<int>(boost::target(*x, f.sw));
    if (bd[w] + 1 != dv || static_cast<int>(c.size()) >= kMaxNextHops) continue;
    const int link = f.sw[*x].link;
    c.push_back({link, 2 * w + (f.links[link].a == v + f.first_leaf ? 1 : 0)});
  }
  // The same list for other classes (a leaf's uplinks towards every other pod) is stored once.
  if (f.hop_lists_of.size() < static_cast<std::size_t>(f.switch_count())) f.hop_lists_of.resize(f.switch_count());
  const auto same = [&](const Fabric::Impl::HopList& o) {
    return o.n == static_cast<int>(c.size()) &&
           std::equal(c.begin(), c.end(), f.hop_pool.begin() + o.begin,
                      [](const auto& a, const auto& b) { return a.link == b.link && a.to == b.to; });
  };
  for (const Fabric::Impl::HopList& o : f.hop_lists_of[v])
    if (same(o)) return *slot = o;
  Fabric::Impl::HopList l{static_cast<int>(f.hop_pool.size()), static_cast<int>(c.size())};
  f.hop_pool.insert(f.hop_pool.end(), c.begin(), c.end());
  f.hop_lists_of[v].push_back(l);
  return *slot = l;
}

/// The switch hops from leaf `s_leaf` to leaf `d_leaf` (node ids) along one equal-cost shortest
/// path chosen by `flow_hash` (Fabric::route's ECMP), appended to `hops`; `d` = dist_to_leaf(d_leaf).
/// src, dst: the flow's endpoints, for errors.
void ecmp_walk(const Fabric::Impl& f, int s_leaf, int d_leaf, const std::vector<std::uint8_t>& d,
               std::uint64_t flow_hash, std::vector<Hop>& hops, int src, int dst) {
  int v = s_leaf - f.first_leaf;
  const int target = d_leaf - f.first_leaf;
  const auto& bd = f.any_down ? f.built_dist_to_leaf(d_leaf) : d;
  const int cls = v != target ? hop_class(f, target) : 0;
  for (std::uint64_t h = 0; v != target; ++h) {
    const std::uint64_t hash = splitmix64(flow_hash ^ splitmix64(h));
    // Resilient hashing: the flow hashes over the next hops of the fabric as built; only when that
    // choice is down or no longer on a shortest path does it re-hash over the live next hops. A
    // failure then moves only the flows that crossed the failed element (switch "resilient ECMP"),
    // instead of re-spreading every flow through the switch (modulo-N hashing). On a healthy
    // fabric both sets are equal and so are the routes.
    if (bd[v] == d[v]) {
      const Fabric::Impl::HopList l = built_next_hops(f, v, target, bd, cls);
      if (l.n > 0) {
        const Fabric::Impl::NextHop c = f.hop_pool[l.begin + static_cast<int>(hash % static_cast<std::uint64_t>(l.n))];
        const int w = c.to >> 1;
        if (f.link_up[c.link] && d[w] + 1 == d[v]) {
          hops.push_back({c.link, (c.to & 1) != 0});
          v = w;
          continue;
        }
      }
    }
    // Re-hash with a salt: among the live hops, independent of the failed first choice (counted,
    // then walked to: no candidate arrays to clear per route).
    int n = 0;
    next_hops(f, d, v, [&](int, bool, int) { n += n < kMaxNextHops ? 1 : 0; });
    if (n == 0) f.disconnected(src, dst, "routing table inconsistent");  // cannot happen: d[v] finite
    int pick = static_cast<int>(splitmix64(hash ^ 0x2545F4914F6CDD1Dull) % static_cast<std::uint64_t>(n));
    int next = -1;
    next_hops(f, d, v, [&](int id, bool fwd, int w) {
      if (pick-- == 0) {
        hops.push_back({id, fwd});
        next = w;
      }
    });
    v = next;
  }
}

}  // namespace

std::vector<int> Fabric::disconnected_gpus(int count) const {
  const Impl& f = *impl_;
  count = std::clamp(count, 0, gpu_count());
  std::vector<char> connected(static_cast<std::size_t>(count), 0);
  for (int p = 0; p < f.planes; ++p) {
    // GPUs whose leaf and NIC link are up, counted per leaf.
    std::vector<int> per_leaf(static_cast<std::size_t>(f.switch_count()), 0);
    std::vector<char> attached(static_cast<std::size_t>(count), 0);
    for (int g = 0; g < count; ++g) {
      const std::size_t i = static_cast<std::size_t>(g) * f.planes + p;
      if (f.node_ok[f.gpu_leaf[i]] && f.links[f.gpu_access[i]].up) {
        attached[g] = 1;
        ++per_leaf[f.gpu_leaf[i] - f.first_leaf];
      }
    }
    // The leaf with the most attached GPUs anchors the job on this plane; a GPU is connected when
    // its leaf reaches the anchor (distances over up links, Fabric::Impl::dist_to_leaf).
    const int anchor = static_cast<int>(std::max_element(per_leaf.begin(), per_leaf.end()) - per_leaf.begin());
    if (per_leaf[anchor] == 0) continue;
    const auto& d = f.dist_to_leaf(anchor + f.first_leaf);
    for (int g = 0; g < count; ++g) {
      const int leaf = f.gpu_leaf[static_cast<std::size_t>(g) * f.planes + p];
      if (attached[g] && d[leaf - f.first_leaf] != Impl::kUnreachable) connected[g] = 1;
    }
  }
  std::vector<int> out;
  for (int g = 0; g < count; ++g)
    if (!connected[g]) out.push_back(g);
  return out;
}

bool Fabric::check_route_ends(int src, int dst) const {
  const Impl& f = *impl_;
  const bool storage = src >= f.spec.gpus || dst >= f.spec.gpus;
  if (storage) {
    for (int n : {src, dst})
      if (!is_endpoint(n))
        throw std::out_of_range("node " + std::to_string(n) + " is neither a GPU rank in [0, " +
                                std::to_string(f.spec.gpus) + ") nor a storage server's node id");
  } else {
    gpu_node(src);
    gpu_node(dst);
  }
  return storage;
}

void Fabric::route_uncached(int src, int dst, std::uint64_t flow_hash, std::vector<Hop>& out) const {
  const bool storage = check_route_ends(src, dst);
  out.clear();
  if (src == dst) return;
  // route() returns a cached route only when computing it again gives the same hops: a route
  // cached while nothing was down is reused after failures only when its links are up and the
  // distances to its leaf are as built, and resilient hashing then walks the same hops.
  if (storage)
    out = storage_route(src, dst, flow_hash);
  else
    compute_route(src, dst, flow_hash, out);
}

std::size_t Fabric::cached_route_hops() const { return impl_->route_cache_hops + impl_->built_route_cache_hops; }

bool Fabric::takes_nvlink(int src, int dst) const {
  const Impl& f = *impl_;
  const int G = f.spec.gpus;
  return src != dst && src >= 0 && dst >= 0 && src < G && dst < G && nvlink_up(f, src, dst);
}

bool Fabric::built_route_holds(const std::vector<Hop>& b) const {
  const Impl& f = *impl_;
  if (!f.any_down) return true;
  if (f.dead_switches.empty()) {
    // No switch down (invalidate lists every failed one), so every leaf is up: both cases below
    // then ask exactly that the route is one (size >= 2) whose hops are all up. Reads link_up
    // only, not the Link records (a link-down sample asks this of every sub-flow of the
    // healthy route table: ~640K at 31K GPUs).
    if (b.size() < 2) return false;
    for (const Hop& h : b)
      if (!f.link_up[h.link]) return false;
    return true;
  }
  // An NVLink route (a GPU's NVLink port out, the other's in): compute_route takes it whenever
  // both ports are up (nvlink_up; the domain is fixed), whatever else is down.
  if (b.size() == 2 && f.links[b[0].link].tier == Tier::NvLink && f.links[b[1].link].tier == Tier::NvLink)
    return f.link_up[b[0].link] && f.link_up[b[1].link];
  // Over the leaves: with every hop up (a failed switch's links are down), each switch x on the
  // route still reaches the destination leaf in its built distance bd[x] along it, and failures
  // only lengthen distances, so dist_to_leaf gives d[x] = bd[x] there. ecmp_walk then takes the
  // built choice at each of them (bd == d, the choice up and one hop closer), and the plane is
  // the built one (its ends are up and connected, the planes hashed before it were not connected
  // as built and are not now). Between GPUs of one leaf: the two access hops, on the same terms.
  if (b.size() < 2) return false;
  for (const Hop& h : b)
    if (!f.link_up[h.link]) return false;
  return f.node_ok[f.links[b.back().link].b] != 0;  // the destination's access link ends at its leaf
}

std::vector<Hop> Fabric::route(int src, int dst, std::uint64_t flow_hash) const {
  const Impl& f = *impl_;
  const bool storage = check_route_ends(src, dst);
  if (src == dst) return {};
  const Impl::RouteKey key{src, dst, flow_hash};
  auto remember = [&](std::unordered_map<Impl::RouteKey, std::vector<Hop>, Impl::RouteKeyHash>& cache,
                      std::size_t& hops_held, const std::vector<Hop>& hops) {
    if (hops_held + hops.size() > Impl::kRouteCacheHops) {
      cache.clear();
      hops_held = 0;
    }
    hops_held += hops.size();
    cache.emplace(key, hops);
  };
  if (!f.any_down) {
    if (auto it = f.built_route_cache.find(key); it != f.built_route_cache.end()) return it->second;
    std::vector<Hop> hops;
    if (storage)
      hops = storage_route(src, dst, flow_hash);
    else
      compute_route(src, dst, flow_hash, hops);
    remember(f.built_route_cache, f.built_route_cache_hops, hops);
    return hops;
  }
  if (auto it = f.route_cache.find(key); it != f.route_cache.end()) return it->second;
  if (storage) {  // with failures, recomputed (the reuse test below reads a GPU route's last hop)
    std::vector<Hop> hops = storage_route(src, dst, flow_hash);
    remember(f.route_cache, f.route_cache_hops, hops);
    return hops;
  }
  if (auto it = f.built_route_cache.find(key); it != f.built_route_cache.end()) {
    const std::vector<Hop>& b = it->second;
    bool alive = true;
    for (const Hop& h : b) alive = alive && f.link_up[h.link];
    const int leaf = f.links[b.back().link].b;  // the destination's access link ends at its leaf
    if (alive && b.size() > 2 && f.node_ok[leaf]) {
      f.dist_to_leaf(leaf);  // decides dist_as_built for that leaf
      if (f.dist_as_built[leaf - f.first_leaf]) return b;
    }
  }
  std::vector<Hop> hops;
  compute_route(src, dst, flow_hash, hops);
  remember(f.route_cache, f.route_cache_hops, hops);
  return hops;
}

namespace {
int hashed_plane(const Fabric::Impl& f, std::uint64_t flow_hash) {
  return f.planes > 1 ? static_cast<int>(splitmix64(flow_hash ^ 0x5bd1e9955bd1e995ull) % f.planes) : 0;
}
/// Whether a route between src and dst takes a storage server's NIC on a plane of its own.
bool storage_nic_plane(const Fabric::Impl& f, int src, int dst) {
  return (src >= f.spec.gpus || dst >= f.spec.gpus) && f.spec.storage.attach != StorageSpec::Attach::Separate;
}
}  // namespace

int Fabric::plane_of(int src, int dst, std::uint64_t flow_hash) const {
  const Impl& f = *impl_;
  if (f.planes < 2) return 0;
  if (storage_nic_plane(f, src, dst))
    return static_cast<int>(flow_hash % static_cast<std::uint64_t>(f.spec.storage.nics_per_node)) % f.planes;
  return hashed_plane(f, flow_hash);
}

std::uint64_t Fabric::hash_on_plane(int src, int dst, std::uint64_t flow_hash, int plane) const {
  const Impl& f = *impl_;
  if (plane < 0 || plane >= f.planes)
    throw std::out_of_range("plane " + std::to_string(plane) + " outside [0, " + std::to_string(f.planes) + ")");
  if (storage_nic_plane(f, src, dst)) {  // nics_per_node is a multiple of planes (the schema checks)
    const auto nics = static_cast<std::uint64_t>(f.spec.storage.nics_per_node);
    const std::uint64_t k = flow_hash % nics;
    return flow_hash - k + (k - k % f.planes + plane);
  }
  std::uint64_t h = flow_hash;
  for (std::uint64_t k = 1; hashed_plane(f, h) != plane; ++k) h = splitmix64(flow_hash + 0x9e3779b97f4a7c15ull * k);
  return h;
}

void Fabric::compute_route(int src, int dst, std::uint64_t flow_hash, std::vector<Hop>& hops) const {
  const Impl& f = *impl_;
  if (nvlink_up(f, src, dst)) {
    hops.push_back({f.gpu_nvlink[src], true});
    hops.push_back({f.gpu_nvlink[dst], false});
    return;
  }
  const int first_plane = hashed_plane(f, flow_hash);
  Ends e;
  std::string why;
  for (int i = 0; i < f.planes && !e.dist; ++i) {
    e = plane_ends(f, src, dst, (first_plane + i) % f.planes);
    if (i == 0) why = e.why;
  }
  if (!e.dist) f.disconnected(src, dst, (f.planes > 1 ? "on every plane; e.g. " + why : why).c_str());
  const auto& d = *e.dist;
  hops.reserve(hops.size() + 2 + 2 * d[e.s_leaf - f.first_leaf]);
  hops.push_back({e.s_access, true});
  ecmp_walk(f, e.s_leaf, e.d_leaf, d, flow_hash, hops, src, dst);
  hops.push_back({e.d_access, false});
}

std::vector<Hop> Fabric::storage_route(int src, int dst, std::uint64_t flow_hash) const {
  const Impl& f = *impl_;
  const int G = f.spec.gpus;
  if (src >= G && dst >= G) f.disconnected(src, dst, "flows between storage servers are not modelled");
  const bool write = dst >= G;
  const int server = (write ? dst : src) - f.first_storage, gpu = write ? src : dst;
  const StorageSpec& st = f.spec.storage;
  const int nics = st.nics_per_node;
  const int k = static_cast<int>(flow_hash % static_cast<std::uint64_t>(nics));
  const bool separate = st.attach == StorageSpec::Attach::Separate;
  // The GPU's port: on the plane of the server's NIC; separate storage: the GPU's plane by hash, as GPU flows.
  const int q = separate ? hashed_plane(f, flow_hash) : k % f.planes;
  const std::size_t gi = static_cast<std::size_t>(gpu) * f.planes + q, si = static_cast<std::size_t>(server) * nics + k;
  const int g_access = f.gpu_access[gi], s_access = f.stor_access[si];
  std::vector<Hop> mid;
  std::string why;
  if (!f.links[g_access].up) why = f.nodes[gpu].name + "'s NIC link " + f.links[g_access].name + " is down";
  if (!separate) {
    const int g_leaf = f.gpu_leaf[gi], s_leaf = f.stor_leaf[si];
    if (!f.node_ok[g_leaf]) why = f.nodes[gpu].name + "'s leaf " + f.nodes[g_leaf].name + " is down";
    if (!f.node_ok[s_leaf])
      why = f.nodes[f.first_storage + server].name + "'s leaf " + f.nodes[s_leaf].name + " is down";
    if (!f.links[s_access].up) why = "storage NIC link " + f.links[s_access].name + " is down";
    if (why.empty()) {
      const int from = write ? g_leaf : s_leaf, to = write ? s_leaf : g_leaf;
      const auto& d = f.dist_to_leaf(to);
      if (d[from - f.first_leaf] == Impl::kUnreachable)
        why = "no up path between " + f.nodes[from].name + " and " + f.nodes[to].name + " (failed links/switches)";
      else
        ecmp_walk(f, from, to, d, flow_hash, mid, src, dst);
    }
  }
  if (!why.empty()) f.disconnected(src, dst, why.c_str());
  std::vector<Hop> hops;
  hops.reserve(mid.size() + 3);
  if (write) {
    hops.push_back({g_access, true});
    hops.insert(hops.end(), mid.begin(), mid.end());
    hops.push_back({s_access, false});
    hops.push_back({f.stor_write[server], true});
  } else {
    hops.push_back({f.stor_read[server], true});
    hops.push_back({s_access, true});
    hops.insert(hops.end(), mid.begin(), mid.end());
    hops.push_back({g_access, false});
  }
  return hops;
}

namespace {

/// Number of equal-cost paths from every switch on the way to `target` (memoised DFS, counts
/// saturate at 2^64-1 which no real fabric reaches). The memo lives in the fabric (path_memo, per
/// target, for the current up/down state) so that later calls to the same leaf reuse it.
struct PathCounts {
  const Fabric::Impl& f;
  const std::vector<std::uint8_t>& d;
  int target;
  std::vector<std::uint64_t>& memo;
  std::vector<char>& done;  ///< per switch: 1 memo[v] known, 2 step(v) known, 4 step(v) > 0
  PathCounts(const Fabric::Impl& fi, const std::vector<std::uint8_t>& di, int t)
      : f(fi), d(di), target(t), memo(slot(fi.path_memo, fi, t)), done(slot(fi.path_done, fi, t)) {}
  std::uint64_t operator()(int v) {
    if (v == target) return 1;
    if (done[v] & 1) return memo[v];
    std::uint64_t c = 0;
    next_hops(f, d, v, [&](int, bool, int w) { c += (*this)(w); });
    done[v] |= 1;
    return memo[v] = c;
  }
  /// The path count of each of v's n next hops `hops` (its next_hops(), in their order) when they
  /// are all equal, else 0: then the path of rank r from v leaves by hop r / step (which of the
  /// two is memoised per v; the count is the first hop's).
  std::uint64_t step(int v, const Fabric::Impl::NextHop* hops, int n) {
    const std::uint64_t c = (*this)(hops[0].to >> 1);
    if (!(done[v] & 2)) {
      bool equal = c > 0;
      for (int k = 1; k < n && equal; ++k) equal = (*this)(hops[k].to >> 1) == c;
      done[v] |= equal ? 6 : 2;
    }
    return (done[v] & 4) ? c : 0;
  }

 private:
  template <class T>
  static std::vector<T>& slot(std::vector<std::vector<T>>& per_target, const Fabric::Impl& fi, int t) {
    if (per_target.size() < static_cast<std::size_t>(fi.switch_count())) per_target.resize(fi.switch_count());
    auto& v = per_target[t];
    if (v.empty()) v.assign(fi.switch_count(), T{});
    return v;
  }
};

}  // namespace

std::uint64_t Fabric::path_count(int src, int dst) const {
  const Impl& f = *impl_;
  gpu_node(src);
  gpu_node(dst);
  if (src == dst || nvlink_up(f, src, dst)) return 1;
  std::uint64_t total = 0;
  for (int q = 0; q < f.planes; ++q) {
    const Ends e = plane_ends(f, src, dst, q);
    if (!e.dist) continue;
    PathCounts count(f, *e.dist, e.d_leaf - f.first_leaf);
    total += count(e.s_leaf - f.first_leaf);
  }
  return total;
}

namespace {

/// Paths of the given ranks (in the order (plane, next_hops())) between two GPUs; rank_of(k, total)
/// gives the rank of path k of m. Shared by Fabric::routes and Fabric::routes_strided.
/// A pair joined by an up NVLink gets its one NVLink path (route()'s): its traffic never takes the
/// scale-out fabric, whoever asks (a sprayed or spread transfer inside a domain went over the NICs).
template <class RankOf>
std::vector<std::vector<Hop>> ranked_paths(const Fabric::Impl& f, int src, int dst, std::size_t limit,
                                           RankOf&& rank_of) {
  std::vector<std::vector<Hop>> out;
  if (src == dst || limit == 0) return out;
  if (nvlink_up(f, src, dst)) {
    out.push_back({{f.gpu_nvlink[src], true}, {f.gpu_nvlink[dst], false}});
    return out;
  }
  std::vector<Ends> ends;
  std::vector<PathCounts> counts;
  std::vector<std::uint64_t> per_plane;
  std::uint64_t total = 0;
  std::string why;
  for (int q = 0; q < f.planes; ++q) {
    Ends e = plane_ends(f, src, dst, q);
    if (q == 0) why = e.why;
    if (!e.dist) continue;
    counts.emplace_back(f, *e.dist, e.d_leaf - f.first_leaf);
    per_plane.push_back(counts.back()(e.s_leaf - f.first_leaf));
    total += per_plane.back();
    ends.push_back(std::move(e));
  }
  if (total == 0) f.disconnected(src, dst, (f.planes > 1 ? "on every plane; e.g. " + why : why).c_str());
  const std::uint64_t m = std::min<std::uint64_t>(total, limit);
  out.reserve(m);
  for (std::uint64_t k = 0; k < m; ++k) {
    std::uint64_t rank = rank_of(k, m, total);
    std::size_t q = 0;
    while (rank >= per_plane[q]) rank -= per_plane[q++];
    const Ends& e = ends[q];
    PathCounts& count = counts[q];
    std::vector<Hop> path;
    path.reserve(2 + static_cast<std::size_t>((*e.dist)[e.s_leaf - f.first_leaf]));
    path.push_back({e.s_access, true});
    int cls = -1;
    for (int v = e.s_leaf - f.first_leaf; v != count.target;) {
      // Healthy fabric: v's next hops are its list of the fabric as built (ecmp_walk's, in the
      // same edge order); when they all lead to as many paths (every Clos this builds), the hop of
      // this rank is a division, not a scan of v's links (4.2 M spread paths at 32K GPUs).
      if (!f.any_down) {
        if (cls < 0) cls = hop_class(f, count.target);
        const Fabric::Impl::HopList l = built_next_hops(f, v, count.target, *e.dist, cls);
        if (l.n > 0 && l.n < kMaxNextHops) {
          const Fabric::Impl::NextHop* c = f.hop_pool.data() + l.begin;
          if (const std::uint64_t step = count.step(v, c, l.n); step > 0) {
            const Fabric::Impl::NextHop h = c[rank / step];
            rank %= step;
            path.push_back({h.link, (h.to & 1) != 0});
            v = h.to >> 1;
            continue;
          }
        }
      }
      int next = -1;
      next_hops(f, *e.dist, v, [&](int id, bool fwd, int w) {
        if (next >= 0) return;
        const std::uint64_t c = count(w);
        if (rank < c) {
          path.push_back({id, fwd});
          next = w;
        } else {
          rank -= c;
        }
      });
      v = next;
    }
    path.push_back({e.d_access, false});
    out.push_back(std::move(path));
  }
  return out;
}

}  // namespace

std::vector<std::vector<Hop>> Fabric::routes(int src, int dst, std::size_t limit) const {
  const Impl& f = *impl_;
  if ((src >= f.spec.gpus && is_endpoint(src)) || (dst >= f.spec.gpus && is_endpoint(dst))) return {};
  gpu_node(src);
  gpu_node(dst);
  // Path k of m is the path of rank floor(k * total / m): all paths when total <= limit, else a
  // sample spread evenly over planes, spines and cores.
  return ranked_paths(f, src, dst, limit, [](std::uint64_t k, std::uint64_t m, std::uint64_t total) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) * total) / m);
  });
}

std::vector<std::vector<Hop>> Fabric::routes_strided(int src, int dst, std::size_t m, std::uint64_t seed,
                                                     bool seed_is_phase) const {
  const Impl& f = *impl_;
  if ((src >= f.spec.gpus && is_endpoint(src)) || (dst >= f.spec.gpus && is_endpoint(dst))) return {};
  gpu_node(src);
  gpu_node(dst);
  return ranked_paths(f, src, dst, m, [seed, seed_is_phase](std::uint64_t k, std::uint64_t n, std::uint64_t total) {
    if (n >= total) return k;
    if (seed_is_phase) {
      // Path k in the k-th of n equal slices of the ranks, at the fraction (phase + k's bits
      // reversed) mod 1 of its slice: rank r is taken iff the phase falls in one interval of
      // length n / total, so transfers whose phases are evenly spread put every rank, and so
      // every link, at its mean share; the reversed bits give the slices different offsets (the
      // lower hops: cores, parallel links) within one transfer.
      std::uint64_t rev = 0;  // k's bits reversed, a fraction of 2^64 (k < m: a few bits)
      for (std::uint64_t t = k, bit = 1ull << 63; t; t >>= 1, bit >>= 1)
        if (t & 1) rev |= bit;
      const unsigned __int128 at = (static_cast<unsigned __int128>(k) << 64) + (seed + rev);
      return static_cast<std::uint64_t>(at * total / n >> 64);
    }
    const std::uint64_t stride = total / n + 1;
    // The first rank is seed's fraction of 2^64 of the paths (a random seed: a random path).
    const std::uint64_t first = static_cast<std::uint64_t>((static_cast<unsigned __int128>(seed) * total) >> 64);
    return static_cast<std::uint64_t>((first + static_cast<unsigned __int128>(k) * stride) % total);
  });
}

double Fabric::latency(const std::vector<Hop>& hops) const {
  double t = 0;
  for (const Hop& h : hops) t += link(h.link).latency;  // side links (storage media) too
  return t;
}

}  // namespace aidcsim::topology
