#pragma once
// Shared fabric specs for the topology tests.
#include "models/topology/fabric.hpp"

namespace aidcsim::topology::test {

/// DGX SuperPOD H100 compute fabric of `su` scalable units of 32 nodes (RA Table 4): 8 GPUs and
/// 8 rails per node, NVLink inside the node, 64-port QM9700 leaves and spines, 1:1, 400G.
inline FabricSpec superpod(int su) {
  FabricSpec s;
  s.gpus = 256 * su;
  s.gpus_per_node = 8;
  s.nvlink_domain = 8;
  s.nvlink_bandwidth = 450e9;
  s.kind = FabricKind::LeafSpine;
  s.wiring = Wiring::RailOptimized;
  s.switch_radix = 64;
  return s;
}

/// k-ary fat tree (Al-Fares et al. 2008): radix k, k^3/4 hosts, one NIC each, no NVLink.
inline FabricSpec fat_tree(int k) {
  FabricSpec s;
  s.gpus = k * k * k / 4;
  s.gpus_per_node = 1;
  s.nvlink_domain = 1;
  s.kind = FabricKind::Clos3;
  s.wiring = Wiring::RackLocal;
  s.switch_radix = k;
  return s;
}

/// Follows a route from GPU src and returns the node it ends at (-1 if the hops do not chain).
inline int walk(const Fabric& f, int src, const std::vector<Hop>& hops) {
  int at = f.gpu_node(src);
  for (const Hop& h : hops) {
    const Link& l = f.link(h.link);
    const int from = h.forward ? l.a : l.b, to = h.forward ? l.b : l.a;
    if (from != at) return -1;
    at = to;
  }
  return at;
}

}  // namespace aidcsim::topology::test
