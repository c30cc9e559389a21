// The representative pipeline's compute ops in schedule order, and the traffic that runs between
// them: pipeline sends between stages, and the per-unit ZeRO-2 / FSDP collectives.
#include <algorithm>
#include <array>

#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/step_builder.hpp"

namespace aidcsim::workload::detail {

using collectives::Collective;
using collectives::Op;
using network::Activity;

namespace {

/// How one stage's units are split into compute activities (pieces): one per unit when gradients
/// are reduced per unit (zero2, fsdp) or the op waits for overlapped parameter buckets (`per_unit`); for the last backward of each chunk with DP overlap, ~4
/// buckets per stage (Megatron's bucketed overlapped reduction); else one piece per op.
std::vector<std::vector<int>> piece_groups(const Builder& b, std::size_t units, bool last_backward, bool per_unit) {
  std::size_t pieces = 1;
  if (b.per_unit_reduction() || per_unit)
    pieces = units;
  else if (last_backward)
    pieces = std::min<std::size_t>(b.pieces_per_chunk, units);
  pieces = std::max<std::size_t>(1, pieces);
  std::vector<std::vector<int>> g(pieces);
  for (std::size_t u = 0; u < units; ++u)
    g[u * pieces / std::max<std::size_t>(1, units)].push_back(static_cast<int>(u));
  return g;
}

/// FSDP's parameter state of one stage's units over its schedule (PyTorch FSDP: gathered before
/// use, freed after forward unless reshard_after_forward is false, always after backward; DeepSpeed
/// ZeRO-3: gathered for every use). Gathers run in order on their own stream, the next one issued
/// when the previous unit starts computing (one unit of prefetch); reduce-scatters likewise.
class StageTraffic {
 public:
  StageTraffic(Builder& b, int s) : b_(b), s_(s) {
    const auto& par = b.job.par;
    fsdp_ = par.zero == "fsdp" && b.dp_size() > 1;
    reduce_ = b.per_unit_reduction() && b.dp_size() > 1;
    keep_after_forward_ = par.fsdp_style == "pytorch" && !par.reshard_after_forward;
    gathered_.assign(b.v, {});
    k_ = std::max(1, b.job.zero_reduce_scatter_aggregation);
    backwards_.assign(b.v, 0);
    closed_.assign(b.v, -1);
  }

  /// Called before each op: with aggregation (k > 1), whether this backward of `chunk` issues the
  /// reduce-scatters of its group and how many microbatches they carry. The n-th backward of a
  /// chunk (n = 0 .. msim - 1) closes a group when n % k == 0 or it is the last: the first
  /// microbatch alone (its reduce-scatters start the stream as early as the exact ones), then
  /// groups of k, then the rest.
  void begin_op(int chunk, bool forward) {
    if (forward) return;
    const int n = backwards_[chunk]++;
    closes_ = n % k_ == 0 || n == b_.msim - 1;
    members_ = closes_ ? n - closed_[chunk] : 0;
    if (closes_) closed_[chunk] = n;
  }
  /// Whether the op begun last issued reduce-scatters (always true without aggregation).
  bool issued() const { return closes_; }
  /// Microbatches the op begun last issued reduce-scatters for (1 without aggregation).
  int members() const { return members_; }

  /// Gathers the units of a piece that are not gathered; returns the representative GPU's
  /// transfers the piece waits for.
  std::vector<int> before(int chunk, const std::vector<int>& group, const OpCost& c, bool forward) {
    std::vector<int> mine;
    if (!fsdp_) return mine;
    auto& state = gathered_[chunk];
    state.resize(c.units.size(), 0);
    for (int u : group) {
      const int id = forward ? u : static_cast<int>(c.units.size()) - 1 - u;  // same unit in both directions
      if (state[id] || c.units[u].params <= 0) continue;
      std::vector<int> after;
      if (pieces_.size() >= 2) after.push_back(pieces_[pieces_.size() - 2]);
      std::vector<int> done;
      emit_dp(b_, s_, Op::AllGather, kParameterBytes * c.units[u].params, after, kTagDpGather, &done, &gathers_);
      const auto rep = transfers_of(b_, done, b_.plan.stage_gpu[s_]);
      mine.insert(mine.end(), rep.begin(), rep.end());
      state[id] = 1;
    }
    return mine;
  }

