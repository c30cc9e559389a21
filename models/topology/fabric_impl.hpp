#pragma once
// Internal: the data behind a Fabric (not part of the contract; only models/topology includes it).
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "models/topology/fabric.hpp"

namespace aidcsim::topology {

/// Edge bundle: the Link id the edge stands for.
struct EdgeProp {
  int link = 0;
};
/// Undirected multigraph (parallel links are parallel edges); vertex id == node id (full graph)
/// or switch index (switch graph).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property, EdgeProp>;
/// Switch-only graph for routing: static CSR (both directions of every switch-switch link), read
/// by every BFS, so it is kept compact; failures only flip Impl::link_up.
using SwitchGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeProp>;

struct Fabric::Impl {
  FabricSpec spec;
  Layout layout;
  std::vector<std::string> warnings;  ///< built otherwise than asked (build_fabric), one sentence each
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<double> built_rate;  ///< rate at build time, per link
  std::vector<char> node_ok;       ///< 0 once a switch failed
  int first_nvs = 0, first_leaf = 0, first_spine = 0, first_core = 0, n_nodes = 0;
  /// Storage (FabricSpec::storage): storage leaves, storage-pod spines and servers come after the
  /// cores, in that order: [first_sleaf, first_storage) are switches (in the switch graph),
  /// [first_storage, n_nodes) the servers. first_storage == n_nodes without storage.
  int first_sleaf = 0, first_sspine = 0, first_storage = 0;
  std::vector<int> stor_leaf;    ///< leaf node id per server and NIC: [server * nics + k]; -1 attach: separate
  std::vector<int> stor_access;  ///< NIC link per server and NIC: [server * nics + k]
  std::vector<int> stor_write, stor_read;  ///< media link ids per server
  /// Links that are not cables of the fabric (ids links.size() + i): storage media, and the NICs
  /// of separately attached storage. Fabric::link/link_count include them; bom(), the exports and
  /// the name lookup see only `links`. Always up, never failed.
  std::vector<Link> side_links;
  int planes = 1;               ///< disjoint fabric planes
  std::vector<int> gpu_leaf;    ///< leaf node id per GPU and plane: [gpu * planes + plane]
  std::vector<int> gpu_access;  ///< access link per GPU and plane: [gpu * planes + plane]
  std::vector<int> gpu_nvlink;  ///< NVLink link per GPU, -1 if none
  Graph g;                      ///< every node and link
  SwitchGraph sw;               ///< switches only (vertex = node id - first_leaf)
  std::vector<char> link_up;    ///< mirror of Link::up, compact for the BFS filter
  std::map<std::string, int, std::less<>> by_name;
  /// Per leaf of every plane (index = leaf node - first_leaf): hops from every switch to it over up links
  /// (kUnreachable if none); empty until first needed.
  mutable std::vector<std::vector<std::uint8_t>> dist;
  /// Same over every link as built (failures ignored): the next hops resilient ECMP hashes over.
  mutable std::vector<std::vector<std::uint8_t>> built_dist;
  /// Per set of neighbour switches (sorted): a switch with that neighbourhood whose built_dist is
  /// known. Two leaves wired to the same switches are at the same distance from every other
  /// switch, so the second one's table is the first one's with their two entries swapped.
  mutable std::map<std::vector<int>, int> built_dist_twin;
  static constexpr std::uint8_t kUnreachable = 255;
  /// Per destination leaf (switch index, as dist): equal-cost path counts from every switch to it
  /// over up links (routing.cpp PathCounts), filled as routes() / routes_strided() / path_count()
  /// ask; a spread all-to-all asks for the same leaves' counts 262K times. Cleared with dist.
  mutable std::vector<std::vector<std::uint64_t>> path_memo;
  mutable std::vector<std::vector<char>> path_done;

