#include "models/workload/model.hpp"

#include <algorithm>
#include <cmath>

namespace aidcsim::workload {
namespace {

bool gpt(const ModelDims& m) { return m.style != "llama"; }
double kv_fraction(const ModelDims& m) { return m.kv_heads > 0 ? double(m.kv_heads) / m.heads : 1.0; }
double expert_ffn(const ModelDims& m) { return m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden; }
double mlp_matrices(const ModelDims& m) { return gpt(m) ? 2.0 : 3.0; }
/// Attention projection weights: QKV (K, V shrunk by GQA) + output projection.
double attention_weights(const ModelDims& m) {
  const double h = m.hidden;
  return h * (h + 2 * h * kv_fraction(m)) + h * h;
}
double mlp_weights(const ModelDims& m, double experts) { return experts * mlp_matrices(m) * m.hidden * expert_ffn(m); }

}  // namespace

bool tied_embeddings(const ModelDims& m) { return gpt(m) && !m.untie_embeddings_and_output_weights; }

double layer_parameters(const ModelDims& m) {
  const double h = m.hidden, E = std::max(1, m.experts);
  double p = attention_weights(m) + mlp_weights(m, E);
  if (E > 1) p += h * E;  // router
  if (gpt(m)) {
    p += 4 * h;                                                       // two LayerNorms (gain + bias)
    p += (h + 2 * h * kv_fraction(m)) + h + E * (expert_ffn(m) + h);  // linear biases
  } else {
    p += 2 * h;  // two RMSNorms
  }
  return p;
}

double parameters(const ModelDims& m) {
  const double h = m.hidden, V = m.vocab, s = m.sequence_length;
  return m.layers * layer_parameters(m) + V * h + (gpt(m) ? s * h : 0.0) + (tied_embeddings(m) ? 0.0 : V * h);
}

double active_parameters(const ModelDims& m) {
  if (m.experts <= 1) return parameters(m);
  const double dense_mlp = mlp_weights(m, m.experts) - mlp_weights(m, m.top_k);
  return parameters(m) - m.layers * dense_mlp;
}

double layer_forward_flops_per_token(const ModelDims& m) {
  const double h = m.hidden, s = m.sequence_length;
  return 2 * (attention_weights(m) + mlp_weights(m, m.experts > 1 ? m.top_k : 1)) + 4 * s * h;
}

double model_flops(const ModelDims& m, double tokens) {
  return 3 * tokens * (m.layers * layer_forward_flops_per_token(m) + 2.0 * m.hidden * m.vocab);
}

double hardware_flops(const ModelDims& m, double tokens, bool recompute) {
  return tokens * ((recompute ? 4 : 3) * m.layers * layer_forward_flops_per_token(m) + 3 * 2.0 * m.hidden * m.vocab);
}

LayerTime layer_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e, double clock) {
  using compute::gemm_time;
  const auto& m = j.model;
  const compute::Precision prec = compute::precision_from(j.precision);
  const double t = j.par.tp, h = m.hidden, a = m.heads;
  const double s_local = double(m.sequence_length) / j.par.cp;
  const double M = double(j.microbatch_size) * s_local;  // tokens per GPU per microbatch
  LayerTime lt;
  lt.qkv = gemm_time(gpu, M, h * (1 + 2 * kv_fraction(m)) / t, h, prec, e, clock);
  lt.proj = gemm_time(gpu, M, h, h / t, prec, e, clock);  // output projection
  lt.gemm += lt.qkv + lt.proj;
  // MLP (MoE: each of the experts/ep local experts sees ep*M*top_k/experts tokens, balanced).
  const double E = std::max(1, m.experts);
  const double local_experts = E > 1 ? E / j.par.ep : 1.0;
  const double Me = E > 1 ? M * m.top_k * j.par.ep / E : M;
  const double f = expert_ffn(m);
  const double up = gpt(m) ? f / t : 2 * f / t;
  lt.fc1 = local_experts * gemm_time(gpu, Me, up, h, prec, e, clock);
  lt.fc2 = local_experts * gemm_time(gpu, Me, h, f / t, prec, e, clock);
  lt.gemm += lt.fc1 + lt.fc2;
  // Attention scores and values: 4 b (s/cp) s h / t FLOP for the full score matrix.
  const double attn_flops = 4.0 * j.microbatch_size * s_local * m.sequence_length * h / t;
  if (j.attention == "fused_softmax") {
    // Megatron-2021's path computes and masks the full s x s scores (no causal skipping).
    // Batched GEMMs (QK^T, AV) at the GEMM efficiency of their total size; with a head dimension
    // of 64-160 they are memory bound on the s x s score tensor (write 2 B, read 2 B per score).
    // Then scale-mask-softmax (r 2 B, w 2 B) and dropout (r 2 B, w 2 B + 1 B mask) at HBM rate.
    const double scores = double(j.microbatch_size) * (a / t) * s_local * m.sequence_length;
    const double eff = e.gemm * (e.gemm_half_flops > 0 ? attn_flops / (attn_flops + e.gemm_half_flops) : 1.0);
    lt.attention = std::max(attn_flops / (eff * compute::mamf_flops(gpu, compute::Precision::BF16) * clock),
                            compute::memory_time(gpu, 4.0 * scores, e));
    lt.attention_backward = 2 * lt.attention;
    lt.memory += compute::memory_time(gpu, 9.0 * scores, e);
  } else {
    // FlashAttention skips the masked blocks: half the scores under causal masking (with CP, the
    // load-balanced split gives every rank half of its queries' keys too).
    lt.attention = compute::attention_time(gpu, attn_flops / 2, clock);
    lt.attention_backward = compute::kFlashBackwardOverForward * lt.attention;
  }
  // Element-wise traffic (2 B per element): 2 norms (r+w), 2 bias-dropout-add (2r+1w), residual
  // copies ~ 12 passes over b s h (split by t with sequence parallelism) + the MLP activation
  // (GeLU r+w: 2 passes; SwiGLU 2r+1w: 3 passes) over the local FFN shard of the active experts.
  const double h_elem = j.par.sequence_parallel ? h / t : h;
  const double f_elem = (gpt(m) ? 2.0 : 3.0) * f / t * (E > 1 ? m.top_k : 1);
  lt.memory += compute::memory_time(gpu, 2.0 * M * (12 * h_elem + f_elem), e);
  return lt;
}