  /// After piece `piece` ran: frees what FSDP reshards, reduce-scatters the gradients.
  void after(int piece, int chunk, const std::vector<int>& group, const OpCost& c, bool forward) {
    pieces_.push_back(piece);
    auto& state = gathered_[chunk];
    state.resize(c.units.size(), 0);
    for (int u : group) {
      const int id = forward ? u : static_cast<int>(c.units.size()) - 1 - u;
      if (!forward || !keep_after_forward_) state[id] = 0;
      if (forward || !reduce_ || c.units[u].params <= 0 || !closes_) continue;
      std::vector<int> done;
      emit_dp(b_, s_, Op::ReduceScatter, members_ * gradient_bytes(b_.job) * c.units[u].params, {piece}, kTagDp, &done,
              &reductions_);
      auto& all = b_.unit_reductions[s_];
      all.insert(all.end(), done.begin(), done.end());
      last_reduced_ = transfers_of(b_, done, b_.plan.stage_gpu[s_]);
    }
  }

  bool reduces() const { return reduce_; }
  /// The representative GPU's transfers of the last reduce-scatter issued.
  const std::vector<int>& last_reduced() const { return last_reduced_; }

 private:
  Builder& b_;
  int s_;
  bool fsdp_ = false, reduce_ = false, keep_after_forward_ = false;
  int k_ = 1;                   ///< microbatches per aggregated reduce-scatter (zero_reduce_scatter_aggregation)
  bool closes_ = true;          ///< the current backward issues its group's reduce-scatters
  int members_ = 1;             ///< microbatches they carry
  std::vector<int> backwards_;  ///< [chunk]: backwards begun
  std::vector<int> closed_;     ///< [chunk]: its last backward that issued reduce-scatters (-1: none)
  std::vector<int> last_reduced_;
  std::vector<std::vector<char>> gathered_;  ///< [chunk][unit in forward order]
  std::vector<int> pieces_;
  GpuStream gathers_, reductions_;  ///< FSDP gathers and reduce-scatters on streams of their own
};

/// zero1 with overlap_param_gather (Megatron-LM --overlap-param-gather: megatron/core/distributed/
/// param_and_grad_buffer.py finish_param_sync; Apex DistributedFusedAdam overlap_param_sync:
/// pre_forward_hook, _try_start_bucket_param_sync): the parameter all-gather of the step before, bucket
/// by bucket under this step's first forward of each chunk (steady state: the step starts when the
/// previous optimizer ends). Bucket 0 is issued at the start of the step, bucket k + 1 when bucket k
/// has arrived and the forward reaches the first unit holding bucket k's parameters (the
/// pre-forward hook waits for k, then dispatches the next: one bucket in flight). A unit (layer,
/// embedding, output layer) waits for its bucket. Buckets (param_gather_buckets):
/// - "size": Megatron-core's: filled in backward order, closed once they hold ddp_bucket_size
///   parameters (Megatron closes after the parameter tensor that reaches the size; here after the
///   unit, so a bucket may be up to one layer larger);
/// - "layer": NeMo's with Apex DistributedFusedAdam (megatron_gpt_model.py configure_optimizers:
///   one bucket per transformer layer, the parameters outside layers in the first layer's).
class ParamGather {
 public:
  ParamGather(Builder& b, int s) : b_(b), s_(s) {
    const auto& par = b.job.par;
    on_ = par.overlap_param_gather && par.zero == "zero1" && b.dp_size() > 1;
    per_layer_ = par.param_gather_buckets == "layer";
    bucket_ = par.ddp_bucket_size > 0 ? par.ddp_bucket_size : std::max(40e6, 1e6 * b.dp_size());
    first_.assign(b.v, -1);
    unit_bucket_.assign(b.v, {});
  }
  /// Whether op (chunk, microbatch, forward) waits for parameter buckets (its units are pieces).
  bool gates(bool forward, int microbatch) const { return on_ && forward && microbatch == 0; }

