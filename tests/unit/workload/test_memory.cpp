// HBM per GPU (models/workload/memory.hpp) against published figures: Megatron Core's
// distributed-optimizer table, ZeRO's Fig. 1, Korthikanti et al. 2022 Table 2 and §4.2.3, and a
// Llama-3-405B-class layout that trained on 80 GB H100s.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/workload/memory.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"

using namespace aidcsim::workload;

namespace {

JobSpec gpt_job(int l, int h, int a) {
  JobSpec j;
  j.model.layers = l;
  j.model.hidden = h;
  j.model.ffn_hidden = 4 * h;
  j.model.heads = a;
  j.model.kv_heads = a;
  j.model.vocab = 51200;
  j.model.sequence_length = 2048;
  j.global_batch = 1;
  j.memory_reserve = 0;
  return j;
}

/// Model-state bytes per parameter of one GPU of a 1-stage, 1-TP job (no activations counted).
double bytes_per_param(JobSpec j) {
  const auto m = peak_memory(j);
  const double p = chunk_parameters(j, j.model.layers, true, true, false);
  return (m.weights + m.gradients + m.optimizer) / p;
}

}  // namespace

TEST_CASE("model states: Megatron Core's distributed-optimizer table (bytes per parameter)") {
  // docs.nvidia.com/megatron-core/developer-guide/latest/api-guide/dist_optimizer.html:
  // fp16 params + fp16 grads 20 / 4 + 16/d; bf16 params + fp32 grads 18 / 6 + 12/d.
  JobSpec j = gpt_job(4, 1024, 16);
  j.par.dp = 8;
  j.global_batch = 8;
  j.precision = "fp16";
  CHECK(bytes_per_param(j) == Approx(20));
  j.par.zero = "zero1";
  CHECK(bytes_per_param(j) == Approx(4 + 16.0 / 8));
  j.precision = "bf16";  // grad_reduce_dtype auto: fp32 gradients
  CHECK(gradient_bytes(j) == 4);
  CHECK(bytes_per_param(j) == Approx(6 + 12.0 / 8));
  j.par.zero = "none";
  CHECK(bytes_per_param(j) == Approx(18));
  j.grad_reduce_dtype = "bf16";  // --grad-reduce-in-bf16: 16-bit grads, fp32 main grads in the optimizer
  CHECK(bytes_per_param(j) == Approx(20));
}

TEST_CASE("model states: optimizer_dtype bf16 holds master weights and Adam moments in 2 B each") {
  // Apex DistributedFusedAdam (contrib/optimizers/distributed_fused_adam.py): `dtype` is the
  // "datatype for optimizer state"; StateBucket keeps params_shard, exp_avg_shard and
  // exp_avg_sq_shard in it: 3 x 2 B in bf16 against 3 x 4 B in fp32.
  JobSpec j = gpt_job(4, 1024, 16);
  j.par.dp = 8;
  j.global_batch = 8;
  j.par.zero = "zero1";
  j.grad_reduce_dtype = "bf16";  // 16-bit gradients: Megatron's 4 B fp32 main gradients stay counted
  CHECK(bytes_per_param(j) == Approx(2 + 2 + 16.0 / 8));
  j.optimizer_dtype = "bf16";
  CHECK(bytes_per_param(j) == Approx(2 + 2 + (6.0 + 4) / 8));
  const double p = chunk_parameters(j, j.model.layers, true, true, false);
  CHECK(peak_memory(j).optimizer == Approx(10.0 * p / 8));
  j.par.zero = "none";
  CHECK(bytes_per_param(j) == Approx(2 + 2 + 6 + 4));
  j.grad_reduce_dtype = "fp32";  // no main-gradient copy: the state alone
  CHECK(peak_memory(j).optimizer == Approx(6.0 * p));
}

