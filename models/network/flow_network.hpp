#pragma once
// FlowNetwork: executes a Schedule on a topology::Fabric: computations at their GPU's speed,
// transfers as flows sharing link bandwidth (flow-level, max-min fair), with dependencies.
// Contract used by sim/engine; extend, don't break.
//
// How (see flow_network.cpp): a discrete-event loop with its own clock (0 at every run) on
// SimGrid 3.32's max-min solver (sharing.hpp), the solver of SimGrid's CM02 network model:
// - max-min fairness with every flow weighted alike by default (RDMA congestion control, DCQCN,
//   is rate-fair; CM02's RTT-weighted sharing is TCP's), or by Activity::weight (traffic
//   classes), with optional rate bounds (Activity::rate_limit), no cross-traffic, no TCP window;
//   link capacities are Fabric::sharing_rate (a GPU's NIC port bounded by its PCIe attachment); a flow
//   first waits for its route's latency (uses no bandwidth meanwhile), then sends: a lone flow
//   takes latency + bytes / rate;
// - per-flow ECMP: each (sub-)flow gets Fabric::route(src, dst, hash), computed before the run;
// - solver resources are created only for the link directions the run's flows use;
// - runs are isolated by construction (fresh solver and clock): same schedule, same result, bit
//   for bit, whatever ran before in the process; several FlowNetworks may coexist. The only state
//   kept between runs is the last run's route table, reused when the next run reads exactly the
//   same inputs from it (the same transfers; the same fabric state, or per transfer where the
//   healthy fabric's routes still hold): a step variant at other clocks or with a link down; and,
//   when asked (set_prefix_capture), the run's state before the first transfer over given links,
//   from which a run of the same schedule with one of them down continues (the same result).
// - failures during a run (run(schedule, events)) act on a private copy of the fabric; flows
//   crossing a dead link restart their remaining bytes on a recomputed route (run_failures.cpp).
// Not thread-safe per object; distinct objects in distinct threads are independent except for
// the fabric's lazy route caches (Fabric is not thread-safe).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/common/schedule.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

/// A failure that happens during a FlowNetwork::run (issue 3: failures applied at a time).
/// `time`: s from the run's start (>= 0, finite); `failure.at` is ignored. `failure.type`:
/// LinkDown (element = link name, "a-b" = all parallel links, "a-b/k" one), SwitchDown (element =
/// switch name), Degrade (element = link name, rate = built rate x factor, as Fabric::apply).
/// Errors use `failure.key` (e.g. "fabric.failures[2]") or "network.failures[i]".
struct TimedFailure {
  double time = 0;
  topology::FailureSpec failure;
};

class FlowNetwork {
 public:
  /// A flow network on `fabric` (kept by reference: it must outlive this object). Cheap: nothing
  /// is built until run().
  explicit FlowNetwork(const topology::Fabric& fabric);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  /// Runs every activity of `schedule` to completion; times are relative to this call's start.
  /// Can be called repeatedly. Throws SimulationError on an unroutable transfer or a deadlock
  /// (dependency cycle), InvalidParameter on a bad activity (GPU index, negative amount,
  /// dependency index, gpu_flops size).
  ///
  /// Semantics: Compute = `amount` FLOP at gpu_flops[gpu] FLOP/s (exec on the GPU's host).
  /// Transfer = `amount` bytes from `gpu` to `dst_gpu` (GPU ranks, or a storage server's node id
  /// at one end: Fabric::is_endpoint, a storage flow is never sprayed); route latency (sum of Link::latency) plus
  /// Activity::delay, then a max-min fair flow along Fabric::route(gpu, dst_gpu, hash). With FabricSpec::flows_per_pair
  /// F > 1 (hash ECMP) the transfer is F sub-flows of amount/F with hashes derived from flow_hash
  /// (sub-flow 0 keeps flow_hash); on a multi-plane fabric (FabricSpec::planes P > 1) a GPU-to-GPU
  /// scale-out transfer is F x P sub-flows, one per plane for each hash (NCCL spreads a GPU's
  /// channels over its NICs; each plane's port is one); with EcmpMode::Spray it is split evenly over up to
  /// spray_subflows() of the equal-cost paths (Fabric::routes). src == dst takes no time.
  /// Delay = waits `amount` s. Weighted max-min shares by Activity::weight, each sub-flow at
  /// most rate_limit / sub-flows when rate_limit > 0; bytes per link split by Activity::group
  /// (RunResult::groups).
  /// An activity starts when all its `after` activities have finished.
  /// Same as run(schedule, {}) (RunResult::reroutes all 0).
  RunResult run(const Schedule& schedule);

