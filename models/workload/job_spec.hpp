#pragma once
// JobSpec: the training job (model dimensions, parallelism, batch, precision). Owner: models/workload.
#include <string>
#include <vector>

namespace aidcsim::workload {

struct ModelDims {
  int layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, kv_heads = 0;
  int vocab = 0, sequence_length = 0;
  /// "gpt": GeLU MLP (2 matrices), biases, learned position embeddings, tied output embedding
  /// (Megatron-LM SC21 eq. 2); "llama": SwiGLU MLP (3 matrices), no biases, RoPE, untied output
  /// embedding (Llama 3 paper, Table 3).
  std::string style = "gpt";
  /// gpt style: an output layer of its own instead of the input embedding's transpose (Megatron-LM
  /// --untie-embeddings-and-output-weights; NeMo share_embeddings_and_output_weights: false). One
  /// more V x h matrix of parameters, gradients and optimizer state on the last stage; the output
  /// layer's FLOPs are unchanged. llama style is always untied.
  bool untie_embeddings_and_output_weights = false;
  int experts = 1;         ///< MoE experts per layer (1 = dense)
  int top_k = 1;           ///< experts per token (MoE)
  int moe_ffn_hidden = 0;  ///< FFN inner size of one expert (0 = ffn_hidden)
  /// Dropout probabilities (Megatron-LM --hidden-dropout / --attention-dropout); < 0 = the style's
  /// default: 0.1 for gpt (Megatron-LM's defaults), 0 for llama (no dropout, Llama 3 paper §3). Only
  /// whether they are 0 matters here: a dropout of p = 0 stores no mask (PyTorch Dropout.cpp returns
  /// its input), so the activation memory (models/workload/memory.hpp) counts masks only for p > 0.
  double hidden_dropout = -1, attention_dropout = -1;
};

struct Parallelism {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  int virtual_stages = 1;  ///< interleaved 1F1B chunks per pipeline stage
  /// Microbatches per group of the interleaved schedule (Megatron-core's
  /// microbatch_group_size_per_vp_stage); 0 = the default: pp (Megatron's) or, with the flexible
  /// schedule, m / max(1, floor(m / pp)) (models/workload/pipeline.hpp: microbatch_group).
  int microbatch_group_size = 0;
  /// "megatron" (Megatron-core's interleaving rules) or "flexible" (Llama 3 §3.3.2's tunable N,
  /// PyTorch ScheduleFlexibleInterleaved1F1B: any m, N < pp when m < pp); models/workload/pipeline.hpp.
  std::string interleaved_schedule = "megatron";
  bool flexible_interleaving() const { return interleaved_schedule == "flexible"; }
  /// Layers on the first / last pipeline stage (0 = even split; Megatron-LM
  /// --decoder-first/last-pipeline-num-layers), to balance the embedding and the output layer + loss.
  int first_stage_layers = 0, last_stage_layers = 0;
  bool sequence_parallel = true;         ///< Megatron sequence parallelism (Korthikanti et al. 2022)
  bool allow_tp_across_domains = false;  ///< accept TP x CP groups that leave the NVLink domain
  /// Data-parallel sharding (Rajbhandari et al. 2020): "none" (gradient all-reduce), "zero1"
  /// (optimizer states sharded: Megatron's distributed optimizer, one reduce-scatter per step + the
  /// parameter all-gather), "zero2" (gradients sharded too: reduce-scatter every microbatch;
  /// DeepSpeed ZeRO-2, PyTorch FSDP SHARD_GRAD_OP), "fsdp" (ZeRO-3: parameters sharded too,
  /// all-gathered per unit before use).
  std::string zero = "none";
  /// fsdp: "pytorch" (FSDP: all-gather before forward, again before backward unless
  /// reshard_after_forward is false; next unit prefetched) or "deepspeed" (ZeRO-3: parameters
  /// re-gathered for every use, every microbatch).
  std::string fsdp_style = "pytorch";
  bool reshard_after_forward = true;  ///< PyTorch FSDP: free gathered parameters after forward
  bool dp_overlap = true;             ///< DP reduction bucketed per model chunk, overlapped with backward
  /// zero1 (Megatron's distributed optimizer): the parameter all-gather issued bucket by bucket under
  /// the next step's first forward instead of after the optimizer (Megatron-LM --overlap-param-gather;
  /// Apex/NeMo DistributedFusedAdam overlap_param_sync). One bucket in flight: bucket k + 1 is issued
  /// when bucket k has arrived and the forward reaches its parameters; a layer's forward waits for the
  /// buckets holding its parameters. Needs dp_overlap (Megatron asserts --overlap-grad-reduce).
  bool overlap_param_gather = false;
  /// Parameters per DP bucket of the overlapped parameter all-gather (Megatron-LM --ddp-bucket-size);
  /// 0 = Megatron-core's default max(40M, 1M x DP size) (megatron/core/distributed/
  /// distributed_data_parallel_config.py, bucket_size).
  double ddp_bucket_size = 0;
  /// Buckets of the overlapped parameter all-gather: "size" (Megatron-core: ddp_bucket_size
  /// parameters, filled in backward order) or "layer" (NeMo with Apex DistributedFusedAdam: one per
  /// transformer layer, the embedding and output layer in the first layer's; NeMo
  /// megatron_gpt_model.py configure_optimizers).
  std::string param_gather_buckets = "size";
  std::string dp_algorithm = "auto";  ///< collectives::Algorithm name for the DP reduction
  /// Transformer Engine userbuffers TP comm-GEMM overlap (NeMo ub_tp_comm_overlap, Megatron
  /// --tp-comm-overlap; needs sequence parallelism and TP inside the NVLink domain): TP all-gathers
  /// and reduce-scatters pipelined with the GEMMs (workload::tp_comm_overlap_time).
  bool tp_comm_overlap = false;
  /// Pipeline point-to-point sends and receives overlapped with compute (Megatron-core
  /// overlap_p2p_comm true: a stage's op waits only for its own input). false = Megatron-core's
  /// default: blocking exchanges at fixed points of each stage's op order, the sender's and the
  /// receiver's next ops wait for them (models/workload/step_ops.cpp, ExchangePoints).
  bool overlap_p2p_comm = true;
  /// Which pipeline engine runs the stages: "megatron" (Megatron-LM's schedules) or "deepspeed"
  /// (DeepSpeed's 2021 PipelineEngine, v0.5.x, with Megatron's TP: blocking sends and receives
  /// issued one after another in TrainSchedule's order, the activation and its gradient sent as
  /// 1/TP partitions and all-gathered over the TP group before use; 1F1B only, no interleaving;
  /// models/workload/step_ops.cpp, step.cpp).
  std::string pipeline_engine = "megatron";
  bool deepspeed_pipeline() const { return pipeline_engine == "deepspeed"; }
  /// Rank order, innermost first: "tp,cp,dp,pp" (the default: Megatron Core's tp-cp-ep-dp-pp,
  /// megatron/core/parallel_state.py initialize_model_parallel, and DeepSpeed's
  /// PipeModelDataParallelTopology; a DP group's ranks tp x cp apart) or "tp,cp,pp,dp" (PP inside
  /// DP: Megatron-LM's opt-in --use-tp-pp-dp-mapping).
  std::string order = "tp,cp,dp,pp";
};

/// A GPU or node off nominal speed (cluster.gpu_speed[]): every compute op on it takes
/// 1/factor as long (a straggler: a degraded GPU, slow HBM, a throttled node); a factor above 1
/// (up to 2) is one faster than nominal, which speeds its stage when its peers are as fast.
struct GpuSpeed {
  int gpu = -1;   ///< GPU index, or -1 when `node` is set
  int node = -1;  ///< node index (GPUs node x gpus_per_node ...), or -1
  double factor = 1.0;
};

/// Speed factors drawn per GPU or per node (cluster.gpu_speed_distribution), seeded by the run's
/// seed: "normal" (mean, sd) or "uniform" (min..max), clipped to [min, max].
struct SpeedDistribution {
  std::string kind = "none";  ///< none | normal | uniform
  std::string per = "gpu";    ///< gpu | node
  double mean = 1.0, sd = 0.0, min = 0.5, max = 1.0;
};

struct JobSpec {
  ModelDims model;
  Parallelism par;
  int microbatch_size = 1;  ///< sequences per microbatch
  int global_batch = 0;     ///< sequences per step (optimizer update)
  std::string precision = "bf16";
  bool activation_recompute = false;  ///< full recomputation (Megatron --recompute-granularity full)
  /// Selective recomputation (Korthikanti et al. 2022 §5): the attention core (scores, softmax,
  /// dropout) is not stored but recomputed in the backward pass.
  bool selective_recompute = false;
  /// Gradient buffer / DP reduction type: "auto" (fp32 for bf16/fp8, fp16 for fp16), "fp32", "bf16".
  std::string grad_reduce_dtype = "auto";
  /// Type of the optimizer states (master weights, Adam m and v): "fp32" or "bf16" (Apex
  /// DistributedFusedAdam `dtype`, NeMo optim.dtype).
  std::string optimizer_dtype = "fp32";
  /// Optimizer implementation: "megatron" (Megatron-LM / Megatron-core optimizers:
  /// fp32 main gradients for 16-bit gradient buffers) or "apex_distributed_fused_adam" (Apex
  /// DistributedFusedAdam as NeMo configures it: gradients only in grad_sync_dtype buckets, see
  /// memory.hpp). In the step: the embeddings' gradients reduced in fp32 (model.hpp
  /// fp32_gradient_parameters).
  std::string optimizer = "megatron";
  /// HBM kept for the CUDA context, NCCL buffers, allocator fragmentation and workspaces (B).
  double memory_reserve = 2e9;
  /// "flash": fused flash attention (no s^2 tensors in HBM); "fused_softmax": Megatron-LM 2021
  /// attention (batched GEMMs + fused scale-mask-softmax kernel over the s x s scores).
  std::string attention = "flash";
  /// Flows per step (transfers x repetitions) for the layer collectives that leave the NVLink
  /// domain (EP all-to-all, CP ring, TP all-reduce); 0 = no budget. See StepOptions::max_layer_flows.
  long long layer_flow_budget = 250000;
  /// zero2 / fsdp: the per-unit gradient reduce-scatters of k consecutive microbatches of a model
  /// chunk run as one collective of k x bytes, issued when the k-th one's backward of the unit ends
  /// (the first microbatch alone); 1 = every microbatch's own (exact). An aggregation measured
  /// against the exact run (tests/unit/engine/test_step_fidelity.cpp, step_ops.cpp StageTraffic):
  /// for k well below the microbatches, where the stage's stream has more queued than a group's spread.
  int zero_reduce_scatter_aggregation = 1;
  std::vector<GpuSpeed> gpu_speed;       ///< persistent stragglers (applied after the distribution)
  SpeedDistribution speed_distribution;  ///< per-GPU / per-node speed variation
};

}  // namespace aidcsim::workload
