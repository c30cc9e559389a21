#pragma once
// HBM per GPU of a training job, by component and pipeline stage: model states (weights,
// gradients, optimizer states, sharded per ZeRO stage), activations saved for backward at their
// peak over the pipeline schedule, the output layer's logits, and a reserve for buffers.
//
// Sources:
// - bytes per parameter: Megatron Core "Distributed Optimizer" doc (docs.nvidia.com/megatron-core,
//   developer-guide/latest/api-guide/dist_optimizer.html): bf16 params + fp32 grads 18 B
//   (distributed: 6 + 12/d), fp16 params + fp16 grads 20 B (4 + 16/d); ZeRO (Rajbhandari et al.
//   2020, Fig. 1, K = 12): P_os+g 2 + 14/Nd, P_os+g+p 16/Nd (DeepSpeed / PyTorch FSDP keep no
//   separate fp32 gradient copy). workload.optimizer_dtype bf16 holds master weights and Adam
//   moments in bf16, 6 B instead of 12 (Apex contrib/optimizers/distributed_fused_adam.py,
//   DistributedFusedAdam `dtype`: "datatype for optimizer state"; StateBucket's params_shard,
//   exp_avg_shard and exp_avg_sq_shard are all of that type).
// - workload.optimizer apex_distributed_fused_adam (zero1 only): Apex DistributedFusedAdam as NeMo
//   configures it (Apex contrib/optimizers/distributed_fused_adam.py at b7a4acc, 2024-08-30; NeMo
//   24.09-alpha.rc0 megatron_base_model.py setup_optimization, megatron_gpt_model.py
//   configure_optimizers). It keeps no fp32 main gradient: _grad_copy adds each gradient into its
//   bucket in grad_sync_dtype, and with NeMo's contiguous_grad_buffer (default true) the buckets are
//   one persistent buffer over all parameters (_init_grad_buffer; main_grad is a view into it), g B
//   per parameter; _start_bucket_grad_sync reduce-scatters each bucket into a separate shard
//   (sync_grads_shard, torch.empty, for d > 1) kept as grads_shard until the next zero_grad, g / d.
//   NeMo gives the word embedding (and a learned position embedding, and the tied output copy) fp32
//   gradient buckets (with_fp32_embedding_grads). StateBucket holds exp_avg_shard and exp_avg_sq_shard
//   in `dtype`, and params_shard only with store_params, which NeMo sets false when `dtype` is the
//   model's type (bf16 with megatron_amp_O2) and replaces by int16 param_remainders_shard for fp32
//   state with a bf16 model. Per parameter: gradients g (1 + 1/d), optimizer (2 x state + master) / d.
//   Counted with the activation peak although the shards only exist from the last backward on and
//   the step's params_shard outputs (param_sync_dtype / d, freed after the all-gather) only in the
//   step, when no activation is held: an upper bound by g / d per parameter.
// - activations per layer: the tensors autograd keeps for the backward of one layer and one
//   microbatch, term by term (layer_activation_terms), counted as Korthikanti et al. 2022 ("Reducing
//   Activation Recomputation in Large Transformer Models") §4.1 does: for a GPT layer (MHA, 4h GeLU
//   MLP, dropout, LayerNorm) s b h (34 + 5 a s / h) bytes, Table 2; attention 11 s b h + 5 a s^2 b,
//   MLP 19 s b h, LayerNorms 4 s b h. The terms come from the model's shape instead of the 34:
//   * K and V are kv_heads / heads of h wide (GQA);
//   * MLP: GeLU (gpt) keeps fc1's output and fc2's input, 2 s b f each; SwiGLU (llama) keeps fc1's
//     output, gate and up, 4 s b f (Megatron-core fusions/fused_bias_swiglu.py: SwiGLUFunction saves
//     only its input and recomputes silu in swiglu_back) and fc2's input, the product, 2 s b f;
//   * dropout masks (1 B per element) only for a dropout probability > 0 (ModelDims::hidden_dropout,
//     attention_dropout; PyTorch aten/src/ATen/native/Dropout.cpp returns the input for p = 0);
//   * attention: fused_softmax keeps the s^2 softmax output (+ mask and dropped scores with attention
//     dropout); flash attention keeps none of them but Q, K, V, O and the fp32 logsumexp, 4 a s b B
//     (flash_attn_interface.py FlashAttnFunc: save_for_backward(q, k, v, out_padded, softmax_lse,
//     rng_state)); O is the output projection's input, counted once; selective recomputation
//     checkpoints the attention core (Korthikanti §5; Megatron-core _checkpointed_attention_forward)
//     and keeps neither the s^2 terms nor the logsumexp;
//   * norms: LayerNorm and RMSNorm both keep their 16-bit input; their fp32 per-token statistics (8 or
//     4 B per token, < 0.01 % of a layer) are left out as Korthikanti leaves them out.
//   Tensor parallelism divides the terms inside TP regions by t, sequence parallelism every term.
//   Full recomputation keeps each layer's input (2 s b h, / t with SP) plus one layer's activations
//   while it is recomputed. Assumed: Megatron-style fused kernels (the fused SwiGLU; RoPE saving only
//   its cos / sin tables); an unfused PyTorch SwiGLU (silu(gate) * up) keeps 8 s b f instead of 6.
// - in-flight microbatches: counted on the stage's own schedule (pipeline_order): a forward of a
//   chunk adds its layers' activations, its backward frees them; the peak reproduces 1F1B's
//   p - r microbatches and Korthikanti §4.2.3's interleaved L (1 + (p-1)/(p v)) (Narayanan et al.
//   2021 §2.2).
// - logits: the vocabulary-parallel cross entropy keeps fp32 softmax of s b V / t (Korthikanti
//   §4.1 "output layer"), plus the 16-bit logits, per last-stage microbatch in flight.
#include <string>
#include <vector>

