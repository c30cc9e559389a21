#pragma once
// Internal to models/collectives: an algorithm's traffic as planned flows (payload bytes,
// dependencies, waves), and how they become network::Schedule transfers whose idle-fabric time
// is the execution model's (see collective.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/common/dep_list.hpp"

namespace aidcsim::collectives::detail {

struct PlannedFlow {
  int src = 0, dst = 0;  ///< GPUs (src != dst)
  double payload = 0;    ///< B of the algorithm's data this transfer carries (per repetition)
  int wave = 0;          ///< flows of one wave run at the same time (one ring step, ...)
  /// > 0: the flow's ECMP hash is the collective's hash and this index (materialize() numbers flows
  /// 1, 2, ... in plan order), so a plan that merges flows keeps the hashes of the flows it stands
  /// for. 0: its index in plan order. (32 bits: in wave's padding.)
  std::uint32_t hash_index = 0;
  network::DepList deps;  ///< indices of earlier planned flows it waits for (all repetitions)
  /// Repetitions (network::Activity::repeat): identical steps of one transfer, repetition r + 1
  /// after repetition r; after_previous / after_same as network::Activity's (same repeat).
  int repeat = 1;
  network::DepList after_previous, after_same;
  /// An in-network reduction tree's stream: spread over the equal-cost paths, not hashed
  /// (network::Activity::spread).
  bool spread = false;
  std::uint64_t spread_phase = 0;  ///< network::Activity::spread_phase
  double weight = 1;               ///< network::Activity::weight (max-min share weight)
  /// Pipeline hops one repetition stands for (a plan of pipelines: its latency share is hops x
  /// the per-hop share; a tree over the CPU budget: the K - 2 chunks between its first and last).
  /// 1 otherwise.
  int hops = 1;
};

struct FlowPlan {
  std::vector<PlannedFlow> flows;
  std::vector<int> done;  ///< planned flows whose completion ends the collective
  std::string note;       ///< approximation made ("" when exact)
  /// Point-to-point operations (all-to-all, send/recv): each transfer runs at the port's NCCL
  /// efficiency instead of being scaled to the collective's bandwidth time.
  bool per_port_efficiency = false;
  /// A ring stepped (not collapsed): its ring orders, each n repeated transfers in ring order
  /// (flows[r n + i] = position i of order r, after_previous = position i - 1); emit() then
  /// pipelines it (pipeline_ring). 0 otherwise.
  int ring_orders = 0;
  /// Pipelines of chunks (a stepped tree): materialize gives each flow latency / the most hops of
  /// a path in its connected part of the plan (every chunk a hop), not the even share of the
  /// critical path of bytes.
  bool pipelines = false;
  /// A chain (ring broadcast / reduce, stepped or collapsed: plan_chain): materialize gives hop i
  /// the latency max(route_i, w_i x s), w_i NCCL's per-hop latency of its class
  /// (EmitContext::hop_nvlink / hop_net), s the common scale with which the chain's critical path
  /// takes bw_time + latency, not the even share of the latency, which the hops' routes exceed in
  /// series (64 x 8 H100 at 8 B: 804 us stepped against 10.7 collapsed before).
  bool chain = false;

