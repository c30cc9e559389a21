#pragma once
// A GPU for workload unit tests, written out so that test_workload links models/workload only (the
// catalogue parser lives in sim/scenario). Figures of the built-in A100 and H100 (models/compute/gpus.yaml).
#include "models/compute/gpu_spec.hpp"

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
  g.pcie_generation = 4;
  g.nvlink_bandwidth = 300e9;
  g.tdp = 400;
  g.idle_power = 60;
  g.throttle_temperature = 358.15;
  g.shutdown_temperature = 365.15;
  return g;
}

inline compute::GpuSpec h100_like() {
  compute::GpuSpec g;
  g.name = "H100-like";
  g.bf16_flops = 989e12;
  g.fp8_flops = 1979e12;
  g.bf16_mamf = 794.5e12;
  g.fp8_mamf = 1402.6e12;
  g.attention_flops = 447e12;
  g.hbm_bytes = 80e9;
  g.hbm_bandwidth = 3.35e12;
  g.nvlink_generation = 4;
  g.nvlink_bandwidth = 450e9;
  g.nvls = true;
  g.tdp = 700;
  g.idle_power = 90;
  g.throttle_temperature = 360.15;
  g.shutdown_temperature = 365.15;
  return g;
}

}  // namespace aidcsim::workload::testing
