#include "models/compute/kernels.hpp"

#include <algorithm>

#include "models/common/errors.hpp"

namespace aidcsim::compute {

Precision precision_from(const std::string& name) {
  if (name == "bf16" || name == "fp16") return Precision::BF16;
  if (name == "fp8") return Precision::FP8;
  throw Error("unknown precision '" + name + "' (bf16, fp16 or fp8)");
}

double peak_flops(const GpuSpec& gpu, Precision p) {
  if (p == Precision::FP8 && gpu.fp8_flops > 0) return gpu.fp8_flops;
  return gpu.bf16_flops;
}

double mamf_flops(const GpuSpec& gpu, Precision p) {
  const bool fp8 = p == Precision::FP8 && gpu.fp8_flops > 0;
  const double m = fp8 ? gpu.fp8_mamf : gpu.bf16_mamf;
  return m > 0 ? m : 0.8 * peak_flops(gpu, p);
}

double gemm_time(const GpuSpec& gpu, double m, double n, double k, Precision p, const Efficiency& e,
                 double clock_factor) {
  const double flops = 2.0 * m * n * k;
  if (flops <= 0) return 0;
  const double eff = e.gemm * (e.gemm_half_flops > 0 ? flops / (flops + e.gemm_half_flops) : 1.0);
  const double t_compute = flops / (eff * mamf_flops(gpu, p) * clock_factor);
  const double bytes_per = p == Precision::FP8 && gpu.fp8_flops > 0 ? 1.0 : 2.0;
  const double t_memory = bytes_per * (m * k + k * n + m * n) / (e.hbm * gpu.hbm_bandwidth);
  return std::max(t_compute, t_memory);
}

double attention_time(const GpuSpec& gpu, double causal_flops, double clock_factor) {
  if (gpu.attention_flops <= 0) throw Error("GPU '" + gpu.name + "' has no attention_flops (FlashAttention rate)");
  const double forward_and_backward = kAttentionRateOverForward * causal_flops / (gpu.attention_flops * clock_factor);
  return forward_and_backward / (1 + kFlashBackwardOverForward);
}

double memory_time(const GpuSpec& gpu, double bytes, const Efficiency& e) {
  return bytes / (e.hbm * gpu.hbm_bandwidth);
}

}  // namespace aidcsim::compute
