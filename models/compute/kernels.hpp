#pragma once
// Time of the kernels a training step is made of, on one GPU: GEMMs at an achievable-matmul
// efficiency, flash attention at the GPU's measured FlashAttention rate, memory-bound element-wise
// work at HBM rate. A clock factor (DVFS, from the thermal model) scales the compute-bound parts.
#include "models/compute/gpu_spec.hpp"

namespace aidcsim::compute {

enum class Precision { BF16, FP8 };

/// Parses "bf16" / "fp16" (same tensor-core rate as BF16) / "fp8". Throws aidcsim::Error otherwise.
Precision precision_from(const std::string& name);

/// Efficiency constants of the compute model. ONE set is used for every validation row; how the
/// defaults were chosen is written in docs/validation-megatron.md.
struct Efficiency {
  /// Fraction of the measured MAMF (published-figures.md §5.1) reached by the GEMMs of a training
  /// step. 0.78 = the single value that minimises the worst error over the ten rows of Megatron-LM
  /// SC21 Table 1 (sweep 0.76-0.90, docs/validation-megatron.md); it absorbs what the model does not
  /// itemise (kernel launches, stream syncs, unfused small ops, data loading).
  double gemm = 0.78;
  /// GEMM size (FLOP) at which efficiency is half of `gemm`: small GEMMs fill fewer SM waves and
  /// pay launch/tail costs; eff(F) = gemm * F / (F + gemm_half_flops). 0 disables the size effect.
  /// 2 GFLOP (a 1024^3 GEMM reaches half efficiency; a priori, not fitted).
  double gemm_half_flops = 2e9;
  /// Fraction of HBM bandwidth reached by memory-bound element-wise kernels (STREAM-like; a priori,
  /// not fitted).
  double hbm = 0.80;
};

/// Peak dense FLOP/s for a precision. FP8 on a GPU without FP8 tensor cores (A100) falls back to
/// the BF16 rate.
double peak_flops(const GpuSpec& gpu, Precision p);
/// Measured max achievable matmul FLOP/s (MAMF), or 80 % of peak when the catalogue has none.
double mamf_flops(const GpuSpec& gpu, Precision p);

/// Time in s of one GEMM C[m x n] = A[m x k] B[k x n] (2mnk FLOP) at `clock_factor` x nominal
/// clock: max(compute at eff(F) x MAMF, operand bytes at the HBM rate).
double gemm_time(const GpuSpec& gpu, double m, double n, double k, Precision p, const Efficiency& e,
                 double clock_factor = 1.0);
/// FlashAttention's FLOP count (Dao-AILab/flash-attention benchmarks/benchmark_flash_attention.py,
/// `flops()`, quoted in flash-attention issue #477): forward = 4 b s^2 h (QK^T and PV), halved with
/// causal masking (FlashAttention-2, Dao 2023, §4: only about half of the score entries are
/// computed; tridao in flash-attention issue #573); backward = 2.5 x forward (dQ, dK, dV, dP and
/// the recomputed scores: 5 matmuls against 2).
constexpr double kFlashBackwardOverForward = 2.5;
/// GpuSpec::attention_flops is an in-step rate on the MFU count: forward + backward = 3 x the
/// causal forward (6 b s^2 h per layer; ml-engineering insights/when-to-upgrade-gpus/
/// bench_decompose.py `flops_split`, where the H100/H200 and B200 figures come from), not
/// FlashAttention's 3.5 x.
constexpr double kAttentionRateOverForward = 3.0;

/// Time in s of FlashAttention's forward over `causal_flops` FLOP (the causal half of 4 b s^2 h, as
/// FlashAttention counts it). Forward + backward take kAttentionRateOverForward x causal_flops /
/// (GpuSpec::attention_flops x `clock_factor`), split 1 : kFlashBackwardOverForward as their work
/// is; the backward is kFlashBackwardOverForward x the returned time. Always BF16: FP8 recipes keep
/// attention in BF16 (Transformer Engine's default). Throws aidcsim::Error when the GPU has no
/// attention rate.
double attention_time(const GpuSpec& gpu, double causal_flops, double clock_factor = 1.0);
/// Time in s of memory-bound work moving `bytes` B through HBM (not clock-scaled: HBM has its own
/// clock).
double memory_time(const GpuSpec& gpu, double bytes, const Efficiency& e);

}  // namespace aidcsim::compute
