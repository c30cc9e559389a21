#pragma once
// Fabrics and GPUs shared by the collectives tests.
#include "models/compute/gpu_spec.hpp"
#include "models/topology/fabric_spec.hpp"

namespace aidcsim::test {

/// Rail-optimised cluster of `nodes` x `gpn` GPUs (one NVLink domain per node, NVLink4's
/// 450 GB/s per direction), 400 Gb/s NICs and switch ports, leaf oversubscription `leaf_oversub`.
inline topology::FabricSpec rail_cluster(int nodes, int gpn, topology::FabricKind kind, int radix,
                                         double leaf_oversub = 1.0) {
  topology::FabricSpec fs;
  fs.gpus = nodes * gpn;
  fs.gpus_per_node = gpn;
  fs.nvlink_domain = gpn;
  fs.nvlink_bandwidth = 450e9;
  fs.kind = kind;
  fs.wiring = topology::Wiring::RailOptimized;
  fs.switch_radix = radix;
  fs.nic_rate = fs.link_rate = 50e9;
  fs.oversub_leaf = leaf_oversub;
  return fs;
}

/// An H100-class GPU as the collectives see it: NVLink4 with NVLink SHARP.
inline compute::GpuSpec nvlink4_gpu() {
  compute::GpuSpec g;
  g.nvlink_generation = 4;
  g.nvls = true;
  return g;
}

}  // namespace aidcsim::test
