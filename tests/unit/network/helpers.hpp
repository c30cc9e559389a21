#pragma once
// Fabrics and activities shared by the network tests.
#include <cstdint>
#include <vector>

#include "models/network/flow_network.hpp"

namespace aidcsim::test {

inline constexpr double kRate = 50e9;  // 400 Gb/s in B/s

/// Rack-local leaf-spine, one GPU per node, no NVLink (every flow crosses the scale-out fabric).
inline topology::FabricSpec leaf_spine(int gpus, int radix, int gpus_per_leaf, double oversub = 1.0) {
  topology::FabricSpec s;
  s.gpus = gpus;
  s.gpus_per_node = 1;
  s.nvlink_domain = 1;
  s.kind = topology::FabricKind::LeafSpine;
  s.wiring = topology::Wiring::RackLocal;
  s.switch_radix = radix;
  s.gpus_per_leaf = gpus_per_leaf;
  s.oversub_leaf = oversub;
  s.link_rate = kRate;
  s.nic_rate = kRate;
  return s;
}

inline network::Activity transfer(int src, int dst, double bytes, std::uint64_t hash = 0, std::vector<int> after = {}) {
  network::Activity a;
  a.kind = network::Activity::Kind::Transfer;
  a.gpu = src;
  a.dst_gpu = dst;
  a.amount = bytes;
  a.flow_hash = hash;
  a.after = std::move(after);
  return a;
}

inline network::Activity compute(int gpu, double flop, std::vector<int> after = {}) {
  network::Activity a;
  a.kind = network::Activity::Kind::Compute;
  a.gpu = gpu;
  a.amount = flop;
  a.after = std::move(after);
  return a;
}

}  // namespace aidcsim::test