  int add(int src, int dst, double payload, int wave, network::DepList deps = {}) {
    flows.push_back({.src = src,
                     .dst = dst,
                     .payload = payload,
                     .wave = wave,
                     .deps = std::move(deps),
                     .after_previous = {},
                     .after_same = {}});
    return static_cast<int>(flows.size()) - 1;
  }
  /// A transfer repeated `repeat` times (steps of a ring, chunks of a pipeline).
  int add_repeated(int src, int dst, double payload, int repeat, network::DepList after_previous,
                   network::DepList after_same = {}) {
    flows.push_back({.src = src,
                     .dst = dst,
                     .payload = payload,
                     .deps = {},
                     .repeat = repeat,
                     .after_previous = std::move(after_previous),
                     .after_same = std::move(after_same)});
    return static_cast<int>(flows.size()) - 1;
  }
};

/// Context of one emission.
struct EmitContext {
  const Collective& c;
  const Layout& layout;
  const Protocol& protocol;
  /// NCCL channels of the selected algorithm (Selection::channels; >= 1). PAT splits each step's
  /// data over them, one connection (and so one ECMP hash) per channel and peer.
  int channels = 1;
  /// s, NCCL's latency of one hop inside a domain / across the network for the selected
  /// algorithm and protocol (Selection::hop_latency_nvlink / _net, from tuning.cc hwLat): the
  /// weights of a stepped ring's per-hop latencies in materialize(). 0: equal weights.
  double hop_nvlink = 0, hop_net = 0;
  /// Chunks a stepped pipeline (tree, NVLSTree's tree, broadcast / reduce chain) runs per channel,
  /// one after the other (Collective::chunks, else nccl::pipeline_chunks of the selection); >= 1.
  int chunks = 1;
  /// NCCL's search channels of the ring graph after AllGather3 (graph->nChannels, <= 32:
  /// Selection::graph_channels): `channels` repeats them, channel k running search channel
  /// k mod ring_paths (ncclTopoPostset's copies). 0: every channel a search channel of its own.
  int ring_paths = 0;
  bool nvlink(int a, int b) const { return layout.domain_of(a) == layout.domain_of(b); }
};

/// Route latency (s) of a hop a -> b on the fabric: Layout::route_latency where the layout has
/// one, else its class's nominal latency (nvlink_latency inside a domain, net_latency across).
inline double hop_route(const Layout& l, int a, int b) {
  if (l.route_latency) return l.route_latency(a, b);
  return l.domain_of(a) == l.domain_of(b) ? l.nvlink_latency : l.net_latency;
}

/// GPUs of the group by NVLink domain, domains in order of first appearance.
std::vector<std::vector<int>> by_domain(const std::vector<int>& gpus, const Layout& l);

/// Appends `plan` to `schedule` as transfers: T = the longer of the longest dependency path of
/// payload / rate (a repeated transfer's first repetition after its after_same ones, its last
/// repetition-1 steady steps later) and the busiest GPU port's total payload / rate (a port
/// carries all its flows and repetitions); then amount = payload x (bw_time / T), so that the
/// bytes of the critical path take bw_time on an idle fabric and congestion slows the bytes, not
/// the latency.
///
/// Latency (network::Activity::delay = a hop's latency - its route latency, >= 0), per hop:
/// - spread evenly over the D hops (transfers' repetitions) of the critical path: latency / D,
///   so that the path takes bw_time + latency on an idle fabric. Where another path has more
///   hops (the stepped tree, before it was a plan of pipelines: 9 chunk hops against a one-hop
///   NVLink chain on 2 nodes at 8 B, which then took 9x NCCL's latency), the even share is the
///   largest one with which every path, a hop at max(share, its route latency) + its bytes at
///   line rate, takes at most bw_time + latency (Newton's steps on that convex piecewise-linear
///   time, exact where the routes are nominal).
/// - a plan of pipelines (plan.pipelines: a stepped tree's chunks beside its one-flow NVLink
///   chains): each flow takes latency / the most hops (repetitions) of a path in its connected
///   part of the plan, so that the tree's path of most chunk hops and the chain each pay the
///   whole latency once, in series with their bytes. (The even share by the critical path of
///   bytes gave each chunk the whole latency where a chain carried the most bytes: 4 nodes at
///   1 GiB took 1.22x the collapsed tree's time, 1.73x with 64 chunks.) Its delay deducts its
///   own route (Layout::route_latency), so that a cross-leaf chunk does not pay the excess again.
/// - a chain (plan.chain: ring broadcast / reduce, stepped or collapsed): hop i takes
///   max(route_i, w_i s), w_i its class's NCCL hop latency (ctx.hop_nvlink / hop_net), route_i
///   hop_route, s by bisection such that the critical path takes bw_time + latency (s = 0 where
///   routes and bytes alone exceed it); its delay deducts hop_route.
/// - a stepped ring (plan.ring_orders > 0) runs each position's T steps in series, so the even
///   share is latency / T per step. Where that share is below a hop's route latency (NCCL's LL
///   at thousands of GPUs: 1.21 us per step against the fabric's 1.4 us hops), the even split
///   would clamp (each such hop's excess paid at every step, +9 % at 4,096 GPUs). Instead each
///   hop gets its own latency, max(route, w x s) with w its class's NCCL per-hop latency
///   (ctx.hop_nvlink / hop_net: tuning.cc hwLat, intraLat inside a domain, interLat across the
///   network) and s the common scale that makes the worst chain of T consecutive positions,
///   with its bytes at their ports' lockstep share, take bw_time + latency (s = 0 when routes
///   and bytes alone exceed it); every hop is then in flight (*in_flight) and pipeline_ring lanes
///   the positions slower than the cheapest one, NCCL's FIFO overlapping their latency.
/// NIC ports count at nic_port_rate (the NIC bounded by its PCIe attachment where the fabric
/// models it: no rate bound on the transfers, the fabric's sharing bounds the port).
/// With per_port_efficiency the payload is divided by the port's efficiency (`nvlink_eff`,
/// `nic_eff` = NCCL's net_rate / nic_rate, taken relative to nic_port_rate) instead of scaled. Returns the activity indices of plan.done. `in_flight`
/// (optional) receives one flag per planned flow.
std::vector<int> materialize(network::Schedule& schedule, const FlowPlan& plan, const EmitContext& ctx, double bw_time,
                             double latency, double nvlink_eff = 1, double nic_eff = 1,
                             std::vector<char>* in_flight = nullptr);

/// NCCL's pipelining of a stepped ring (ring_pipeline.cpp), applied to the `rings` x n repeated
/// transfers materialize() put at [first, first + rings n) of `s` (FlowPlan::ring_orders layout,
/// every transfer repeated T = steps times). A rank's steps stay in series (step k + 1 after its
/// step k: NCCL's per-step cost, the transfer's delay + route latency + bytes), except on hops
/// whose route latency exceeds the nominal hop's of their class (Layout::nvlink_latency /
/// net_latency; a cross-leaf or cross-pod hop): that excess is propagation in flight, and NCCL's
/// connection FIFO (NCCL_STEPS slots) lets the rank post its next steps meanwhile. Such a
/// position's steps run in D lanes (step k after step k - D only; D = the FIFO's depth in ring
/// steps, no more than the excess needs); every position is split into the same D lanes so that
/// step k + 1 still waits for step k of the previous position. No change when no hop is slower
/// than nominal, the Layout has no route_latency, or D < 2. Rewrites the block in place
/// (per order, per position: D lanes of repeat T / D, then T mod D single steps) and sets *done
/// to what ends the collective (unchanged when nothing is pipelined).
struct RingPipeline {
  int lanes = 1;      ///< D (1: not pipelined)
  int slow_hops = 0;  ///< positions (all orders) whose route is longer than nominal
};
/// `in_flight` (materialize's flags, one per transfer of the block; may be null): positions
/// whose latency is propagation in flight while another class carries the ring's pace; they
/// are pipelined like slower hops (their excess = their step over the serial pace).
RingPipeline pipeline_ring(network::Schedule& s, int first, int rings, const EmitContext& ctx, Proto proto,
                           int nccl_channels, std::vector<int>* done, const std::vector<char>* in_flight = nullptr);

// Emitters (flow_*.cpp). `n` = group size >= 2.
FlowPlan plan_ring(const EmitContext& ctx, Op op);
FlowPlan plan_tree(const EmitContext& ctx, const std::vector<std::vector<int>>& doms);
FlowPlan plan_nvls(const EmitContext& ctx, const std::vector<std::vector<int>>& doms, bool across_sharp,
                   bool across_tree);
FlowPlan plan_collnet(const EmitContext& ctx, const std::vector<std::vector<int>>& doms);
FlowPlan plan_pat(const EmitContext& ctx);
FlowPlan plan_halving_doubling(const EmitContext& ctx);
FlowPlan plan_alltoall(const EmitContext& ctx, int max_pairs);
/// Largest |sampled all-to-all / mean of every pair over 5 hash seeds - 1| held by
/// tests/unit/collectives/test_alltoall_sampling.cpp (fluid bound, 128-512 GPUs, 1 MiB and 1 GiB)
/// and quoted in plan_alltoall's note.
inline constexpr double kSampledAllToAllError = 0.07;
/// NCCL's ring broadcast / reduce: a chain in ring order (root first; reduce backwards), each hop
/// carrying S; collapsed one transfer per hop, all at once; stepped each hop ctx.chunks repetitions,
/// chunk k after chunk k of the hop before. FlowPlan::chain.
FlowPlan plan_chain(const EmitContext& ctx, bool reduce);

/// Budget of a stepped tree with NCCL's chunk count (Collective::chunks = 0): repetitions x edges^2
/// at most this. The flow network does not fast-forward a tree's pipeline (its edges never repeat
/// one state: the leaves run ahead of the levels above), so every chunk of every edge is an event
/// and each event re-solves the edges in flight: CPU ~ 1.2e-8 s x repetitions x edges^2 (H100, 8
/// GPUs a node, 1 GiB in 128 chunks: 16 nodes, 480 edges, 0.32 s; 64 nodes, 2,016 edges, 7.3 s).
/// Above it (and above 8 chunks) each edge runs NCCL's chunks as three transfers (add_dtrees), and
/// the plan's note says so. 2^26: ~1 s (64 nodes: 16 repetitions). Collective::pipeline_work
/// replaces it (a test's run in every chunk).
inline constexpr double kPipelineWork = 67108864.0;

/// NCCL's double binary tree between the domains `doms` on each of `rails` rails (GPU j of every
/// domain on rail j): per rail both trees, each edge carrying `share` B up to the parent (reduce)
/// and back down (broadcast). Collapsed (ctx.c.collapse), one transfer per edge and direction;
/// else a pipeline of ctx.chunks repetitions per edge, a chunk up an edge after it came up from the
/// children, down after the parent has it (FlowPlan::pipelines). Above kPipelineWork (NCCL's count,
/// not one Collective::chunks sets) each edge takes three transfers: its first chunk after the
/// feeding edges' first, the chunks between streaming right after it, its last chunk after the
/// feeding edges' last (NCCL's fill and drain kept; measured against every chunk in
/// test_pipeline_chunks.cpp, the tree and NVLSTree's tree part); `what` names the tree in
/// plan.note, which says so. Nothing for fewer than 2 domains.
void add_dtrees(FlowPlan& plan, const EmitContext& ctx, const std::vector<std::vector<int>>& doms, int rails,
                double share, const char* what);

/// Parent of `rank` in NCCL's double binary tree over `n` ranks (src/graph/trees.cc v2.23,
/// ncclGetBtree / ncclGetDtree): tree 0 is the binary tree rooted at 0, tree 1 its mirror (n even)
/// or its shift by one (n odd). -1 for the root.
int dtree_parent(int n, int rank, int tree);

}  // namespace aidcsim::collectives::detail
