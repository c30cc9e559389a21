#include "models/workload/workload_schema.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "models/collectives/collective.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"

namespace aidcsim::workload {

// One table of the area's keys (long by nature: one entry per key, in the order the reference
// page lists them).
Schema schema() {
  using Q = Quantity;
  return {
      {"cluster.gpu_speed",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       "GPUs or nodes off nominal speed (stragglers below 1, faster parts up to 2); every compute op on them takes "
       "1/factor as long; a stage runs at its slowest GPU's factor and "
       "the synchronous step waits for them (models/workload/stragglers.hpp)."},
      {"cluster.gpu_speed[].gpu", Q::Integer, "", false, 0, 1e7, false, {}, "GPU index (give gpu or node)."},
      {"cluster.gpu_speed[].node",
       Q::Integer,
       "",
       false,
       0,
       1e7,
       false,
       {},
       "Node index: GPUs node x gpus_per_node to (node + 1) x gpus_per_node - 1 (give gpu or node)."},
      {"cluster.gpu_speed[].factor", Q::Number, "", true, 0.01, 2, false, {}, "Speed factor (0.9 = 90 % of nominal)."},
      {"cluster.gpu_speed_distribution",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Speed variation drawn per GPU or node from the run's seed (cluster.gpu_speed entries then override it)."},
      {"cluster.gpu_speed_distribution.kind",
       Q::String,
       "none",
       false,
       {},
       {},
       false,
       {"none", "normal", "uniform"},
       "none; normal (mean, sd); uniform (min..max); every draw clipped to [min, max]."},
      {"cluster.gpu_speed_distribution.per",
       Q::String,
       "gpu",
       false,
       {},
       {},
       false,
       {"gpu", "node"},
       "One draw per GPU or per node (a node's GPUs share it)."},
      {"cluster.gpu_speed_distribution.mean", Q::Number, "1", false, 0.01, 2, false, {}, "Mean speed factor (normal)."},
      {"cluster.gpu_speed_distribution.sd", Q::Number, "0", false, 0, 1, false, {}, "Standard deviation (normal)."},
      {"cluster.gpu_speed_distribution.min", Q::Number, "0.5", false, 0.01, 2, false, {}, "Lowest speed factor."},
      {"cluster.gpu_speed_distribution.max", Q::Number, "1", false, 0.01, 2, false, {}, "Highest speed factor."},
      {"workload", Q::Map, "", false, {}, {}, false, {}, "The training job."},
      {"workload.model", Q::Map, "", false, {}, {}, false, {}, "Dense transformer dimensions."},
      {"workload.model.layers", Q::Integer, "", true, 1, 10000, false, {}, "Transformer layers."},
      {"workload.model.hidden", Q::Integer, "", true, 1, 1e6, false, {}, "Hidden size h."},
      {"workload.model.ffn_hidden", Q::Integer, "", false, 1, 1e7, false, {}, "FFN inner size (default 4h)."},
      {"workload.model.heads",
       Q::Integer,
       "",
       true,
       1,
       10000,
       false,
       {},
       "Attention heads; divides hidden (head dimension hidden / heads)."},
      {"workload.model.kv_heads",
       Q::Integer,
       "",
       false,
       1,
       10000,
       false,
       {},
       "KV heads for GQA; divides heads (default: heads)."},
      {"workload.model.vocab", Q::Integer, "", true, 1, 1e7, false, {}, "Vocabulary size V."},
      {"workload.model.sequence_length", Q::Integer, "", true, 1, 1e7, false, {}, "Sequence length s."},
      {"workload.model.style",
       Q::String,
       "gpt",
       false,
       {},
       {},
       false,
       {"gpt", "llama"},
       "gpt: GeLU MLP, biases, learned positions, tied embeddings (Megatron-LM SC21 eq. 2); llama: SwiGLU MLP "
       "(3 matrices), no biases, RoPE, untied output layer (Llama 3 paper, Table 3)."},
      {"workload.model.untie_embeddings_and_output_weights",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "gpt style: an output layer of its own instead of the input embedding's transpose (Megatron-LM "
       "--untie-embeddings-and-output-weights; NeMo share_embeddings_and_output_weights: false): one more vocab x "
       "hidden matrix of parameters, gradients and optimizer state on the last stage, no embedding all-reduce "
       "between the first and last stage; FLOPs unchanged. llama style is always untied."},
      {"workload.model.experts", Q::Integer, "1", false, 1, 1e5, false, {}, "MoE experts per layer (1 = dense)."},
      {"workload.model.top_k", Q::Integer, "1", false, 1, 1024, false, {}, "MoE experts per token."},
      {"workload.model.moe_ffn_hidden",
       Q::Integer,
       "0",
       false,
       0,
       1e7,
       false,
       {},
       "FFN inner size of one expert (0 = ffn_hidden)."},
      {"workload.model.hidden_dropout",
       Q::Number,
       "",
       false,
       0,
       1,
       false,
       {},
       "Dropout probability after the attention and MLP blocks (Megatron-LM --hidden-dropout); default 0.1 for gpt "
       "style, 0 for llama. Memory only: p > 0 keeps a 1-byte mask per element of each block's output."},
      {"workload.model.attention_dropout",
       Q::Number,
       "",
       false,
       0,
       1,
       false,
       {},
       "Dropout probability on the attention scores (Megatron-LM --attention-dropout); default 0.1 for gpt style, 0 "
       "for llama. Memory only, and only with attention fused_softmax: p > 0 keeps a mask and the dropped scores "
       "(flash attention regenerates its mask from the RNG state)."},
      {"workload.parallelism", Q::Map, "", false, {}, {}, false, {}, "Megatron-style parallel layout."},
      {"workload.parallelism.tp", Q::Integer, "1", false, 1, 1024, false, {}, "Tensor parallel size."},
      {"workload.parallelism.pp", Q::Integer, "1", false, 1, 1024, false, {}, "Pipeline parallel size."},
      {"workload.parallelism.dp", Q::Integer, "1", false, 1, 1e6, false, {}, "Data parallel size."},
      {"workload.parallelism.cp",
       Q::Integer,
       "1",
       false,
       1,
       1024,
       false,
       {},
       "Context parallel size (ring attention: KV blocks passed around the CP group)."},
      {"workload.parallelism.ep",
       Q::Integer,
       "1",
       false,
       1,
       1e5,
       false,
       {},
       "Expert parallel size (experts sharded over ep DP replicas; all-to-all dispatch/combine); divides dp."},
      {"workload.parallelism.virtual_stages",
       Q::Integer,
       "1",
       false,
       1,
       1024,
       false,
       {},
       "Interleaved 1F1B model chunks per pipeline stage (Narayanan et al. SC21 §2.2)."},
      {"workload.parallelism.microbatch_group_size",
       Q::Integer,
       "0",
       false,
       0,
       1e6,
       false,
       {},
       "Interleaved schedule: microbatches per group going through the chunks (Megatron-core "
       "microbatch_group_size_per_vp_stage; 0 = the default). interleaved_schedule megatron: pp <= N <= "
       "microbatches per DP replica m, and m mod N = 0 or >= pp; with the default N = pp, m must be a multiple of "
       "pp. flexible: 1 <= N <= m dividing m; default m / max(1, floor(m / pp))."},
      {"workload.parallelism.interleaved_schedule",
       Q::String,
       "megatron",
       false,
       {},
       {},
       false,
       {"megatron", "flexible"},
       "Rules of the interleaved schedule (models/workload/pipeline.hpp). megatron: Megatron-core's (N >= pp). "
       "flexible: Llama 3's tunable N (arXiv:2407.21783 3.3.2, Fig. 6) as PyTorch ScheduleFlexibleInterleaved1F1B "
       "runs it: any number of microbatches m that is a multiple of max(1, floor(m / pp)), N = m / that (N = pp "
       "when m is a multiple of pp; N = m < pp when m < pp, with the dependency stalls that causes). Needs "
       "overlap_p2p_comm true (PyTorch's sends and receives are asynchronous)."},
      {"workload.parallelism.first_stage_layers",
       Q::Integer,
       "0",
       false,
       0,
       10000,
       false,
       {},
       "Layers on the first pipeline stage (0 = even split; Megatron-LM --decoder-first-pipeline-num-layers): "
       "fewer layers make room for the input embedding."},
      {"workload.parallelism.last_stage_layers",
       Q::Integer,
       "0",
       false,
       0,
       10000,
       false,
       {},
       "Layers on the last pipeline stage (0 = even split; Megatron-LM --decoder-last-pipeline-num-layers): "
       "fewer layers balance the output layer and the loss."},
      {"workload.parallelism.sequence_parallel",
       Q::Bool,
       "true",
       false,
       {},
       {},
       false,
       {},
       "Megatron sequence parallelism: norms/dropout split over TP (Korthikanti et al. 2022)."},
      {"workload.parallelism.allow_tp_across_domains",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "Accept TP x CP groups larger than (or not aligned with) the NVLink domain; TP traffic then crosses the "
       "fabric."},
      {"workload.parallelism.zero",
       Q::String,
       "none",
       false,
       {},
       {},
       false,
       {"none", "zero1", "zero2", "fsdp"},
       "Data-parallel sharding (Rajbhandari et al. 2020): none (gradient all-reduce); zero1 (optimizer states sharded: "
       "Megatron's distributed optimizer, one reduce-scatter per step + the parameter all-gather); zero2 (gradients "
       "sharded too: reduce-scatter per layer every microbatch; DeepSpeed ZeRO-2, PyTorch FSDP SHARD_GRAD_OP); fsdp "
       "(ZeRO-3: parameters sharded too, all-gathered per layer before use, see fsdp_style)."},
      {"workload.parallelism.fsdp_style",
       Q::String,
       "pytorch",
       false,
       {},
       {},
       false,
       {"pytorch", "deepspeed"},
       "zero: fsdp as PyTorch FSDP runs it (all-gather before forward, again before backward unless "
       "reshard_after_forward is false, next layer prefetched) or as DeepSpeed ZeRO-3 (parameters re-gathered for "
       "every use, every microbatch)."},
      {"workload.parallelism.reshard_after_forward",
       Q::Bool,
       "true",
       false,
       {},
       {},
       false,
       {},
       "PyTorch FSDP: free gathered parameters after forward (false: keep them until the backward, no second "
       "all-gather, more memory; Llama 3's setting)."},
      {"workload.parallelism.dp_overlap",
       Q::Bool,
       "true",
       false,
       {},
       {},
       false,
       {},
       "Bucket the DP reduction per model chunk and overlap it with the remaining backward pass."},
      {"workload.parallelism.overlap_param_gather",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "zero1: issue the parameter all-gather bucket by bucket under the next step's first forward instead of after "
       "the optimizer (Megatron-LM --overlap-param-gather, default off; Apex/NeMo DistributedFusedAdam "
       "overlap_param_sync). One bucket in flight: the next is issued when the previous has arrived and the forward "
       "reaches its parameters; each layer's forward waits for the buckets holding its parameters. Needs zero: "
       "zero1 and dp_overlap: true (Megatron asserts --overlap-grad-reduce)."},
      {"workload.parallelism.ddp_bucket_size",
       Q::Count,
       "0",
       false,
       0,
       1e12,
       false,
       {},
       "Parameters per bucket of the overlapped parameter all-gather (Megatron-LM --ddp-bucket-size); 0 = "
       "Megatron-core's default max(40M, 1M x DP size)."},
      {"workload.parallelism.param_gather_buckets",
       Q::String,
       "size",
       false,
       {},
       {},
       false,
       {"size", "layer"},
       "Buckets of the overlapped parameter all-gather: size (Megatron-core: ddp_bucket_size parameters, filled in "
       "backward order) or layer (NeMo with Apex DistributedFusedAdam, megatron_gpt_model.py configure_optimizers: "
       "one bucket per transformer layer, the embedding and output layer in the first layer's)."},
      {"workload.parallelism.dp_algorithm",
       Q::String,
       "auto",
       false,
       {},
       {},
       false,
       {"auto", "ring", "tree", "hierarchical", "nvls", "sharp", "halving_doubling"},
       "Collective algorithm of the DP traffic: the gradient all-reduce (zero: none) or reduce-scatter and parameter "
       "all-gather (zero1, fsdp); auto = ring across NVLink domains (NCCL's large-message choice). With zero1/fsdp "
       "only ring and auto are modelled for reduce-scatter / all-gather (NCCL has no tree for them); others are "
       "rejected. halving_doubling needs dp x cp a power of two; sharp needs fabric.sharp: true; nvls needs an "
       "NVLS-capable GPU; every DP group (one per pipeline stage and TP rank) must be one the algorithm runs on "
       "(NCCL's rules: NVLS more than 2 GPUs in every NVLink domain, CollNet at most 8 per domain), checked by "
       "validate and before a run."},
      {"workload.parallelism.overlap_p2p_comm",
       Q::Bool,
       "true",
       false,
       {},
       {},
       false,
       {},
       "Pipeline sends and receives overlapped with compute (Megatron-core overlap_p2p_comm true; a stage's op "
       "waits only for its own input). false: blocking exchanges as Megatron-core runs them without it (its "
       "default): after each op (1F1B), or after each warm-up forward, forward + backward pair and cool-down "
       "backward (interleaved); a transfer starts when the sender and the receiver have both reached their "
       "exchange, and both GPUs' next ops wait for it. Megatron only: pipeline_engine deepspeed is always "
       "blocking."},
      {"workload.parallelism.pipeline_engine",
       Q::String,
       "megatron",
       false,
       {},
       {},
       false,
       {"megatron", "deepspeed"},
       "Pipeline engine: megatron (Megatron-LM's schedules) or deepspeed (DeepSpeed's 2021 PipelineEngine, v0.5.x, "
       "with Megatron's TP, as MT-NLG ran: deepspeed/runtime/pipe/engine.py, schedule.py, p2p.py). deepspeed: "
       "TrainSchedule's 1F1B op order (virtual_stages 1); blocking sends and receives (dist.send / dist.recv, the "
       "next op waits) issued one after another in TrainSchedule's order (a forward step receives its activation "
       "then sends the previous backward's gradient; a backward step sends the previous forward's activation then "
       "receives its gradient), each a 1/TP partition of the b s h tensor; the full tensor all-gathered over the "
       "TP group before use (PartitionedTensor.full: once per forward off the first stage, twice per backward off "
       "the last). overlap_p2p_comm does not apply (DeepSpeed's exchanges are always blocking)."},
      {"workload.parallelism.tp_comm_overlap",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "Transformer Engine userbuffers TP comm-GEMM overlap (NeMo ub_tp_comm_overlap, Megatron --tp-comm-overlap; "
       "default off): each TP all-gather / reduce-scatter split and pipelined with its GEMM with TE's default "
       "methods (ring-exchange, 4-split pipeline, bulk; the SMs they take from the GEMMs from the GPU's sms). "
       "Needs sequence_parallel; applies to TP inside the NVLink domain (TP groups across domains run as flows)."},
      {"workload.parallelism.order",
       Q::String,
       "tp,cp,dp,pp",
       false,
       {},
       {},
       false,
       {"tp,cp,dp,pp", "tp,cp,pp,dp"},
       "Rank order, innermost first; GPU index = rank. The default tp,cp,dp,pp is Megatron Core's "
       "(megatron/core/parallel_state.py initialize_model_parallel, order tp-cp-ep-dp-pp; "
       "megatron/training/initialize.py) and DeepSpeed's (PipeModelDataParallelTopology): a DP group's ranks "
       "tp x cp apart, a pipeline's stages tp x cp x dp apart. tp,cp,pp,dp puts PP inside DP (a DP group's "
       "ranks tp x cp x pp apart): Megatron-LM's opt-in --use-tp-pp-dp-mapping."},
      {"workload.microbatch_size", Q::Integer, "1", false, 1, 1e6, false, {}, "Sequences per microbatch."},
      {"workload.global_batch", Q::Integer, "", true, 1, 1e9, false, {}, "Sequences per optimizer step."},
      {"workload.precision",
       Q::String,
       "bf16",
       false,
       {},
       {},
       false,
       {"bf16", "fp16", "fp8"},
       "Training math precision."},
      {"workload.activation_recompute",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "Full activation recomputation (forward run twice: 4x instead of 3x forward FLOPs); the same as "
       "recompute_granularity: full."},
      {"workload.recompute_granularity",
       Q::String,
       "none",
       false,
       {},
       {},
       false,
       {"none", "selective", "full"},
       "Megatron --recompute-granularity: selective recomputes the attention core (scores, softmax, dropout) in the "
       "backward instead of storing it (Korthikanti et al. 2022 §5); full stores only each layer's input."},
      {"workload.grad_reduce_dtype",
       Q::String,
       "auto",
       false,
       {},
       {},
       false,
       {"auto", "fp32", "bf16"},
       "Gradient buffer and DP reduction type; auto = fp32 for bf16/fp8 training (Megatron-LM arguments.py: "
       "bfloat16 requires gradient accumulation and all-reduce in fp32), 16-bit for fp16."},
      {"workload.optimizer_dtype",
       Q::String,
       "fp32",
       false,
       {},
       {},
       false,
       {"fp32", "bf16"},
       "Type of the optimizer states (master weights and Adam m, v: 12 B per parameter in fp32, 6 B in bf16), "
       "as Apex DistributedFusedAdam's `dtype` (NeMo optim.dtype; apex/contrib/optimizers/distributed_fused_adam.py: "
       "the parameter shard and both moments are held in `dtype`). Memory only; Megatron's fp32 main gradients "
       "(16-bit gradients with zero none / zero1) stay counted."},
      {"workload.optimizer",
       Q::String,
       "megatron",
       false,
       {},
       {},
       false,
       {"megatron", "apex_distributed_fused_adam"},
       "Optimizer implementation, for the memory model and the dtype of the embeddings' gradients in the DP traffic. "
       "megatron: Megatron-LM / "
       "Megatron-core optimizers, which keep fp32 main gradients (4 B per parameter, sharded with zero1) for 16-bit "
       "gradients. apex_distributed_fused_adam: Apex DistributedFusedAdam as NeMo runs it (optim.name: "
       "distributed_fused_adam; needs zero: zero1): a full gradient buffer in grad_reduce_dtype "
       "(contiguous_grad_buffer, "
       "the word embedding's in fp32), the reduce-scattered gradient shards, Adam m and v in optimizer_dtype / d, and "
       "no master copy of bf16 parameters with optimizer_dtype bf16 (NeMo store_params: false; 2 B of param remainders "
       "/ d with fp32); the embeddings' gradients reduced in fp32 in the first layer's DP bucket (NeMo "
       "with_fp32_embedding_grads). Sources in docs/workload.md."},
      {"workload.memory_reserve",
       Q::DataSize,
       "2 GB",
       false,
       0,
       1e12,
       false,
       {},
       "HBM per GPU kept for the CUDA context, NCCL buffers, allocator fragmentation and workspaces (an estimate, "
       "not from a published source; set it from your own profiles)."},
      {"workload.attention",
       Q::String,
       "flash",
       false,
       {},
       {},
       false,
       {"flash", "fused_softmax"},
       "flash: fused flash attention; fused_softmax: Megatron-LM 2021 batched GEMMs + fused softmax over s x s "
       "scores."},
      {"workload.layer_flow_budget",
       Q::Integer,
       "250000",
       false,
       0,
       1e12,
       false,
       {},
       "Flows per step for the layer collectives whose group leaves the NVLink domain (EP all-to-all, CP ring "
       "exchange, TP all-reduce): within it every group's run as flows; above it only the representative replica's "
       "groups; above it again they are analytic. The run's notes say which; 0 = no budget (every group)."},
      {"workload.zero_reduce_scatter_aggregation",
       Q::Integer,
       "1",
       false,
       1,
       1e6,
       false,
       {},
       "zero2 / fsdp: k > 1 runs the per-layer gradient reduce-scatters of k consecutive microbatches of a model "
       "chunk as one of k x the bytes, issued when the k-th one's backward of that layer ends (the first microbatch "
       "alone, then groups of k), so it never starts earlier than the exact ones; fewer flows and solver events "
       "where a stage's reduce-scatter stream is saturated (they queue behind each other anyway). 1 = exact (every "
       "microbatch's own). An approximation for k well below the microbatches per replica: a group's reduce-scatters "
       "wait for its last backward, which costs nothing only while the stream has that much queued. Its error is "
       "measured against the exact run in tests/unit/engine/test_step_fidelity.cpp: within 2 % of the step at k = 4 "
       "on the Llama 3 405B 16K row's DP copies (DP 2-16, \"[llama3_zero_rs]\") and at k = 2, 4 of 8 on a small "
       "saturated job, 4-5 % off at k = 8 of 8 (\"[zero_rs_aggregation]\"); the run's notes say which k ran."},
  };
}

namespace {
std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}
/// cluster.gpu_speed[] and cluster.gpu_speed_distribution.
void read_stragglers(const Params& root, JobSpec& j, long long gpus) {
  const long long per_node = root.has("cluster.gpus_per_node") ? root.integer("cluster.gpus_per_node") : 1;
  if (root.has("cluster.gpu_speed"))
    for (const Params& item : root.list("cluster.gpu_speed")) {
      GpuSpeed g;
      if (item.has("gpu") == item.has("node")) item.invalid("factor", "exactly one of gpu or node in the same entry");
      if (item.has("gpu")) {
        g.gpu = static_cast<int>(item.integer("gpu"));
        if (g.gpu >= gpus) item.invalid("gpu", "a GPU index below cluster.gpus (" + std::to_string(gpus) + ")");
      } else {
        g.node = static_cast<int>(item.integer("node"));
        if (g.node * per_node >= gpus)
          item.invalid("node", "a node index below cluster.gpus / cluster.gpus_per_node (" +
                                   std::to_string(gpus / per_node) + ")");
      }
      g.factor = item.number("factor");
      j.gpu_speed.push_back(g);
    }
  auto& d = j.speed_distribution;
  const std::string k = "cluster.gpu_speed_distribution.";
  auto num = [&](const std::string& key, double dflt) { return root.has(k + key) ? root.number(k + key) : dflt; };
  if (root.has(k + "kind")) d.kind = root.text(k + "kind");
  if (root.has(k + "per")) d.per = root.text(k + "per");
  d.mean = num("mean", 1.0);
  d.sd = num("sd", 0.0);
  d.min = num("min", 0.5);
  d.max = num("max", 1.0);
  if (d.min > d.max) root.invalid(k + "min", "at most cluster.gpu_speed_distribution.max");
  // Keys the kind does not read, and a mean every draw is clipped away from, were silently without
  // effect (normal with mean 1.5 gave every GPU 1.0, the default max: the same step time as no
  // distribution); cases step/01 and input/22's kinds.
  for (const char* key : {"per", "mean", "sd", "min", "max"}) {
    const bool read =
        d.kind == "normal" || (d.kind == "uniform" && std::strcmp(key, "mean") != 0 && std::strcmp(key, "sd") != 0);
    if (root.given(k + key) && !read)
      root.invalid(k + key, std::string("no ") + key + " with cluster.gpu_speed_distribution.kind " + d.kind +
                                (d.kind == "uniform" ? " (it draws between min and max)" : " (no distribution)"));
  }
  if (d.kind == "normal" && !(d.mean >= d.min && d.mean <= d.max)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g to %g", d.min, d.max);
    root.invalid(k + "mean", std::string("a mean from cluster.gpu_speed_distribution.min to .max (") + range +
                                 "): each draw is clipped to them");
  }
}

}  // namespace

// One assignment per key of schema() (long by nature; kept in the table's order).
JobSpec spec_from(const Params& root) {
  JobSpec j;
  auto i = [&](const char* k) { return static_cast<int>(root.integer(k)); };
  auto opt_i = [&](const char* k, int dflt) { return root.has(k) ? static_cast<int>(root.integer(k)) : dflt; };
  auto opt_t = [&](const char* k, const char* dflt) { return root.has(k) ? root.text(k) : std::string(dflt); };
  auto opt_b = [&](const char* k, bool dflt) { return root.has(k) ? root.flag(k) : dflt; };
  j.model.layers = i("workload.model.layers");
  j.model.hidden = i("workload.model.hidden");
  j.model.ffn_hidden = opt_i("workload.model.ffn_hidden", 4 * j.model.hidden);
  j.model.heads = i("workload.model.heads");
  j.model.kv_heads = opt_i("workload.model.kv_heads", j.model.heads);
  j.model.vocab = i("workload.model.vocab");
  j.model.sequence_length = i("workload.model.sequence_length");
  j.model.style = opt_t("workload.model.style", "gpt");
  j.model.untie_embeddings_and_output_weights = opt_b("workload.model.untie_embeddings_and_output_weights", false);
  j.model.experts = opt_i("workload.model.experts", 1);
  j.model.top_k = opt_i("workload.model.top_k", 1);
  j.model.moe_ffn_hidden = opt_i("workload.model.moe_ffn_hidden", 0);
  if (root.has("workload.model.hidden_dropout")) j.model.hidden_dropout = root.number("workload.model.hidden_dropout");
  if (root.has("workload.model.attention_dropout"))
    j.model.attention_dropout = root.number("workload.model.attention_dropout");
  j.par.tp = opt_i("workload.parallelism.tp", 1);
  j.par.pp = opt_i("workload.parallelism.pp", 1);
  j.par.dp = opt_i("workload.parallelism.dp", 1);
  j.par.cp = opt_i("workload.parallelism.cp", 1);
  j.par.ep = opt_i("workload.parallelism.ep", 1);
  j.par.virtual_stages = opt_i("workload.parallelism.virtual_stages", 1);
  j.par.microbatch_group_size = opt_i("workload.parallelism.microbatch_group_size", 0);
  j.par.interleaved_schedule = opt_t("workload.parallelism.interleaved_schedule", "megatron");
  j.par.first_stage_layers = opt_i("workload.parallelism.first_stage_layers", 0);
  j.par.last_stage_layers = opt_i("workload.parallelism.last_stage_layers", 0);
  j.par.sequence_parallel = opt_b("workload.parallelism.sequence_parallel", true);
  j.par.allow_tp_across_domains = opt_b("workload.parallelism.allow_tp_across_domains", false);
  j.par.zero = opt_t("workload.parallelism.zero", "none");
  j.par.fsdp_style = opt_t("workload.parallelism.fsdp_style", "pytorch");
  j.par.reshard_after_forward = opt_b("workload.parallelism.reshard_after_forward", true);
  j.par.dp_overlap = opt_b("workload.parallelism.dp_overlap", true);
  j.par.dp_algorithm = opt_t("workload.parallelism.dp_algorithm", "auto");
  j.par.overlap_param_gather = opt_b("workload.parallelism.overlap_param_gather", false);
  if (root.has("workload.parallelism.ddp_bucket_size"))
    j.par.ddp_bucket_size = root.number("workload.parallelism.ddp_bucket_size");
  j.par.param_gather_buckets = opt_t("workload.parallelism.param_gather_buckets", "size");
  if (j.par.overlap_param_gather && j.par.zero != "zero1")
    root.invalid("workload.parallelism.overlap_param_gather",
                 "false unless workload.parallelism.zero is zero1 (Megatron's distributed optimizer)");
  if (j.par.overlap_param_gather && !j.par.dp_overlap)
    root.invalid("workload.parallelism.overlap_param_gather",
                 "false unless workload.parallelism.dp_overlap is true (Megatron asserts --overlap-grad-reduce)");
  j.par.order = opt_t("workload.parallelism.order", Parallelism{}.order.c_str());
  j.par.tp_comm_overlap = opt_b("workload.parallelism.tp_comm_overlap", false);
  j.par.overlap_p2p_comm = opt_b("workload.parallelism.overlap_p2p_comm", true);
  j.par.pipeline_engine = opt_t("workload.parallelism.pipeline_engine", "megatron");
  if (j.par.deepspeed_pipeline()) {
    // DeepSpeed's PipelineEngine runs TrainSchedule only (no interleaving) with blocking p2p
    // (deepspeed/runtime/pipe/p2p.py v0.5.4: send/recv assert async_op == False)
    if (j.par.virtual_stages != 1)
      root.invalid("workload.parallelism.pipeline_engine",
                   "megatron when virtual_stages > 1 (DeepSpeed's TrainSchedule is not interleaved)");
  }
  if (j.par.flexible_interleaving() && !j.par.overlap_p2p_comm)
    root.invalid("workload.parallelism.interleaved_schedule",
                 "megatron with overlap_p2p_comm false (the blocking exchanges are Megatron-core's; the flexible "
                 "schedule's sends and receives are asynchronous)");
  if (j.par.tp_comm_overlap && !j.par.sequence_parallel)
    root.invalid("workload.parallelism.tp_comm_overlap",
                 "false unless workload.parallelism.sequence_parallel is true (TE overlaps sequence-parallel TP only)");
  // A key written where no setting reads it is an error, not ignored (bit-identical results, no note:
  // case step/01's kind, as overlap_param_gather without zero1 above and checkpoint_interval with
  // young_daly): fsdp_style is read by zero: fsdp only, reshard_after_forward by PyTorch FSDP only
  // (step_ops.cpp, memory.cpp), the interleaving keys with virtual_stages > 1 only (step.cpp),
  // param_gather_buckets with overlap_param_gather only (step_ops.cpp).
  if (root.given("workload.parallelism.fsdp_style") && j.par.zero != "fsdp")
    root.invalid("workload.parallelism.fsdp_style",
                 "no fsdp_style unless workload.parallelism.zero is fsdp (it picks the ZeRO-3 implementation)");
  if (root.given("workload.parallelism.reshard_after_forward") &&
      !(j.par.zero == "fsdp" && j.par.fsdp_style == "pytorch"))
    root.invalid("workload.parallelism.reshard_after_forward",
                 "no reshard_after_forward unless workload.parallelism.zero is fsdp with fsdp_style pytorch "
                 "(DeepSpeed ZeRO-3 re-gathers for every use)");
  if (j.par.virtual_stages == 1)
    for (const char* k : {"workload.parallelism.interleaved_schedule", "workload.parallelism.microbatch_group_size"})
      if (root.given(k))
        root.invalid(k, std::string("no ") + (std::strrchr(k, '.') + 1) +
                            " unless workload.parallelism.virtual_stages > 1 (it shapes the interleaved schedule)");
  if (root.given("workload.parallelism.param_gather_buckets") && !j.par.overlap_param_gather)
    root.invalid("workload.parallelism.param_gather_buckets",
                 "no param_gather_buckets unless workload.parallelism.overlap_param_gather is true");
  j.microbatch_size = opt_i("workload.microbatch_size", 1);
  j.global_batch = i("workload.global_batch");
  j.precision = opt_t("workload.precision", "bf16");
  j.activation_recompute = opt_b("workload.activation_recompute", false);
  const std::string granularity = opt_t("workload.recompute_granularity", "none");
  if (j.activation_recompute && granularity == "selective")
    root.invalid("workload.recompute_granularity", "full or none with workload.activation_recompute: true");
  j.activation_recompute = j.activation_recompute || granularity == "full";
  j.selective_recompute = granularity == "selective";
  j.grad_reduce_dtype = opt_t("workload.grad_reduce_dtype", "auto");
  j.optimizer_dtype = opt_t("workload.optimizer_dtype", "fp32");
  j.optimizer = opt_t("workload.optimizer", "megatron");
  if (j.optimizer == "apex_distributed_fused_adam" && j.par.zero != "zero1")
    root.invalid("workload.optimizer",
                 "megatron unless workload.parallelism.zero is zero1 (Apex DistributedFusedAdam shards the optimizer "
                 "state over DP, as ZeRO-1)");
  if (root.has("workload.memory_reserve")) j.memory_reserve = root.number("workload.memory_reserve");
  j.attention = opt_t("workload.attention", "flash");
  if (root.has("workload.layer_flow_budget")) j.layer_flow_budget = root.integer("workload.layer_flow_budget");
  j.zero_reduce_scatter_aggregation = opt_i("workload.zero_reduce_scatter_aggregation", 1);
  if (j.zero_reduce_scatter_aggregation > 1 && j.par.zero != "zero2" && j.par.zero != "fsdp")
    root.invalid("workload.zero_reduce_scatter_aggregation",
                 "1 unless workload.parallelism.zero is zero2 or fsdp (only they reduce-scatter every microbatch)");

  const long long gpus = root.integer("cluster.gpus");
  read_stragglers(root, j, gpus);
  const long long product = 1LL * j.par.tp * j.par.cp * j.par.pp * j.par.dp;
  // Any factor (or the GPU count) may be the wrong one: name the group and every key of the product.
  if (product != gpus)
    throw InvalidParameter(root.full_key("workload.parallelism"),
                           "tp " + std::to_string(j.par.tp) + " x cp " + std::to_string(j.par.cp) + " x pp " +
                               std::to_string(j.par.pp) + " x dp " + std::to_string(j.par.dp) + " = " +
                               std::to_string(product),
                           "workload.parallelism.tp x .cp x .pp x .dp = cluster.gpus (" + std::to_string(gpus) + ")");
  if (j.global_batch % (1LL * j.par.dp * j.microbatch_size) != 0)
    root.invalid("workload.global_batch", "a multiple of dp x microbatch_size (" + std::to_string(j.par.dp) + " x " +
                                              std::to_string(j.microbatch_size) + ")");
  // The attention splits hidden into heads of hidden / heads channels, and K and V are kv_heads / heads
  // as wide (Megatron-LM arguments.py asserts hidden_size % num_attention_heads == 0 without kv_channels).
  if (j.model.hidden % j.model.heads != 0) {
    char dim[32];
    std::snprintf(dim, sizeof dim, "%.2f", static_cast<double>(j.model.hidden) / j.model.heads);
    root.invalid("workload.model.heads", "a divisor of workload.model.hidden (" + std::to_string(j.model.hidden) +
                                             "), so that the head dimension hidden / heads is whole (" +
                                             std::to_string(j.model.hidden) + " / " + std::to_string(j.model.heads) +
                                             " = " + dim + ")");
  }
  if (j.model.kv_heads > j.model.heads || j.model.heads % j.model.kv_heads != 0)
    root.invalid("workload.model.kv_heads",
                 "a divisor of workload.model.heads (" + std::to_string(j.model.heads) + ")");
  if (j.model.heads % j.par.tp != 0)
    root.invalid("workload.parallelism.tp",
                 "a divisor of workload.model.heads (" + std::to_string(j.model.heads) + ")");
  if (j.model.sequence_length % j.par.cp != 0)
    root.invalid("workload.parallelism.cp",
                 "a divisor of workload.model.sequence_length (" + std::to_string(j.model.sequence_length) + ")");
  if (j.par.dp % j.par.ep != 0)
    root.invalid("workload.parallelism.ep", "a divisor of workload.parallelism.dp (" + std::to_string(j.par.dp) + ")");
  if (j.model.experts > 1 && j.model.experts % j.par.ep != 0)
    root.invalid("workload.parallelism.ep",
                 "a divisor of workload.model.experts (" + std::to_string(j.model.experts) + ")");
  if (j.model.top_k > j.model.experts)
    root.invalid("workload.model.top_k", "at most workload.model.experts (" + std::to_string(j.model.experts) + ")");
  // With first/last_stage_layers the embedding and the loss count as chunk slots (virtual_stage_layers
  // checks each stage), so pp x v may exceed the layers (Llama 3: 126 layers, pp 16, v 8, 7 + 7).
  if (j.par.first_stage_layers == 0 && j.par.last_stage_layers == 0 &&
      1LL * j.par.pp * j.par.virtual_stages > j.model.layers)
    root.invalid("workload.parallelism.virtual_stages", "pp x virtual_stages <= workload.model.layers");
  try {
    virtual_stage_layers(j.model.layers, j.par.pp, j.par.virtual_stages, j.par.first_stage_layers,
                         j.par.last_stage_layers);
  } catch (const InvalidParameter& e) {
    root.invalid(e.key(), e.expected());
  }
  const int microbatches = j.global_batch / (j.par.dp * j.microbatch_size);
  const std::string interleaving = interleaving_error(j.par.pp, j.par.virtual_stages, j.par.microbatch_group_size,
                                                      microbatches, j.par.flexible_interleaving());
  if (!interleaving.empty()) {
    const int valid = valid_microbatches(j.par.pp, j.par.virtual_stages, j.par.microbatch_group_size, microbatches,
                                         j.par.flexible_interleaving());
    root.invalid(j.par.virtual_stages > 1 && j.par.pp < 2 ? "workload.parallelism.virtual_stages"
                 : j.par.microbatch_group_size > 0        ? "workload.parallelism.microbatch_group_size"
                                                          : "workload.global_batch",
                 interleaving + " (interleaved 1F1B, " + j.par.interleaved_schedule +
                     " rules, with virtual_stages = " + std::to_string(j.par.virtual_stages) +
                     (valid > 0 ? "; valid global batches near this one: " +
                                      std::to_string(1LL * j.par.dp * j.microbatch_size * valid)
                                : std::string("; no global batch at or above this one runs with this group size")) +
                     ")");
  }
  const collectives::Algorithm dp_alg = collectives::algorithm_from(j.par.dp_algorithm);
  if (j.par.zero != "none" && !(collectives::implements(dp_alg, collectives::Op::ReduceScatter) &&
                                collectives::implements(dp_alg, collectives::Op::AllGather)))
    root.invalid("workload.parallelism.dp_algorithm",
                 "an algorithm that implements reduce-scatter and all-gather, the DP traffic of zero: " + j.par.zero +
                     " (ring or auto; " + j.par.dp_algorithm +
                     " is modelled for the all-reduce of zero: none only), or zero: none");
  // What the scenario alone decides (the NVLink domains of each DP group need the fabric:
  // check_dp_algorithm, before a run and in `validate`)
  const int dp_group = j.par.dp * j.par.cp;
  if (dp_alg == collectives::Algorithm::HalvingDoubling && (dp_group & (dp_group - 1)) != 0)
    root.invalid("workload.parallelism.dp_algorithm",
                 "an algorithm the DP group of dp x cp = " + std::to_string(dp_group) +
                     " GPUs can run: halving_doubling (Rabenseifner) needs a power-of-two group");
  const bool in_network = dp_alg == collectives::Algorithm::Sharp || dp_alg == collectives::Algorithm::CollNetDirect ||
                          dp_alg == collectives::Algorithm::CollNetChain;
  if (in_network && dp_group > 1 && !(root.has("fabric.sharp") && root.flag("fabric.sharp")))
    root.invalid("workload.parallelism.dp_algorithm",
                 "an algorithm the fabric can run: " + j.par.dp_algorithm +
                     " reduces in the switches and needs fabric.sharp: true (in-network reduction)");
  const int domain = root.has("cluster.nvlink_domain") ? static_cast<int>(root.integer("cluster.nvlink_domain")) : 0;
  const int tc = j.par.tp * j.par.cp;
  if (domain > 0 && !j.par.allow_tp_across_domains && domain % tc != 0)
    root.invalid("workload.parallelism.tp",
                 "tp x cp (" + std::to_string(tc) + ") dividing the NVLink domain (cluster.nvlink_domain = " +
                     std::to_string(domain) + "), or workload.parallelism.allow_tp_across_domains: true");
  return j;
}

void check_against_gpu(const Params& root, const JobSpec& j, const compute::GpuSpec& gpu, bool check_hbm_fit) {
  const MemoryBreakdown mem = peak_memory(j);
  if (check_hbm_fit && mem.total() > gpu.hbm_bytes)
    root.invalid("workload.parallelism.tp",
                 "a layout that fits " + gb(gpu.hbm_bytes) + " of HBM per " + gpu.name + "; it needs " + describe(mem) +
                     ": raise tp/pp, use zero1/fsdp, recompute_granularity selective/full or a smaller microbatch");
  if (j.par.dp_algorithm == "nvls" && !gpu.nvls)
    root.invalid("workload.parallelism.dp_algorithm",
                 "an algorithm the GPU supports: " + gpu.name + " has no NVLink SHARP (NVLS)");
}

}  // namespace aidcsim::workload
