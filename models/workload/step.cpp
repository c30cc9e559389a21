#include "models/workload/step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/placement.hpp"
#include "models/workload/step_builder.hpp"
#include "models/workload/stragglers.hpp"

namespace aidcsim::workload {

using collectives::Algorithm;
using collectives::Collective;
using collectives::Op;
using detail::Builder;
using detail::LayerFlows;
using detail::LayerSeg;
using detail::OpCost;
using detail::Unit;
using network::Activity;

namespace {

/// Analytic costs of the communication inside one layer's ops, for one microbatch (s).
struct LayerComm {
  double tp_allreduce = 0;  ///< one TP all-reduce of the layer's activations
  double cp_exchange = 0;   ///< the CP ring's KV passing of one attention
  double ep_alltoall = 0;   ///< one EP all-to-all (dispatch or combine)
  /// DeepSpeed's pipeline engine: one TP all-gather of the b s h tensor a stage sends or receives
  /// (PartitionedTensor.full, deepspeed/runtime/utils.py v0.5.4); 0 otherwise
  double ds_gather = 0;
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
    throw InvalidParameter("workload.global_batch", std::to_string(job.global_batch),
                           "a multiple of dp x microbatch_size");
  b.m = job.global_batch / (par.dp * mb);
  const bool flexible = par.flexible_interleaving();
  const std::string why = interleaving_error(b.pp, b.v, par.microbatch_group_size, b.m, flexible);
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
  // The group size N is fixed by the real m (the flexible schedule derives it from m) and passed on
  // explicitly, so the simulated microbatches keep it.
  b.group = b.v > 1 ? microbatch_group(b.pp, b.v, par.microbatch_group_size, b.m, flexible) : 0;
  if (b.v > 1 && b.msim < b.m) {
    const int n = b.group;
    const int rest = b.m % n;
    b.msim = std::max(1, (cap - rest) / n) * n + rest;
    if (b.msim >= b.m) b.msim = b.m;
  }
  b.plan.simulated_microbatches = b.msim;
  b.plan.microbatch_group = b.v > 1 ? b.group : 1;
}

/// Clock (thermal DVFS: compute-bound parts) and speed (stragglers: all compute) of each stage of
/// the representative pipeline: the slowest GPU of the stage's TP x CP group, whose peers wait for
/// it. The representative is the DP replica whose pipeline is slowest by estimate (fill/drain over
/// every stage plus m - 1 microbatches at the slowest stage's pace): a synchronous step waits for it.
void stage_clocks(Builder& b) {
  const auto& par = b.job.par;
  const auto& cf = b.opt.clock_factor;
  const std::vector<double> speed = gpu_speed_factors(b.job, b.plan.gpus, b.fabric.spec().gpus_per_node, b.opt.seed);
  // Clocks: thermal DVFS, at most nominal (1). Speeds: the slowest GPU's factor, which may be above
  // 1 (cluster.gpu_speed, gpu_speed_distribution up to 2): a stage whose GPUs are all faster runs faster.
  std::vector<std::vector<double>> clk(par.dp, std::vector<double>(b.pp, 1.0));
  std::vector<std::vector<double>> spd(
      par.dp, std::vector<double>(b.pp, speed.empty() ? 1.0 : std::numeric_limits<double>::infinity()));
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
    // DeepSpeed PipelineEngine (engine.py v0.5.4: is_pipe_partitioned = is_grad_partitioned =
    // is_model_parallel): tensors cross stages as 1/TP partitions, made whole by an all-gather
    if (par.deepspeed_pipeline() && b.pp > 1) {
      c.op = Op::AllGather;  // nccl-tests size: the gathered b s h tensor
      lc.ds_gather = collectives::estimate_time(c, b.layout, b.opt.protocol);
    }
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

// The layer's op as stage s's GPU runs it when some of its collectives run as flows
// (b.layer_flows): the attention core (overlapped by the CP ring), the rest of the compute in two
// halves (attention block, MLP) around Megatron's TP all-reduces and the EP dispatch / combine;
// backward in reverse, after the recomputed forward (with its own collectives) under full
// recompute. Analytic parts (lf, lb) go first. `sel`: selective recompute's extra attention (s),
// `rc` 1 under full recompute, `spd` the stage's speed factor.
void add_layer_segments(Builder& b, int s, const LayerTime& lt, const OpCost& lf, const OpCost& lb, double sel, int rc,
                        double spd, double tokens_mb) {
  const auto& job = b.job;
  const auto& md = job.model;
  const LayerFlows& fl = b.layer_flows;
  const double block = 2.0 * tokens_mb * md.hidden * (md.kv_heads > 0 ? double(md.kv_heads) / md.heads : 1.0) * 2.0 /
                       job.par.tp;  // K and V of the local block (as layer_comm)
  auto forward = [&](std::vector<LayerSeg>& v, double analytic) {
    const double att = lt.attention / spd, rest = (lt.forward() - lt.attention) / spd;
    if (fl.cp) v.push_back({LayerSeg::CpRing, att, block});
    v.push_back({LayerSeg::Compute, (fl.cp ? 0.0 : att) + rest / 2 + analytic, 0});
    if (fl.tp) v.push_back({LayerSeg::Tp, 0, 0});
    if (fl.ep) v.push_back({LayerSeg::Ep, 0, 0});
    v.push_back({LayerSeg::Compute, rest / 2, 0});
    if (fl.ep) v.push_back({LayerSeg::Ep, 0, 0});
    if (fl.tp) v.push_back({LayerSeg::Tp, 0, 0});
  };
  auto& fs = b.layer_segs[s][0];
  auto& bs = b.layer_segs[s][1];
  forward(fs, lf.tp + lf.cp + lf.ep);
  if (rc) forward(bs, lb.tp + lb.cp + lb.ep);
  const double att = (lt.attention_backward + sel) / spd, rest = (lt.backward() - lt.attention_backward) / spd;
  bs.push_back({LayerSeg::Compute, rc ? 0.0 : lb.tp + lb.cp + lb.ep, 0});
  if (fl.tp) bs.push_back({LayerSeg::Tp, 0, 0});
  if (fl.ep) bs.push_back({LayerSeg::Ep, 0, 0});
  bs.push_back({LayerSeg::Compute, rest / 2, 0});
  if (fl.ep) bs.push_back({LayerSeg::Ep, 0, 0});
  if (fl.tp) bs.push_back({LayerSeg::Tp, 0, 0});
  bs.push_back({LayerSeg::Compute, rest / 2 + (fl.cp ? 0.0 : att), 0});
  if (fl.cp) bs.push_back({LayerSeg::CpRing, att, 2 * block});  // K, V and their gradients
}

// Forward and backward costs of stage s's chunks for one microbatch, unit by unit (the input
// embedding on the first virtual stage, the layers, the output layer and the loss on the last),
// from one layer's costs (lf, lb) and the embedding / logit / loss times (s); the stage's
// parameters.
void add_chunk_costs(Builder& b, int s, const OpCost& lf, const OpCost& lb, double embed, double logit, double loss,
                     double spd, double embed_tp, double ds_gather) {
  const auto& job = b.job;
  const double layer_params = chunk_parameters(job, 1, false, false, b.pp > 1);
  const double first_params = chunk_parameters(job, 0, true, false, b.pp > 1);
  const double last_params = chunk_parameters(job, 0, false, true, b.pp > 1);
  for (int c = 0; c < b.v; ++c) {
    const int j = c * b.pp + s;
    const int nl = b.plan.layers[j];
    const bool first = j == 0, last = j == b.VS - 1;
    OpCost& f = b.fwd[s][c];
    OpCost& k = b.bwd[s][c];
    auto add = [](OpCost& op, double compute, double tp, double cp, double ep, double params, bool layer) {
      op.compute += compute;
      op.tp += tp;
      op.cp += cp;
      op.ep += ep;
      op.units.push_back({compute + tp + cp + ep, params, layer});
    };
    // the vocabulary-parallel embedding's TP all-reduce runs in its forward (analytic: one per
    // microbatch, against two per layer)
    // DeepSpeed's pipeline engine: the received 1/TP partition all-gathered over the TP group
    // before the forward (not on the first stage), the output and the received gradient before
    // the backward (not on the last stage, which starts from the loss)
    if (ds_gather > 0 && !first) add(f, 0, ds_gather, 0, 0, 0, false);
    if (first) add(f, embed / spd, embed_tp, 0, 0, first_params, false);
    for (int l = 0; l < nl; ++l) add(f, lf.compute, lf.tp, lf.cp, lf.ep, layer_params, true);
    if (last) add(f, (logit + loss) / spd, 0, 0, 0, last_params, false);
    if (ds_gather > 0 && !last) add(k, 0, 2 * ds_gather, 0, 0, 0, false);
    if (last) add(k, (2 * logit + loss) / spd, 0, 0, 0, last_params, false);
    for (int l = 0; l < nl; ++l) add(k, lb.compute, lb.tp, lb.cp, lb.ep, layer_params, true);
    if (first) add(k, embed / spd, 0, 0, 0, first_params, false);
    b.stage_params[s] += b.chunk_params(j);
  }
}

/// Forward and backward costs of every chunk of every stage, for one microbatch, unit by unit: the
/// input embedding on the first virtual stage, the layers, the output layer and the loss on the last.
void op_costs(Builder& b) {
  const auto& job = b.job;
  const auto& md = job.model;
  const auto& eff = b.opt.efficiency;
  const double tokens_mb = job.microbatch_size * double(md.sequence_length) / job.par.cp;
  b.fwd.assign(b.pp, std::vector<OpCost>(b.v));
  b.bwd.assign(b.pp, std::vector<OpCost>(b.v));
  b.stage_params.assign(b.pp, 0);
  b.layer_segs.assign(b.pp, {});
  for (int s = 0; s < b.pp; ++s) {
    const double spd = b.speed[s];
    const LayerTime lt = layer_time(job, b.gpu, eff, b.clk[s]);
    const double logit = logit_time(job, b.gpu, eff, b.clk[s]);
    // cross-entropy over the local vocabulary shard: ~4 passes of 2 B over b s V / t logits
    const double loss = compute::memory_time(b.gpu, 4 * 2.0 * tokens_mb * md.vocab / job.par.tp, eff);
    // embedding lookup (read + write b s h rows of 2 B) and its gradient's scatter-add
    const double embed = compute::memory_time(b.gpu, 2 * 2.0 * tokens_mb * md.hidden, eff);
    const LayerComm lc = layer_comm(b, s);
    const LayerFlows& fl = b.layer_flows;
    const int rc = job.activation_recompute ? 1 : 0;
    // selective recomputation runs the attention core's forward again in the backward (flash
    // attention's backward recomputes its scores anyway)
    const double sel = job.selective_recompute && job.attention != "flash" ? lt.attention : 0.0;
    // one layer: compute; Megatron's two TP all-reduces (after attention, after the MLP); ring
    // attention hiding the KV passing behind attention compute; EP dispatch + combine. Those run
    // as flows (b.layer_flows) are in the layer's segments, not in these analytic parts.
    OpCost lf, lb;
    lf.compute = lt.forward() / spd;
    lb.compute = (lt.backward() + sel + rc * lt.forward()) / spd;
    if (!fl.tp && job.par.tp_comm_overlap && job.par.tp > 1) {
      // the all-reduce = reduce-scatter + all-gather: each half pipelined with its GEMM
      const TpOverlapTime o = tp_comm_overlap_time(lt, lc.tp_allreduce / 2, job.par.tp, b.gpu);
      lf.tp = o.forward;  // communication, not slowed by stragglers (as the analytic TP)
      lb.tp = o.backward + rc * o.forward;
    } else if (!fl.tp) {
      lf.tp = 2 * lc.tp_allreduce;
      lb.tp = 2 * lc.tp_allreduce * (1 + rc);
    }
    if (!fl.cp) {
      lf.cp = std::max(0.0, lc.cp_exchange - lt.attention);
      lb.cp =
          std::max(0.0, 2 * lc.cp_exchange - lt.attention_backward) + rc * std::max(0.0, lc.cp_exchange - lt.attention);
    }
    if (!fl.ep) {
      lf.ep = 2 * lc.ep_alltoall;
      lb.ep = 2 * lc.ep_alltoall * (1 + rc);
    }
    if (fl.any()) add_layer_segments(b, s, lt, lf, lb, sel, rc, spd, tokens_mb);
    add_chunk_costs(b, s, lf, lb, embed, logit, loss, spd, lc.tp_allreduce, lc.ds_gather);
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
  plan.per_microbatch.assign(b.pp, 0);
  for (int s = 0; s < b.pp; ++s)
    for (int c = 0; c < b.v; ++c) plan.per_microbatch[s] += b.fwd[s][c].total() + b.bwd[s][c].total();
  if (b.m <= b.msim) return;
  const double more = b.m - b.msim;
  plan.extra_microbatches = b.m - b.msim;
  plan.measured_extension = b.per_unit_reduction() && b.dp_size() > 1;
  // blocking exchanges (DeepSpeed's engine, or Megatron-core with overlap_p2p_comm false) are part of
  // the steady-state period, which the compute-only analytic extension would drop
  const bool blocking = b.job.par.deepspeed_pipeline() || !b.job.par.overlap_p2p_comm;
  plan.measured_steady_pipeline = blocking && b.pp > 1 && b.v == 1;
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
  std::string f =
      "pipeline of 1 DP replica (#" + std::to_string(b.rep) + ", TP/CP rank 0, " + std::to_string(b.pp) + " stages x " +
      std::to_string(b.v) + " chunks, " + std::to_string(b.msim) + " of " + std::to_string(b.m) +
      " microbatches) simulated op by op with PP flows" +
      (b.pp <= 1 ? std::string()
       : b.job.par.deepspeed_pipeline()
           ? std::string(" (DeepSpeed pipeline engine: blocking sends and receives one after another, 1/TP partitions "
                         "all-gathered over TP)")
       : b.job.par.overlap_p2p_comm ? std::string()
                                    : std::string(" (blocking exchanges: overlap_p2p_comm false)")) +
      (b.v > 1 && b.job.par.flexible_interleaving()
           ? " (flexible interleaving: groups of N = " + std::to_string(b.group) +
                 (b.group < b.pp ? " < pp microbatches, their dependency stalls simulated)" : ")")
           : std::string()) +
      "; " + b.layer_flows.note + "; " + dp_part;
  if (b.m > b.msim)
    f += b.plan.measured_steady_pipeline
             ? "; remaining microbatches each add the simulated 1F1B steady-state period (with its blocking exchanges)"
         : b.plan.measured_extension
             ? "; remaining microbatches each add the simulated steady-state period (stage 0's steady 1F1B window, or "
               "each stage's reduce-scatter stream where it is slower; at least the analytic one)"
         : b.pp > 1 && b.v > 1 && !b.job.par.overlap_p2p_comm
             ? "; remaining microbatches added analytically at steady state (compute, TP, CP, EP; their blocking "
               "PP exchanges not counted: ESTIMATE, interleaved)"
             : "; remaining microbatches added analytically at steady state";
  if (b.plan.stragglers > 0)
    f += "; " + std::to_string(b.plan.stragglers) +
         " GPUs below nominal speed: the representative is the slowest "
         "replica by estimate, each stage at its slowest GPU's speed; other replicas' stragglers act through it only";
  return f;
}

std::string describe_dp(const Builder& b) {
  const auto& par = b.job.par;
  if (b.dp_size() <= 1) return "no DP traffic (dp x cp = 1)";
  const std::string all = " as flows for all " + std::to_string(b.plan.gpus) + " GPUs (" +
                          (b.opt.collapse_collectives ? "ring steps collapsed" : "every ring/tree step simulated");
  const int k = std::min(b.job.zero_reduce_scatter_aggregation, b.msim);
  const std::string aggregated =
      k > 1 ? "; the reduce-scatters of " + std::to_string(k) +
                  " consecutive microbatches of a chunk aggregated into one of k x bytes, issued after the last one's "
                  "backward, the first microbatch alone (workload.zero_reduce_scatter_aggregation = " +
                  std::to_string(k) +
                  ": ESTIMATE, measured against the exact step in tests/unit/engine/test_step_fidelity.cpp "
                  "[zero_rs_aggregation], [llama3_zero_rs] and test_fsdp_rs_aggregation.cpp (fsdp, both rank "
                  "orders): within 2 % for k well below the microbatches)"
            : std::string();
  if (par.zero == "fsdp")
    return "FSDP (" + par.fsdp_style +
           (par.fsdp_style == "pytorch" && !par.reshard_after_forward ? ", no reshard after forward" : "") +
           "): per-layer parameter all-gathers (one layer prefetched) and gradient reduce-scatters every microbatch" +
           all + ")" + aggregated +
           (b.m > b.msim ? "; the remaining microbatches each add the simulated steady-state period" : "");
  if (par.zero == "zero2")
    return "ZeRO-2: per-layer gradient reduce-scatters every microbatch and the parameter all-gather after the "
           "optimizer" +
           all + ")" + aggregated +
           (b.m > b.msim ? "; the remaining microbatches each add the simulated steady-state period" : "");
  const Op reduce_op = par.zero == "none" ? Op::AllReduce : Op::ReduceScatter;
  std::string gather;
  if (par.zero == "zero1")
    gather = par.overlap_param_gather
                 ? "; parameter all-gather in " + std::to_string(b.plan.param_gather_buckets) +
                       " buckets issued one at a time under the step's first forward, each layer waiting for its "
                       "buckets (overlap_param_gather)"
                 : "; parameter all-gather after the optimizer";
  const bool fp32_embedding = b.chunk_fp32_grad_params(0) > 0 && gradient_bytes(b.job) < 4.0;
  return "DP " + std::string(collectives::op_name(reduce_op)) + all +
         (par.dp_overlap ? ", bucketed per chunk" : ", one bucket per stage") + ")" +
         (fp32_embedding ? "; the embeddings' gradients in fp32 in the stage's first-layer bucket (NeMo "
                           "with_fp32_embedding_grads, Apex DistributedFusedAdam)"
                         : "") +
         gather;
}

}  // namespace

namespace {

/// StepPlan::fabric_down of `fabric` now.
std::vector<int> fabric_down(const topology::Fabric& fabric) {
  std::vector<int> down;
  for (int l = 0; l < fabric.link_count(); ++l)
    if (!fabric.link(l).up) down.push_back(l);
  for (int n = 0; n < fabric.node_count(); ++n)
    if (!fabric.node_up(n)) down.push_back(-(n + 1));
  return down;
}

/// Whether the activities of `mine` (the pipeline's part of a plan) are held's first ones, all but
/// their amounts, held's end-of-step part starts right after them, and both were planned on the
/// same fabric state.
bool same_pipeline_part(const StepPlan& mine, const StepPlan& held) {
  const auto& a = mine.schedule.activities;
  const auto& h = held.schedule.activities;
  if (held.dp_tail_begin != a.size() || h.size() < a.size() || mine.schedule.gpu_flops != held.schedule.gpu_flops ||
      mine.fabric_down != held.fabric_down)
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!network::same_but_amount(a[i], h[i])) return false;
  return true;
}

/// plan_step, with the end-of-step part taken from `held` where it may (plan_step_reusing).
StepPlan plan_with(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                   const StepOptions& opt, StepPlan* held, bool release_held, bool* reused) {
  if (reused) *reused = false;
  StepPlan plan;
  if (!held) plan.schedule.activities.reserve(opt.schedule_capacity);
  plan.fabric_down = fabric_down(fabric);
  Builder b(job, gpu, fabric, opt, plan);
  size_step(b);
  stage_clocks(b);
  detail::plan_layer_flows(b);
  op_costs(b);
  plan.schedule.gpu_flops = {gpu.bf16_flops};  // unit of Compute amounts: seconds x this rate
  detail::emit_compute_ops(b);
  detail::link_pipeline(b);
  plan.dp_tail_begin = plan.schedule.activities.size();
  if (held && same_pipeline_part(plan, *held)) {
    // The end-of-step part reads the pipeline's part only through what was just compared (the
    // stages' last backward pieces and GPUs), the job, fabric and seed: held's, bit for bit.
    auto& theirs = held->schedule.activities;
    auto& mine = plan.schedule.activities;
    std::move(mine.begin(), mine.end(), theirs.begin());
    mine.swap(theirs);
    std::vector<network::Activity>().swap(theirs);
    plan.stage_dp_done = held->stage_dp_done;
    plan.embedding_transfers = held->embedding_transfers;
    plan.optimizer = held->optimizer;
    plan.stage_optimizer = held->stage_optimizer;
    plan.stage_after_optimizer = held->stage_after_optimizer;
    if (reused) *reused = true;
  } else {
    if (held && release_held) std::vector<network::Activity>().swap(held->schedule.activities);
    if (held) plan.schedule.activities.reserve(opt.schedule_capacity);  // written once (plan_step reserves it first)
    detail::emit_dp_and_optimizer(b);
  }
  steady_state_extension(b);
  plan.fidelity = describe_fidelity(b, describe_dp(b));
  return plan;
}

}  // namespace

StepPlan plan_step(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                   const StepOptions& opt) {
  return plan_with(job, gpu, fabric, opt, nullptr, false, nullptr);
}

StepPlan plan_step_reusing(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                           const StepOptions& options, StepPlan& held, bool release_held, bool* reused) {
  return plan_with(job, gpu, fabric, options, &held, release_held, reused);
}

}  // namespace aidcsim::workload
