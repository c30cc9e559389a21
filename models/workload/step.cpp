#include "models/workload/step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/placement.hpp"

namespace aidcsim::workload {

using collectives::Algorithm;
using collectives::Collective;
using collectives::Op;
using network::Activity;

namespace {

/// Parameters held by one GPU (TP rank) for the layers of virtual stage `j` of `vs`.
double chunk_parameters(const JobSpec& job, int layers, int j, int vs) {
  const auto& m = job.model;
  double layer = layer_parameters(m);
  if (m.experts > 1) {  // experts are sharded over EP
    const double mats = m.style == "llama" ? 3.0 : 2.0;
    const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
    const double experts_all = m.experts * mats * m.hidden * ffn;
    layer = layer - experts_all + experts_all / job.par.ep;
  }
  double p = layers * layer;
  if (j == 0) p += double(m.vocab) * m.hidden + (m.style == "llama" ? 0.0 : double(m.sequence_length) * m.hidden);
  if (j == vs - 1 && m.style == "llama") p += double(m.vocab) * m.hidden;  // untied output layer
  return p / job.par.tp;
}

struct OpCost {
  double compute = 0, tp = 0, cp = 0, ep = 0;
  double total() const { return compute + tp + cp + ep; }
};

}  // namespace

StepPlan plan_step(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                   const StepOptions& opt) {
  const auto& par = job.par;
  const auto& md = job.model;
  Placement place(par);
  const int N = place.gpus();
  if (fabric.gpu_count() < N)
    throw Error("the job needs " + std::to_string(N) + " GPUs, the fabric has " + std::to_string(fabric.gpu_count()));
  const int pp = par.pp, v = par.virtual_stages, VS = pp * v;
  const int b = job.microbatch_size;
  if (job.global_batch % (par.dp * b) != 0 || job.global_batch < par.dp * b)
    throw InvalidParameter("workload.global_batch", std::to_string(job.global_batch), "a multiple of dp x microbatch_size");
  const int m = job.global_batch / (par.dp * b);
  if (md.layers < VS)
    throw InvalidParameter("workload.parallelism.virtual_stages", std::to_string(v),
                           "pp x virtual_stages <= layers (" + std::to_string(md.layers) + ")");

  StepPlan plan;
  plan.gpus = N;
  plan.pp = pp;
  plan.chunks = v;
  plan.microbatches = m;
  plan.tokens_per_step = double(job.global_batch) * md.sequence_length;
  plan.parameters = parameters(md);
  plan.model_flops_per_step = model_flops(md, plan.tokens_per_step);
  plan.hardware_flops_per_step = hardware_flops(md, plan.tokens_per_step, job.activation_recompute);

  // Layers of each virtual stage (the remainder goes to the first ones).
  std::vector<int> layers_vs(VS, md.layers / VS);
  for (int i = 0; i < md.layers % VS; ++i) ++layers_vs[i];

  int cap = opt.max_simulated_microbatches > 0 ? opt.max_simulated_microbatches : std::max(32, 2 * pp);
  if (v > 1) cap = std::max(pp, (cap / pp) * pp);
  const int msim = std::min(m, cap);
  plan.simulated_microbatches = msim;

  // Warm-up deep enough for the schedule to be deadlock-free (needed only for partial groups).
  int extra_warmup = 0;
  while (!pipeline_feasible(pp, msim, v, extra_warmup)) {
    extra_warmup += pp;
    if (extra_warmup > msim * v) throw SimulationError("no deadlock-free pipeline order found");
  }
  const collectives::Layout layout = collectives::Layout::from(fabric);
  const auto& proto = opt.protocol;
  const auto& eff = opt.efficiency;

  // Slowest clock of each stage: TP and DP peers wait for it (synchronous training).
  std::vector<double> clk(pp, 1.0);
  if (!opt.clock_factor.empty())
    for (int g = 0; g < N && g < static_cast<int>(opt.clock_factor.size()); ++g) {
      const int s = place.coord(g).pp;
      clk[s] = std::min(clk[s], opt.clock_factor[g]);
    }

  const double s_local = double(md.sequence_length) / par.cp;
  const double tokens_mb = b * s_local;
  const double kvf = md.kv_heads > 0 ? double(md.kv_heads) / md.heads : 1.0;
  // cost[s][c]: forward and backward op costs of chunk c on stage s
  std::vector<std::vector<OpCost>> fwd(pp, std::vector<OpCost>(v)), bwd(pp, std::vector<OpCost>(v));
  for (int s = 0; s < pp; ++s) {
    plan.stage_gpu.push_back(place.gpu({0, 0, s, 0}));
    const LayerTime lt = layer_time(job, gpu, eff, clk[s]);
    const double logit = logit_time(job, gpu, eff, clk[s]);
    // cross-entropy over the local vocabulary shard: ~4 passes of 2 B over b s V / t logits
    const double loss = compute::memory_time(gpu, 4 * 2.0 * tokens_mb * md.vocab / par.tp, eff);
    double t_ar = 0, t_cp = 0, t_a2a = 0;
    if (par.tp > 1) {
      Collective c;
      c.op = Op::AllReduce;
      c.gpus = place.tp_group({0, 0, s, 0});
      c.bytes = tokens_mb * md.hidden * 2.0;
      t_ar = collectives::estimate_time(c, layout, proto);
    }
    if (par.cp > 1) {
      Collective c;
      c.op = Op::SendRecv;
      auto g = place.cp_group({0, 0, s, 0});
      c.gpus = {g[0], g[1]};
      c.bytes = 2.0 * tokens_mb * md.hidden * kvf * 2.0 / par.tp;  // K and V of the local block
      t_cp = (par.cp - 1) * collectives::estimate_time(c, layout, proto);
    }
    if (md.experts > 1 && par.ep > 1) {
      Collective c;
      c.op = Op::AllToAll;
      c.gpus = place.ep_group({0, 0, s, 0});
      c.bytes = tokens_mb * md.hidden * 2.0 * md.top_k / (par.sequence_parallel ? par.tp : 1);
      t_a2a = collectives::estimate_time(c, layout, proto);
    }
    const int rc = job.activation_recompute ? 1 : 0;
    for (int c = 0; c < v; ++c) {
      const int j = c * pp + s;
      const double nl = layers_vs[j];
      OpCost& f = fwd[s][c];
      OpCost& k = bwd[s][c];
      f.compute = nl * lt.forward() + (j == VS - 1 ? logit + loss : 0);
      k.compute = nl * lt.backward() + (j == VS - 1 ? 2 * logit + loss : 0) + rc * nl * lt.forward();
      f.tp = nl * 2 * t_ar;  // Megatron: one all-reduce after attention, one after the MLP
      k.tp = nl * 2 * t_ar * (1 + rc);
      f.cp = nl * std::max(0.0, t_cp - lt.attention);  // ring attention hides KV passing behind attention
      k.cp = nl * (std::max(0.0, 2 * t_cp - 2 * lt.attention) + rc * std::max(0.0, t_cp - lt.attention));
      f.ep = nl * 2 * t_a2a;  // dispatch + combine
      k.ep = nl * 2 * t_a2a * (1 + rc);
    }
  }

  auto& sched = plan.schedule;
  sched.gpu_flops = {gpu.bf16_flops};  // unit of Compute amounts: seconds x this rate
  const double unit = gpu.bf16_flops;
  auto& acts = sched.activities;
  plan.compute.assign(pp, 0);
  plan.tp.assign(pp, 0);
  plan.cp.assign(pp, 0);
  plan.ep.assign(pp, 0);
  plan.optimizer.assign(pp, 0);
  plan.stage_last_backward.assign(pp, -1);

  // Pass 1: compute ops of every stage in pipeline order, each after the previous one. With DP
  // overlap the last backward of each chunk is split into pieces (layer groups) so gradient buckets
  // can leave while the rest of that backward runs (Megatron's bucketed overlapped reduction);
  // at least ~4 buckets per stage.
  const int pieces_per_chunk = par.dp_overlap ? std::max(1, (4 + v - 1) / v) : 1;
  std::vector<std::vector<int>> f_idx(VS, std::vector<int>(msim, -1)), b_out(VS, std::vector<int>(msim, -1)),
      b_in(VS, std::vector<int>(msim, -1));
  // pieces of the last backward of each chunk: [stage][chunk] -> activity indices, and their share
  std::vector<std::vector<std::vector<int>>> last_pieces(pp, std::vector<std::vector<int>>(v));
  std::vector<int> prev_on_gpu;  // activity -> previous compute op on its GPU (-1), pass-1 ops only
  for (int s = 0; s < pp; ++s) {
    const auto order = pipeline_order(s, pp, msim, v, extra_warmup);
    std::vector<int> last_b_pos(v, -1);
    for (int k = 0; k < static_cast<int>(order.size()); ++k)
      if (!order[k].forward) last_b_pos[order[k].chunk] = k;
    int prev = -1;
    for (int k = 0; k < static_cast<int>(order.size()); ++k) {
      const PipelineOp& o = order[k];
      const OpCost& c = o.forward ? fwd[s][o.chunk] : bwd[s][o.chunk];
      const int j = o.chunk * pp + s;
      const int pieces = (!o.forward && k == last_b_pos[o.chunk]) ? std::min(pieces_per_chunk, layers_vs[j]) : 1;
      for (int q = 0; q < pieces; ++q) {
        Activity a;
        a.kind = Activity::Kind::Compute;
        a.gpu = plan.stage_gpu[s];
        a.amount = c.total() / pieces * unit;
        a.tag = o.forward ? kTagForward : kTagBackward;
        if (prev >= 0) a.after.push_back(prev);
        acts.push_back(a);
        prev_on_gpu.push_back(prev);
        prev = static_cast<int>(acts.size()) - 1;
        if (q == 0 && !o.forward) b_in[j][o.microbatch] = prev;
        if (!o.forward && k == last_b_pos[o.chunk]) last_pieces[s][o.chunk].push_back(prev);
      }
      (o.forward ? f_idx : b_out)[j][o.microbatch] = prev;
      plan.compute[s] += c.compute;
      plan.tp[s] += c.tp;
      plan.cp[s] += c.cp;
      plan.ep[s] += c.ep;
    }
    plan.stage_last_backward[s] = prev;
  }

  // Pass 2: data dependencies; activations / gradients cross stages as flows (scatter/gather:
  // each TP rank sends b s h / t, SC21 §4.1).
  const double act_bytes = tokens_mb * md.hidden * 2.0 / par.tp;
  auto link = [&](int from_act, int to_act, int from_gpu, int to_gpu) {
    if (from_gpu == to_gpu) {
      acts[to_act].after.push_back(from_act);
      return;
    }
    Collective c;
    c.op = Op::SendRecv;
    c.gpus = {from_gpu, to_gpu};
    c.bytes = act_bytes;
    c.after = {from_act};
    c.tag = kTagPp;
    c.hash = opt.seed * 1000003ULL + acts.size();
    auto e = collectives::emit(sched, c, layout, proto);
    for (int d : e.done) {
      acts[to_act].after.push_back(d);
      plan.pp_waits.push_back({d, to_act, prev_on_gpu[to_act]});
    }
  };
  for (int j = 0; j < VS; ++j)
    for (int mb = 0; mb < msim; ++mb) {
      const int gj = plan.stage_gpu[j % pp];
      if (j > 0) link(f_idx[j - 1][mb], f_idx[j][mb], plan.stage_gpu[(j - 1) % pp], gj);
      if (j < VS - 1) link(b_out[j + 1][mb], b_in[j][mb], plan.stage_gpu[(j + 1) % pp], gj);
      else acts[b_in[j][mb]].after.push_back(f_idx[j][mb]);
    }

  // DP reduction of every stage, for all GPUs of the stage, bucketed per model chunk.
  Algorithm dp_alg = collectives::algorithm_from(par.dp_algorithm);
  const Op reduce_op = par.zero == "none" ? Op::AllReduce : Op::ReduceScatter;
  const int dp_size = par.dp * par.cp;
  const bool overlap = par.dp_overlap;
  std::vector<std::vector<int>> stage_done(pp);
  auto emit_dp = [&](int s, Op op, double bytes, std::vector<int> after, int tag, std::vector<int>* done) {
    for (int t = 0; t < par.tp; ++t) {
      Collective c;
      c.op = op;
      c.gpus = place.dp_group({t, 0, s, 0});
      const bool one_domain = fabric.nvlink_domain_of(c.gpus.front()) == fabric.nvlink_domain_of(c.gpus.back());
      c.algorithm = (dp_alg == Algorithm::Auto && !one_domain) ? Algorithm::Ring : dp_alg;
      c.bytes = bytes;
      c.collapse = true;
      c.after = after;
      c.tag = tag;
      c.hash = opt.seed * 0x100000001B3ULL + (static_cast<std::uint64_t>(s) << 20) + (t << 8) + tag;
      auto e = collectives::emit(sched, c, layout, proto);
      if (done) done->insert(done->end(), e.done.begin(), e.done.end());
    }
  };
  std::vector<double> stage_params(pp, 0);
  for (int s = 0; s < pp; ++s)
    for (int c = 0; c < v; ++c) stage_params[s] += chunk_parameters(job, layers_vs[c * pp + s], c * pp + s, VS);
  if (dp_size > 1) {
    for (int s = 0; s < pp; ++s) {
      if (overlap) {
        // one bucket per piece of each chunk's last backward, in the order they finish
        for (int c = v - 1; c >= 0; --c) {
          const auto& pieces = last_pieces[s][c];
          const double bytes = 2.0 * chunk_parameters(job, layers_vs[c * pp + s], c * pp + s, VS) / pieces.size();
          for (int piece : pieces) emit_dp(s, reduce_op, bytes, {piece}, kTagDp, &stage_done[s]);
        }
      } else {
        emit_dp(s, reduce_op, 2.0 * stage_params[s], {plan.stage_last_backward[s]}, kTagDp, &stage_done[s]);
      }
    }
  }
  // FSDP: parameters all-gathered before the first forward of each chunk.
  if (par.zero == "fsdp" && dp_size > 1)
    for (int s = 0; s < pp; ++s)
      for (int c = 0; c < v; ++c) {
        std::vector<int> done;
        emit_dp(s, Op::AllGather, 2.0 * chunk_parameters(job, layers_vs[c * pp + s], c * pp + s, VS), {},
                kTagDpGather, &done);
        const int first = f_idx[c * pp + s][0];
        const int rep = plan.stage_gpu[s];
        for (int d : done)
          if (acts[d].dst_gpu == rep || acts[d].gpu == rep) acts[first].after.push_back(d);
      }
  // Optimizer step (Adam, memory-bound: ~32 B of HBM traffic per parameter held), then ZeRO's
  // parameter all-gather.
  for (int s = 0; s < pp; ++s) {
    const double held = par.zero == "none" ? stage_params[s] : stage_params[s] / dp_size;
    const double t_opt = compute::memory_time(gpu, 32.0 * held, eff);
    plan.optimizer[s] = t_opt;
    Activity a;
    a.kind = Activity::Kind::Compute;
    a.gpu = plan.stage_gpu[s];
    a.amount = t_opt * unit;
    a.tag = kTagOptimizer;
    a.after = stage_done[s];
    a.after.push_back(plan.stage_last_backward[s]);
    acts.push_back(a);
    const int opt_idx = static_cast<int>(acts.size()) - 1;
    if (par.zero != "none" && dp_size > 1) emit_dp(s, Op::AllGather, 2.0 * stage_params[s], {opt_idx}, kTagDpGather, nullptr);
  }

  // Microbatches beyond the simulated ones, at steady state (each adds one forward and one
  // backward of every chunk on the slowest stage).
  plan.extra_compute.assign(pp, 0);
  plan.extra_tp.assign(pp, 0);
  plan.extra_cp.assign(pp, 0);
  plan.extra_ep.assign(pp, 0);
  if (m > msim) {
    double slowest = 0;
    for (int s = 0; s < pp; ++s) {
      double per_mb = 0;
      for (int c = 0; c < v; ++c) {
        per_mb += fwd[s][c].total() + bwd[s][c].total();
        plan.extra_compute[s] += (m - msim) * (fwd[s][c].compute + bwd[s][c].compute);
        plan.extra_tp[s] += (m - msim) * (fwd[s][c].tp + bwd[s][c].tp);
        plan.extra_cp[s] += (m - msim) * (fwd[s][c].cp + bwd[s][c].cp);
        plan.extra_ep[s] += (m - msim) * (fwd[s][c].ep + bwd[s][c].ep);
      }
      slowest = std::max(slowest, per_mb);
    }
    plan.extra_time = (m - msim) * slowest;
  }

  plan.fidelity = "pipeline of 1 DP replica (TP/CP rank 0, " + std::to_string(pp) + " stages x " +
                  std::to_string(v) + " chunks, " + std::to_string(msim) + " of " + std::to_string(m) +
                  " microbatches) simulated op by op with PP flows; TP/CP/EP collectives analytic (alpha-beta); DP " +
                  std::string(collectives::op_name(reduce_op)) + " as flows for all " + std::to_string(N) +
                  " GPUs (ring steps collapsed" + (overlap ? ", bucketed per chunk" : ", one bucket per stage") + ")" +
                  (m > msim ? "; remaining microbatches added analytically at steady state" : "");
  return plan;
}

StepBreakdown analyse_step(const StepPlan& plan, const network::RunResult& run) {
  StepBreakdown r;
  r.step_time = run.makespan + plan.extra_time;
  if (plan.pp == 0 || r.step_time <= 0) return r;
  double comm_busy = 0;
  // waiting for PP flows, per stage (by the receiving GPU)
  std::vector<double> pp_wait(plan.pp, 0);
  for (const auto& w : plan.pp_waits) {
    const double ready = w[2] >= 0 ? run.finish[w[2]] : 0.0;
    const double wait = run.start[w[1]] - ready;
    if (wait <= 0 || run.finish[w[0]] < run.start[w[1]] - 1e-12) continue;  // not the last dependency
    const double on_wire = run.finish[w[0]] - std::max(run.start[w[0]], ready);
    const int gpu = plan.schedule.activities[w[1]].gpu;
    for (int s = 0; s < plan.pp; ++s)
      if (plan.stage_gpu[s] == gpu) pp_wait[s] += std::max(0.0, std::min(wait, on_wire));
  }
  for (int s = 0; s < plan.pp; ++s) {
    const double ops = plan.compute[s] + plan.tp[s] + plan.cp[s] + plan.ep[s];
    const double last_b = run.finish.at(plan.stage_last_backward[s]);
    const double idle = std::max(0.0, last_b - ops);
    const double bubble = idle - std::min(idle, pp_wait[s]);
    const double extra_ops = plan.extra_compute[s] + plan.extra_tp[s] + plan.extra_cp[s] + plan.extra_ep[s];
    const double tail = std::max(0.0, run.makespan - last_b);
    r.compute += plan.compute[s] + plan.extra_compute[s] + std::min(tail, plan.optimizer[s]);
    r.exposed_tp += plan.tp[s] + plan.extra_tp[s];
    r.exposed_cp += plan.cp[s] + plan.extra_cp[s];
    r.exposed_ep += plan.ep[s] + plan.extra_ep[s];
    r.bubble += bubble + std::max(0.0, plan.extra_time - extra_ops);
    r.exposed_pp += idle - bubble;
    r.exposed_dp += std::max(0.0, tail - plan.optimizer[s]);
    comm_busy += plan.tp[s] + plan.cp[s] + plan.ep[s] + plan.extra_tp[s] + plan.extra_cp[s] + plan.extra_ep[s];
  }
  // DP flows of the representative GPUs: time during which any of them was on the wire.
  for (int s = 0; s < plan.pp; ++s) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (std::size_t i = 0; i < plan.schedule.activities.size(); ++i) {
      const auto& a = plan.schedule.activities[i];
      if ((a.tag == kTagDp || a.tag == kTagDpGather) && a.gpu == plan.stage_gpu[s]) {
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
  r.gpu_busy_compute_fraction = std::min(1.0, r.compute / r.step_time);
  r.gpu_busy_comm_fraction = std::min(1.0, comm_busy / n / r.step_time);
  return r;
}

}  // namespace aidcsim::workload
