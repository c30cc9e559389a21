#pragma once
// GpuSpec: one GPU model's figures (SI), the single place every part of the simulator reads a GPU's
// capabilities from. Owner: models/compute. The built-in models are data (models/compute/gpus.yaml,
// every figure with its source, docs/gpus.md); a scenario adds or overrides models under `gpus:`
// (compute::Catalogue, compute/schema.hpp).
#include <map>
#include <string>

namespace aidcsim::compute {

struct GpuSpec {
  std::string name;         ///< "H100", "GB200", ...
  std::string description;  ///< product, e.g. "NVIDIA H100 SXM5 80 GB"
  // --- compute ---
  double bf16_flops = 0;  ///< dense BF16/FP16 tensor peak, FLOP/s
  double fp8_flops = 0;   ///< dense FP8 tensor peak, FLOP/s (0: no FP8 tensor cores, e.g. A100)
  /// Maximum achievable matmul FLOP/s (MAMF: best measured GEMM over shapes), BF16 / FP8.
  double bf16_mamf = 0;
  double fp8_mamf = 0;  ///< 0 when the GPU has no FP8
  /// FlashAttention forward + backward inside a training step, causal, BF16: FLOP/s on the MFU
  /// count of the causal half (3 x 4 b s^2 h / 2 = 6 b s^2 h per layer forward + backward) over the
  /// attention kernels' time (compute::attention_time, kAttentionRateOverForward).
  double attention_flops = 0;
  // --- memory ---
  double hbm_bytes = 0;      ///< B
  double hbm_bandwidth = 0;  ///< B/s, peak
  // --- scale-up (NVLink domain) ---
  int nvlink_generation = 0;  ///< 0 none (e.g. AMD Infinity Fabric), 3 A100, 4 H100/H200, 5 B200/GB200
  /// B/s per GPU per direction inside the scale-up domain (NVLink; MI300X: Infinity Fabric all-to-all).
  double nvlink_bandwidth = 0;
  bool nvls = false;  ///< NVLink SHARP (in-switch reduction, NCCL NVLS) capable
  /// Largest scale-up domain the GPU's platforms build, GPUs (8 HGX H100/H200/B200, 72 GB200
  /// NVL72, 8 MI300X Infinity Fabric); 0 = not given (cluster.nvlink_domain is then not checked).
  int max_nvlink_domain = 0;
  // --- scale-out attachment ---
  /// PCIe generation (3 .. 6) of the x16 path from the GPU to its NICs in its platform (HGX / DGX),
  /// the path GPUDirect RDMA takes: NCCL rates it at 16 lanes x the generation's rate, 12 / 24 / 48
  /// / 96 GB/s for Gen3 / 4 / 5 / 6 (src/graph/topo.cc). Not given: estimate 5 (catalogue.cpp).
  int pcie_generation = 5;
  /// Streaming multiprocessors (0 = not given): what communication kernels overlapped with GEMMs
  /// take from them (workload tp_comm_overlap).
  int sms = 0;
  // --- power and thermal ---
  double tdp = 0;                   ///< W, maximum board power
  double idle_power = 0;            ///< W
  double throttle_temperature = 0;  ///< K, junction temperature where the clocks start to drop
  double shutdown_temperature = 0;  ///< K, junction temperature of the thermal shutdown
  /// Source of each figure, by field name ("bf16_flops" -> "NVIDIA H100 datasheet"); estimates
  /// start with "estimate".
  std::map<std::string, std::string> sources;

  /// True when `field`'s source is an estimate (not a datasheet or published measurement).
  bool estimated(const std::string& field) const;
};

}  // namespace aidcsim::compute
