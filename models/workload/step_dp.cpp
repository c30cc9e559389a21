// DP traffic at the end of the step and the optimizer: the gradient reduction of none / zero1
// bucketed per model chunk (zero2 / fsdp reduce per unit while the backward runs, step_ops.cpp),
// the tied-embedding all-reduce, the optimizer step, and ZeRO's parameter all-gather after it.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "models/common/errors.hpp"
#include "models/compute/kernels.hpp"
#include "models/workload/dp_collective.hpp"
#include "models/workload/model.hpp"
#include "models/workload/step_builder.hpp"

namespace aidcsim::workload::detail {

using collectives::Algorithm;
using collectives::Collective;
using collectives::Op;
using network::Activity;

collectives::Layout plan_layout(const topology::Fabric& f, const compute::GpuSpec& g) {
  collectives::Layout l = collectives::Layout::from(f, g);
  if (!l.one_route) return l;
  // Per source GPU its first two destinations asked (a ring's GPU has one scale-out successor per
  // channel path), the others in a map.
  struct Memo {
    std::vector<int> dst, answer;  // [2 gpu + k]: destination (-1: free), 0 / 1
    std::unordered_map<std::uint64_t, bool> more;
  };
  auto memo = std::make_shared<Memo>();
  memo->dst.assign(2 * static_cast<std::size_t>(f.gpu_count()), -1);
  memo->answer.assign(memo->dst.size(), 0);
  l.one_route = [inner = std::move(l.one_route), memo](int a, int b) {
    if (a < 0 || b < 0 || 2 * static_cast<std::size_t>(a) + 1 >= memo->dst.size()) return inner(a, b);
    const std::size_t at = 2 * static_cast<std::size_t>(a);
    for (std::size_t k = at; k < at + 2; ++k) {
      if (memo->dst[k] == b) return memo->answer[k] == 1;
      if (memo->dst[k] < 0) {
        const bool one = inner(a, b);
        memo->dst[k] = b;
        memo->answer[k] = one ? 1 : 0;
        return one;
      }
    }
    const std::uint64_t key =
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
    if (const auto it = memo->more.find(key); it != memo->more.end()) return it->second;
    const bool one = inner(a, b);
    memo->more.emplace(key, one);
    return one;
  };
  return l;
}

void emit_dp(Builder& b, int s, Op op, double bytes, std::vector<int> after, int tag, std::vector<int>* done,
             GpuStream* stream) {
  const Algorithm alg = collectives::algorithm_from(b.job.par.dp_algorithm);
  if (stream && stream->last.size() < static_cast<std::size_t>(b.fabric.gpu_count())) {
    stream->last.resize(b.fabric.gpu_count());
    stream->next.resize(b.fabric.gpu_count());
  }
  // this collective's transfers per GPU (sent or received): stream->next[gpu], GPUs in touched
  auto part = [&](int gpu, int i) {
    auto& p = stream->next[gpu];
    if (p.empty()) stream->touched.push_back(gpu);
    p.push_back(i);
  };
  for (int t = 0; t < b.job.par.tp; ++t) {
    Collective c = dp_collective(b.job, b.place, b.fabric, s, t, op);
    c.bytes = bytes;
    c.collapse = b.opt.collapse_collectives;
    c.merge_channels = b.opt.merge_ring_channels;
    c.after = after;
    c.tag = tag;
    c.hash = b.opt.seed * 0x100000001B3ULL + (static_cast<std::uint64_t>(s) << 20) + (t << 8) +
             tag;  // NCCL keeps a communicator's connections: one path
    collectives::Emitted e;
    try {
      e = collectives::emit(b.plan.schedule, c, b.layout, b.opt.protocol);
    } catch (const InvalidParameter&) {
      throw;
    } catch (const Error& x) {
      // A chosen algorithm the group cannot run (check_dp_algorithm refuses it before a run; a
      // step planned without those checks, e.g. from the library, still gets the key)
      if (alg == Algorithm::Auto || alg == Algorithm::Ring) throw;
      throw InvalidParameter("workload.parallelism.dp_algorithm", b.job.par.dp_algorithm,
                             "an algorithm every DP collective can run (ring always can): " + std::string(x.what()) +
                                 ", for " + describe_dp_group(b.job, b.fabric, s, t, c.gpus));
    }
    if (done) done->insert(done->end(), e.done.begin(), e.done.end());
    if (!stream) continue;
    for (int i = e.first; i < e.last; ++i) {
      auto& a = b.acts()[i];
      if (a.kind != Activity::Kind::Transfer) continue;
      const bool first = std::none_of(a.after.begin(), a.after.end(), [&](int d) { return d >= e.first; });
      if (first) {
        const auto& prev = stream->last[a.gpu];
        a.after.insert(a.after.end(), prev.begin(), prev.end());
      }
      part(a.gpu, i);
      part(a.dst_gpu, i);
    }
  }
  if (stream) {
    for (int gpu : stream->touched) {
      stream->last[gpu].swap(stream->next[gpu]);
      stream->next[gpu].clear();
    }
    stream->touched.clear();
  }
}

std::vector<int> transfers_of(const Builder& b, const std::vector<int>& done, int gpu) {
  std::vector<int> out;
  for (int d : done) {
    const auto& a = b.plan.schedule.activities[d];
    if (a.gpu == gpu || a.dst_gpu == gpu) out.push_back(d);
  }
  return out;
}

double Builder::chunk_params(int j) const { return chunk_parameters(job, plan.layers[j], j == 0, j == VS - 1, pp > 1); }

double Builder::chunk_fp32_grad_params(int j) const {
  return fp32_gradient_parameters(job, j == 0, j == VS - 1, pp > 1);
}

namespace {

/// none / zero1: the gradient all-reduce (reduce-scatter) of each stage after its last backward of
/// each chunk, one bucket per piece of that backward when overlapped, else one per stage. Gradients
/// in grad_reduce_dtype, except the embeddings' fp32 ones (fp32_gradient_parameters): NeMo puts
/// them, with every parameter outside the layers or whose overlapped sync it disables
/// (first_bucket_parameters: an untied output layer, sequence-parallel norms), in the bucket of the
/// stage's first layer (first model chunk with interleaving; megatron_gpt_model.py
/// configure_optimizers: `buckets[-1].extend(...)`), where the fp32 ones form fp32 buckets
/// reduce-scattered together with that bucket's (Apex distributed_fused_adam.py init_params_bucket,
/// _start_bucket_grad_sync): here the last piece of chunk 0's last backward.
std::vector<std::vector<int>> emit_reduction(Builder& b) {
  std::vector<std::vector<int>> done(b.pp);
  const Op op = b.job.par.zero == "none" ? Op::AllReduce : Op::ReduceScatter;
  const double g = gradient_bytes(b.job);
  auto first_bucket = [&](int j) {
    return first_bucket_parameters(b.job, b.plan.layers[j], j == 0, j == b.VS - 1, b.pp > 1);
  };
  for (int s = 0; s < b.pp; ++s) {
    double fp32 = 0, first = 0;  // of the whole stage
    for (int c = 0; c < b.v; ++c) {
      fp32 += b.chunk_fp32_grad_params(c * b.pp + s);
      first += first_bucket(c * b.pp + s);
    }
    if (b.job.par.dp_overlap) {
      for (int c = b.v - 1; c >= 0; --c) {  // in the order the chunks' backwards finish
        const int j = c * b.pp + s;
        const auto& pieces = b.last_pieces[s][c];
        const double bytes = g * (b.chunk_params(j) - first_bucket(j)) / pieces.size();
        for (std::size_t q = 0; q < pieces.size(); ++q) {
          const bool first_layer = c == 0 && q + 1 == pieces.size();
          emit_dp(b, s, op, bytes + (first_layer ? g * (first - fp32) + 4.0 * fp32 : 0.0), {pieces[q]}, kTagDp,
                  &done[s]);
        }
      }
    } else {
      const double bytes = g * (b.stage_params[s] - fp32) + 4.0 * fp32;
      emit_dp(b, s, op, bytes, {b.plan.stage_last_backward[s]}, kTagDp, &done[s]);
    }
  }
  return done;
}

/// gpt ties the output layer to the input embedding: with pp > 1 the last stage holds a copy whose
/// gradient is all-reduced with the first stage's after the DP reduction (Megatron-LM
/// finalize_model_grads: _allreduce_word_embedding_grads), for every TP rank and DP replica. Under
/// Apex DistributedFusedAdam NeMo all-reduces the copy's `main_grad`, a view of its fp32 bucket
/// (megatron_gpt_model.py allreduce_first_last_embeddings): 4 B.
std::vector<int> emit_embedding_allreduce(Builder& b, const std::vector<std::vector<int>>& stage_done) {
  std::vector<int> done;
  const auto& par = b.job.par;
  if (!tied_embeddings(b.job.model) || b.pp == 1) return done;
  std::vector<int> after = stage_done[0];
  after.insert(after.end(), stage_done[b.pp - 1].begin(), stage_done[b.pp - 1].end());
  after.push_back(b.plan.stage_last_backward[0]);
  after.push_back(b.plan.stage_last_backward[b.pp - 1]);
  const double embedding = double(b.job.model.vocab) * b.job.model.hidden / par.tp;
  const double fp32 = b.chunk_fp32_grad_params(b.VS - 1);  // the tied copy, or 0
  const double bytes = gradient_bytes(b.job) * (embedding - fp32) + 4.0 * fp32;
  for (int d = 0; d < par.dp; ++d)
    for (int cp = 0; cp < par.cp; ++cp)
      for (int t = 0; t < par.tp; ++t) {
        Collective c;
        c.op = Op::AllReduce;
        c.algorithm = Algorithm::Ring;
        c.gpus = {b.place.gpu({t, cp, 0, d}), b.place.gpu({t, cp, b.pp - 1, d})};
        c.bytes = bytes;
        c.after = after;
        c.tag = kTagEmbedding;
        c.hash = b.opt.seed * 0x9E3779B97F4A7C15ULL + b.place.gpu({t, cp, 0, d});
        auto e = collectives::emit(b.plan.schedule, c, b.layout, b.opt.protocol);
        done.insert(done.end(), e.done.begin(), e.done.end());
      }
  return done;
}

/// Optimizer step (Adam, memory-bound: ~32 B of HBM traffic per parameter held), then the
/// parameter all-gather of zero1 / zero2 (fsdp gathers per unit before use instead).
void emit_optimizer(Builder& b, const std::vector<std::vector<int>>& stage_done, const std::vector<int>& embedding) {
  const auto& par = b.job.par;
  auto& plan = b.plan;
  plan.optimizer.assign(b.pp, 0);
  plan.stage_optimizer.assign(b.pp, -1);
  plan.stage_after_optimizer.assign(b.pp, {});
  for (int s = 0; s < b.pp; ++s) {
    const double held = par.zero == "none" ? b.stage_params[s] : b.stage_params[s] / b.dp_size();
    const double t_opt = compute::memory_time(b.gpu, 32.0 * held, b.opt.efficiency) / b.speed[s];
    plan.optimizer[s] = t_opt;
    Activity a;
    a.kind = Activity::Kind::Compute;
    a.gpu = plan.stage_gpu[s];
    a.amount = t_opt * b.unit();
    a.tag = kTagOptimizer;
    a.after = stage_done[s];
    if (s == 0 || s == b.pp - 1) a.after.insert(a.after.end(), embedding.begin(), embedding.end());
    a.after.push_back(plan.stage_last_backward[s]);
    const int opt_idx = b.add(std::move(a));
    plan.stage_optimizer[s] = opt_idx;
    // overlap_param_gather: the next step's first forward gathers them bucket by bucket (step_ops.cpp)
    const bool overlapped = par.zero == "zero1" && par.overlap_param_gather;
    if ((par.zero == "zero1" || par.zero == "zero2") && b.dp_size() > 1 && !overlapped)
      emit_dp(b, s, Op::AllGather, kParameterBytes * b.stage_params[s], {opt_idx}, kTagDpGather,
              &plan.stage_after_optimizer[s]);
  }
}

}  // namespace

void emit_dp_and_optimizer(Builder& b) {
  std::vector<std::vector<int>> stage_done(b.pp);
  if (b.per_unit_reduction())
    stage_done = b.unit_reductions;
  else if (b.dp_size() > 1)
    stage_done = emit_reduction(b);
  b.plan.stage_dp_done = stage_done;
  b.plan.embedding_transfers = emit_embedding_allreduce(b, stage_done);
  emit_optimizer(b, stage_done, b.plan.embedding_transfers);
}

}  // namespace aidcsim::workload::detail
