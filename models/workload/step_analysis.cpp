// Reading a simulated step: where its time went (compute, exposed TP/PP/DP/CP/EP, bubble).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "models/workload/step.hpp"

namespace aidcsim::workload {

namespace {

/// Seconds of each kind of exposed communication an op waited for, per stage, before its last
/// backward: per op, the wait on its latest-finishing transfer group (StepWait).
std::vector<std::vector<double>> transfer_waits(const StepPlan& plan, const network::RunResult& run) {
  std::vector<std::vector<double>> by_stage(plan.pp, std::vector<double>(kStepTags, 0.0));
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

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

/// The tail of a stage after its last backward, as intervals: before the optimizer it waits for
/// its DP reduction (from the last backward to the reduction's end) and, on the first and last
/// stage, for the tied-embedding all-reduce (while on the wire); any other wait there is for the
/// other stage's pipeline drain. Then the optimizer, then the ZeRO all-gather up to `end`.
struct Tail {
  double last_b = 0, opt0 = 0, opt1 = 0, end = 0;
  double dp_end = 0;          ///< end of the stage's DP reduction (<= last_b when hidden)
  double emb0 = 0, emb1 = 0;  ///< embedding all-reduce on the wire (empty when none)
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

namespace {

/// Seconds per microbatch of stage 0's steady 1F1B phase (Narayanan et al. SC21 §2.2; Megatron-core
/// schedules.py: warm-up forwards, steady one-forward-one-backward, cool-down backwards): the mean
/// spacing of its chunk-0 backward completions (`microbatch_done`) from the second one that follows
/// a forward to the last one that does, over whole microbatch groups (v > 1: between two such
/// completions stage 0 runs N v forwards and N v backwards, one group's work). The first is left
/// out (its completion holds the pipeline fill), and so is the cool-down (backwards only, shorter
/// than the steady period); with v = 1 the window is backwards 1 .. n - pp. 0 when the simulated
/// steady state holds fewer than two such completions.
double steady_period(const StepPlan& plan, const network::RunResult& run) {
  const auto& d = plan.microbatch_done;
  const auto& steady = plan.microbatch_steady;
  const int n = static_cast<int>(std::min(d.size(), steady.size()));
  int first = 0;
  while (first < n && !steady[first]) ++first;
  int last = first;
  while (last + 1 < n && steady[last + 1]) ++last;
  const int from = first + 1, step = std::max(1, plan.microbatch_group);
  if (last <= from) return 0;
  const int to = from + (last - from) / step * step;
  if (to <= from) return 0;
  double period = (run.finish[d[to]] - run.finish[d[from]]) / (to - from);
  // zero2 / fsdp: each stage's reduce-scatter stream, which the compute does not wait for, over the
  // same microbatches: when the reduce-scatters are slower than the compute they pile up, and each
  // microbatch more adds the stream's period, not the compute's
  auto end = [&](const std::vector<int>& transfers) {
    double t = 0;
    for (int a : transfers) t = std::max(t, run.finish[a]);
    return t;
  };
  for (const auto& r : plan.microbatch_reduced)
    if (static_cast<int>(r.size()) > to && !r[from].empty() && !r[to].empty())
      period = std::max(period, (end(r[to]) - end(r[from])) / (to - from));
  return period;
}

/// Seconds the microbatches beyond the simulated ones add: the analytic steady state, or for
/// zero2 / fsdp and blocking pipeline exchanges the simulated steady-state period (at least the
/// analytic one).
double extension(const StepPlan& plan, const network::RunResult& run, double extra_time) {
  if (plan.extra_microbatches == 0 || !(plan.measured_steady_pipeline || plan.measured_extension)) return extra_time;
  return std::max(extra_time, plan.extra_microbatches * steady_period(plan, run));
}

// The per-stage sums of `r` become means over the `pp` stages (rounding residue of the interval
// sums zeroed), and the GPU load follows from the same partition: the share computing (communication
// hidden under compute included) and the share of exposed communication; the rest is bubble.
void average_over_stages(StepBreakdown& r, int pp) {
  const double n = pp;
  r.compute /= n;
  r.exposed_tp /= n;
  r.exposed_cp /= n;
  r.exposed_ep /= n;
  r.bubble /= n;
  r.exposed_pp /= n;
  r.exposed_dp /= n;
  for (double* x : {&r.compute, &r.exposed_tp, &r.exposed_cp, &r.exposed_ep, &r.bubble, &r.exposed_pp, &r.exposed_dp})
    if (std::abs(*x) < 1e-12 * r.step_time) *x = 0;  // rounding residue of the interval sums
  const double exposed = r.exposed_tp + r.exposed_pp + r.exposed_dp + r.exposed_cp + r.exposed_ep;
  r.gpu_busy_compute_fraction = std::clamp(r.compute / r.step_time, 0.0, 1.0);
  // at most the rest of the step, so the two never add to more than 1 through rounding
  r.gpu_busy_comm_fraction = std::clamp(exposed / r.step_time, 0.0, 1.0 - r.gpu_busy_compute_fraction);
}

/// The step's length from a run: the makespan plus the microbatches beyond the simulated ones,
/// which each add, per stage, its ops (per_microbatch) and the mean wait per simulated microbatch
/// for its layer collectives run as flows. What analyse_step and step_time both compute (one code
/// path: the same bits). `waits` = transfer_waits (plan.pp > 0).
struct StepLength {
  double extra_time = 0;                             ///< s, the analytic extension (at least plan.extra_time)
  double extra = 0;                                  ///< s, the extension added to the makespan (measured or analytic)
  double step_time = 0;                              ///< s
  std::vector<double> layer_ep, layer_cp, layer_tp;  ///< per stage, s of layer-collective waits added
};

StepLength step_length(const StepPlan& plan, const network::RunResult& run,
                       const std::vector<std::vector<double>>& waits) {
  StepLength l;
  l.extra_time = plan.extra_time;
  l.layer_ep.assign(plan.pp, 0);
  l.layer_cp.assign(plan.pp, 0);
  l.layer_tp.assign(plan.pp, 0);
  if (plan.extra_microbatches > 0 && plan.simulated_microbatches > 0) {
    const double k = double(plan.extra_microbatches) / plan.simulated_microbatches;
    double slowest = 0;
    for (int s = 0; s < plan.pp; ++s) {
      l.layer_ep[s] = k * waits[s][kTagEp];
      l.layer_cp[s] = k * waits[s][kTagCp];
      l.layer_tp[s] = k * waits[s][kTagTp];
      const double per_mb = s < static_cast<int>(plan.per_microbatch.size()) ? plan.per_microbatch[s] : 0.0;
      slowest = std::max(slowest, plan.extra_microbatches * per_mb + l.layer_ep[s] + l.layer_cp[s] + l.layer_tp[s]);
    }
    l.extra_time = std::max(l.extra_time, slowest);
  }
  l.extra = extension(plan, run, l.extra_time);
  l.step_time = run.makespan + l.extra;
  return l;
}

/// Whether step_length reads the transfer waits (else they need not be computed).
bool length_needs_waits(const StepPlan& plan) { return plan.extra_microbatches > 0 && plan.simulated_microbatches > 0; }

}  // namespace

double step_time(const StepPlan& plan, const network::RunResult& run) {
  if (plan.pp == 0) return run.makespan + plan.extra_time;
  const auto waits = length_needs_waits(plan)
                         ? transfer_waits(plan, run)
                         : std::vector<std::vector<double>>(plan.pp, std::vector<double>(kStepTags));
  return step_length(plan, run, waits).step_time;
}

StepBreakdown analyse_step(const StepPlan& plan, const network::RunResult& run) {
  StepBreakdown r;
  if (plan.pp == 0) {
    r.step_time = run.makespan + plan.extra_time;
    return r;
  }
  const auto waits = transfer_waits(plan, run);
  const StepLength len = step_length(plan, run, waits);
  const double extra_time = len.extra_time, extra = len.extra;
  const std::vector<double>&layer_ep = len.layer_ep, &layer_cp = len.layer_cp, &layer_tp = len.layer_tp;
  r.step_time = len.step_time;
  if (r.step_time <= 0) return r;
  // the critical stage: the one whose step ends last
  std::vector<Tail> tails;
  int crit = 0;
  for (int s = 0; s < plan.pp; ++s) {
    tails.push_back(stage_tail(plan, run, s));
    if (tails[s].end > tails[crit].end) crit = s;
  }
  r.stage_compute.assign(plan.pp, 0.0);
  r.stage_exposed_comm.assign(plan.pp, 0.0);
  r.stage_bubble.assign(plan.pp, 0.0);
  for (int s = 0; s < plan.pp; ++s) {
    // Each term is added to the stage sums (r.compute, ...: later means) as it always was, and to
    // the stage's own partition (stage_*), so the per-stage figures change none of the means' bits.
    const Tail& t = tails[s];
    const double ops = plan.compute[s] + plan.tp[s] + plan.cp[s] + plan.ep[s];
    const double idle = std::max(0.0, t.last_b - ops);
    double exposed = 0;
    for (double w : waits[s]) exposed += w;
    const double scale = exposed > idle ? idle / exposed : 1.0;  // waits cannot exceed the idle time
    const double wait_bubble = idle - exposed * scale, wait_pp = waits[s][kTagPp] * scale,
                 wait_ep = waits[s][kTagEp] * scale, wait_cp = waits[s][kTagCp] * scale,
                 wait_tp = waits[s][kTagTp] * scale, wait_dp = (waits[s][kTagDpGather] + waits[s][kTagDp]) * scale;
    r.bubble += wait_bubble;
    r.exposed_pp += wait_pp;
    r.exposed_ep += wait_ep;
    r.exposed_cp += wait_cp;
    r.exposed_tp += wait_tp;
    r.exposed_dp += wait_dp;
    // after its last backward: its optimizer is compute; the rest of the time until the step ends
    // is booked by what the critical stage was doing then: waiting for DP (embedding) traffic is
    // exposed DP (PP), running its pipeline (the drain) or optimizer is bubble. A stage's own DP
    // reduction hidden behind the drain is not exposed.
    const Tail& c = tails[crit];
    const double dp = c.dp_in(t.last_b, t.opt0) + c.dp_in(t.opt1, run.makespan);
    const double emb = c.embedding_in(t.last_b, t.opt0) + c.embedding_in(t.opt1, run.makespan);
    const double compute = plan.compute[s] + plan.extra_compute[s] + (t.opt1 - t.opt0);
    const double drain = std::max(0.0, run.makespan - t.last_b - (t.opt1 - t.opt0) - dp - emb);
    r.compute += compute;
    r.exposed_dp += dp;
    r.exposed_pp += emb;
    r.bubble += drain;
    // the extension: beyond its own ops, imbalance with the slowest stage is bubble, the rest of a
    // measured period exposed DP (per-microbatch gathers / reduce-scatters) or, with DeepSpeed's
    // pipeline engine, exposed PP (the blocking exchanges of its steady state)
    const double layer_extra = layer_ep[s] + layer_cp[s] + layer_tp[s];
    const double extra_ops =
        plan.extra_compute[s] + plan.extra_tp[s] + plan.extra_cp[s] + plan.extra_ep[s] + layer_extra;
    const double imbalance = std::max(0.0, extra_time - extra_ops), measured = extra - extra_time;
    r.bubble += imbalance;
    (plan.measured_steady_pipeline ? r.exposed_pp : r.exposed_dp) += measured;
    const double layer_tp_s = plan.tp[s] + plan.extra_tp[s] + layer_tp[s],
                 layer_cp_s = plan.cp[s] + plan.extra_cp[s] + layer_cp[s],
                 layer_ep_s = plan.ep[s] + plan.extra_ep[s] + layer_ep[s];
    r.exposed_tp += layer_tp_s;
    r.exposed_cp += layer_cp_s;
    r.exposed_ep += layer_ep_s;
    r.stage_compute[s] = compute;
    r.stage_exposed_comm[s] =
        wait_pp + wait_ep + wait_cp + wait_tp + wait_dp + dp + emb + measured + layer_tp_s + layer_cp_s + layer_ep_s;
    r.stage_bubble[s] = wait_bubble + drain + imbalance;
  }
  average_over_stages(r, plan.pp);
  return r;
}

}  // namespace aidcsim::workload