  /// Same as run(schedule), with `events` applied during the run at their `time` (in any order;
  /// equal times apply in the given order). The fabric given to the constructor is not changed:
  /// the events act on a private copy (see run_failures.cpp).
  /// - Degrade: the links' capacity becomes built rate x factor at `time`; flows keep
  ///   their routes and max-min shares are recomputed.
  /// - LinkDown / SwitchDown: every flow in progress (or in its latency phase) whose route
  ///   crosses a dead link is stopped; its remaining bytes restart on Fabric::route(src, dst,
  ///   hash) recomputed with the element down, after that route's latency (as a new flow;
  ///   sprayed sub-flow j keeps its rank j among the remaining paths). Transfers that start
  ///   later are routed on the fabric as it is then. RunResult::reroutes counts the restarts per
  ///   activity; link_bytes_fwd/rev = bytes actually sent on each route (before the failure on
  ///   the old one, after it on the new one).
  /// Throws SimulationError "<element> down at <t> s: GPU a -> GPU b has no route" when a failure
  /// disconnects a transfer (the run stops at once), InvalidParameter (key + ".element",
  /// ".factor", ".time") for an unknown element, a bad factor or a negative/non-finite time.
  /// Figures are exact (no sampling); between two events the model is run(schedule)'s.
  RunResult run(const Schedule& schedule, const std::vector<TimedFailure>& events);

  /// Maximum sub-flows per transfer in EcmpMode::Spray (default 16; paths are taken evenly spaced
  /// from Fabric::routes). Ideal spraying = all paths; 16 sub-flows is within a few % of it on
  /// fat trees while keeping SimGrid's sharing system small.
  void set_spray_subflows(int n);
  int spray_subflows() const;

  /// Link tiers (bit 1 << topology::Tier, e.g. 1 << Tier::SpineCore) whose link directions a run
  /// leaves out of the max-min solver while the rates keep them below capacity; the first solve
  /// that would put one at capacity puts it back for the rest of the run (relaxed_links.hpp). Exact
  /// (a max-min allocation of the relaxed system that is feasible is the full system's), but the
  /// solver's rounding may differ in the last bits from a run without it: off by default (0).
  /// Not applied to runs with failure events. Throws InvalidParameter for bits of other tiers (a
  /// flow's NIC and NVLink ports always stay in the solver). Splits the sharing components that only meet on
  /// links that never bind (an oversubscribed core that is not the bottleneck).
  void set_relaxed_tiers(std::uint32_t tiers);
  std::uint32_t relaxed_tiers() const;

  /// Record bytes per link direction over time in run() (RunResult::timeline_*): `bins` = B >= 1
  /// turns it on (0: off, the default). The run ends with B to 2B bins whatever its length (full
  /// tables of 2B bins merge pairwise); `expected_duration` (s, 0 = unknown) sets the first bin
  /// width to expected / B, which saves the merges. Costs a sampler wake-up per bin boundary
  /// (the progress of the flows in progress) and 16 B x used link directions
  /// x B. Not recorded in runs with failure events. Throws InvalidParameter for bins < 0 or a
  /// negative duration.
  void set_timeline_bins(int bins, double expected_duration = 0);
  int timeline_bins() const;