  /// Routes already computed, per (src, dst, flow hash), for the current up/down state: every
  /// step variant and rollout phase asks for the same flows' routes again. Cleared on any failure
  /// (invalidate) and when it holds kRouteCacheHops hops.
  struct RouteKey {
    int src, dst;
    std::uint64_t hash;
    bool operator==(const RouteKey& o) const { return src == o.src && dst == o.dst && hash == o.hash; }
  };
  struct RouteKeyHash {
    std::size_t operator()(const RouteKey& k) const {
      return static_cast<std::size_t>(k.hash ^
                                      (static_cast<std::uint64_t>(k.src) << 32 | static_cast<std::uint32_t>(k.dst)) *
                                          0x9E3779B97F4A7C15ull);
    }
  };
  mutable std::unordered_map<RouteKey, std::vector<Hop>, RouteKeyHash> route_cache;
  mutable std::size_t route_cache_hops = 0;
  /// Routes computed while nothing was down. Kept across failures: with failures, a cached route
  /// is still the route when all its links are up and the distances to its destination leaf are
  /// those of the fabric as built (resilient hashing then picks the same hops).
  mutable std::unordered_map<RouteKey, std::vector<Hop>, RouteKeyHash> built_route_cache;
  mutable std::size_t built_route_cache_hops = 0;
  /// ECMP next hops of the fabric as built (routing.cpp ecmp_walk: each hop is then one look-up,
  /// not a scan of the switch's links), filled as walks ask and never cleared: failures change
  /// only which of them are up, which the walk checks. Leaves wired to the same switches (the
  /// twins of built_dist_twin) form a destination class: from a switch two or more hops away the
  /// next hops to every leaf of the class are the same, in the same order (the twins are at equal
  /// distance from every switch but themselves, and no such switch has one as next hop, or it
  /// would be one hop away). One hop away they are the links to that leaf: kept per leaf. A list
  /// equal to one of the switch's lists already made (a leaf's uplinks towards every other pod)
  /// is not stored again: they stay in cache.
  struct NextHop {
    int link;
    int to;  ///< next switch index x 2, + 1 when the link is crossed forward (from Link::a)
  };
  struct HopList {
    int begin = -1, n = 0;  ///< entries [begin, begin + n) of hop_pool; begin -1: not filled
  };
  mutable std::vector<int> hop_class;                      ///< per leaf (switch index): class, -1 unknown
  mutable std::map<std::vector<int>, int> hop_class_of;    ///< neighbour switches (sorted) -> class
  mutable std::vector<std::vector<HopList>> class_hops;    ///< per class, per switch index (>= 2 hops away)
  mutable std::vector<NextHop> hop_pool;                   ///< the lists' entries
  mutable std::vector<std::vector<HopList>> hop_lists_of;  ///< per switch index: its distinct lists
  mutable std::vector<std::vector<std::pair<int, HopList>>> last_hops;  ///< per leaf: (switch one hop away, list)
  /// Per leaf: dist[leaf] equals built_dist[leaf] (but for failed switches), known once dist is.
  mutable std::vector<char> dist_as_built;
  std::vector<int> down_switch_links;  ///< switch-switch links down (invalidate)
  std::vector<int> dead_switches;      ///< failed switches, node ids (invalidate)
  /// Whether removing the failed links and switches leaves every distance to a leaf as built:
  /// every switch that lost a link one hop closer still has a live one whose far end kept its
  /// distance (checked in increasing distance). Exact; false means "run a BFS".
  bool distances_as_built(const std::vector<std::uint8_t>& bd) const;
  static constexpr std::size_t kRouteCacheHops = std::size_t(1) << 24;  ///< ~16M hops, ~0.3 GB with the map

  int switch_count() const { return first_storage - first_leaf; }
  const std::vector<std::uint8_t>& dist_to_leaf(int leaf_node) const;
  const std::vector<std::uint8_t>& built_dist_to_leaf(int leaf_node) const;
  /// Whether any link or switch is down; while none is, dist_to_leaf is built_dist_to_leaf (one
  /// BFS per destination leaf instead of two, the first route to each leaf being the costly one).
  bool any_down = false;
  void invalidate() {
    for (auto& d : dist) d.clear();
    path_memo.clear();
    path_done.clear();
    route_cache.clear();
    route_cache_hops = 0;
    down_switch_links.clear();
    dead_switches.clear();
    any_down = false;
    for (std::size_t l = 0; l < link_up.size(); ++l)
      if (!link_up[l]) {
        any_down = true;
        if (links[l].a >= first_leaf && links[l].b >= first_leaf) down_switch_links.push_back(static_cast<int>(l));
      }
    for (int n = first_leaf; n < n_nodes; ++n)
      if (!node_ok[n]) {
        any_down = true;
        dead_switches.push_back(n);
      }
  }
  [[noreturn]] void disconnected(int src, int dst, const char* why) const;
};

/// Appends the storage of f.spec.storage to a fabric whose GPU part is wired (nodes, links, layout;
/// before the graphs are built): storage leaves, storage-pod spines, servers, their links and
/// media; sets first_sleaf, first_sspine, first_storage, n_nodes, stor_* and warnings. `latency`:
/// s per link (cable + switch). Throws InvalidParameter (fabric.storage.*) when it cannot be wired.
void wire_storage(Fabric::Impl& f, double latency);

}  // namespace aidcsim::topology
