// The collectives inside a transformer layer whose group leaves the NVLink domain, as flows on the
// fabric: EP all-to-all (dispatch and combine), the CP ring passing K/V blocks (and their
// gradients in the backward) while attention runs, and Megatron's two TP all-reduces per layer.
// The representative pipeline's GPU runs each layer as a chain (compute, collective, compute, ...);
// each collective is emitted for every group of its kind on the stage (every rail, every replica),
// started when the representative GPU reaches it (replicas run in lockstep) and waited for whole
// by it, so the representative step sees the slowest group and all their bytes load the fabric.
#include <algorithm>
#include <cstdint>

#include "models/workload/step_builder.hpp"

namespace aidcsim::workload::detail {

using collectives::Collective;
using collectives::Op;
using network::Activity;

namespace {

int kind_tag(LayerSeg::Kind k) { return k == LayerSeg::Ep ? kTagEp : k == LayerSeg::Tp ? kTagTp : kTagCp; }

/// The groups of kind `k` on stage `s`: all of them, or those holding the representative
/// replica's GPUs (every TP / CP rank of it).
std::vector<std::vector<int>> groups_of(const Builder& b, LayerSeg::Kind k, int s, bool all) {
  const auto& par = b.job.par;
  std::vector<std::vector<int>> out;
  std::vector<int> replicas;
  if (all) {
    const int step = k == LayerSeg::Ep ? std::max(1, par.ep) : 1;
    for (int d = 0; d < par.dp; d += step) replicas.push_back(d);
  } else {
    replicas.push_back(b.rep);
  }
  for (int d : replicas) {
    if (k == LayerSeg::Tp)
      for (int c = 0; c < par.cp; ++c) out.push_back(b.place.tp_group({0, c, s, d}));
    if (k == LayerSeg::CpRing)
      for (int t = 0; t < par.tp; ++t) out.push_back(b.place.cp_group({t, 0, s, d}));
    if (k == LayerSeg::Ep)
      for (int c = 0; c < par.cp; ++c)
        for (int t = 0; t < par.tp; ++t) out.push_back(b.place.ep_group({t, c, s, d}));
  }
  return out;
}

bool spans_domains(const Builder& b, const std::vector<int>& g) {
  for (int x : g)
    if (b.fabric.nvlink_domain_of(x) != b.fabric.nvlink_domain_of(g.front())) return true;
  return false;
}

/// One collective of kind `k` on group `g` appended to `sched`, its first transfers after `after`;
/// returns the transfers that end it. CP: the ring's cp - 1 steps as one repeated transfer per
/// neighbour pair (step r + 1 sends what step r brought in), `bytes` per step.
std::vector<int> emit_group(const Builder& b, network::Schedule& sched, LayerSeg::Kind k, const std::vector<int>& g,
                            double bytes, const std::vector<int>& after) {
  // NCCL keeps a communicator's connections: the same path for a pair in every layer
  const std::uint64_t hash = b.opt.seed * 0xC2B2AE3D27D4EB4FULL + (static_cast<std::uint64_t>(k) << 40) +
                             static_cast<std::uint64_t>(g.front());
  std::vector<int> done;
  if (k == LayerSeg::CpRing) {
    const int n = static_cast<int>(g.size());
    std::vector<int> send(n, -1);
    for (int i = 0; i < n; ++i) {
      Collective c;
      c.op = Op::SendRecv;
      c.gpus = {g[i], g[(i + 1) % n]};
      c.bytes = bytes;
      c.after = after;
      c.tag = kTagCp;
      c.hash = hash + 977 * i;
      const auto e = collectives::emit(sched, c, b.layout, b.opt.protocol);
      if (e.done.size() == 1) send[i] = e.done[0];
      done.insert(done.end(), e.done.begin(), e.done.end());
    }
    for (int i = 0; i < n && n > 2; ++i) {
      if (send[i] < 0) continue;
      auto& a = sched.activities[send[i]];
      a.repeat = n - 1;
      if (send[(i + n - 1) % n] >= 0) a.after_previous = {send[(i + n - 1) % n]};
    }
    return done;
  }
  Collective c;
  c.op = k == LayerSeg::Ep ? Op::AllToAll : Op::AllReduce;
  c.gpus = g;
  c.bytes = bytes;
  c.collapse = true;
  c.merge_channels = b.opt.merge_ring_channels;
  c.after = after;
  c.tag = kind_tag(k);
  c.hash = hash;
  return collectives::emit(sched, c, b.layout, b.opt.protocol).done;
}

/// Flows (transfers x repetitions) of one collective of kind `k` on group `g`.
long long flows_of(const Builder& b, LayerSeg::Kind k, const std::vector<int>& g, double bytes) {
  network::Schedule scratch;
  emit_group(b, scratch, k, g, bytes, {});
  long long n = 0;
  for (const auto& a : scratch.activities) n += a.kind == Activity::Kind::Transfer ? a.repeat : 0;
  return n;
}

double cp_block_bytes(const Builder& b) {
  const auto& md = b.job.model;
  const double tokens_mb = b.job.microbatch_size * double(md.sequence_length) / b.job.par.cp;
  return 2.0 * tokens_mb * md.hidden * (md.kv_heads > 0 ? double(md.kv_heads) / md.heads : 1.0) * 2.0 / b.job.par.tp;
}

/// The chain of activities of one piece on the stage's GPU.
class Chain {
 public:
  Chain(Builder& b, int s, int tag, std::vector<int> after) : b_(b), s_(s), tag_(tag), cur_(std::move(after)) {}