TpOverlapTime tp_comm_overlap_time(const LayerTime& lt, double C, int tp, const compute::GpuSpec& gpu) {
  const double n = tp;
  const double slow = gpu.sms > 16 ? double(gpu.sms) / (gpu.sms - 16) : 1.0;  // TE num_sm 16
  auto ring = [&](double G) { return n > 1 ? (n - 1) * std::max(0.0, C / (n - 1) - G / n) : 0.0; };
  auto pipeline = [&](double G) {
    const double g = G * slow / 4, c = C / 4;
    return g + 3 * std::max(g, c) + c - G;
  };
  auto bulk = [&](double G) { return std::max(C, G * slow) - G; };
  TpOverlapTime t;
  t.forward = ring(lt.qkv) + pipeline(lt.proj) + ring(lt.fc1) + pipeline(lt.fc2);
  t.backward = ring(lt.fc2) + 2 * bulk(lt.fc1) + ring(lt.proj) + 2 * bulk(lt.qkv);
  return t;
}

double logit_time(const JobSpec& j, const compute::GpuSpec& gpu, const compute::Efficiency& e, double clock) {
  const double M = double(j.microbatch_size) * j.model.sequence_length / j.par.cp;
  return compute::gemm_time(gpu, M, double(j.model.vocab) / j.par.tp, j.model.hidden,
                            compute::precision_from(j.precision), e, clock);
}

double chunk_parameters(const JobSpec& job, int layers, bool first_chunk, bool last_chunk, bool pipelined) {
  const auto& m = job.model;
  double layer = layer_parameters(m);
  if (m.experts > 1) {  // experts are sharded over EP
    const double experts_all = mlp_weights(m, m.experts);
    layer = layer - experts_all + experts_all / job.par.ep;
  }
  const double embedding = double(m.vocab) * m.hidden;
  double p = layers * layer;
  if (first_chunk) p += embedding + (gpt(m) ? double(m.sequence_length) * m.hidden : 0.0);
  if (last_chunk && (!tied_embeddings(m) || pipelined)) p += embedding;
  return p / job.par.tp;
}

double fp32_gradient_parameters(const JobSpec& job, bool first_chunk, bool last_chunk, bool pipelined) {
  if (job.optimizer != "apex_distributed_fused_adam") return 0.0;
  double p = first_chunk ? chunk_parameters(job, 0, true, false, pipelined) : 0.0;
  if (last_chunk && pipelined && tied_embeddings(job.model))
    p += double(job.model.vocab) * job.model.hidden / job.par.tp;
  return p;
}

double first_bucket_parameters(const JobSpec& job, int layers, bool first_chunk, bool last_chunk, bool pipelined) {
  if (job.optimizer != "apex_distributed_fused_adam") return 0.0;
  const auto& m = job.model;
  double p = first_chunk ? chunk_parameters(job, 0, true, false, pipelined) : 0.0;  // embeddings
  // The output layer: a tied copy (pipelined) is disabled for overlap, an untied one is outside the
  // layers, and so in the first layer's bucket, unless interleaved.
  if (last_chunk && (tied_embeddings(m) || job.par.virtual_stages == 1))
    p += chunk_parameters(job, 0, false, true, pipelined);
  // Sequence-parallel layer norms (Megatron enables sequence parallelism only with tp > 1): two
  // per layer, gain + bias for gpt (layer_parameters' 4 h), RMSNorm gains for llama (2 h).
  if (job.par.sequence_parallel && job.par.tp > 1) p += layers * (gpt(m) ? 4.0 : 2.0) * m.hidden / job.par.tp;
  return p;
}

double gradient_bytes(const JobSpec& job) {
  if (job.grad_reduce_dtype == "fp32") return 4.0;
  if (job.grad_reduce_dtype == "bf16" || job.grad_reduce_dtype == "fp16") return 2.0;
  return job.precision == "fp16" ? 2.0 : 4.0;
}

}  // namespace aidcsim::workload