TEST_CASE("model states: Apex DistributedFusedAdam as NeMo configures it (no fp32 main gradients)") {
  // Apex contrib/optimizers/distributed_fused_adam.py (b7a4acc): _grad_copy adds gradients into
  // grad_sync_dtype buckets, one contiguous buffer with NeMo's contiguous_grad_buffer, g B per
  // parameter; _start_bucket_grad_sync reduce-scatters each into its own shard (grads_shard), g / d;
  // StateBucket: exp_avg_shard, exp_avg_sq_shard in `dtype`, params_shard only with store_params.
  // NeMo 24.09 (megatron_base_model.py setup_optimization): store_params false for bf16 state with a
  // bf16 model, int16 param remainders (2 B) for fp32 state; megatron_gpt_model.py
  // configure_optimizers: the embeddings' gradient buckets in fp32 (with_fp32_embedding_grads).
  JobSpec j = gpt_job(4, 1024, 16);
  j.par.dp = 8;
  j.global_batch = 8;
  j.par.zero = "zero1";
  j.grad_reduce_dtype = "bf16";
  j.optimizer_dtype = "bf16";
  const double P = chunk_parameters(j, j.model.layers, true, true, false);
  const double E = chunk_parameters(j, 0, true, false, false);  // word + position embeddings
  const double d = 8;
  const MemoryBreakdown megatron = peak_memory(j);
  CHECK(megatron.gradients == Approx(2 * P));
  CHECK(megatron.optimizer == Approx((6 + 4) * P / d));  // + Megatron's fp32 main gradients

  j.optimizer = "apex_distributed_fused_adam";
  MemoryBreakdown m = peak_memory(j);
  CHECK(m.weights == Approx(2 * P));
  CHECK(m.gradients == Approx((2 * (P - E) + 4 * E) * (1 + 1 / d)));
  CHECK(m.optimizer == Approx(2 * 2 * P / d));  // m, v in bf16, no master copy

  j.optimizer_dtype = "fp32";  // fp32 m, v + int16 remainders of the bf16 parameters
  CHECK(peak_memory(j).optimizer == Approx((2 * 4 + 2) * P / d));
  j.precision = "fp16";  // fp16 model: fp32 params_shard (store_params true)
  CHECK(peak_memory(j).optimizer == Approx((2 * 4 + 4) * P / d));
  j.precision = "bf16";
  j.optimizer_dtype = "bf16";

  j.par.dp = 1;  // d = 1: the shard is the bucket itself (sync_grads_shard = grads_bucket)
  j.global_batch = 1;
  CHECK(peak_memory(j).gradients == Approx(2 * (P - E) + 4 * E));
  CHECK(peak_memory(j).optimizer == Approx(4 * P));

  // two stages, tied embeddings: the last stage's copy of the word embedding has fp32 gradients too
  j.par.dp = 2;
  j.par.pp = 2;
  j.global_batch = 2;
  const auto stages = memory_per_stage(j);
  const double V = double(j.model.vocab) * j.model.hidden;
  const double P1 = chunk_parameters(j, 2, false, true, true);
  CHECK(stages[1].gradients == Approx((2 * (P1 - V) + 4 * V) * 1.5));
  CHECK(stages[1].optimizer == Approx(4 * P1 / 2));
}

TEST_CASE("model states: ZeRO Fig. 1 (7.5B parameters, K = 12, Nd = 64)") {
  // Rajbhandari et al. 2020, Fig. 1: baseline (2 + 2 + K) psi = 120 GB, P_os 31.4 GB, P_os+g 16.6 GB,
  // P_os+g+p 1.9 GB. ZeRO's accounting (fp16 gradients, K = 12) is DeepSpeed's: zero2 and fsdp here
  // match it; none and zero1 follow Megatron, whose fp16 optimizer also keeps fp32 main gradients.
  JobSpec j = gpt_job(4096, 1024, 16);  // many small layers: the gathered unit is 0.02 % of the parameters
  j.model.vocab = 8;
  j.par.dp = 64;
  j.global_batch = 64;
  j.precision = "fp16";
  const double psi = 7.5e9;
  auto gb = [&](const char* zero) {
    j.par.zero = zero;
    return bytes_per_param(j) * psi / 1e9;
  };
  CHECK(gb("zero2") == Approx(16.6).epsilon(0.01));
  CHECK(gb("fsdp") == Approx(1.9).epsilon(0.05));
  CHECK(gb("zero1") == Approx(31.4 + 4 * 7.5 / 64).epsilon(0.01));  // + Megatron's fp32 main-grad shard
  CHECK(gb("none") == Approx(120 + 4 * 7.5).epsilon(0.01));
}

