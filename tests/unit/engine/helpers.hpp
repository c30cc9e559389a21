#pragma once
// Fabrics and models shared by the engine tests.
#include "models/topology/fabric_spec.hpp"
#include "models/workload/job_spec.hpp"
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

/// A ~0.5 B-parameter GPT (8 layers, hidden 2048, FFN 8192, 16 heads, vocabulary 32,000,
/// sequences of 2,048 tokens): small enough for a step in milliseconds, large enough that its DP
/// traffic matters on 100-400 Gb/s NICs.
inline workload::ModelDims small_gpt() {
  workload::ModelDims m;
  m.layers = 8;
  m.hidden = 2048;
  m.ffn_hidden = 8192;
  m.heads = 16;
  m.kv_heads = 16;
  m.vocab = 32000;
  m.sequence_length = 2048;
  return m;
}

}  // namespace aidcsim::test
