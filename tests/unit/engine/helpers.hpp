#pragma once
// Fabrics shared by the engine tests.
#include "models/topology/fabric_spec.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::test {

/// H100 nodes of `gpn` GPUs (one NVLink domain each, `gpn` rails) on a rail-optimized leaf-spine
/// of `radix` ports, NICs and switch ports at `rate` B/s: `gpus` in all. fit_fabric_to_gpu sets
/// NVLink and the NICs' PCIe share as a scenario would.
inline topology::FabricSpec h100_rail_fabric(int gpus, int gpn, int radix, double rate) {
  topology::FabricSpec fs;
  fs.gpus = gpus;
  fs.gpus_per_node = gpn;
  fs.nvlink_domain = gpn;
  fit_fabric_to_gpu(fs, builtin_gpus().find("H100"));
  fs.kind = topology::FabricKind::LeafSpine;
  fs.wiring = topology::Wiring::RailOptimized;
  fs.switch_radix = radix;
  fs.link_rate = fs.nic_rate = rate;
  return fs;
}

}  // namespace aidcsim::test
