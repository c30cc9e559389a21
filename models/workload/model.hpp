#pragma once
// Transformer arithmetic: parameter count, FLOPs per step, per-GPU kernel times of one layer,
// memory per GPU. Formulas: Narayanan et al. SC21 (Megatron-LM) eq. 2-3 and appendix,
// generalised for GQA, SwiGLU and MoE; activation memory from Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models"), Table 2.
#include "models/compute/kernels.hpp"
#include "models/compute/spec.hpp"
#include "models/workload/spec.hpp"

namespace aidcsim::workload {

/// Parameters of one transformer layer (attention + MLP or all experts + norms (+ biases)).
double layer_parameters(const ModelDims& m);
/// Total parameters: layers + input embedding (+ learned positions for "gpt", + untied output
/// embedding for "llama"). For gpt-style dense models this is Megatron eq. 2:
/// 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
double parameters(const ModelDims& m);
/// Parameters active per token (MoE: top_k experts of the MLP).
double active_parameters(const ModelDims& m);

/// Forward FLOPs of one layer per token: 2 x (active GEMM weights) + 4 s h (attention scores
/// and values, counted full as Megatron does).
double layer_forward_flops_per_token(const ModelDims& m);
/// Model FLOPs per step without recomputation: 3 x forward (Megatron eq. 3 with 72 instead of 96:
/// published-figures.md §1.2). `tokens` = global_batch x sequence_length.
double model_flops(const ModelDims& m, double tokens);
/// Hardware FLOPs per step: with full recomputation the layers' forward runs twice (Megatron
/// eq. 3: 96 B s l h^2 (1 + s/6h + V/(16 l h)) for gpt-style dense models).
double hardware_flops(const ModelDims& m, double tokens, bool recompute);

/// Per-GPU kernel time of one microbatch through one layer (s), and its parts.
struct LayerTime {
  double gemm = 0, attention = 0, memory = 0;  ///< s, forward
  double forward() const { return gemm + attention + memory; }
  /// backward: 2x GEMM and attention (dgrad + wgrad), 2x element-wise traffic.
  double backward() const { return 2 * gemm + 2 * attention + 2 * memory; }
};
/// Times of one layer for microbatch `b` on one GPU of a TP x CP group (JobSpec.par.tp/cp).
LayerTime layer_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e,
                     double clock_factor = 1.0);
/// Forward time of the output (logit) GEMM of one microbatch on one TP rank (s); backward is 2x.
double logit_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e,
                  double clock_factor = 1.0);

/// Memory per GPU of the most loaded pipeline stage (B).
struct Memory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};
/// Mixed-precision Adam: 2 B weights + 2 B gradients + 12 B fp32 master/momentum/variance = 16 B
/// per parameter (ZeRO paper, Rajbhandari et al. 2020 §3.1); ZeRO-1 shards the 12 B over DP,
/// FSDP shards all 16 B. Activations: Korthikanti et al. 2022 Table 2 per layer
/// (s b h (34 + 5 a s / h) without parallelism; TP without SP: s b h (10 + 24/t + 5 a s/(h t));
/// with SP: s b h/t (34 + 5 a s/h); flash attention drops the 5 a s/h term; full recompute keeps
/// 2 s b h per layer), times the layers in flight on the first stage: L/pp x pp microbatches for
/// 1F1B, x (1 + (pp-1)/(pp v)) interleaved (Korthikanti §4.2.3).
Memory memory_per_gpu(const JobSpec& j);

}  // namespace aidcsim::workload