TEST_CASE("activations per layer: Korthikanti et al. 2022 Table 2") {
  JobSpec j = gpt_job(1, 4096, 32);
  j.attention = "fused_softmax";
  const double s = 2048, b = 1, h = 4096, a = 32, t = 4;
  j.par.sequence_parallel = false;
  CHECK(layer_activation_bytes(j) == Approx(s * b * h * (34 + 5 * a * s / h)));  // no parallelism
  j.par.tp = 4;
  CHECK(layer_activation_bytes(j) == Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));  // TP
  j.par.sequence_parallel = true;
  CHECK(layer_activation_bytes(j) == Approx(s * b * h / t * (34 + 5 * a * s / h)));  // TP + SP
  j.selective_recompute = true;
  CHECK(layer_activation_bytes(j) == Approx(s * b * h / t * 34));  // TP + SP + selective
  j.selective_recompute = false;
  j.attention = "flash";  // flash attention stores no s x s scores, only its fp32 logsumexp: 4 a s b
  CHECK(layer_activation_bytes(j) == Approx(s * b * h / t * (34 + 4 * a / h)));
  j.selective_recompute = true;  // the checkpointed attention core keeps no logsumexp either
  CHECK(layer_activation_bytes(j) == Approx(s * b * h / t * 34));
  j.selective_recompute = false;
  j.par.sequence_parallel = false;
  CHECK(layer_checkpoint_bytes(j) == Approx(2 * s * b * h));  // full recomputation keeps the layer input
}

namespace {
double sum(const std::vector<ActivationTerm>& terms, ActivationTerm::Region r) {
  double c = 0;
  for (const auto& t : terms) c += t.region == r ? t.coefficient : 0;
  return c;
}
}  // namespace

TEST_CASE("activation terms: a GPT layer is Korthikanti's 10 + 24 (Table 2), term by term (§4.1)") {
  using R = ActivationTerm::Region;
  JobSpec j = gpt_job(1, 4096, 32);
  j.selective_recompute = true;  // without the s^2 terms
  j.attention = "fused_softmax";
  auto terms = layer_activation_terms(j);
  CHECK(sum(terms, R::outside_tp) == 10);  // LayerNorm inputs 4, QKV and fc1 inputs 2 + 2, two dropout masks
  CHECK(sum(terms, R::inside_tp) == 24);   // Q, K, V 6, projection input 2, GeLU input and output 8 + 8
  CHECK(terms.size() == 12);
  // dropout p = 0 stores no masks (PyTorch returns the input): 2 s b h fewer, and with fused_softmax the
  // dropped scores are the softmax output itself: a s^2 b (2 + 0) instead of (2 + 1 + 2)
  j.model.hidden_dropout = 0;
  CHECK(sum(layer_activation_terms(j), R::outside_tp) == 8);
  j.selective_recompute = false;
  const double as = 32 * 2048.0 / 4096;
  CHECK(sum(layer_activation_terms(j), R::inside_tp) == Approx(24 + 5 * as));
  j.model.attention_dropout = 0;
  CHECK(sum(layer_activation_terms(j), R::inside_tp) == Approx(24 + 2 * as));
  // flash attention with dropout: the mask is regenerated from the RNG state, only logsumexp is kept
  j.model.attention_dropout = 0.1;
  j.attention = "flash";
  CHECK(sum(layer_activation_terms(j), R::inside_tp) == Approx(24 + 4 * 32.0 / 4096));
}

TEST_CASE("activation terms: a Llama 3 405B layer (GQA 8/128, SwiGLU 53,248, RMSNorm, no dropout, flash)") {
  using R = ActivationTerm::Region;
  JobSpec j = gpt_job(126, 16384, 128);
  j.model.ffn_hidden = 53248;
  j.model.kv_heads = 8;
  j.model.style = "llama";
  const auto terms = layer_activation_terms(j);
  for (const auto& t : terms) INFO(t.name << " " << t.coefficient);
  // norm inputs 2 + 2, QKV and fc1 inputs 2 + 2; no dropout masks
  CHECK(sum(terms, R::outside_tp) == 8);
  // Q 2, K and V 2 x 8/128 each, O 2, logsumexp 4 x 128 / 16384, gate + up 4 x 3.25, SwiGLU output 2 x 3.25
  CHECK(sum(terms, R::inside_tp) == Approx(2 + 0.125 + 0.125 + 2 + 0.03125 + 13 + 6.5));
  CHECK(terms.size() == 11);
  // 31.78 in all. A GPT layer of the same h and f = 3.25 (MHA, GeLU) holds 10 + 8 + 4 f = 31 with dropout,
  // as Megatron-LM's megatron/training/theoretical_memory_usage.py (18 + 4 f, SP + selective) counts any
  // model, 29 without: GQA saves 3.75, SwiGLU costs 2 f = 6.5 more.
  j.model.style = "gpt";
  j.model.kv_heads = 128;
  j.model.hidden_dropout = 0;
  CHECK(sum(layer_activation_terms(j), R::outside_tp) + sum(layer_activation_terms(j), R::inside_tp) ==
        Approx(8 + 8 + 4 * 3.25 + 0.03125));
}

