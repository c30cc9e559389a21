#include "models/workload/step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/placement.hpp"
#include "models/workload/stragglers.hpp"

namespace aidcsim::workload {

using collectives::Algorithm;
using collectives::Collective;
using collectives::Op;
using network::Activity;

namespace {

bool llama(const ModelDims& m) { return m.style == "llama"; }

struct OpCost {
  double compute = 0, tp = 0, cp = 0, ep = 0;
  double total() const { return compute + tp + cp + ep; }
};

/// Analytic costs of the communication inside one layer's ops, for one microbatch (s).
struct LayerComm {
  double tp_allreduce = 0;  ///< one TP all-reduce of the layer's activations
  double cp_exchange = 0;   ///< the CP ring's KV passing of one attention
  double ep_alltoall = 0;   ///< one EP all-to-all (dispatch or combine)
};

/// What the parts of plan_step share.
struct Builder {
  const JobSpec& job;
  const compute::GpuSpec& gpu;
  const topology::Fabric& fabric;
  const StepOptions& opt;
  StepPlan& plan;
  Placement place;
  collectives::Layout layout;
  int pp = 1, v = 1, VS = 1, m = 1, msim = 1;
  int rep = 0;                               ///< the representative DP replica
  std::vector<double> clk;                   ///< clock factor of each stage (slowest GPU)
  std::vector<double> speed;                 ///< straggler speed factor of each stage (slowest GPU)
  std::vector<std::vector<OpCost>> fwd, bwd;  ///< [stage][chunk]
  // pass 1: compute ops
  int pieces_per_chunk = 1;
  std::vector<std::vector<int>> f_idx, b_out, b_in;            ///< [virtual stage][microbatch]
  std::vector<std::vector<std::vector<int>>> last_pieces;      ///< [stage][chunk]: pieces of the last backward
  std::vector<int> prev_on_gpu;                                ///< activity -> previous op on its GPU
  std::vector<double> stage_params;                            ///< parameters per GPU of each stage

