#include "models/workload/memory.hpp"

#include <algorithm>
#include <cstdio>

#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"

namespace aidcsim::workload {
namespace {

bool gated_mlp(const ModelDims& m) { return m.style == "llama"; }  // SwiGLU (llama) or GeLU (gpt)
/// Dropout probabilities, < 0 = the style's default: Megatron-LM's 0.1 (gpt), none (llama).
double hidden_dropout(const ModelDims& m) {
  return m.hidden_dropout >= 0 ? m.hidden_dropout : m.style == "llama" ? 0 : 0.1;
}
double attention_dropout(const ModelDims& m) {
  return m.attention_dropout >= 0 ? m.attention_dropout : m.style == "llama" ? 0 : 0.1;
}

bool apex_dfa(const JobSpec& j) { return j.optimizer == "apex_distributed_fused_adam"; }

/// Bytes per parameter of the optimizer states before sharding.
/// megatron: master weights + Adam m and v, 3 x 4 B in fp32 (ZeRO's K = 12), 3 x 2 B with
/// optimizer_dtype bf16; and Megatron's fp32 main gradients when the gradient buffer is 16-bit
/// (none / zero1: Megatron's optimizers; zero2 / fsdp: DeepSpeed / PyTorch FSDP keep none).
/// apex_distributed_fused_adam (memory.hpp): StateBucket's exp_avg_shard and exp_avg_sq_shard in
/// `dtype`, and the master copy NeMo asks for: none when `dtype` is the model's 16-bit type
/// (store_params false), int16 remainders for fp32 state with a bf16 model (store_param_remainders),
/// else params_shard in `dtype`.
double optimizer_bytes(const JobSpec& j) {
  const double state = j.optimizer_dtype == "bf16" ? 2.0 : 4.0;
  if (apex_dfa(j)) {
    const bool fp16_model = j.precision == "fp16";  // NeMo megatron_amp_O2: parameters in the autocast type
    const double master = j.optimizer_dtype == "bf16" ? (fp16_model ? 2.0 : 0.0) : (fp16_model ? 4.0 : 2.0);
    return 2 * state + master;
  }
  const bool megatron = j.par.zero == "none" || j.par.zero == "zero1";
  return 3 * state + (megatron && gradient_bytes(j) == 2.0 ? 4.0 : 0.0);
}

/// Model states of a GPU holding `params` parameters; `unit` is the largest FSDP unit on it (a
/// layer, or the embedding); `fp32_grad_params` of them (the word embedding) have fp32 gradient
/// buckets under Apex DistributedFusedAdam.
void model_states(const JobSpec& j, double params, double unit, double fp32_grad_params, MemoryBreakdown& m) {
  const double w = kParameterBytes, g = gradient_bytes(j), o = optimizer_bytes(j);
  const double d = double(j.par.dp) * j.par.cp;  // Megatron shards over DP x CP
  const std::string& z = j.par.zero;
  m.weights = w * params;
  m.gradients = g * params;
  m.optimizer = o * params;
  if (z == "zero1" && apex_dfa(j)) {
    // the contiguous gradient buffer, plus the reduce-scattered shards (grads_shard, a separate
    // buffer for d > 1) kept from the bucket's reduce-scatter to the next zero_grad
    const double buffer = g * (params - fp32_grad_params) + 4.0 * fp32_grad_params;
    m.gradients = buffer * (d > 1 ? 1 + 1 / d : 1);
    m.optimizer /= d;
  } else if (z == "zero1") {
    m.optimizer /= d;
  } else if (z == "zero2") {
    m.gradients = g * params / d + g * unit;  // shard + the unit being reduced
    m.optimizer /= d;
  } else if (z == "fsdp") {
    // shard + gathered units: the one computing and the prefetched next one; PyTorch FSDP with
    // reshard_after_forward: false keeps every unit gathered from its forward to its backward
    const bool keep = j.par.fsdp_style == "pytorch" && !j.par.reshard_after_forward;
    m.weights = w * params / d + (keep ? w * params : 2 * w * unit);
    m.gradients = g * params / d + g * unit;
    m.optimizer /= d;
  }
}

}  // namespace

std::vector<ActivationTerm> layer_activation_terms(const JobSpec& j) {
  const auto& md = j.model;
  const double h = md.hidden;
  const double kvf = md.kv_heads > 0 ? double(md.kv_heads) / md.heads : 1.0;
  const bool moe = md.experts > 1;
  const double k = moe ? md.top_k : 1;
  const double f = (moe && md.moe_ffn_hidden > 0 ? md.moe_ffn_hidden : md.ffn_hidden) / h;
  const bool dropout = hidden_dropout(md) > 0, attn_dropout = attention_dropout(md) > 0;
  const bool flash = j.attention == "flash";
  using R = ActivationTerm::Region;
  std::vector<ActivationTerm> t;
  auto add = [&](const char* name, double coefficient, R region) {
    if (coefficient > 0) t.push_back({name, coefficient, region});
  };
  // Attention block (Korthikanti §4.1: 11 s b h + 5 a s^2 b for MHA with dropout)
  add("norm 1 input", 2, R::outside_tp);  // LayerNorm / RMSNorm saves its input (+ fp32 per-token stats, dropped)
  add("QKV projection input (norm 1 output)", 2, R::outside_tp);
  add("Q (after RoPE for llama)", 2, R::inside_tp);
  add("K (GQA: kv_heads / heads wide)", 2 * kvf, R::inside_tp);
  add("V (GQA: kv_heads / heads wide)", 2 * kvf, R::inside_tp);
  add("attention output O = output projection input", 2, R::inside_tp);
  // selective recomputation checkpoints the attention core (Megatron-core attention.py,
  // _checkpointed_attention_forward): Q, K, V are the checkpoint's inputs, nothing inside is kept
  if (!j.selective_recompute && flash) {
    add("flash attention logsumexp (fp32, per head and token)", 4.0 * md.heads / h, R::inside_tp);
  } else if (!j.selective_recompute) {
    const double as = md.heads * double(md.sequence_length) / h;  // a s / h: s^2 terms in s b h units
    add("softmax output (a s^2 b, 16-bit)", 2 * as, R::inside_tp);
    add("attention dropout mask (a s^2 b, 1 B)", attn_dropout ? as : 0, R::inside_tp);
    add("attention dropout output (a s^2 b, 16-bit)", attn_dropout ? 2 * as : 0, R::inside_tp);
  }
  add("attention residual dropout mask", dropout ? 1 : 0, R::outside_tp);
  // MLP block (Korthikanti §4.1: 19 s b h for a 4h GeLU MLP with dropout)
  add("norm 2 input", 2, R::outside_tp);
  if (moe) {
    add("router input (norm 2 output)", 2, R::outside_tp);
    add("expert fc1 inputs (top_k dispatched copies)", 2 * k, R::outside_tp);
  } else {
    add("fc1 input (norm 2 output)", 2, R::outside_tp);
  }
  if (gated_mlp(md)) {
    add("fc1 output: gate and up (SwiGLU input)", 4 * f * k, R::inside_tp);
    add("fc2 input: SwiGLU output", 2 * f * k, R::inside_tp);
  } else {
    add("fc1 output: GeLU input", 2 * f * k, R::inside_tp);
    add("fc2 input: GeLU output", 2 * f * k, R::inside_tp);
  }
  add("MLP residual dropout mask", dropout ? 1 : 0, R::outside_tp);
  return t;
}

double layer_activation_bytes(const JobSpec& j) {
  const double s = double(j.model.sequence_length) / j.par.cp, sbh = s * j.microbatch_size * j.model.hidden;
  const double t = j.par.tp, outside = j.par.sequence_parallel ? t : 1;
  double bytes = 0;
  for (const auto& term : layer_activation_terms(j))
    bytes += sbh * term.coefficient / (term.region == ActivationTerm::Region::inside_tp ? t : outside);
  return bytes;
}

double layer_checkpoint_bytes(const JobSpec& j) {
  const double s = double(j.model.sequence_length) / j.par.cp;
  return 2 * s * j.microbatch_size * j.model.hidden / (j.par.sequence_parallel ? j.par.tp : 1);
}

std::vector<MemoryBreakdown> memory_per_stage(const JobSpec& j) {
  const auto& par = j.par;
  const int pp = par.pp, v = par.virtual_stages, VS = pp * v;
  const std::vector<int> layers =
      virtual_stage_layers(j.model.layers, pp, v, par.first_stage_layers, par.last_stage_layers);
  const int m = std::max(1, j.global_batch / std::max(1, par.dp * j.microbatch_size));
  const double act = layer_activation_bytes(j), ckpt = layer_checkpoint_bytes(j);
  const double stored = j.activation_recompute ? ckpt : act;  // per layer per in-flight microbatch
  const double s = double(j.model.sequence_length) / par.cp;
  const double logits = (4.0 + 2.0) * s * j.microbatch_size * j.model.vocab / par.tp;  // fp32 softmax + 16-bit logits
  const double layer_unit = chunk_parameters(j, 1, false, false, pp > 1);
  const double embedding_unit = double(j.model.vocab) * j.model.hidden / par.tp;
  std::vector<MemoryBreakdown> out;
  for (int st = 0; st < pp; ++st) {
    MemoryBreakdown mb;
    mb.stage = st;
    double params = 0, fp32_grad_params = 0;
    bool has_embedding = false;
    for (int c = 0; c < v; ++c) {
      const int jv = c * pp + st;
      params += chunk_parameters(j, layers[jv], jv == 0, jv == VS - 1, pp > 1);
      has_embedding = has_embedding || jv == 0 || jv == VS - 1;
      // NeMo's with_fp32_embedding_grads: the embeddings' gradient buckets in fp32 (model.hpp)
      fp32_grad_params += fp32_gradient_parameters(j, jv == 0, jv == VS - 1, pp > 1);
    }
    model_states(j, params, std::max(layer_unit, has_embedding ? embedding_unit : 0.0), fp32_grad_params, mb);
    // activations over the stage's own schedule; the peak of activations + logits
    double now_act = 0, now_logits = 0, layers_in_flight = 0, peak = -1;
    for (const auto& o : pipeline_order(st, pp, m, v, par.microbatch_group_size, par.flexible_interleaving())) {
      const int jv = o.chunk * pp + st;
      const double sign = o.forward ? 1.0 : -1.0;
      now_act += sign * layers[jv] * stored;
      layers_in_flight += sign * layers[jv];
      if (jv == VS - 1) now_logits += sign * logits;
      if (o.forward && now_act + now_logits > peak) {
        peak = now_act + now_logits;
        mb.activations = now_act;
        mb.logits = now_logits;
        mb.in_flight = layers_in_flight;
      }
    }
    if (j.activation_recompute) mb.activations += act;  // one layer recomputed in the backward
    mb.reserve = j.memory_reserve;
    out.push_back(mb);
  }
  return out;
}

MemoryBreakdown peak_memory(const JobSpec& j) {
  const auto all = memory_per_stage(j);
  return *std::max_element(all.begin(), all.end(),
                           [](const MemoryBreakdown& a, const MemoryBreakdown& b) { return a.total() < b.total(); });
}

std::string describe(const MemoryBreakdown& m) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%.1f GB on a GPU of pipeline stage %d: weights %.1f GB, gradients %.1f GB, optimizer states %.1f GB, "
                "activations %.1f GB (%.0f microbatch-layers in flight), logits %.1f GB, reserve %.1f GB",
                m.total() / 1e9, m.stage, m.weights / 1e9, m.gradients / 1e9, m.optimizer / 1e9, m.activations / 1e9,
                m.in_flight, m.logits / 1e9, m.reserve / 1e9);
  return buf;
}

}  // namespace aidcsim::workload
