#pragma once
// A schedule of activities for one simulated interval (typically one training step): computations
// on GPUs and transfers between GPUs, with dependencies, and the result of running it. Plain data,
// no SimGrid: built by models/workload and models/collectives, executed on SimGrid by
// network::FlowNetwork. It lives in models/common so that the areas that build schedules do not
// depend on the network engine; its namespace stays `network`, the area that runs it.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/common/dep_list.hpp"

namespace aidcsim::network {

struct Activity {
  /// Delay: waits `amount` s after its dependencies, using nothing (a job's start offset, a gap
  /// between a background source's bursts); `gpu` is ignored.
  enum class Kind : std::uint8_t { Compute, Transfer, Delay };
  // Fields by size (8-byte, dependency lists, 4-byte, 1-byte): 96 B, no padding; a 31K-GPU step
  // plan holds ~500K activities (with std::vector lists: 144 B and one allocation per list).
  double amount = 0;            ///< Compute: FLOP; Transfer: bytes; Delay: s
  std::uint64_t flow_hash = 0;  ///< Transfer: ECMP hash input (flows with equal hash share a path)
  /// Transfer with `spread`: its phase among the equal-cost paths, a fraction of 2^64 (Fabric::
  /// routes_strided with seed_is_phase: one path in each m-th of the path ranks, at this fraction
  /// of it); 0: a strided set of paths from flow_hash. A sampled all-to-all gives its transfers a
  /// low-discrepancy sequence (van der Corput), so that the transfers through a switch cover its
  /// links evenly instead of by chance.
  std::uint64_t spread_phase = 0;
  /// Transfer: s it waits after its dependencies, on top of its route latency, before its bytes
  /// flow (a protocol's software latency: not slowed by the sharing of links; paid by every
  /// repetition). >= 0.
  double delay = 0;
  /// Transfer: max-min share weight (> 0, finite; 1 = plain max-min): on a saturated link, flows
  /// get rates in proportion to their weights (weighted max-min, Bertsekas & Gallager, Data
  /// Networks, §6.5.2; traffic classes share a port this way: IB VL arbitration weights,
  /// Ethernet ETS, IEEE 802.1Qaz). Applies to each of its sub-flows; a rerouted flow keeps it.
  double weight = 1;
  /// Transfer: rate bound in B/s for the whole transfer (0 = none), split evenly over its
  /// sub-flows (ECMP / spray): the offered load of traffic that does not go faster than its
  /// source (inference or background traffic at a given rate). A rerouted flow keeps it.
  double rate_limit = 0;
  DepList after;  ///< indices of activities that must finish (all repetitions) before this one starts
  /// Repetition r >= 1 also waits for repetition r - 1 of these activities (same `repeat`): a ring
  /// step sends what the previous step brought in.
  DepList after_previous;
  /// Repetition r also waits for repetition r of these activities (same `repeat`): a pipelined
  /// chunk forwards what its children sent in the same chunk.
  DepList after_same;
  int gpu = 0;       ///< Compute: the GPU; Transfer: source GPU
  int dst_gpu = -1;  ///< Transfer: destination GPU
  int tag = 0;       ///< caller's category (e.g. workload's compute / dp / tp / pp), reported back
  /// Caller's traffic group (a job id, >= 0): RunResult splits bytes per link by group.
  int group = 0;
  /// Repetitions (R >= 1): the activity runs R times in a row (the same GPU(s), amount and hash),
  /// repetition r + 1 after repetition r. Collective algorithms use it for their identical steps
  /// (ring steps, pipeline chunks) instead of R activities: the engine simulates every repetition
  /// and fast-forwards a group of repetitions that repeats exactly (see flow_network.cpp).
  /// start = first repetition's start, finish = last repetition's finish.
  int repeat = 1;
  Kind kind = Kind::Compute;
  /// Transfer: spread evenly over the equal-cost paths (as EcmpMode::Spray) whatever the fabric's
  /// ECMP mode. For the streams of an in-network reduction tree (SHARP): the aggregation manager
  /// (sharp_am) allocates each job's tree as "a set of switches and their connected links", so its
  /// edges are not hashed onto colliding paths (NVIDIA SHARP Rev 3.9.0, "Operating NVIDIA SHARP in
  /// Dynamic Trees Allocation Mode"; its Fat-Tree allocation algorithm, Rev 3.13.0 Appendix A).
  bool spread = false;
};
static_assert(sizeof(void*) != 8 || sizeof(Activity) == 96, "Activity's fields are ordered to leave no padding");

/// True when `a` and `b` are the same activity but for `amount`: every other field equal, the
/// doubles bit for bit (so -0.0 differs from 0.0 and a NaN equals itself). A step re-planned at
/// other clocks differs from the first plan only in its amounts when the clocks change no
/// structure (sim/engine/step_run.hpp, run_step_on); this test decides it. A new Activity field
/// must be added here (the size assert above fails first).
inline bool same_but_amount(const Activity& a, const Activity& b) {
  auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  return a.flow_hash == b.flow_hash && a.spread_phase == b.spread_phase && bits(a.delay) == bits(b.delay) &&
         bits(a.weight) == bits(b.weight) && bits(a.rate_limit) == bits(b.rate_limit) && a.after == b.after &&
         a.after_previous == b.after_previous && a.after_same == b.after_same && a.gpu == b.gpu &&
         a.dst_gpu == b.dst_gpu && a.tag == b.tag && a.group == b.group && a.repeat == b.repeat && a.kind == b.kind &&
         a.spread == b.spread;
}

struct Schedule {
  std::vector<Activity> activities;
  /// Compute speed of each GPU in FLOP/s (achievable, after efficiency and clock factors);
  /// size = fabric.gpu_count(), or 1 entry applied to all.
  std::vector<double> gpu_flops;
};

struct RunResult {
  double makespan = 0;                 ///< s, from the first start to the last finish
  std::vector<double> start, finish;   ///< s, per activity
  std::vector<double> link_bytes_fwd;  ///< B carried per fabric link, a->b direction
  std::vector<double> link_bytes_rev;  ///< B carried per fabric link, b->a direction
  /// Per activity: how many times a failure during the run (FlowNetwork::run with TimedFailure
  /// events) stopped one of its flows and restarted the remaining bytes on a new route; 0 for
  /// computations and without events. Size = activity count.
  std::vector<int> reroutes;
  /// Bytes per link direction over time (FlowNetwork::set_timeline_bins): timeline_bins bins of
  /// timeline_bin s from the run's start (the last one holds the last finish). Rows are the link
  /// directions some flow uses, timeline_links[row] = 2 l (a->b) or 2 l + 1 (b->a). Sparse by
  /// bin (most link directions carry nothing in most bins: ~80 % of the cells at 31K GPUs): the
  /// cells of bin b are k in [timeline_bin_start[b], timeline_bin_start[b + 1]), rows ascending,
  /// timeline_cell_bytes[k] = bytes (> 0) sent through row timeline_cell_row[k] during bin b; a
  /// row without a cell carried 0 B in that bin. Read from SimGrid at every bin boundary and at
  /// each flow's completion (a flow's bytes add up to its size). Empty when off and in runs with
  /// failure events.
  int timeline_bins = 0;
  double timeline_bin = 0;  ///< s
  std::vector<int> timeline_links;
  std::vector<std::size_t> timeline_bin_start;  ///< size timeline_bins + 1 (empty when off)
  std::vector<int> timeline_cell_row;
  std::vector<double> timeline_cell_bytes;
  /// The timeline as a dense table: [b * timeline_links.size() + row] = bytes of row in bin b.
  std::vector<double> timeline_dense() const {
    const std::size_t rows = timeline_links.size();
    std::vector<double> out(rows * static_cast<std::size_t>(timeline_bins), 0.0);
    for (int b = 0; b + 1 < static_cast<int>(timeline_bin_start.size()); ++b)
      for (std::size_t k = timeline_bin_start[b]; k < timeline_bin_start[b + 1]; ++k)
        out[static_cast<std::size_t>(b) * rows + static_cast<std::size_t>(timeline_cell_row[k])] =
            timeline_cell_bytes[k];
    return out;
  }
  /// Bytes per link direction by Activity::group, when the schedule's transfers use a group other
  /// than 0: groups = the distinct groups of transfers with bytes, ascending;
  /// link_bytes_group_fwd[k * link count + l] = bytes of group groups[k] on link l, a->b
  /// (rev: b->a). Summed over k they equal link_bytes_fwd / rev. Empty when every group is 0.
  std::vector<int> groups;
  std::vector<double> link_bytes_group_fwd, link_bytes_group_rev;
  /// Repetitions (Activity::repeat) that were not simulated one by one because they repeated an
  /// exact template (fast-forward, see flow_network.cpp); 0 without repetitions.
  long long repetitions_fast_forwarded = 0;
};

}  // namespace aidcsim::network