  Builder(const JobSpec& j, const compute::GpuSpec& g, const topology::Fabric& f, const StepOptions& o, StepPlan& p)
      : job(j), gpu(g), fabric(f), opt(o), plan(p), place(j.par), layout(collectives::Layout::from(f)) {}
  double unit() const { return gpu.bf16_flops; }
  std::vector<Activity>& acts() { return plan.schedule.activities; }
  int add(Activity a) {
    acts().push_back(std::move(a));
    return static_cast<int>(acts().size()) - 1;
  }
  double chunk_params(int j) const { return chunk_parameters(job, plan.layers[j], j == 0, j == VS - 1, pp > 1); }
};

/// Checks the sizes, fills the plan's counts and the layers of each virtual stage.
void size_step(Builder& b) {
  const auto& job = b.job;
  const auto& par = job.par;
  b.plan.gpus = b.place.gpus();
  if (b.fabric.gpu_count() < b.plan.gpus)
    throw Error("the job needs " + std::to_string(b.plan.gpus) + " GPUs, the fabric has " +
                std::to_string(b.fabric.gpu_count()));
  b.pp = par.pp;
  b.v = par.virtual_stages;
  b.VS = b.pp * b.v;
  const int mb = job.microbatch_size;
  if (job.global_batch % (par.dp * mb) != 0 || job.global_batch < par.dp * mb)
    throw InvalidParameter("workload.global_batch", std::to_string(job.global_batch), "a multiple of dp x microbatch_size");
  b.m = job.global_batch / (par.dp * mb);
  const std::string why = interleaving_error(b.pp, b.v, par.microbatch_group_size, b.m);
  if (!why.empty()) throw InvalidParameter("workload.global_batch", std::to_string(job.global_batch), why);
  b.plan.layers = virtual_stage_layers(job.model.layers, b.pp, b.v, par.first_stage_layers, par.last_stage_layers);
  b.plan.pp = b.pp;
  b.plan.chunks = b.v;
  b.plan.microbatches = b.m;
  b.plan.tokens_per_step = double(job.global_batch) * job.model.sequence_length;
  b.plan.parameters = parameters(job.model);
  b.plan.model_flops_per_step = model_flops(job.model, b.plan.tokens_per_step);
  b.plan.hardware_flops_per_step = hardware_flops(job.model, b.plan.tokens_per_step, job.activation_recompute);

  // Microbatches simulated op by op: all up to max(32, 2 pp); interleaved, whole groups of N plus
  // the real last group, so the simulated schedule obeys the same rules as the real one.
  int cap = b.opt.max_simulated_microbatches > 0 ? b.opt.max_simulated_microbatches : std::max(32, 2 * b.pp);
  b.msim = std::min(b.m, cap);
  if (b.v > 1 && b.msim < b.m) {
    const int n = par.microbatch_group_size > 0 ? par.microbatch_group_size : b.pp;
    const int rest = b.m % n;
    b.msim = std::max(1, (cap - rest) / n) * n + rest;
    if (b.msim >= b.m) b.msim = b.m;
  }
  b.plan.simulated_microbatches = b.msim;
}

/// Clock (thermal DVFS: compute-bound parts) and speed (stragglers: all compute) of each stage of
/// the representative pipeline: the slowest GPU of the stage's TP x CP group, whose peers wait for
/// it. The representative is the DP replica whose pipeline is slowest by estimate (fill/drain over
/// every stage plus m - 1 microbatches at the slowest stage's pace): a synchronous step waits for it.
void stage_clocks(Builder& b) {
  const auto& par = b.job.par;
  const auto& cf = b.opt.clock_factor;
  const std::vector<double> speed =
      gpu_speed_factors(b.job, b.plan.gpus, b.fabric.spec().gpus_per_node, b.opt.seed);
  std::vector<std::vector<double>> clk(par.dp, std::vector<double>(b.pp, 1.0)), spd = clk;
  for (int g = 0; g < b.plan.gpus; ++g) {
    const Coord c = b.place.coord(g);
    if (g < static_cast<int>(cf.size())) clk[c.dp][c.pp] = std::min(clk[c.dp][c.pp], cf[g]);
    if (!speed.empty()) spd[c.dp][c.pp] = std::min(spd[c.dp][c.pp], speed[g]);
  }
  std::vector<double> work(b.pp, 0.0);  // layers per stage (+ 1 for the output layer) as the work unit
  for (int j = 0; j < b.VS; ++j) work[j % b.pp] += b.plan.layers[j] + (j == b.VS - 1 ? 1 : 0);
  double worst = -1;
  for (int d = 0; d < par.dp; ++d) {
    double sum = 0, slowest = 0;
    for (int s = 0; s < b.pp; ++s) {
      const double t = work[s] / (clk[d][s] * spd[d][s]);
      sum += t;
      slowest = std::max(slowest, t);
    }
    const double est = sum + (b.m - 1) * slowest;
    if (est > worst * (1 + 1e-12)) {
      worst = est;
      b.rep = d;
    }
  }
  b.clk = clk[b.rep];
  b.speed = spd[b.rep];
  for (int s = 0; s < b.pp; ++s) b.plan.stage_gpu.push_back(b.place.gpu({0, 0, s, b.rep}));
  b.plan.representative_replica = b.rep;
  b.plan.stragglers = 0;
  for (double x : speed) b.plan.stragglers += x < 1.0;
}

/// Analytic alpha-beta times of the TP / CP / EP collectives of one layer on stage `s`.
LayerComm layer_comm(const Builder& b, int s) {
  const auto& job = b.job;
  const auto& par = job.par;
  const auto& md = job.model;
  const double tokens_mb = job.microbatch_size * double(md.sequence_length) / par.cp;
  const double kvf = md.kv_heads > 0 ? double(md.kv_heads) / md.heads : 1.0;
  const Coord rep{0, 0, s, b.rep};
  LayerComm lc;
  if (par.tp > 1) {
    Collective c;
    c.op = Op::AllReduce;
    c.gpus = b.place.tp_group(rep);
    c.bytes = tokens_mb * md.hidden * 2.0;
    lc.tp_allreduce = collectives::estimate_time(c, b.layout, b.opt.protocol);
  }
  if (par.cp > 1) {
    Collective c;
    c.op = Op::SendRecv;
    auto g = b.place.cp_group(rep);
    c.gpus = {g[0], g[1]};
    c.bytes = 2.0 * tokens_mb * md.hidden * kvf * 2.0 / par.tp;  // K and V of the local block
    lc.cp_exchange = (par.cp - 1) * collectives::estimate_time(c, b.layout, b.opt.protocol);
  }
  if (md.experts > 1 && par.ep > 1) {
    Collective c;
    c.op = Op::AllToAll;
    c.gpus = b.place.ep_group(rep);
    c.bytes = tokens_mb * md.hidden * 2.0 * md.top_k / (par.sequence_parallel ? par.tp : 1);
    lc.ep_alltoall = collectives::estimate_time(c, b.layout, b.opt.protocol);
  }
  return lc;
}

/// Forward and backward costs of every chunk of every stage, for one microbatch: the layers, the
/// input embedding on the first virtual stage, the output layer and the loss on the last.
void op_costs(Builder& b) {
  const auto& job = b.job;
  const auto& md = job.model;
  const auto& eff = b.opt.efficiency;
  const double tokens_mb = job.microbatch_size * double(md.sequence_length) / job.par.cp;
  b.fwd.assign(b.pp, std::vector<OpCost>(b.v));
  b.bwd.assign(b.pp, std::vector<OpCost>(b.v));
  for (int s = 0; s < b.pp; ++s) {
    const LayerTime lt = layer_time(job, b.gpu, eff, b.clk[s]);
    const double logit = logit_time(job, b.gpu, eff, b.clk[s]);
    // cross-entropy over the local vocabulary shard: ~4 passes of 2 B over b s V / t logits
    const double loss = compute::memory_time(b.gpu, 4 * 2.0 * tokens_mb * md.vocab / job.par.tp, eff);
    // embedding lookup (read + write b s h rows of 2 B) and its gradient's scatter-add
    const double embed = compute::memory_time(b.gpu, 2 * 2.0 * tokens_mb * md.hidden, eff);
    const LayerComm lc = layer_comm(b, s);
    const int rc = job.activation_recompute ? 1 : 0;
    // selective recomputation runs the attention core's forward again in the backward (flash
    // attention's backward recomputes its scores anyway)
    const double sel = job.selective_recompute && job.attention != "flash" ? lt.attention : 0.0;
    for (int c = 0; c < b.v; ++c) {
      const int j = c * b.pp + s;
      const double nl = b.plan.layers[j];
      const bool first = j == 0, last = j == b.VS - 1;
      OpCost& f = b.fwd[s][c];
      OpCost& k = b.bwd[s][c];
      f.compute = (nl * lt.forward() + (last ? logit + loss : 0) + (first ? embed : 0)) / b.speed[s];
      k.compute = (nl * (lt.backward() + sel) + (last ? 2 * logit + loss : 0) + (first ? embed : 0) +
                   rc * nl * lt.forward()) / b.speed[s];
      // Megatron: one TP all-reduce after attention, one after the MLP (+ the vocab-parallel
      // embedding's all-reduce on the first stage)
      f.tp = (2 * nl + (first ? 1 : 0)) * lc.tp_allreduce;
      k.tp = nl * 2 * lc.tp_allreduce * (1 + rc);
      // ring attention hides KV passing behind attention compute
      f.cp = nl * std::max(0.0, lc.cp_exchange - lt.attention);
      k.cp = nl * (std::max(0.0, 2 * lc.cp_exchange - 2 * lt.attention) + rc * std::max(0.0, lc.cp_exchange - lt.attention));
      f.ep = nl * 2 * lc.ep_alltoall;  // dispatch + combine
      k.ep = nl * 2 * lc.ep_alltoall * (1 + rc);
    }
  }
}

/// Pass 1: compute ops of every stage in pipeline order, each after the previous one. With DP
/// overlap the last backward of each chunk is split into pieces (layer groups) so gradient buckets
/// can leave while the rest of that backward runs (Megatron's bucketed overlapped reduction); at
/// least ~4 buckets per stage.
void emit_compute_ops(Builder& b) {
  const auto& par = b.job.par;
  b.pieces_per_chunk = par.dp_overlap ? std::max(1, (4 + b.v - 1) / b.v) : 1;
  b.f_idx.assign(b.VS, std::vector<int>(b.msim, -1));
  b.b_out = b.f_idx;
  b.b_in = b.f_idx;
  b.last_pieces.assign(b.pp, std::vector<std::vector<int>>(b.v));
  auto& plan = b.plan;
  plan.compute.assign(b.pp, 0);
  plan.tp.assign(b.pp, 0);
  plan.cp.assign(b.pp, 0);
  plan.ep.assign(b.pp, 0);
  plan.stage_last_backward.assign(b.pp, -1);
  for (int s = 0; s < b.pp; ++s) {
    const auto order = pipeline_order(s, b.pp, b.msim, b.v, par.microbatch_group_size);
    std::vector<int> last_b_pos(b.v, -1);
    for (int k = 0; k < static_cast<int>(order.size()); ++k)
      if (!order[k].forward) last_b_pos[order[k].chunk] = k;
    int prev = -1;
    for (int k = 0; k < static_cast<int>(order.size()); ++k) {
      const PipelineOp& o = order[k];
      const OpCost& c = o.forward ? b.fwd[s][o.chunk] : b.bwd[s][o.chunk];
      const int j = o.chunk * b.pp + s;
      const bool last_b = !o.forward && k == last_b_pos[o.chunk];
      const int pieces = last_b ? std::max(1, std::min(b.pieces_per_chunk, plan.layers[j])) : 1;
      for (int q = 0; q < pieces; ++q) {
        Activity a;
        a.kind = Activity::Kind::Compute;
        a.gpu = plan.stage_gpu[s];
        a.amount = c.total() / pieces * b.unit();
        a.tag = o.forward ? kTagForward : kTagBackward;
        if (prev >= 0) a.after.push_back(prev);
        const int idx = b.add(std::move(a));
        b.prev_on_gpu.push_back(prev);
        prev = idx;
        if (q == 0 && !o.forward) b.b_in[j][o.microbatch] = idx;
        if (last_b) b.last_pieces[s][o.chunk].push_back(idx);
      }
      (o.forward ? b.f_idx : b.b_out)[j][o.microbatch] = prev;
      plan.compute[s] += c.compute;
      plan.tp[s] += c.tp;
      plan.cp[s] += c.cp;
      plan.ep[s] += c.ep;
    }
    plan.stage_last_backward[s] = prev;
  }
}

/// Pass 2: data dependencies; activations / gradients cross stages as flows (scatter/gather:
/// each TP rank sends b s h / t, SC21 §4.1).
void link_pipeline(Builder& b) {
  const auto& md = b.job.model;
  const double tokens_mb = b.job.microbatch_size * double(md.sequence_length) / b.job.par.cp;
  const double act_bytes = tokens_mb * md.hidden * 2.0 / b.job.par.tp;
  auto link = [&](int from_act, int to_act, int from_gpu, int to_gpu) {
    if (from_gpu == to_gpu) {
      b.acts()[to_act].after.push_back(from_act);
      return;
    }
    Collective c;
    c.op = Op::SendRecv;
    c.gpus = {from_gpu, to_gpu};
    c.bytes = act_bytes;
    c.after = {from_act};
    c.tag = kTagPp;
    c.hash = b.opt.seed * 1000003ULL + b.acts().size();
    auto e = collectives::emit(b.plan.schedule, c, b.layout, b.opt.protocol);
    for (int d : e.done) b.acts()[to_act].after.push_back(d);
    if (!e.done.empty()) b.plan.waits.push_back({e.done, to_act, b.prev_on_gpu[to_act], kTagPp});
  };
  const auto& sg = b.plan.stage_gpu;
  for (int j = 0; j < b.VS; ++j)
    for (int mb = 0; mb < b.msim; ++mb) {
      const int gj = sg[j % b.pp];
      if (j > 0) link(b.f_idx[j - 1][mb], b.f_idx[j][mb], sg[(j - 1) % b.pp], gj);
      if (j < b.VS - 1) link(b.b_out[j + 1][mb], b.b_in[j][mb], sg[(j + 1) % b.pp], gj);
      else b.acts()[b.b_in[j][mb]].after.push_back(b.f_idx[j][mb]);
    }
}

/// DP traffic of every stage, for all GPUs of the stage: the gradient reduction bucketed per model
/// chunk, FSDP's parameter gathers before use, the tied-embedding all-reduce, the optimizer step
/// and ZeRO's parameter all-gather after it.
class DpEmitter {
 public:
  explicit DpEmitter(Builder& b) : b_(b) {}
  void run();

