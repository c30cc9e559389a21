#pragma once
// Transformer arithmetic: parameter count, FLOPs per step, per-GPU kernel times of one layer,
// memory per GPU. Formulas: Narayanan et al. SC21 (Megatron-LM) eq. 2-3 and appendix,
// generalised for GQA, SwiGLU and MoE; activation memory from Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models"), Table 2.
#include "models/compute/gpu_spec.hpp"
#include "models/compute/kernels.hpp"
#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// Parameters of one transformer layer (attention + MLP or all experts + norms (+ biases)).
double layer_parameters(const ModelDims& m);
/// gpt style with the output layer tied to the input embedding (ModelDims::untie_embeddings_and_output_weights).
bool tied_embeddings(const ModelDims& m);
/// Total parameters: layers + input embedding (+ learned positions for "gpt", + the output layer
/// when untied: always for "llama", for "gpt" with untie_embeddings_and_output_weights). For gpt-style dense models this is Megatron eq. 2:
/// 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
double parameters(const ModelDims& m);
/// Parameters active per token (MoE: top_k experts of the MLP).
double active_parameters(const ModelDims& m);

/// Forward FLOPs of one layer per token: 2 x (active GEMM weights) + 4 s h (attention scores
/// and values, counted full, without causal masking). This is the model-FLOP convention of the
/// published comparisons (Megatron-LM eq. 3; PaLM's MFU, Chowdhery et al. 2022 App. B, which Llama 3
/// uses), kept as they count it; the kernel TIME of flash attention is costed on the causal half
/// (layer_time, compute::attention_time).
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
  /// s, the attention core's backward: flash = compute::kFlashBackwardOverForward x forward
  /// (FlashAttention's count: the scores are recomputed); fused softmax = 2x (dgrad of QK^T and AV).
  double attention_backward = 0;
  /// s, the forward GEMMs that make up `gemm`: QKV, output projection, MLP up (fc1) and down (fc2).
  double qkv = 0, proj = 0, fc1 = 0, fc2 = 0;
  double forward() const { return gemm + attention + memory; }
  /// backward: 2x GEMM (dgrad + wgrad), the attention core's backward, 2x element-wise traffic.
  double backward() const { return 2 * gemm + attention_backward + 2 * memory; }
};
/// Times of one layer for microbatch `b` on one GPU of a TP x CP group (JobSpec.par.tp/cp).
LayerTime layer_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e,
                     double clock_factor = 1.0);
/// Exposed seconds of one layer's TP communication for one microbatch under Transformer Engine's
/// userbuffers comm-GEMM overlap (JobSpec par.tp_comm_overlap; NeMo ub_tp_comm_overlap, Megatron
/// --tp-comm-overlap), with sequence parallelism: every TP all-gather / reduce-scatter (`collective`
/// s each, half of the layer's TP all-reduce) is split and pipelined with the GEMM it feeds or
/// follows, with TE's default methods (transformer_engine/pytorch/module/base.py initialize_ub):
/// - ring_exchange (QKV and fc1 forward all-gathers, proj and fc2 dgrad all-gathers): tp chunks,
///   each GEMM chunk runs while the next chunk arrives: exposed (tp - 1) max(0, c - g), c = C /
///   (tp - 1), g = G / tp; 1 SM (copy engines): no SM cost modelled;
/// - pipeline (proj and fc2 forward reduce-scatters): 4 splits, each split's reduce-scatter runs
///   under the next split's GEMM: exposed g + 3 max(g, c) + c - G with c = C / 4, g = G' / 4;
/// - bulk (QKV and fc1 backward: the input all-gather for wgrad under dgrad, the dgrad
///   reduce-scatter under wgrad): exposed max(C, G') - G;
/// where G' = G x sms / (sms - 16): pipeline and bulk take 16 SMs (TE's num_sm default) from the GEMM
/// (G' = G when gpu.sms is 0, not given). Backward also counts the input all-gather Megatron repeats
/// for wgrad with sequence parallelism (hidden under dgrad either way).
struct TpOverlapTime {
  double forward = 0, backward = 0;  ///< s
};
TpOverlapTime tp_comm_overlap_time(const LayerTime& lt, double collective, int tp, const compute::GpuSpec& gpu);