  /// Issues the bucket unit `u` of chunk `chunk`'s first forward needs if not issued yet; `prev` is
  /// the activity before the unit's piece on the GPU. Returns the representative GPU's transfers of
  /// the unit's bucket.
  std::vector<int> before(int chunk, int u, const OpCost& c, int prev) {
    if (first_[chunk] < 0) cut(chunk, c);
    const int k = first_[chunk] + unit_bucket_[chunk][u];
    while (static_cast<int>(done_.size()) <= k) {
      const int n = static_cast<int>(done_.size());
      std::vector<int> after;
      if (n > 0 && reach_[n - 1] >= 0) after.push_back(reach_[n - 1]);
      std::vector<int> all;
      emit_dp(b_, s_, Op::AllGather, kParameterBytes * size_[n], after, kTagDpGather, &all, &stream_);
      done_.push_back(transfers_of(b_, all, b_.plan.stage_gpu[s_]));
      reach_.push_back(prev);
      ++b_.plan.param_gather_buckets;
    }
    return done_[k];
  }

 private:
  /// The chunk's buckets in forward order and the bucket of each of its units.
  void cut(int chunk, const OpCost& c) {
    const int n = static_cast<int>(c.units.size());
    std::vector<int> of(n, 0);  // bucket of each unit, counted in backward order
    int buckets = 0;
    if (per_layer_) {
      int first_layer = -1;
      for (int u = 0; u < n && first_layer < 0; ++u)
        if (c.units[u].layer) first_layer = u;
      for (int u = n - 1; u >= 0; --u)
        if (c.units[u].layer && u != first_layer) of[u] = buckets++;
      for (int u = 0; u < n; ++u)
        if (!c.units[u].layer || u == first_layer) of[u] = buckets;  // the rest: the first layer's
      ++buckets;
    } else {
      double acc = 0;
      for (int u = n - 1; u >= 0; --u) {
        of[u] = buckets;
        acc += c.units[u].params;
        if (acc >= bucket_ && u > 0) {
          ++buckets;
          acc = 0;
        }
      }
      ++buckets;
    }
    first_[chunk] = static_cast<int>(size_.size());
    size_.resize(size_.size() + buckets, 0.0);
    for (int u = 0; u < n; ++u) {
      unit_bucket_[chunk].push_back(buckets - 1 - of[u]);  // forward order
      size_[first_[chunk] + buckets - 1 - of[u]] += c.units[u].params;
    }
  }