#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// HBM of one GPU of one pipeline stage (B).
struct MemoryBreakdown {
  int stage = 0;
  double weights = 0;    ///< 16-bit parameters as held during the step (FSDP: shard + gathered units)
  double gradients = 0;  ///< gradient buffer (sharded for zero2 / fsdp; + reduced shards for Apex DFA)
  double optimizer =
      0;  ///< master weights + Adam moments (fp32, or bf16 with optimizer_dtype) (+ Megatron's fp32 main grads for 16-bit grads; Apex DFA: see above)
  double activations = 0;  ///< saved for backward, peak over the stage's schedule
  double logits = 0;       ///< output layer logits kept for the loss's backward (last stage)
  double reserve = 0;      ///< CUDA context, NCCL buffers, allocator slack (JobSpec::memory_reserve)
  double in_flight = 0;    ///< microbatch-layers of activations at the peak (for reports)
  double total() const { return weights + gradients + optimizer + activations + logits + reserve; }
};

/// One tensor a transformer layer keeps for its backward: coefficient x s b h bytes for one
/// microbatch before any parallel split (s the sequence per CP rank, b the microbatch, h hidden).
struct ActivationTerm {
  enum class Region { outside_tp, inside_tp };  ///< inside_tp: split by t; outside_tp: by t only with SP
  std::string name;
  double coefficient = 0;
  Region region = Region::outside_tp;
};

/// The terms of one layer from the job's model shape, attention kind and recomputation (see above;
/// a GPT layer sums to Korthikanti's 34 + 5 a s / h).
std::vector<ActivationTerm> layer_activation_terms(const JobSpec& job);

/// Bytes of activations one transformer layer saves for one microbatch on one GPU (the terms above,
/// split by TP / SP), and what full recomputation keeps per layer.
double layer_activation_bytes(const JobSpec& job);
double layer_checkpoint_bytes(const JobSpec& job);

/// Every stage's memory (size pp). Throws InvalidParameter like virtual_stage_layers and
/// aidcsim::Error for a schedule pipeline_order refuses.
std::vector<MemoryBreakdown> memory_per_stage(const JobSpec& job);
/// The most loaded stage's memory.
MemoryBreakdown peak_memory(const JobSpec& job);

/// "weights 6.1 GB, gradients ..., total 70.2 GB (stage 1)" for error messages and notes.
std::string describe(const MemoryBreakdown& m);

}  // namespace aidcsim::workload
