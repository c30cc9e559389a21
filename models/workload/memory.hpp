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
// - activations per layer: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
//   Transformer Models") §4, Table 2: s b h (34 + 5 a s / h) bytes, split into attention 11 s b h
//   + 5 a s^2 b, MLP 19 s b h, LayerNorms 4 s b h; generalised here to GQA (K, V: 2 s b h kv/heads
//   each), any FFN size and SwiGLU (fc1 output 4 s b f, fc2 input 2 s b f), and dropout masks only
//   for gpt style; tensor parallelism divides the parts inside TP regions by t, sequence
//   parallelism everything; flash attention and selective recomputation drop the s^2 terms; full
//   recomputation keeps each layer's input (2 s b h, / t with SP) plus one layer's activations
//   while it is recomputed.
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
  double gradients = 0;  ///< gradient buffer (sharded for zero2 / fsdp)
  double optimizer =
      0;  ///< master weights + Adam moments (fp32, or bf16 with optimizer_dtype) (+ Megatron's fp32 main grads for 16-bit grads)
  double activations = 0;  ///< saved for backward, peak over the stage's schedule
  double logits = 0;       ///< output layer logits kept for the loss's backward (last stage)
  double reserve = 0;      ///< CUDA context, NCCL buffers, allocator slack (JobSpec::memory_reserve)
  double in_flight = 0;    ///< microbatch-layers of activations at the peak (for reports)
  double total() const { return weights + gradients + optimizer + activations + logits + reserve; }
};

/// Bytes of activations one transformer layer saves for one microbatch on one GPU (Korthikanti
/// et al. 2022 Table 2, generalised as above), and what full recomputation keeps per layer.
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