  Builder& b_;
  int s_;
  bool on_ = false, per_layer_ = false;
  double bucket_ = 0;
  std::vector<int> first_;                     ///< [chunk]: index of its first bucket
  std::vector<std::vector<int>> unit_bucket_;  ///< [chunk][unit]: its bucket (chunk-relative, forward order)
  std::vector<double> size_;                   ///< parameters of each bucket
  std::vector<std::vector<int>> done_;         ///< representative GPU's transfers of each issued bucket
  std::vector<int> reach_;                     ///< activity before the first unit needing each bucket
  GpuStream stream_;
};

void emit_stage(Builder& b, int s) {
  const auto& par = b.job.par;
  auto& plan = b.plan;
  const auto order = pipeline_order(s, b.pp, b.msim, b.v, b.group, par.flexible_interleaving());
  std::vector<int> last_b_pos(b.v, -1);
  for (int k = 0; k < static_cast<int>(order.size()); ++k)
    if (!order[k].forward) last_b_pos[order[k].chunk] = k;
  StageTraffic traffic(b, s);
  ParamGather gather(b, s);
  int prev = -1;
  for (int k = 0; k < static_cast<int>(order.size()); ++k) {
    const PipelineOp& o = order[k];
    const OpCost& c = o.forward ? b.fwd[s][o.chunk] : b.bwd[s][o.chunk];
    const int j = o.chunk * b.pp + s;
    const bool last_b = !o.forward && k == last_b_pos[o.chunk];
    const bool gated = gather.gates(o.forward, o.microbatch);
    const auto groups = piece_groups(b, c.units.size(), last_b, gated);
    traffic.begin_op(o.chunk, o.forward);
    for (std::size_t q = 0; q < groups.size(); ++q) {
      auto wait = traffic.before(o.chunk, groups[q], c, o.forward);
      if (gated)
        for (int u : groups[q]) {
          const auto w = gather.before(o.chunk, u, c, prev);
          wait.insert(wait.end(), w.begin(), w.end());
        }
      std::vector<int> after;
      if (prev >= 0) after.push_back(prev);
      after.insert(after.end(), wait.begin(), wait.end());
      const PieceActs p =
          emit_piece(b, s, c, groups[q], o.forward, std::move(after), o.forward ? kTagForward : kTagBackward);
      if (b.prev_on_gpu.size() < b.acts().size()) b.prev_on_gpu.resize(b.acts().size(), -1);
      b.prev_on_gpu[p.first] = prev;
      if (!wait.empty()) plan.waits.push_back({wait, p.first, prev, kTagDpGather});
      const int idx = p.last;
      prev = idx;
      if (q == 0) (o.forward ? b.f_in : b.b_in)[j][o.microbatch] = p.first;
      if (last_b) b.last_pieces[s][o.chunk].push_back(idx);
      traffic.after(idx, o.chunk, groups[q], c, o.forward);
    }
    (o.forward ? b.f_idx : b.b_out)[j][o.microbatch] = prev;
    if (!o.forward && o.chunk == 0 && traffic.reduces()) {
      // aggregated: every microbatch of a group ends with the group's reduce-scatters
      auto& r = plan.microbatch_reduced[s];
      r.push_back({});
      if (traffic.issued())
        for (int i = 0; i < traffic.members(); ++i) r[r.size() - 1 - i] = traffic.last_reduced();
    }
    if (!o.forward && o.chunk == 0 && s == 0) {
      plan.microbatch_done.push_back(prev);
      plan.microbatch_steady.push_back(k > 0 && order[k - 1].forward);
    }
    plan.compute[s] += c.compute;
    plan.tp[s] += c.tp;
    plan.cp[s] += c.cp;
    plan.ep[s] += c.ep;
  }
  plan.stage_last_backward[s] = prev;
}

}  // namespace

void emit_compute_ops(Builder& b) {
  const auto& par = b.job.par;
  b.pieces_per_chunk = par.dp_overlap ? std::max(1, (4 + b.v - 1) / b.v) : 1;
  b.f_idx.assign(b.VS, std::vector<int>(b.msim, -1));
  b.f_in = b.f_idx;
  b.b_out = b.f_idx;
  b.b_in = b.f_idx;
  b.last_pieces.assign(b.pp, std::vector<std::vector<int>>(b.v));
  b.unit_reductions.assign(b.pp, {});
  auto& plan = b.plan;
  plan.compute.assign(b.pp, 0);
  plan.tp.assign(b.pp, 0);
  plan.cp.assign(b.pp, 0);
  plan.ep.assign(b.pp, 0);
  plan.stage_last_backward.assign(b.pp, -1);
  plan.microbatch_reduced.assign(b.pp, {});
  for (int s = 0; s < b.pp; ++s) emit_stage(b, s);
}

namespace {

/// Blocking point-to-point (Megatron-core overlap_p2p_comm false: p2p_communication.py
/// _communicate(wait_on_reqs=True), NVIDIA/Megatron-LM megatron/core/pipeline_parallel/schedules.py).
/// A stage exchanges activations and gradients with its neighbours at fixed points of its op order
/// and the next op waits until that exchange's sends and receives are done:
/// - interleaved (forward_backward_pipelining_with_interleaving): after each warm-up forward
///   (send_forward_recv_forward), after each forward + backward pair of the steady state
///   (send_forward_backward_recv_forward_backward: a forward directly followed by a backward has no
///   exchange of its own) and after each cool-down backward (send_backward_recv_backward);
/// - 1F1B (forward_backward_pipelining_without_interleaving): after every op
///   (send_forward_recv_backward, send_backward_recv_forward, ...).
/// A NCCL send completes only once the peer's matching receive runs, so a transfer starts when the
/// sender has reached the exchange after the op that produced it and the receiver the exchange
/// before the op that consumes it; both GPUs' next ops wait for it.
struct ExchangePoints {
  std::vector<int> end;        ///< [exchange]: the stage's last activity before it
  std::vector<int> next;       ///< [exchange]: the first activity after it (-1: none)
  std::vector<int> after_op;   ///< [op k]: the exchange that sends op k's output
  std::vector<int> before_op;  ///< [op k]: the exchange that receives op k's input (-1: before the first op)
};

ExchangePoints exchange_points(const Builder& b, int s) {
  const auto order = pipeline_order(s, b.pp, b.msim, b.v, b.group, b.job.par.flexible_interleaving());
  const int n = static_cast<int>(order.size());
  auto first = [&](int k) {
    const auto& o = order[k];
    return (o.forward ? b.f_in : b.b_in)[o.chunk * b.pp + s][o.microbatch];
  };
  auto last = [&](int k) {
    const auto& o = order[k];
    return (o.forward ? b.f_idx : b.b_out)[o.chunk * b.pp + s][o.microbatch];
  };
  ExchangePoints x;
  x.after_op.assign(n, -1);
  x.before_op.assign(n, -1);
  int open = -1;  // the exchange before the current op
  for (int k = 0; k < n; ++k) {
    x.before_op[k] = open;
    const bool paired = b.v > 1 && order[k].forward && k + 1 < n && !order[k + 1].forward;
    if (paired) continue;
    x.end.push_back(last(k));
    x.next.push_back(k + 1 < n ? first(k + 1) : -1);
    open = static_cast<int>(x.end.size()) - 1;
    x.after_op[k] = open;
    if (k > 0 && x.after_op[k - 1] < 0) x.after_op[k - 1] = open;  // the pair's forward
  }
  return x;
}

/// DeepSpeed's order of the two transfers of stage s's exchange x (1F1B: the exchange after op x).
/// TrainSchedule (deepspeed/runtime/pipe/schedule.py, v0.5.4, commit bc7778e) gives each stage
/// 2 (m + p - 1) steps, forward on steps of the stage's parity; a step's instructions run in order,
/// each send / receive a blocking dist.send / dist.recv (p2p.py): a forward step is RecvActivation,
/// SendGrad (of the previous step's backward), ForwardPass; a backward step SendActivation (of the
/// previous step's forward), RecvGrad, BackwardPass. Stage s runs forward k at step 2k + s and
/// backward k at 2k + 2p - 1 - s, the op order of Megatron's 1F1B; between a backward and the
/// forward of the next step the stage receives first, in every other exchange (after a forward;
/// in warm-up and cool-down across idle steps) it sends first. True: the arriving transfer first.
bool deepspeed_receives_first(const Builder& b, int s, int x) {
  const auto order = pipeline_order(s, b.pp, b.msim, b.v, b.group, false);
  if (x + 1 >= static_cast<int>(order.size())) return false;
  const auto& o = order[x];
  const auto& n = order[x + 1];
  if (o.forward || !n.forward) return false;
  const int step_b = 2 * o.microbatch + 2 * b.pp - 1 - s, step_f = 2 * n.microbatch + s;
  return step_f == step_b + 1;
}

/// Op index in stage s's order of each (virtual stage, microbatch, forward) op.
std::vector<std::vector<std::array<int, 2>>> op_positions(const Builder& b, int s) {
  const auto order = pipeline_order(s, b.pp, b.msim, b.v, b.group, b.job.par.flexible_interleaving());
  std::vector<std::vector<std::array<int, 2>>> pos(b.v, std::vector<std::array<int, 2>>(b.msim, {-1, -1}));
  for (int k = 0; k < static_cast<int>(order.size()); ++k)
    pos[order[k].chunk][order[k].microbatch][order[k].forward ? 0 : 1] = k;
  return pos;
}

}  // namespace

void link_pipeline(Builder& b) {
  const auto& md = b.job.model;
  const double tokens_mb = b.job.microbatch_size * double(md.sequence_length) / b.job.par.cp;
  const double act_bytes = tokens_mb * md.hidden * 2.0 / b.job.par.tp;
  const bool blocking = (!b.job.par.overlap_p2p_comm || b.job.par.deepspeed_pipeline()) && b.pp > 1;
  const bool deepspeed = blocking && b.job.par.deepspeed_pipeline();
  // DeepSpeed: per (stage, exchange), the transfer that leaves the stage there and the one that
  // arrives (emitted ranges), to issue them one after another (deepspeed_order)
  std::vector<std::vector<std::array<collectives::Emitted, 2>>> issued;
  std::vector<std::vector<std::array<bool, 2>>> has;
  if (deepspeed)
    for (int s = 0; s < b.pp; ++s) {
      issued.emplace_back(b.msim * 2 + 1);
      has.emplace_back(b.msim * 2 + 1, std::array<bool, 2>{false, false});
    }
  std::vector<ExchangePoints> xp;
  std::vector<std::vector<std::vector<std::array<int, 2>>>> pos;
  if (blocking)
    for (int s = 0; s < b.pp; ++s) {
      xp.push_back(exchange_points(b, s));
      pos.push_back(op_positions(b, s));
    }
  // an op's position: stage, op index in the stage's order
  auto where = [&](int j, int mb, bool forward) {
    return std::pair{j % b.pp, pos[j % b.pp][j / b.pp][mb][forward ? 0 : 1]};
  };
  auto link = [&](int from_act, int to_act, int from_gpu, int to_gpu, int from_j, int to_j, int mb, bool forward) {
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
    std::vector<int> also;  // the other GPUs' next ops that wait for the transfer (blocking)
    if (blocking) {
      const auto [fs, fk] = where(from_j, mb, forward);
      const auto [ts, tk] = where(to_j, mb, forward);
      const int xs = xp[fs].after_op[fk], xr = xp[ts].before_op[tk];
      c.after = {xp[fs].end[xs]};
      if (xr >= 0) c.after.push_back(xp[ts].end[xr]);
      if (xp[fs].next[xs] >= 0) also.push_back(xp[fs].next[xs]);
      if (xr >= 0 && xp[ts].next[xr] >= 0 && xp[ts].next[xr] != to_act) also.push_back(xp[ts].next[xr]);
    }
    auto e = collectives::emit(b.plan.schedule, c, b.layout, b.opt.protocol);
    if (deepspeed) {
      const auto [fs, fk] = where(from_j, mb, forward);
      const auto [ts, tk] = where(to_j, mb, forward);
      const int xs = xp[fs].after_op[fk], xr = xp[ts].before_op[tk];
      issued[fs][xs][0] = e;
      has[fs][xs][0] = true;
      if (xr >= 0) {
        issued[ts][xr][1] = e;
        has[ts][xr][1] = true;
      }
    }
    for (int d : e.done) b.acts()[to_act].after.push_back(d);
    if (!e.done.empty()) b.plan.waits.push_back({e.done, to_act, b.prev_on_gpu[to_act], kTagPp});
    for (int a : also) {
      for (int d : e.done) b.acts()[a].after.push_back(d);
      if (!e.done.empty()) b.plan.waits.push_back({e.done, a, b.prev_on_gpu[a], kTagPp});
    }
  };
  const auto& sg = b.plan.stage_gpu;
  for (int j = 0; j < b.VS; ++j)
    for (int mb = 0; mb < b.msim; ++mb) {
      const int gj = sg[j % b.pp];
      // an op waits for its input at its first activity (with pieces or layer chains, not its last)
      if (j > 0) link(b.f_idx[j - 1][mb], b.f_in[j][mb], sg[(j - 1) % b.pp], gj, j - 1, j, mb, true);
      if (j < b.VS - 1)
        link(b.b_out[j + 1][mb], b.b_in[j][mb], sg[(j + 1) % b.pp], gj, j + 1, j, mb, false);
      else
        b.acts()[b.b_in[j][mb]].after.push_back(b.f_idx[j][mb]);
    }
  if (deepspeed)
    for (int s = 0; s < b.pp; ++s)
      for (std::size_t x = 0; x < xp[s].end.size(); ++x) {
        if (!has[s][x][0] || !has[s][x][1]) continue;
        const bool in_first = deepspeed_receives_first(b, s, static_cast<int>(x));
        const auto& first = issued[s][x][in_first ? 1 : 0];
        const auto& second = issued[s][x][in_first ? 0 : 1];
        for (int a = second.first; a < second.last; ++a)
          for (int d : first.done) b.acts()[a].after.push_back(d);
      }
}

}  // namespace aidcsim::workload::detail