TEST_CASE("activations in flight: 1F1B keeps pp - r microbatches, interleaved L (1 + (p-1)/(p v))") {
  // Narayanan et al. 2021 §2.2; Korthikanti et al. 2022 §4.2.3 (first stage).
  JobSpec j = gpt_job(32, 2048, 16);
  j.par.pp = 4;
  j.global_batch = 16;
  const auto st = memory_per_stage(j);
  for (int r = 0; r < 4; ++r) CHECK(st[r].in_flight == Approx(8.0 * (4 - r)));
  CHECK(st[0].activations == Approx(32 * layer_activation_bytes(j)));  // the first stage holds L layers' worth
  j.par.virtual_stages = 2;
  CHECK(memory_per_stage(j)[0].in_flight == Approx(32 * (1 + 3.0 / 8)));
  j.par.virtual_stages = 4;
  CHECK(memory_per_stage(j)[0].in_flight == Approx(32 * (1 + 3.0 / 16)));
  j.global_batch = 4;  // m = pp: interleaving runs every forward first, as 1F1B's first stage
  CHECK(memory_per_stage(j)[0].in_flight == Approx(32));
  j.par.virtual_stages = 1;
  j.global_batch = 2;  // fewer microbatches than stages: all of them in flight
  CHECK(memory_per_stage(j)[0].in_flight == Approx(16));
  j.activation_recompute = true;  // full recomputation: layer inputs + one layer being recomputed
  const auto full = memory_per_stage(j)[0];
  CHECK(full.activations == Approx(16 * layer_checkpoint_bytes(j) + layer_activation_bytes(j)));
}

TEST_CASE("activations in flight, flexible schedule: min((v-1) N + 2 (pp-1-r) + 1, m v) chunks on stage r",
          "[flexible_pp]") {
  // Llama 3 §3.3.2's tunable N as PyTorch ScheduleFlexibleInterleaved1F1B orders it (warm-up
  // (v-1) N + 2 (pp-1-r) forwards, capped at m v, then one forward per backward): the peak is the
  // warm-up + 1 chunks. pp 4, v 2, 32 layers: 4 layers per chunk.
  JobSpec j = gpt_job(32, 2048, 16);
  j.par.pp = 4;
  j.par.virtual_stages = 2;
  j.par.interleaved_schedule = "flexible";
  for (int m : {1, 2, 3, 4, 8, 10, 12}) {
    j.global_batch = m;
    const int n = microbatch_group(4, 2, 0, m, true);
    const auto st = memory_per_stage(j);
    for (int r = 0; r < 4; ++r) {
      INFO("m " << m << " N " << n << " stage " << r);
      CHECK(st[r].in_flight == Approx(4.0 * std::min((2 - 1) * n + 2 * (4 - 1 - r) + 1, 2 * m)));
    }
  }
  // Fig. 6's m = 10: N = 5 > pp holds one chunk more on stage 0 than Megatron's N = pp with m = 12 (12 vs 11)
  j.global_batch = 10;
  CHECK(memory_per_stage(j)[0].in_flight == Approx(4.0 * 12));
  j.par.interleaved_schedule = "megatron";
  j.global_batch = 12;
  CHECK(memory_per_stage(j)[0].in_flight == Approx(4.0 * 11));
  // fewer microbatches than stages (Megatron refuses m = 3): all of stage 0's chunks in flight, N = 3
  j.par.interleaved_schedule = "flexible";
  j.global_batch = 3;
  CHECK(memory_per_stage(j)[0].in_flight == Approx(4.0 * 6));
  CHECK(memory_per_stage(j)[3].in_flight == Approx(4.0 * 4));
}