  void compute(double t) { acc_ += t; }

  /// One layer collective, after the compute so far; kCpRing overlaps `time` s of compute.
  void collective(LayerSeg::Kind k, double bytes, double time) {
    const int a = flush(false);
    std::vector<int> t;
    for (const auto& g : groups_of(b_, k, s_, b_.layer_flows.all_groups)) {
      auto d = emit_group(b_, b_.plan.schedule, k, g, bytes, {a});
      t.insert(t.end(), d.begin(), d.end());
    }
    if (k == LayerSeg::CpRing) {
      acc_ = time;
      flush(true);  // the attention, while the ring runs
      cur_.insert(cur_.end(), t.begin(), t.end());
    } else {
      cur_ = t;
    }
    pending_ = std::move(t);
    pending_kind_ = kind_tag(k);
  }

  PieceActs finish() {
    flush(false);
    return {first_, last_};
  }

 private:
  /// The compute so far as one activity (0 s: a join of what it waits for), unless nothing is
  /// pending and the last activity already ends the chain (`force`: always).
  int flush(bool force) {
    if (!force && first_ >= 0 && acc_ == 0 && pending_.empty() && cur_.size() == 1 && cur_[0] == last_) return last_;
    Activity a;
    a.kind = Activity::Kind::Compute;
    a.gpu = b_.plan.stage_gpu[s_];
    a.amount = acc_ * b_.unit();
    a.tag = tag_;
    a.after = std::move(cur_);
    const int idx = b_.add(std::move(a));
    if (!pending_.empty()) b_.plan.waits.push_back({std::move(pending_), idx, last_, pending_kind_});
    pending_.clear();
    if (b_.prev_on_gpu.size() <= static_cast<std::size_t>(idx)) b_.prev_on_gpu.resize(idx + 1, -1);
    b_.prev_on_gpu[idx] = last_;
    if (first_ < 0) first_ = idx;
    last_ = idx;
    cur_ = {idx};
    acc_ = 0;
    return idx;
  }