  /// Whether a run keeps its route phase (routes, sub-flow table, bytes per link; ~46 MB at 31K
  /// GPUs) for a later run of the same transfers (default on): the next run with the same
  /// transfers on the same fabric state takes it whole, one with links or switches down takes it
  /// per transfer where the routes hold; results are bit-identical either way. Turn it off when no
  /// such run follows (a step without step variants): the table is then neither built nor kept,
  /// and turning it off drops a table kept so far (its memory goes back to the allocator).
  void set_route_reuse(bool on);
  bool route_reuse() const;
  /// Whether a route table is kept for the next run now (for tests and diagnostics).
  bool holds_route_table() const;

  /// Prefix reuse for runs with one link down (degrade mode's link-down samples). A run with one
  /// link down is the healthy run, bit for bit, until the first transfer that the link reroutes
  /// begins; with `pick` set (null: off), every later run without failure events, relaxed tiers
  /// or spraying (those: nothing kept) calls pick(fabric, link_bytes_fwd,
  /// link_bytes_rev) after its route phase (bytes per link, RunResult's) and keeps, for each link
  /// it returns (at most 8, link indices), the run's state just before the first transfer whose
  /// route crosses that link begins (or one routed anew in such a run: spread, storage; with
  /// repetitions, before the batch it begins in: begin_batch groups its repetitions). It
  /// replaces what an earlier run kept. A later run of the same schedule (every field, bit for
  /// bit) on the fabric with exactly one of those links down and nothing else changed continues
  /// from that state instead of simulating from t = 0, when every transfer the state refers to
  /// has the same sub-flows (routes, bytes, merges) and every solver resource the same capacity;
  /// else it runs whole. The continuation makes the same solver calls on a solver in the same
  /// state (run_prefix.cpp): its result is the whole run's bit for bit (test_run_prefix). A state
  /// is not kept past a timeline bin boundary that completed items early, nor past a periodic
  /// jump of repetitions that a boundary cut short (the continuation runs without a timeline).
  /// Costs: the kept states (per link: a byte per activity, the items, heaps and in-progress
  /// transfers' sub-flows at that time; with repetitions, per repeated activity its counts and
  /// the repetition engine's waves and groups) and the run's start/finish times.
  using PrefixPick =
      std::function<std::vector<int>(const topology::Fabric&, const std::vector<double>&, const std::vector<double>&)>;
  void set_prefix_capture(PrefixPick pick);
  /// Drops the kept prefixes (their memory goes back to the allocator).
  void drop_prefixes();
  /// Links with a kept prefix, in pick's order (for tests and diagnostics).
  std::vector<int> prefix_links() const;
  /// Activities the last run took from a kept prefix (begun before its state was kept); 0 when
  /// it was simulated from its start.
  long long last_run_prefix() const;

