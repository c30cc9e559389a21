#pragma once
// A GPU for workload unit tests, written out so that test_workload links models/workload only (the
// catalogue parser lives in sim/scenario). Figures of the built-in A100 (models/compute/gpus.yaml).
#include "models/compute/spec.hpp"

namespace aidcsim::workload::testing {

inline compute::GpuSpec a100_like() {
  compute::GpuSpec g;
  g.name = "A100-like";
  g.bf16_flops = 312e12;
  g.bf16_mamf = 271.2e12;
  g.attention_flops = 140e12;
  g.hbm_bytes = 80e9;
  g.hbm_bandwidth = 2.0e12;
  g.nvlink_generation = 3;
  g.nvlink_bandwidth = 300e9;
  g.tdp = 400;
  g.idle_power = 60;
  g.throttle_temperature = 358.15;
  g.shutdown_temperature = 365.15;
  return g;
}

}  // namespace aidcsim::workload::testing