  Builder& b_;
  int s_, tag_;
  std::vector<int> cur_;      ///< what the next activity waits for
  std::vector<int> pending_;  ///< transfers the next activity waits for (a StepWait)
  int pending_kind_ = 0;
  double acc_ = 0;  ///< s of compute not yet emitted
  int first_ = -1, last_ = -1;
};

}  // namespace

void plan_layer_flows(Builder& b) {
  const auto& job = b.job;
  const auto& par = job.par;
  const auto& md = job.model;
  LayerFlows& fl = b.layer_flows;
  fl = LayerFlows{};
  const double tokens_mb = job.microbatch_size * double(md.sequence_length) / par.cp;
  fl.tp_bytes = tokens_mb * md.hidden * 2.0;
  fl.ep_bytes = tokens_mb * md.hidden * 2.0 * md.top_k / (par.sequence_parallel ? par.tp : 1);
  bool ep = false, cp = false, tp = false;
  for (int s = 0; s < b.pp; ++s) {
    const Coord r{0, 0, s, b.rep};
    ep = ep || (md.experts > 1 && par.ep > 1 && spans_domains(b, b.place.ep_group(r)));
    cp = cp || (par.cp > 1 && spans_domains(b, b.place.cp_group(r)));
    tp = tp || (par.tp > 1 && spans_domains(b, b.place.tp_group(r)));
  }
  std::string which;
  for (auto [on, name] : {std::pair{ep, "EP all-to-all"}, {cp, "CP ring exchange"}, {tp, "TP all-reduce"}})
    if (on) which += (which.empty() ? "" : ", ") + std::string(name);
  if (which.empty()) {
    fl.note = "TP/CP/EP collectives inside the NVLink domain analytic (alpha-beta)";
    return;
  }
  // flows per step for every group, and for the representative replica's groups only
  const int rc = job.activation_recompute ? 1 : 0;
  long long all = 0, mine = 0;
  for (int s = 0; s < b.pp; ++s) {
    long long layers = 0;
    for (int c = 0; c < b.v; ++c) layers += b.plan.layers[c * b.pp + s];
    const long long uses = layers * b.msim;
    auto add = [&](bool on, LayerSeg::Kind k, double bytes, int per_layer) {
      if (!on) return;
      const auto every = groups_of(b, k, s, true), own = groups_of(b, k, s, false);
      const long long f = flows_of(b, k, own.front(), bytes);
      all += f * static_cast<long long>(every.size()) * per_layer * uses;
      mine += f * static_cast<long long>(own.size()) * per_layer * uses;
    };
    add(ep, LayerSeg::Ep, fl.ep_bytes, 4 + 2 * rc);  // dispatch + combine, forward and backward
    add(tp, LayerSeg::Tp, fl.tp_bytes, 4 + 2 * rc);  // after attention and after the MLP
    add(cp, LayerSeg::CpRing, cp_block_bytes(b), 2 + rc);
  }
  const long long budget = b.opt.max_layer_flows >= 0 ? b.opt.max_layer_flows : job.layer_flow_budget;
  auto fits = [&](long long n) { return budget <= 0 || n <= budget; };
  if (fits(all)) {
    fl.all_groups = true;
    fl.flows = all;
  } else if (fits(mine)) {
    fl.all_groups = false;
    fl.flows = mine;
  } else {
    fl.note = which +
              " analytic (alpha-beta, blind to the fabric's load: 35 % short of the flows at 16:1 leaf "
              "oversubscription on a small case, tests/unit/engine/test_step_traffic.cpp): " +
              std::to_string(mine) +
              " flows per step even for the representative replica's groups alone, above the budget of " +
              std::to_string(budget) + " (workload.layer_flow_budget; " + std::to_string(all) + " for every group)";
    return;
  }
  fl.ep = ep;
  fl.cp = cp;
  fl.tp = tp;
  fl.note =
      which + " as flows on the fabric in every layer (" + std::to_string(fl.flows) + " flows per step, " +
      (fl.all_groups
           ? std::string("every group of each stage")
           : "only the groups of the representative replica's GPUs: " + std::to_string(all) +
                 " for every group exceed the budget of " + std::to_string(budget) + " (workload.layer_flow_budget)" +
                 "; the other groups' traffic is missing from the fabric, measured on a small case up to 4 % "
                 "short of the step with every group: tests/unit/engine/test_step_traffic.cpp") +
      "; groups start each collective with the representative GPU, which waits for all of them)";
  if (!(ep && cp && tp)) {
    std::string rest;
    if (!tp) rest += "TP";
    if (!cp) rest += std::string(rest.empty() ? "" : "/") + "CP";
    if (!ep) rest += std::string(rest.empty() ? "" : "/") + "EP";
    fl.note += "; " + rest + " collectives inside the NVLink domain analytic (alpha-beta)";
  }
}

PieceActs emit_piece(Builder& b, int s, const OpCost& c, const std::vector<int>& group, bool forward,
                     std::vector<int> after, int tag) {
  Chain chain(b, s, tag, std::move(after));
  const bool flows = b.layer_flows.any();
  for (int u : group) {
    if (!flows || !c.units[u].layer) {
      chain.compute(c.units[u].time);
      continue;
    }
    for (const LayerSeg& g : b.layer_segs[s][forward ? 0 : 1]) {
      if (g.kind == LayerSeg::Compute)
        chain.compute(g.time);
      else
        chain.collective(g.kind,
                         g.kind == LayerSeg::Ep   ? b.layer_flows.ep_bytes
                         : g.kind == LayerSeg::Tp ? b.layer_flows.tp_bytes
                                                  : g.bytes,
                         g.time);
    }
  }
  return chain.finish();
}

}  // namespace aidcsim::workload::detail