  const topology::Fabric& fabric() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Link-utilization figures of one run (product brief alarm threshold: 80 %).
struct Congestion {
  double max_utilization = 0;  ///< fraction, busiest link direction over the run's makespan
  double p99_utilization = 0;  ///< fraction, 99th percentile over fabric link directions that carried traffic
  int links_above_80 = 0;      ///< link directions with utilization > 0.8
  /// Same per tier, indexed by topology::Tier.
  double max_by_tier[4] = {0, 0, 0, 0};
  double p99_by_tier[4] = {0, 0, 0, 0};
};

/// Congestion of a run over `interval` seconds (defaults to the makespan): utilization of a link
/// direction = bytes / (rate x interval). NVLink links are reported in their tier but excluded
/// from the fabric-wide max/p99/above-80 figures. p99 is the nearest-rank percentile over the
/// link directions that carried traffic (0 if none).
Congestion congestion(const topology::Fabric& fabric, const RunResult& run, double interval = 0);

/// Time bins of a training step's link timeline: 48-96 bins resolve a pipeline's phases (warm-up,
/// steady 1F1B, cool-down, DP reduction).
inline constexpr int kStepTimelineBins = 48;

/// Link utilization over time, from a run with a timeline (FlowNetwork::set_timeline_bins).
/// Utilization of a link direction in a bin = its bytes in the bin / (rate x bin width).
struct CongestionTimeline {
  double bin = 0;                       ///< s, bin width
  std::vector<double> time;             ///< s, start of each bin from the run's start (size = bins)
  std::vector<double> max_by_tier;      ///< [bin * 4 + tier] (topology::Tier), busiest link direction
  std::vector<double> mean_by_tier;     ///< [bin * 4 + tier], mean over the tier's link directions
                                        ///< that carry traffic in the run
  std::vector<int> hot;                 ///< scale-out link directions (2 l: a->b, 2 l + 1: b->a)
                                        ///< with the highest peak bin utilization, descending
  std::vector<double> hot_utilization;  ///< [bin * hot.size() + k]
  double alarm = 0.8;                   ///< utilization threshold of above_alarm (brief: 80 %)
  std::vector<int> above_alarm;         ///< per bin: scale-out link directions above `alarm`
  /// [bin * 4 + tier] (topology::Tier): above_alarm by tier (NVLink's entry stays 0). A flow at its
  /// path's full rate loads every hop of it above 80 %, its own GPU's access link included: the
  /// tiers say whether the fabric's switch-to-switch links are among them.
  std::vector<int> above_alarm_by_tier;
  double time_above_alarm = 0;  ///< s of the run (up to its makespan) in bins where at
                                ///< least one scale-out link direction is above `alarm`
};

/// Utilization over time of a run with a timeline; `hot` = how many hottest scale-out link
/// directions to follow (ties: lowest index); `alarm` = the utilization (fraction) above which a
/// scale-out link direction counts in above_alarm (the brief's 80 % alarm). Throws SimulationError
/// when the run has no timeline or does not match the fabric.
CongestionTimeline congestion_timeline(const topology::Fabric& fabric, const RunResult& run, int hot = 8,
                                       double alarm = 0.8);

/// Mean utilization (fraction) of every link direction over `interval` s (defaults to the
/// makespan): 2 entries per link, [2*l] = Link::a -> Link::b, [2*l+1] = b -> a; bytes from
/// RunResult::link_bytes_fwd/rev, rate = current Link::rate. Size 2 x fabric.link_count().
std::vector<double> link_utilization(const topology::Fabric& fabric, const RunResult& run, double interval = 0);

/// Completion time of a transfer alone on the fabric, s: latency(route) + bytes / the smallest
/// Fabric::sharing_rate on route(src, dst, flow_hash) (the alpha-beta model of one flow; 0 for
/// src == dst). On a multi-plane fabric a GPU-to-GPU scale-out transfer is split over the planes
/// (FlowNetwork::run): the slowest of its per-plane sub-flows, each with bytes / planes.
double isolated_time(const topology::Fabric& fabric, int src, int dst, double bytes, std::uint64_t flow_hash);

/// The routes FlowNetwork::run sends transfer `a`'s sub-flows on, on the fabric's current state:
/// emit(hops) once per sub-flow (hash ECMP: FabricSpec::flows_per_pair hashes, each split over
/// the planes for a transfer over the NICs, one sub-flow per plane; spray or Activity::spread:
/// `spray_subflows` sampled equal-cost paths). Sub-flows on one route repeat it. Hashed routes are
/// computed without filling the fabric's route cache. Nothing for a computation or src == dst.
/// Throws SimulationError when the ends are disconnected (Fabric::route).
void for_each_subflow_route(const topology::Fabric& fabric, const Activity& a, int spray_subflows,
                            const std::function<void(const std::vector<topology::Hop>&)>& emit);

/// Slowdown of every activity of a run: (finish - start) / isolated_time for transfers (the
/// congestion metric of Alizadeh et al., pFabric, SIGCOMM 2013: "FCT normalised to the best
/// possible FCT"), 0 for computations and for zero-time transfers. Size = activity count.
/// Uses the fabric's current routes: call it before changing the fabric.
std::vector<double> slowdowns(const topology::Fabric& fabric, const Schedule& schedule, const RunResult& run);

}  // namespace aidcsim::network