 private:
  void emit_dp(int s, Op op, double bytes, std::vector<int> after, int tag, std::vector<int>* done);
  void emit_reduction();
  void emit_fsdp_gathers();
  std::vector<int> emit_embedding_allreduce();
  void emit_optimizer(const std::vector<int>& embedding_done);

  Builder& b_;
  Algorithm dp_alg_ = Algorithm::Auto;
  Op reduce_op_ = Op::AllReduce;
  int dp_size_ = 1;
  bool overlap_ = true;
  std::vector<std::vector<int>> stage_done_;
};

void DpEmitter::run() {
  const auto& par = b_.job.par;
  dp_alg_ = collectives::algorithm_from(par.dp_algorithm);
  reduce_op_ = par.zero == "none" ? Op::AllReduce : Op::ReduceScatter;
  dp_size_ = par.dp * par.cp;
  overlap_ = par.dp_overlap;
  stage_done_.assign(b_.pp, {});
  b_.stage_params.assign(b_.pp, 0);
  for (int s = 0; s < b_.pp; ++s)
    for (int c = 0; c < b_.v; ++c) b_.stage_params[s] += b_.chunk_params(c * b_.pp + s);
  if (dp_size_ > 1) emit_reduction();
  if (par.zero == "fsdp" && dp_size_ > 1) emit_fsdp_gathers();
  b_.plan.stage_dp_done = stage_done_;
  b_.plan.embedding_transfers = emit_embedding_allreduce();
  emit_optimizer(b_.plan.embedding_transfers);
}

void DpEmitter::emit_dp(int s, Op op, double bytes, std::vector<int> after, int tag, std::vector<int>* done) {
  for (int t = 0; t < b_.job.par.tp; ++t) {
    Collective c;
    c.op = op;
    c.gpus = b_.place.dp_group({t, 0, s, 0});
    const bool one_domain = b_.fabric.nvlink_domain_of(c.gpus.front()) == b_.fabric.nvlink_domain_of(c.gpus.back());
    c.algorithm = (dp_alg_ == Algorithm::Auto && !one_domain) ? Algorithm::Ring : dp_alg_;
    c.bytes = bytes;
    c.collapse = true;
    c.after = after;
    c.tag = tag;
    c.hash = b_.opt.seed * 0x100000001B3ULL + (static_cast<std::uint64_t>(s) << 20) + (t << 8) + tag;
    auto e = collectives::emit(b_.plan.schedule, c, b_.layout, b_.opt.protocol);
    if (done) done->insert(done->end(), e.done.begin(), e.done.end());
  }
}

void DpEmitter::emit_reduction() {
  for (int s = 0; s < b_.pp; ++s) {
    if (overlap_) {
      // one bucket per piece of each chunk's last backward, in the order they finish
      for (int c = b_.v - 1; c >= 0; --c) {
        const auto& pieces = b_.last_pieces[s][c];
        const double bytes = gradient_bytes(b_.job) * b_.chunk_params(c * b_.pp + s) / pieces.size();
        for (int piece : pieces) emit_dp(s, reduce_op_, bytes, {piece}, kTagDp, &stage_done_[s]);
      }
    } else {
      emit_dp(s, reduce_op_, gradient_bytes(b_.job) * b_.stage_params[s], {b_.plan.stage_last_backward[s]}, kTagDp, &stage_done_[s]);
    }
  }
}

void DpEmitter::emit_fsdp_gathers() {
  // parameters all-gathered before the first forward of each chunk
  for (int s = 0; s < b_.pp; ++s)
    for (int c = 0; c < b_.v; ++c) {
      std::vector<int> done;
      emit_dp(s, Op::AllGather, kParameterBytes * b_.chunk_params(c * b_.pp + s), {}, kTagDpGather, &done);
      const int first = b_.f_idx[c * b_.pp + s][0];
      const int rep = b_.plan.stage_gpu[s];
      std::vector<int> mine;
      for (int d : done)
        if (b_.acts()[d].dst_gpu == rep || b_.acts()[d].gpu == rep) mine.push_back(d);
      for (int d : mine) b_.acts()[first].after.push_back(d);
      if (!mine.empty()) b_.plan.waits.push_back({mine, first, b_.prev_on_gpu[first], kTagDpGather});
    }
}

std::vector<int> DpEmitter::emit_embedding_allreduce() {
  // gpt ties the output layer to the input embedding: with pp > 1 the last stage holds a copy whose
  // gradient is all-reduced with the first stage's after the DP reduction (Megatron-LM
  // finalize_model_grads: _allreduce_word_embedding_grads), for every TP rank and DP replica.
  std::vector<int> done;
  const auto& par = b_.job.par;
  if (llama(b_.job.model) || b_.pp == 1) return done;
  std::vector<int> after = stage_done_[0];
  after.insert(after.end(), stage_done_[b_.pp - 1].begin(), stage_done_[b_.pp - 1].end());
  after.push_back(b_.plan.stage_last_backward[0]);
  after.push_back(b_.plan.stage_last_backward[b_.pp - 1]);
  const double bytes = gradient_bytes(b_.job) * double(b_.job.model.vocab) * b_.job.model.hidden / par.tp;
  for (int d = 0; d < par.dp; ++d)
    for (int cp = 0; cp < par.cp; ++cp)
      for (int t = 0; t < par.tp; ++t) {
        Collective c;
        c.op = Op::AllReduce;
        c.algorithm = Algorithm::Ring;
        c.gpus = {b_.place.gpu({t, cp, 0, d}), b_.place.gpu({t, cp, b_.pp - 1, d})};
        c.bytes = bytes;
        c.after = after;
        c.tag = kTagEmbedding;
        c.hash = b_.opt.seed * 0x9E3779B97F4A7C15ULL + b_.place.gpu({t, cp, 0, d});
        auto e = collectives::emit(b_.plan.schedule, c, b_.layout, b_.opt.protocol);
        done.insert(done.end(), e.done.begin(), e.done.end());
      }
  return done;
}

void DpEmitter::emit_optimizer(const std::vector<int>& embedding_done) {
  // Optimizer step (Adam, memory-bound: ~32 B of HBM traffic per parameter held), then ZeRO's
  // parameter all-gather.
  const auto& par = b_.job.par;
  auto& plan = b_.plan;
  plan.optimizer.assign(b_.pp, 0);
  plan.stage_optimizer.assign(b_.pp, -1);
  plan.stage_after_optimizer.assign(b_.pp, {});
  for (int s = 0; s < b_.pp; ++s) {
    const double held = par.zero == "none" ? b_.stage_params[s] : b_.stage_params[s] / dp_size_;
    const double t_opt = compute::memory_time(b_.gpu, 32.0 * held, b_.opt.efficiency) / b_.speed[s];
    plan.optimizer[s] = t_opt;
    Activity a;
    a.kind = Activity::Kind::Compute;
    a.gpu = plan.stage_gpu[s];
    a.amount = t_opt * b_.unit();
    a.tag = kTagOptimizer;
    a.after = stage_done_[s];
    if (s == 0 || s == b_.pp - 1) a.after.insert(a.after.end(), embedding_done.begin(), embedding_done.end());
    a.after.push_back(plan.stage_last_backward[s]);
    const int opt_idx = b_.add(std::move(a));
    plan.stage_optimizer[s] = opt_idx;
    if (par.zero != "none" && dp_size_ > 1)
      emit_dp(s, Op::AllGather, kParameterBytes * b_.stage_params[s], {opt_idx}, kTagDpGather, &plan.stage_after_optimizer[s]);
  }
}

/// Microbatches beyond the simulated ones, at steady state (each adds one forward and one
/// backward of every chunk on the slowest stage).
void steady_state_extension(Builder& b) {
  auto& plan = b.plan;
  plan.extra_compute.assign(b.pp, 0);
  plan.extra_tp.assign(b.pp, 0);
  plan.extra_cp.assign(b.pp, 0);
  plan.extra_ep.assign(b.pp, 0);
  if (b.m <= b.msim) return;
  const double more = b.m - b.msim;
  double slowest = 0;
  for (int s = 0; s < b.pp; ++s) {
    double per_mb = 0;
    for (int c = 0; c < b.v; ++c) {
      const OpCost &f = b.fwd[s][c], &k = b.bwd[s][c];
      per_mb += f.total() + k.total();
      plan.extra_compute[s] += more * (f.compute + k.compute);
      plan.extra_tp[s] += more * (f.tp + k.tp);
      plan.extra_cp[s] += more * (f.cp + k.cp);
      plan.extra_ep[s] += more * (f.ep + k.ep);
    }
    slowest = std::max(slowest, per_mb);
  }
  plan.extra_time = more * slowest;
}

std::string describe_fidelity(const Builder& b, const std::string& dp_part) {
  std::string f = "pipeline of 1 DP replica (#" + std::to_string(b.rep) + ", TP/CP rank 0, " + std::to_string(b.pp) + " stages x " +
                  std::to_string(b.v) + " chunks, " + std::to_string(b.msim) + " of " + std::to_string(b.m) +
                  " microbatches) simulated op by op with PP flows; TP/CP/EP collectives analytic (alpha-beta); " +
                  dp_part;
  if (b.m > b.msim) f += "; remaining microbatches added analytically at steady state";
  if (b.plan.stragglers > 0)
    f += "; " + std::to_string(b.plan.stragglers) + " GPUs below nominal speed: the representative is the slowest "
         "replica by estimate, each stage at its slowest GPU's speed; other replicas' stragglers act through it only";
  return f;
}

std::string describe_dp(const Builder& b) {
  const auto& par = b.job.par;
  const int dp_size = par.dp * par.cp;
  if (dp_size <= 1) return "no DP traffic (dp x cp = 1)";
  const Op reduce_op = par.zero == "none" ? Op::AllReduce : Op::ReduceScatter;
  return "DP " + std::string(collectives::op_name(reduce_op)) + " as flows for all " + std::to_string(b.plan.gpus) +
         " GPUs (ring steps collapsed" + (par.dp_overlap ? ", bucketed per chunk" : ", one bucket per stage") + ")";
}

}  // namespace

StepPlan plan_step(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                   const StepOptions& opt) {
  StepPlan plan;
  Builder b(job, gpu, fabric, opt, plan);
  size_step(b);
  stage_clocks(b);
  op_costs(b);
  plan.schedule.gpu_flops = {gpu.bf16_flops};  // unit of Compute amounts: seconds x this rate
  emit_compute_ops(b);
  link_pipeline(b);
  DpEmitter(b).run();
  steady_state_extension(b);
  plan.fidelity = describe_fidelity(b, describe_dp(b));
  return plan;
}

namespace {

/// Seconds of each kind of exposed communication an op waited for, per stage, before its last
/// backward: per op, the wait on its latest-finishing transfer group (StepWait).
std::vector<std::vector<double>> transfer_waits(const StepPlan& plan, const network::RunResult& run) {
  std::vector<std::vector<double>> by_stage(plan.pp, std::vector<double>(kTagEmbedding + 1, 0.0));
  auto stage_of = [&](int gpu) {
    for (int s = 0; s < plan.pp; ++s)
      if (plan.stage_gpu[s] == gpu) return s;
    return -1;
  };
  // the latest-finishing wait of each op
  std::vector<int> order(plan.waits.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int c) { return plan.waits[a].op < plan.waits[c].op; });
  for (std::size_t k = 0; k < order.size();) {
    const int op = plan.waits[order[k]].op;
    int pick = -1;
    double pick_finish = -1, pick_start = 0;
    for (; k < order.size() && plan.waits[order[k]].op == op; ++k) {
      const StepWait& w = plan.waits[order[k]];
      double last = 0, first = std::numeric_limits<double>::infinity();
      for (int t : w.transfers) {
        last = std::max(last, run.finish[t]);
        first = std::min(first, run.start[t]);
      }
      if (last > pick_finish) {
        pick = order[k];
        pick_finish = last;
        pick_start = first;
      }
    }
    const StepWait& w = plan.waits[pick];
    const double ready = w.prev >= 0 ? run.finish[w.prev] : 0.0;
    const double wait = run.start[op] - ready;
    if (wait <= 0 || pick_finish < run.start[op] - 1e-12) continue;  // not the last dependency
    const double on_wire = pick_finish - std::max(pick_start, ready);
    const int s = stage_of(plan.schedule.activities[op].gpu);
    if (s >= 0) by_stage[s][w.kind] += std::max(0.0, std::min(wait, on_wire));
  }
  return by_stage;
}

/// End of each stage's step: its optimizer and the all-gathers after it.
double stage_end(const StepPlan& plan, const network::RunResult& run, int s) {
  double end = run.finish.at(plan.stage_optimizer[s]);
  for (int a : plan.stage_after_optimizer[s]) end = std::max(end, run.finish[a]);
  return end;
}

double overlap(double a0, double a1, double b0, double b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); }

