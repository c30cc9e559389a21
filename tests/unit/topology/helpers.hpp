#pragma once
// Shared fabric specs for the topology tests.
#include <string>

#include "models/common/params.hpp"
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

/// Fabric keys of scenarios/stargate-uk-8k.yaml as the loader stores them (SI), for spec_from.
inline Params stargate_params() {
  Params p;
  p.set("cluster.gpus", 8064.0);
  p.set("cluster.gpus_per_node", 4.0);
  p.set("cluster.nvlink_domain", 72.0);
  p.set("fabric.topology", std::string("clos3"));
  p.set("fabric.wiring", std::string("rail_optimized"));
  p.set("fabric.switch_radix", 64.0);
  p.set("fabric.link_rate", 50e9);
  p.set("fabric.nic_rate", 50e9);
  p.set("fabric.oversubscription.leaf", 1.0);
  p.set("fabric.oversubscription.spine", 1.0);
  p.set("fabric.switch_latency", 600e-9);
  p.set("fabric.link_latency", 100e-9);
  p.set("fabric.ecmp.mode", std::string("hash"));
  p.set("fabric.ecmp.flows_per_pair", 1.0);
  return p;
}

}  // namespace aidcsim::topology::test
