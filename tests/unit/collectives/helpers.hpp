#pragma once
// Fabrics and GPUs shared by the collectives tests.
#include "models/collectives/collective.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/topology/fabric_spec.hpp"

namespace aidcsim::test {

/// An H100-class GPU as the collectives see it: NVLink4 with NVLink SHARP.
inline compute::GpuSpec nvlink4_gpu() {
  compute::GpuSpec g;
  g.nvlink_generation = 4;
  g.nvls = true;
  return g;
}

/// Rail-optimised cluster of `nodes` x `gpn` GPUs (one NVLink domain per node, NVLink4's
/// 450 GB/s per direction), 400 Gb/s NICs and switch ports, each NIC on its GPU's PCIe share
/// (collectives::pcie_rate of nvlink4_gpu, as sim/scenario sets it), leaf oversubscription
/// `leaf_oversub`.
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
  fs.nic_pcie_rate = collectives::pcie_rate(fs, nvlink4_gpu());
  fs.oversub_leaf = leaf_oversub;
  return fs;
}

}  // namespace aidcsim::test