/// Forward time of the output (logit) GEMM of one microbatch on one TP rank (s); backward is 2x.
double logit_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e,
                  double clock_factor = 1.0);

/// Parameters held by one GPU (one TP rank; experts sharded over EP) for `layers` transformer
/// layers of one model chunk, plus the input embedding (and gpt's learned positions) on the first
/// virtual stage and the output layer on the last: when untied (llama; gpt with
/// untie_embeddings_and_output_weights) its own; tied (gpt) a copy of the embedding when the last
/// stage is not the first (`pipelined`, Megatron-LM's shared embedding).
double chunk_parameters(const JobSpec& job, int layers, bool first_chunk, bool last_chunk, bool pipelined);

/// Parameters of that chunk (one TP rank) whose gradients are kept and reduced in fp32 whatever
/// grad_reduce_dtype says: with `optimizer: apex_distributed_fused_adam`, NeMo's
/// `with_fp32_embedding_grads` (default true; NeMo 24.09-alpha.rc0 megatron_gpt_model.py
/// configure_optimizers) marks the word embedding and learned positions of the first chunk, and the
/// last chunk's tied copy of the word embedding when `pipelined`, `_with_fp32_optimizer`, and
/// MegatronDistributedFusedAdam.init_params_bucket (nemo/core/optim/distributed_adam.py) gives them
/// buckets with grad_sync_dtype fp32. An untied output layer keeps grad_reduce_dtype. 0 otherwise.
double fp32_gradient_parameters(const JobSpec& job, bool first_chunk, bool last_chunk, bool pipelined);

/// Parameters of a chunk of `layers` layers (one TP rank, as chunk_parameters counts them) whose
/// gradients NeMo reduces in the gradient bucket of the stage's first layer (its first chunk's with
/// interleaving) rather than with their own layer or chunk; with `optimizer:
/// apex_distributed_fused_adam` only, 0 otherwise. A superset of fp32_gradient_parameters. NeMo
/// 24.09-alpha.rc0 (NVIDIA/NeMo commit 4068955) megatron_gpt_model.py configure_optimizers makes one
/// bucket per transformer layer (per virtual stage with interleaving), leaves out the parameters
/// with `_disable_overlap_grad_sync` (a tied word embedding with pp > 1; with sequence parallelism
/// every parameter marked `sequence_parallel`: the layer norms), then `buckets.reverse()` and
/// `buckets[-1].extend(p for p in self.parameters() if p not in used_params)`: the embeddings, an
/// untied output layer when not interleaved (interleaved: the last virtual stage's bucket holds
/// it), and those norms join the first layer's bucket (megatron_base_model.py setup_optimization
/// hands the buckets to MegatronDistributedFusedAdam.init_params_bucket in that order).
double first_bucket_parameters(const JobSpec& job, int layers, bool first_chunk, bool last_chunk, bool pipelined);

/// Bytes per gradient element in the gradient buffer and the DP reduction: JobSpec::grad_reduce_dtype;
/// "auto" = fp32 for bf16/fp8 training (Megatron-LM megatron/training/arguments.py: "bfloat16 requires
/// gradient accumulation and all-reduce to be done in fp32"; PyTorch FSDP recipes reduce in fp32 too),
/// the parameters' 16-bit type for fp16 (Megatron's fp16 rows, Megatron Core distributed-optimizer doc).
double gradient_bytes(const JobSpec& job);
/// Bytes per parameter element in the model's weights and the ZeRO / FSDP all-gathers (16-bit).
constexpr double kParameterBytes = 2.0;

}  // namespace aidcsim::workload