/// The tail of a stage after its last backward, as intervals: before the optimizer it waits for
/// its DP reduction (from the last backward to the reduction's end) and, on the first and last
/// stage, for the tied-embedding all-reduce (while on the wire); any other wait there is for the
/// other stage's pipeline drain. Then the optimizer, then the ZeRO all-gather up to `end`.
struct Tail {
  double last_b = 0, opt0 = 0, opt1 = 0, end = 0;
  double dp_end = 0;            ///< end of the stage's DP reduction (<= last_b when hidden)
  double emb0 = 0, emb1 = 0;    ///< embedding all-reduce on the wire (empty when none)
  /// Seconds of [x0, x1] spent waiting for DP traffic: the reduction and the ZeRO all-gather.
  double dp_in(double x0, double x1) const {
    return overlap(x0, x1, last_b, std::min(dp_end, opt0)) + overlap(x0, x1, opt1, end);
  }
  /// Seconds of [x0, x1] spent waiting for the embedding all-reduce alone (PP-group traffic).
  double embedding_in(double x0, double x1) const {
    return overlap(x0, x1, emb0, std::min(emb1, opt0)) -
           overlap(x0, x1, std::max(last_b, emb0), std::min({dp_end, emb1, opt0}));
  }
};

Tail stage_tail(const StepPlan& plan, const network::RunResult& run, int s) {
  Tail t;
  t.last_b = run.finish.at(plan.stage_last_backward[s]);
  t.opt0 = run.start.at(plan.stage_optimizer[s]);
  t.opt1 = run.finish.at(plan.stage_optimizer[s]);
  t.end = stage_end(plan, run, s);
  t.dp_end = t.last_b;
  for (int a : plan.stage_dp_done[s]) t.dp_end = std::max(t.dp_end, run.finish[a]);
  if ((s == 0 || s == plan.pp - 1) && !plan.embedding_transfers.empty()) {
    t.emb0 = std::numeric_limits<double>::infinity();
    for (int a : plan.embedding_transfers) {
      t.emb0 = std::min(t.emb0, run.start[a]);
      t.emb1 = std::max(t.emb1, run.finish[a]);
    }
  }
  return t;
}

}  // namespace