TEST_CASE("Llama 3 405B (arXiv:2407.21783 Table 4): the 16K row fits 80 GB, the 8K row does not; HBM per part") {
  // §3.3.2 and Table 4: H100 80 GB, TP 8, CP 1, PP 16, sequence 8,192, 16M tokens per batch (DP 128 x 16
  // or DP 64 x 32 sequences, microbatch 1 assumed), interleaved schedule with tunable N (here N = 16 = pp
  // for both rows, microbatch_group), one layer fewer on the first and last stage (their first / last
  // chunk hold only the embedding / the output + loss: v = 8 chunks of one layer), FSDP sharding
  // optimizer states and gradients without resharding parameters after forward (PyTorch FSDP
  // SHARD_GRAD_OP: zero2 here), fp32 gradient accumulation and reduce-scatter, no activation
  // checkpointing at 8K. The peak is on stage 1 (8 layers, one per chunk; stage 0 holds 7).
  JobSpec j;
  j.model.layers = 126;
  j.model.hidden = 16384;
  j.model.ffn_hidden = 53248;
  j.model.heads = 128;
  j.model.kv_heads = 8;
  j.model.vocab = 128256;
  j.model.sequence_length = 8192;
  j.model.style = "llama";
  j.par.tp = 8;
  j.par.pp = 16;
  j.par.dp = 128;
  j.par.virtual_stages = 8;
  j.par.first_stage_layers = 7;
  j.par.last_stage_layers = 7;
  j.par.interleaved_schedule = "flexible";
  j.par.zero = "zero2";
  j.grad_reduce_dtype = "fp32";
  j.global_batch = 2048;
  CHECK(microbatch_group(16, 8, 0, 16, true) == 16);
  CHECK(microbatch_group(16, 8, 0, 32, true) == 16);
  // Korthikanti's SP count for this layer (GQA 8/128, SwiGLU 53248): s b h / t (12 + 4/16 + 6 x 3.25) bytes
  const double act = layer_activation_bytes(j);
  CHECK(act == Approx(8192.0 * 16384 / 8 * (12 + 0.25 + 4.0 * 128 / 16384 + 19.5)));
  const double layer = chunk_parameters(j, 1, false, false, true), params = 8 * layer;  // stage 1
  auto check_parts = [&](int dp, double in_flight) {
    j.par.dp = dp;
    const auto m = peak_memory(j);
    INFO(describe(m));
    CHECK(m.stage == 1);
    CHECK(m.weights == Approx(2 * params));
    CHECK(m.gradients == Approx(4 * params / dp + 4 * layer));  // fp32 shard + the layer being reduced
    CHECK(m.optimizer == Approx(12 * params / dp));
    CHECK(m.in_flight == Approx(in_flight));
    CHECK(m.activations == Approx(in_flight * act));
    CHECK(m.logits == 0);  // the last stage's loss chunk holds no layer: stage 1 peaks without it
    CHECK(m.reserve == Approx(j.memory_reserve));
    return m.total();
  };
  // 16K GPUs, m = 16: stage 1 warms up with min(7 x 16 + 2 x 14, 16 x 8) = 128 forwards: every chunk
  const double t16 = check_parts(128, 128);
  CHECK(t16 < 80e9);
  CHECK(t16 == Approx(78.62e9).epsilon(0.001));
  // 8K GPUs, m = 32: 7 x 16 + 2 x 14 + 1 = 141 chunks (Korthikanti §4.2.3: L (1 + (p-1)/(p v)) ~ 140.8);
  // Meta's schedule with N = pp holds as many as Megatron's: 85.95 GB, more than the nominal 80 GB it trained
  // on and 0.43 GB more than the 81,559 MiB an H100 80GB exposes (models/compute/gpus.yaml; test_validation
  // "[llama3_memory]"; docs/validation-large-runs.md: what the paper does not say)
  const double t8 = check_parts(64, 141);
  CHECK(t8 > 80e9);
  CHECK(t8 == Approx(85.95e9).epsilon(0.001));
  // the end stages (§3.3.2's placement): stage 0 runs 7 x 16 + 2 x 15 + 1 = 143 forwards before its first
  // backward: the first group's 128 (16 of them the embedding-only chunk 0) and 15 of chunk 0 of the second
  // group, also embedding-only: 112 layers; stage 15 runs 7 x 16 + 1 = 113, the last one its loss chunk:
  // 112 layers and one microbatch's logits (fp32 softmax + 16-bit logits, s V / t)
  const auto stages = memory_per_stage(j);
  CHECK(stages[0].in_flight == 112);
  CHECK(stages[0].logits == 0);
  CHECK(stages[15].in_flight == 112);
  CHECK(stages[15].logits == Approx(6.0 * 8192 * 128256 / 8));
  for (int st = 2; st < 15; ++st) CHECK(stages[st].in_flight == 141 - 2 * (st - 1));
  for (const auto& m : stages) CHECK(m.total() <= t8);
  // the only N that would hold fewer than L layer-microbatches is N < pp, which the flexible schedule
  // runs only with m < pp microbatches (pipeline.hpp); Megatron's distributed optimizer (zero1) keeps full
  // fp32 gradients: 12.8 GB more, so even the 16K row would not fit
  j.par.zero = "zero1";
  j.par.dp = 128;
  CHECK(peak_memory(j).total() > 80e9);
  // PyTorch FSDP with reshard_after_forward false counts the 16-bit shard on top: still fits at 16K
  j.par.zero = "fsdp";
  j.par.reshard_after_forward = false;
  CHECK(peak_memory(j).total() == Approx(t16 + 2 * params / 128).epsilon(1e-9));
}