StepBreakdown analyse_step(const StepPlan& plan, const network::RunResult& run) {
  StepBreakdown r;
  r.step_time = run.makespan + plan.extra_time;
  if (plan.pp == 0 || r.step_time <= 0) return r;
  const auto waits = transfer_waits(plan, run);
  // the critical stage: the one whose step ends last
  std::vector<Tail> tails;
  int crit = 0;
  for (int s = 0; s < plan.pp; ++s) {
    tails.push_back(stage_tail(plan, run, s));
    if (tails[s].end > tails[crit].end) crit = s;
  }
  double comm_busy = 0;
  for (int s = 0; s < plan.pp; ++s) {
    const Tail& t = tails[s];
    const double ops = plan.compute[s] + plan.tp[s] + plan.cp[s] + plan.ep[s];
    const double idle = std::max(0.0, t.last_b - ops);
    double exposed = 0;
    for (double w : waits[s]) exposed += w;
    const double scale = exposed > idle ? idle / exposed : 1.0;  // waits cannot exceed the idle time
    r.bubble += idle - exposed * scale;
    r.exposed_pp += waits[s][kTagPp] * scale;
    r.exposed_dp += (waits[s][kTagDpGather] + waits[s][kTagDp]) * scale;
    // after its last backward: its optimizer is compute; the rest of the time until the step ends
    // is booked by what the critical stage was doing then: waiting for DP (embedding) traffic is
    // exposed DP (PP), running its pipeline (the drain) or optimizer is bubble. A stage's own DP
    // reduction hidden behind the drain is not exposed.
    const Tail& c = tails[crit];
    const double dp = c.dp_in(t.last_b, t.opt0) + c.dp_in(t.opt1, run.makespan);
    const double emb = c.embedding_in(t.last_b, t.opt0) + c.embedding_in(t.opt1, run.makespan);
    r.compute += plan.compute[s] + plan.extra_compute[s] + (t.opt1 - t.opt0);
    r.exposed_dp += dp;
    r.exposed_pp += emb;
    r.bubble += std::max(0.0, run.makespan - t.last_b - (t.opt1 - t.opt0) - dp - emb);
    const double extra_ops = plan.extra_compute[s] + plan.extra_tp[s] + plan.extra_cp[s] + plan.extra_ep[s];
    r.bubble += std::max(0.0, plan.extra_time - extra_ops);
    r.exposed_tp += plan.tp[s] + plan.extra_tp[s];
    r.exposed_cp += plan.cp[s] + plan.extra_cp[s];
    r.exposed_ep += plan.ep[s] + plan.extra_ep[s];
    comm_busy += plan.tp[s] + plan.cp[s] + plan.ep[s] + plan.extra_tp[s] + plan.extra_cp[s] + plan.extra_ep[s];
  }
  // DP flows of the representative GPUs: time during which any of them was on the wire.
  for (int s = 0; s < plan.pp; ++s) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (std::size_t i = 0; i < plan.schedule.activities.size(); ++i) {
      const auto& a = plan.schedule.activities[i];
      if ((a.tag == kTagDp || a.tag == kTagDpGather || a.tag == kTagEmbedding) && a.gpu == plan.stage_gpu[s]) {
        lo = std::min(lo, run.start[i]);
        hi = std::max(hi, run.finish[i]);
      }
    }
    if (hi > lo) comm_busy += hi - lo;
  }
  const double n = plan.pp;
  r.compute /= n;
  r.exposed_tp /= n;
  r.exposed_cp /= n;
  r.exposed_ep /= n;
  r.bubble /= n;
  r.exposed_pp /= n;
  r.exposed_dp /= n;
  for (double* x : {&r.compute, &r.exposed_tp, &r.exposed_cp, &r.exposed_ep, &r.bubble, &r.exposed_pp, &r.exposed_dp})
    if (std::abs(*x) < 1e-12 * r.step_time) *x = 0;  // rounding residue of the interval sums
  r.gpu_busy_compute_fraction = std::min(1.0, r.compute / r.step_time);
  r.gpu_busy_comm_fraction = std::min(1.0, comm_busy / n / r.step_time);
  return r;
}

}  // namespace aidcsim::workload
