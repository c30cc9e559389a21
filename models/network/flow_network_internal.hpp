#pragma once
// Internals of FlowNetwork shared by its implementation files (not part of the public API): the
// state of one run and its event loop (flow_network.cpp), the link timeline (link_timeline.cpp)
// and failures during a run (run_failures.cpp). Include only from models/network/*.cpp and their
// unit tests.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/network/relaxed_links.hpp"
#include "models/network/sharing.hpp"
#include "models/network/timed_queue.hpp"

namespace aidcsim::network::detail {
using topology::Fabric;
using topology::Hop;

/// A route's hops, immutable and shared by the sub-flows that take it: the transfers of a step's
/// repeated collectives (every microbatch's and layer's ZeRO / FSDP collective on one ring, one
/// hash) have the same routes, and one copy of each route serves them all (FlowNetwork::run's
/// route phase). Reads as a const std::vector<Hop>; assigning a vector replaces the route.
class SharedHops {
 public:
  SharedHops() = default;
  SharedHops(std::vector<Hop>&& hops) { *this = std::move(hops); }  // NOLINT: a route converts
  SharedHops& operator=(std::vector<Hop>&& hops) {
    if (hops.empty())
      p_.reset();
    else
      p_ = std::make_shared<const std::vector<Hop>>(std::move(hops));
    return *this;
  }
  const std::vector<Hop>& get() const { return p_ ? *p_ : none(); }
  operator const std::vector<Hop>&() const { return get(); }  // NOLINT: reads as the vector
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const Hop& operator[](std::size_t k) const { return get()[k]; }
  void clear() { p_.reset(); }
  /// Identity of the route object: equal for copies of one SharedHops (nullptr when empty).
  const void* id() const { return p_.get(); }

 private:
  static const std::vector<Hop>& none() {
    static const std::vector<Hop> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<Hop>> p_;
};

/// Route object -> route index (RunCtx::route_off, flow_span): an open-addressing table with linear probing
/// and a multiplicative hash of the address, grown at half load. At 31K GPUs it numbers 126K routes
/// of 500K sub-flows in ~5 ms; std::unordered_map took 23 ms (a node allocation per route).
class RouteIds {
 public:
  /// Keys held.
  int size() const { return static_cast<int>(size_); }
  /// The index of `key`, or `fresh` (stored for key) when key is new.
  int find_or_add(const void* key, int fresh) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t i = slot(key);
    if (vals_[i] < 0) {
      keys_[i] = key;
      vals_[i] = fresh;
      ++size_;
    }
    return vals_[i];
  }

 private:
  std::size_t slot(const void* key) const {  // Fibonacci hashing: the product's top bits
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(key) * 0x9e3779b97f4a7c15ull) >> shift_);
    while (vals_[i] >= 0 && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<const void*> keys = std::move(keys_);
    std::vector<int> vals = std::move(vals_);
    const std::size_t cap = std::max<std::size_t>(1024, 2 * keys.size());  // a power of 2
    shift_ = 64 - std::countr_zero(cap);
    keys_.assign(cap, nullptr);
    vals_.assign(cap, -1);
    for (std::size_t j = 0; j < keys.size(); ++j)
      if (vals[j] >= 0) {
        const std::size_t i = slot(keys[j]);
        keys_[i] = keys[j];
        vals_[i] = vals[j];
      }
  }
  std::vector<const void*> keys_;
  std::vector<int> vals_;  ///< -1: empty slot (a key may be nullptr: the empty route)
  std::size_t size_ = 0;
  int shift_ = 64;
};

/// One flow handed to the solver: a transfer or one of its ECMP / spray sub-flows.
struct SubFlow {
  double bytes = 0;    ///< B to send on the current route (after a reroute: what was left)
  double latency = 0;  ///< s, sum of the route's link latencies
  SharedHops hops;
  int index = 0, of = 1;  ///< sub-flow `index` of the transfer's `of` (to recompute its route)
  /// Hash-ECMP sub-flows of one transfer that hashed onto this same route, merged into this one
  /// item (bytes, weight and rate bound x mult; see FlowNetwork::run): k equal flows on one route
  /// that start and end together get equal max-min rates, so one item of weight k gets their sum.
  int mult = 1;
  int epoch = 0;  ///< RunCtx::epoch when `hops` was last checked against failures
  // While it sends (slot >= 0): remaining bytes `remains` at time `last`, sent at `rate`.
  int slot = -1;          ///< its solver item (Slot index), -1 when not sending
  int activity = 0;       ///< here, beside slot: no padding (72 B, not 80: ~10^7 sub-flows at 16K)
  double done_bytes = 0;  ///< B sent by its completed repetitions (timeline)
  double last_rate = 0;   ///< B/s of its last completed send (a repetition group's template)
};

/// Whether hash-ECMP transfer `a` is split over the planes (subflow_routes): more than one plane
/// and a route over the NICs (GPU to GPU not over NVLink, or GPU to / from storage). Asks for no
/// route (Fabric::takes_nvlink): a route asked here would fill the route cache that subflow_routes'
/// `once` mode keeps empty (engine13), and an unroutable pair throws from subflow_routes' own route.
inline bool split_planes(const Fabric& fab, const Activity& a) {
  if (fab.planes() < 2 || a.gpu == a.dst_gpu) return false;
  return !fab.takes_nvlink(a.gpu, a.dst_gpu);
}

/// Routes of the sub-flows of transfer `a` on the fabric's current state: emit(j, m, hops) for
/// sub-flow j of m (each carries amount / m bytes); only sub-flow `only` when only >= 0.
/// Hash ECMP: m = fpp hashed routes, sub-flow 0 keeps flow_hash; on a multi-plane fabric a
/// transfer over the NICs has m = fpp x planes, one per plane per hash (split_planes). a.spread on a hashed fabric: m = m_fixed
/// if > 0 else min(paths, spray_n), Fabric::routes_strided. Spray: m = m_fixed if > 0 (a
/// recomputation keeps the count) else min(paths, spray_n), evenly spaced over Fabric::routes.
/// Throws SimulationError (Fabric::route) when src and dst are disconnected.
/// once: hashed routes come from Fabric::route_uncached (same hops, not cached), for callers that
/// ask for each transfer's routes once; the hops passed to emit may then be moved from.
template <class Emit>
void subflow_routes(const Fabric& fab, const Activity& a, bool spray, int fpp, int spray_n, int m_fixed, int only,
                    bool once, Emit&& emit) {
  if (!spray && a.spread) {
    // One transfer spread on a hashed fabric (an in-network tree's stream, a sampled all-to-all
    // transfer): Fabric::routes_strided picks its spray_n paths without listing the others (the
    // sampled all-to-all at 32K puts 262K such transfers on the fabric).
    auto paths = fab.routes_strided(a.gpu, a.dst_gpu, static_cast<std::size_t>(m_fixed > 0 ? m_fixed : spray_n),
                                    a.spread_phase ? a.spread_phase : topology::splitmix64(a.flow_hash),
                                    /*seed_is_phase=*/a.spread_phase != 0);
    if (paths.empty()) paths.push_back(fab.route(a.gpu, a.dst_gpu, a.flow_hash));  // NVLink / throws
    const std::size_t m = m_fixed > 0 ? static_cast<std::size_t>(m_fixed) : paths.size();
    for (std::size_t j = 0; j < m; ++j)
      if (only < 0 || static_cast<std::size_t>(only) == j)
        emit(static_cast<int>(j), static_cast<int>(m), std::vector<Hop>(paths[j % paths.size()]));
  } else if (spray) {
    auto paths = fab.routes(a.gpu, a.dst_gpu, 4096);
    if (paths.empty()) paths.push_back(fab.route(a.gpu, a.dst_gpu, a.flow_hash));  // NVLink / throws
    const std::size_t np = paths.size();
    const std::size_t m =
        m_fixed > 0 ? static_cast<std::size_t>(m_fixed) : std::min<std::size_t>(np, static_cast<std::size_t>(spray_n));
    // m of np paths (routes() lists them first hop slowest): rank j x (np/m + 1) mod np walks the
    // first hops and the later hops together (on a k-ary fat tree 16 of 256 paths use 16
    // distinct aggregation switches AND 16 distinct core positions), all paths when m = np.
    // The start rank comes from the flow's hash so that flows do not all take the same sample.
    // (m > np only after failures removed paths: sub-flows then share paths round robin.)
    const std::size_t stride = m >= np ? 1 : np / m + 1;
    const std::size_t offset = m == np ? 0 : static_cast<std::size_t>(topology::splitmix64(a.flow_hash) % np);
    for (std::size_t j = 0; j < m; ++j)
      if (only < 0 || static_cast<std::size_t>(only) == j)
        emit(static_cast<int>(j), static_cast<int>(m), std::vector<Hop>(paths[(offset + j * stride) % np]));
  } else {
    // Multi-plane fabric: a transfer over the NICs is split evenly over the planes, one
    // sub-flow per plane for each of its fpp hashes (sub-flow j = f x planes + q), as NCCL spreads
    // a GPU's channels round robin over its NICs (each plane's port is a NIC to NCCL: NVIDIA/nccl
    // src/graph/topo.cc, ncclTopoGetLocalNet, net += channelId % DIVUP(localNets, localGpus)).
    // Storage: a GPU's ports spread over the server's NICs of each plane (multi-rail clients).
    // One plane: exactly the fpp hashed sub-flows (sub-flow f).
    const int P = split_planes(fab, a) ? fab.planes() : 1;
    const int m = fpp * P;
    std::vector<Hop> hops;
    for (int j = 0; j < m; ++j) {
      if (only >= 0 && only != j) continue;
      const int f = j / P, q = j % P;
      std::uint64_t h = f == 0 ? a.flow_hash : topology::splitmix64(a.flow_hash + 0x9e3779b97f4a7c15ull * f);
      if (q > 0) h = fab.hash_on_plane(a.gpu, a.dst_gpu, h, (fab.plane_of(a.gpu, a.dst_gpu, h) + q) % P);
      if (once) {
        fab.route_uncached(a.gpu, a.dst_gpu, h, hops);  // clears hops, even after a move
        emit(j, m, std::move(hops));
      } else {
        emit(j, m, fab.route(a.gpu, a.dst_gpu, h));
      }
    }
  }
}

/// subflow_routes with cached routes (Fabric::route).
template <class Emit>
void subflow_routes(const Fabric& fab, const Activity& a, bool spray, int fpp, int spray_n, int m_fixed, int only,
                    Emit&& emit) {
  subflow_routes(fab, a, spray, fpp, spray_n, m_fixed, only, false, std::forward<Emit>(emit));
}

/// A failure checked against the fabric: what it acts on.
struct ResolvedFailure {
  double time = 0;  ///< s from the run's start
  topology::FailureSpec::Type type = topology::FailureSpec::Type::LinkDown;
  int node = -1;           ///< SwitchDown
  std::vector<int> links;  ///< LinkDown / Degrade
  double factor = 1;
  std::string element;
};

/// Link timeline of a run (RunResult::timeline_*). Bins of width w from the run's start; when
/// 2B bins are filled, adjacent pairs merge and w doubles, so a run of unknown length ends with
/// B..2B bins. Bytes are credited from the flows' progress at every bin boundary and at each
/// flow's completion, to the bin they were sent in.
/// Each bin keeps only the link directions credited in it (cells): at 31K GPUs they are ~20 % of
/// bins x rows, and the dense table the run used to fill bin by bin (up to 2B bins x 113K rows,
/// 86 MB, zeroed as it grew) made its first touch of memory up to a third of the event loop's
/// CPU time. The result (RunResult::timeline_*) is sparse too (tl_finish).
struct Timeline {
  int target = 0;           ///< B
  double w = 0;             ///< s, current bin width
  int used = 0;             ///< bins in the result (after the run)
  std::vector<int> row_of;  ///< per link direction (2 l + d): row, or -1 if no flow uses it
  std::vector<int> links;   ///< per row: link direction
  /// Packed (12 B, not 16): a 31K step keeps ~1.3 M cells, whose first touch (page faults) was
  /// most of the timeline's cost; x86-64 reads an unaligned double at no extra cost.
  struct __attribute__((packed)) Cell {
    int row;
    double bytes;
  };
  static_assert(sizeof(Cell) == 12);
  /// Every bin's cells live in one arena of fixed chunks of kChunkCells cells (24 KB): a bin is
  /// its list of chunks and its cell count, cell i in chunk i >> kChunkShift. A bin grows by a
  /// chunk, never by a reallocation that copies its cells to fresh memory; a merge hands the
  /// chunks of the bin it empties back to `free_chunks`, which the next chunk taken reuses (the
  /// most recently freed first), so the cells of all bins share their pages.
  static constexpr int kChunkShift = 11;
  static constexpr int kChunkCells = 1 << kChunkShift;
  struct Bin {
    std::vector<int> chunks;  ///< indices into Timeline::chunks
    int size = 0;             ///< cells, in the order of their first credit
  };
  std::vector<Bin> bins;  ///< a row without a cell in a bin has 0 bytes there
  /// Chunks are cut from blocks of kBlockChunks (just under 2 MiB, one transparent huge page):
  /// the arena's memory is a few large allocations, not one allocator extent per chunk.
  static constexpr int kBlockChunks = (2 << 20) / (kChunkCells * static_cast<int>(sizeof(Cell)));
  std::vector<std::unique_ptr<Cell[]>> blocks;
  std::vector<Cell*> chunks;
  std::vector<int> free_chunks;
  Cell& at(const Bin& b, int i) {
    return chunks[static_cast<std::size_t>(b.chunks[i >> kChunkShift])][i & (kChunkCells - 1)];
  }
  /// Appends a cell to bin b, taking a chunk (a freed one first) when b's are full.
  void push(Bin& b, Cell x) {
    if (b.size == static_cast<int>(b.chunks.size()) << kChunkShift) {
      if (free_chunks.empty()) {
        const int in_block = static_cast<int>(chunks.size()) % kBlockChunks;
        if (in_block == 0)
          blocks.emplace_back(new Cell[static_cast<std::size_t>(kBlockChunks) *
                                       kChunkCells]);  // not value-initialised: each cell is written before it is read
        b.chunks.push_back(static_cast<int>(chunks.size()));
        chunks.push_back(blocks.back().get() + static_cast<std::size_t>(in_block) * kChunkCells);
      } else {
        b.chunks.push_back(free_chunks.back());
        free_chunks.pop_back();
      }
    }
    at(b, b.size++) = x;
  }
  /// Empties bin b, its chunks back to the arena.
  void release(Bin& b) {
    free_chunks.insert(free_chunks.end(), b.chunks.rbegin(), b.chunks.rend());
    b.chunks.clear();
    b.size = 0;
  }
  int hot = -1;          ///< the bin `pos` indexes (-1: none)
  std::vector<int> pos;  ///< per row: index of its cell in bins[hot], or -1
  /// The result (tl_finish): RunResult::timeline_bin_start / _cell_row / _cell_bytes.
  std::vector<std::size_t> start;
  std::vector<int> cell_row;
  std::vector<double> cell_bytes;
  std::vector<double> sent;  ///< per flow: bytes credited so far
  /// Per route: the rows of its hops, route_rows[RunCtx::flow_span[f].off ...]
  /// (routes are fixed when the timeline is on, and laid out as their solver resources), so a
  /// credit does not chase the hops and row_of per hop.
  std::vector<int> route_rows;
  double next = 0;  ///< s, time of the pending boundary event
  int capacity() const { return 2 * target; }
};

/// What a solver item stands for, and its progress: `remains` units (B or FLOP) left at time
/// `last`, at `rate` units/s since then; `version` invalidates older entries of the due heap.
struct Slot {
  int flow = -1;           ///< sub-flow index, or -1 for a computation
  int activity = -1;       ///< the computation's activity (flow == -1)
  std::uint32_t item = 0;  ///< MaxMinSharing handle
  double remains = 0, rate = 0, last = 0;
  /// s, predicted completion of its valid due heap entry; NaN: none (rate 0, or not solved yet)
  double due = 0;
  std::uint32_t version = 0;
  bool used = false;
  int wave = -1;    ///< repetition wave of its activity (repetition.cpp), -1: none
  int reports = 0;  ///< times the solver reported its rate
};

/// Due heap entry: the predicted completion of a slot (stale when versions differ).
struct Due {
  double t;
  int slot;
  std::uint32_t version;
  bool operator>(const Due& o) const { return t > o.t || (t == o.t && slot > o.slot); }
};

/// Prefix reuse (FlowNetwork::set_prefix_capture, run_prefix.cpp). A solver item as the
/// run made it: its creation rank and what it stands for (sub-flow k of transfer `activity`, or
/// the computation `activity` when k < 0).
struct PrefixItem {
  std::uint64_t born = 0;
  int activity = 0, k = -1;
};
/// A solver call since the last solve: an item added (add) or removed.
struct PrefixOp {
  bool add = false;
  PrefixItem item;
};
/// The repetition state of a run with repetitions at a snapshot (run_prefix.cpp).
struct RepetitionState;
/// A run's state just before transfer tail[0] begins (in drain_ready, batch tail `tail`): what
/// a run of the same schedule with one link down continues from (restore_prefix). The solver is
/// rebuilt, not copied: the items alive at the last solve in creation order (each resource then
/// lists its items in the same order as SimGrid's: lmm prepends an element at each expand and
/// unlinks it at each free), then the calls made since (which mark the same constraints as
/// modified for the next solve).
struct PrefixSnapshot {
  double now = 0;
  std::uint64_t seq = 0;
  std::vector<std::uint8_t> state;  ///< per activity: 0 not begun, 1 begun, 2 finished
  struct Busy {                     ///< an activity begun and not finished
    int activity = 0, left = 0;
    double start_at = -1;
  };
  std::vector<Busy> busy;
  std::vector<int> ready, tail;
  std::vector<Slot> slots;  ///< flow: sub-flow index within its transfer (k), not the run's index
  std::vector<int> free_slots;
  std::vector<std::uint64_t> born;  ///< per slot: creation rank of its item (used slots)
  std::vector<Due> due;             ///< valid entries only (a stale entry is popped unread)
  std::vector<Timed> timed;         ///< without timeline bin boundaries (the continuation has none)
  struct Res {                      ///< a solver resource: link direction 2 l + d, or ~gpu
    int what = 0;
    double capacity = 0;
  };
  std::vector<Res> res;
  std::vector<PrefixItem> at_solve;  ///< items alive at the last solve, by creation
  std::vector<PrefixOp> ops;         ///< solver calls since then, in order
  struct Check {                     ///< a transfer whose sub-flows the snapshot refers to
    int activity = 0;
    std::vector<SubFlow> flows;
  };
  std::vector<Check> checks;
  long long begun = 0;  ///< activities begun before the snapshot
  /// With repetitions (RunCtx::any_repeat): their counts, waves, groups and periodic state; a
  /// repeated transfer begun is among `checks`, whose copies give its sub-flows' done_bytes and
  /// last_rate. Null without repetitions.
  std::shared_ptr<const RepetitionState> reps;
};
/// Capture during a run (RunCtx::cap, null when nothing is left to capture).
struct PrefixCapture {
  std::vector<int> links;           ///< target i's link
  std::vector<std::uint8_t> mask;   ///< per activity: targets whose snapshot its begin triggers
  std::uint8_t pending = 0;         ///< targets not captured yet
  std::vector<std::uint64_t> born;  ///< per slot: creation rank of its item
  std::uint64_t next_born = 0;
  long long begun = 0;                                       ///< activities begun so far
  std::vector<PrefixOp> ops;                                 ///< solver calls since the last solve
  std::vector<std::shared_ptr<const PrefixSnapshot>> snaps;  ///< per target (null: not captured)
};

/// State of one run.
struct RunCtx {
  const Schedule* s = nullptr;
  std::vector<double> flops;  ///< per GPU, FLOP/s
  std::vector<SubFlow> flows;
  std::vector<int> first_flow;      ///< per activity, index in flows (transfers), size n+1
  std::vector<int> succ_off, succ;  ///< CSR successor lists
  std::vector<int> pending;         ///< unfinished predecessors per activity
  std::vector<int> left;            ///< per activity: sub-flows still sending or waiting (this repetition)
  std::vector<double> start, finish;
  std::string error;

  // The event loop (flow_network.cpp).
  double now = 0;  ///< s from the run's start
  MaxMinSharing sharing;
  const Fabric* fab = nullptr;    ///< the fabric routes and rates come from (see `live`)
  std::vector<double> link_rate;  ///< per link, B/s: Fabric::sharing_rate, then degradations
  std::vector<int> link_res;      ///< per link direction (2 l + d): solver resource or -1
  std::vector<int> res_buf;       ///< scratch: resources of the route being started (events mode)
  /// Outside events mode (routes fixed for the run): per distinct route (SharedHops object) its
  /// solver resources, route_res[flow_span[f].off ...], -1 until the first start of a flow
  /// on it, which creates them in the same first-use order as a lookup per hop would. Every start
  /// and removal of a send reads them here instead of looking up each hop's link direction, and
  /// the sub-flows that share a route (3 of 4 at 31K GPUs: every microbatch's collective on one
  /// ring) share one entry: 4x less memory to fill and touch than one entry per sub-flow.
  std::vector<int> route_off, route_res;  ///< route_off: per route (numbered in first use), its first entry
  struct Span {  ///< a sub-flow's route: its entries [off, off + n) of route_res (and Timeline::route_rows)
    int off = 0, n = 0;
  };
  std::vector<Span> flow_span;  ///< per sub-flow: one read per start, removal and credit (no route index)
  std::vector<int> gpu_res;     ///< per GPU: solver resource of its compute, or -1
  std::vector<Slot> slots;
  std::vector<int> free_slots;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due;
  TimedQueue timed;
  std::uint64_t seq = 0;
  std::vector<int> ready;                ///< activities (their next repetition) ready to begin now
  std::vector<char> queued;              ///< per activity: in `ready`
  std::size_t daemon_events = 0;         ///< timed events that do not keep the run alive (Bin, Failure)
  long long solves = 0, events = 0;      ///< counters for the profile
  long long due_kept = 0;                ///< reported items whose due entry stayed valid (profile)
  double solve_cpu = 0, solve_wall = 0;  ///< s in the solver (profile only)
  // Profile only (profile::enabled()): the solver's parts.
  bool prof = false;
  double lmm_solve_cpu = 0, lmm_solve_wall = 0;  ///< s in System::solve alone (of solve_*)
  double lmm_items_wall = 0;               ///< wall s in MaxMinSharing add_item / remove_item / add_resource (sampled)
  long long reported = 0, item_calls = 0;  ///< items reported by the solver; add/remove calls

  // Failures during the run (run_failures.cpp); unused when `events` is false.
  bool events_mode = false;
  std::vector<ResolvedFailure> failures;  ///< in time order
  Fabric* live = nullptr;                 ///< private fabric, as the failures so far leave it
  bool spray = false;
  int fpp = 1, spray_n = 16;
  int epoch = 0;                             ///< link/switch-down events applied so far
  std::string down_log;                      ///< "leaf3 down at 0.01 s, ..." for error messages
  std::vector<int> reroutes;                 ///< per activity
  std::vector<double> bytes_fwd, bytes_rev;  ///< per link: bytes sent
  /// Bytes by group (RunResult::groups): per activity its group's index k, or -1 when bytes are
  /// not split; events mode: per [k * links + l], bytes sent.
  std::vector<int> group_of;
  std::vector<double> gbytes_fwd, gbytes_rev;

  RelaxedLinks relax;            ///< link directions left out of the solver (FlowNetwork::set_relaxed_tiers)
  PrefixCapture* cap = nullptr;  ///< prefix capture in progress (run_prefix.cpp), else null

  std::unique_ptr<Timeline> tl;  ///< null unless FlowNetwork::set_timeline_bins > 0 (no events)

  // Repetitions (Activity::repeat) and their fast-forward (repetition.cpp).
  bool any_repeat = false;
  std::vector<int> rep_done, rep_begun;  ///< per activity: repetitions finished / begun
  std::vector<int> rsucc_off, rsucc;     ///< CSR: activities waiting for a repetition of this one
  /// Per activity, copied from the schedule (index_schedule) so that the readiness checks
  /// (rep_ready, a few per item) read small arrays, not the 144-byte Activity (a cache miss each
  /// at 31K GPUs): its Activity::repeat, and CSR its repetition dependencies, after_previous q as
  /// q then after_same q as ~q.
  std::vector<int> repeat, rdep_off, rdep;
  std::vector<int> wave;  ///< per activity: wave of its current repetition, -1 none
  struct Wave {
    double begin = 0, start = -1, done = -1;  ///< s: repetition begun, flows started, flows done
    int members = 0, finished = 0;
    bool dirty = false;  ///< not a template: shared resources, rate changes, ...
  };
  std::vector<Wave> waves;
  std::size_t waves_compact_at = 4096;  ///< waves' size at which unreferenced ones are dropped
  std::vector<int> res_count;           ///< per solver resource: items on it (with repetitions)
  std::vector<int> res_wave;            ///< per solver resource: wave of its items, -1 foreign
  std::vector<int> res_group;           ///< per solver resource: fast-forwarded group owning it, -1
  struct Group {                        ///< repetitions fast-forwarded as a whole (repetition.cpp)
    std::vector<int> members;           ///< activities
    std::vector<int> resources;
    double t0 = 0, period = 0, latency = 0;
    int r0 = 0, reps = 0;  ///< first repetition skipped, repetitions skipped
    bool active = false;
  };
  std::vector<Group> groups;
  int active_groups = 0;       ///< groups fast-forwarded now (not ended or materialised)
  long long skipped_reps = 0;  ///< activity repetitions not simulated one by one (profile)
  std::vector<char> in_group;  ///< begin_batch's scratch: per activity, in the group at hand

  // Periodic fast-forward (periodic.cpp).
  int single_busy = 0;           ///< activities without repeat begun and not finished
  std::vector<int> rep_acts;     ///< activities with repeat > 1, in index order
  std::vector<double> start_at;  ///< per activity: s, its pending Start event, -1 none
  int anchor = -1;               ///< live repeated activity whose begins trigger snapshots
  double anchor_began = -1;      ///< s, when the anchor last began a repetition
  struct Snapshot {              ///< the state of the live repeated activities at t
    double t = 0;
    std::vector<int> acts, done, begun, left;
    std::vector<double> timer;  ///< per activity: s left of its latency phase, -1 none
    std::vector<double> rem;    ///< per sub-flow of acts: B left, -1 when not sending
  };
  std::vector<Snapshot> snaps;                      ///< the last few, oldest first
  long long periodic_reps = 0, periodic_jumps = 0;  ///< repetitions skipped, jumps (profile)

  void push_timed(double t, int kind, int id) {
    timed.push(Timed{t, kind, id, seq++});
    if (kind == Timed::Failure || kind == Timed::Bin) ++daemon_events;
  }
  /// push_timed of an event at t = now + d (TimedQueue keeps such events in a lane per d).
  void push_timed_after(double t, double d, int kind, int id) {
    timed.push(Timed{t, kind, id, seq++}, d);
    if (kind == Timed::Failure || kind == Timed::Bin) ++daemon_events;
  }
};

/// First bin width of the link timeline without a duration hint, s: the bins double until the
/// run fits (log2 of the run length over this many compactions of the whole table).
constexpr double kTimelineFirstBin = 1e-6;

// flow_network.cpp
/// Bytes (or FLOP) slot s has left at time ctx.now (inline: the solver's report of every changed
/// item calls it).
inline double remains_now(const RunCtx& c, const Slot& s) {
  const double r = s.remains - s.rate * (c.now - s.last);
  return r > 0 ? r : 0.0;
}
/// Starts sending sub-flow f now on its current route: its bytes, or `remains` when >= 0.
void start_flow(RunCtx& c, int f, double remains = -1);
/// Events mode: credits `bytes` sent by sub-flow f to the links of its current route (and its
/// group's split).
void credit_bytes(RunCtx& c, const SubFlow& f, double bytes);
/// Stops sub-flow f (a failure): returns its remaining bytes; f is no longer sending.
double stop_flow(RunCtx& c, int f);
/// Solver resource of link direction (l, forward), created on first use at the link's rate on
/// `c.fab`.
int link_resource(RunCtx& c, int link, bool forward);
/// Solver resources of sub-flow f's current route (created on first use): `n` of them at the
/// returned pointer, valid until the next call (events mode: c.res_buf) or for the run.
const int* route_resources(RunCtx& c, int f, int& n);

// link_timeline.cpp
/// Bin of time `rel` (s from the run's start), merging bin pairs until it fits.
int tl_bin(Timeline& t, double rel);
/// Rows for every link direction the run's flows use (after RunCtx::flow_span is set); the
/// first boundary event.
void tl_init(RunCtx& c, int bins, double hint);
/// A bin boundary at c.now: credits every sending flow's progress to the bin that just ended,
/// schedules the next boundary.
void tl_boundary(RunCtx& c);
/// Flow f completed a send at c.now (SubFlow::done_bytes updated): its last bytes go to the bin of now.
void tl_done(RunCtx& c, int f);
/// Credits flow f's bytes sent up to now (done and in progress) to the bin of now: after a
/// periodic jump, whose skipped periods all lie in that bin (periodic.cpp).
void tl_progress(RunCtx& c, int f);
/// The result: the bins up to the last finish, each bin's cells by ascending row.
void tl_finish(RunCtx& c);

// repetition.cpp
/// Per-activity repetition state and the repetition-successor lists (after the schedule's index:
/// RunCtx::rdep, rsucc_off counts, repeat, any_repeat, rep_acts).
void rep_init(RunCtx& c);
/// Whether activity a's next repetition can begin (all its dependencies are met).
bool rep_ready(const RunCtx& c, int a);
/// Repetition of activity a finished now: the activity finishes after its last one, else its
/// next repetition and its repetition successors may become ready.
void rep_finished(RunCtx& c, int a);
/// Begins the ready activities in `batch` now, fast-forwarding the groups of repetitions that
/// repeat an exact template (see repetition.cpp); `begin_one` begins one activity normally.
void begin_batch(RunCtx& c, std::vector<int>& batch, void (*begin_one)(RunCtx&, int));
/// Before an item is added on solver resources `res`: fast-forwarded groups owning one of them are
/// materialised (their state at now becomes real items / latency phases again).
void before_add(RunCtx& c, const int* res, int n);
/// Bookkeeping of items on resources (waves, sharing).
void on_item_added(RunCtx& c, int slot, const int* res, int n);
void on_item_removed(RunCtx& c, int slot);
/// Group g's last skipped repetition ended now.
void group_end(RunCtx& c, int g);
/// Bytes flow f has sent by now, counting fast-forwarded repetitions (timeline).
double group_flow_sent(const RunCtx& c, int g, int f);

// periodic.cpp
/// At the loop's top (every item begun at now): when only repeated transfers are in progress and
/// their state repeats an earlier one (a periodic regime), jumps over whole periods.
void periodic_check(RunCtx& c);

// run_prefix.cpp
/// The item in slot s as the capture records it.
inline PrefixItem prefix_item(const RunCtx& c, int s) {
  const Slot& x = c.slots[static_cast<std::size_t>(s)];
  PrefixItem it;
  it.born = c.cap->born[static_cast<std::size_t>(s)];
  if (x.flow < 0) {
    it.activity = x.activity;
  } else {
    it.activity = c.flows[static_cast<std::size_t>(x.flow)].activity;
    it.k = x.flow - c.first_flow[static_cast<std::size_t>(it.activity)];
  }
  return it;
}
/// Capture: slot s's item was just added (add) or is about to be removed.
inline void prefix_log(RunCtx& c, int s, bool add) { c.cap->ops.push_back(PrefixOp{add, prefix_item(c, s)}); }
/// Snapshot of the run now, before batch[j] begins (drain_ready), for the targets in `bits`.
void capture_prefix(RunCtx& c, const std::vector<int>& batch, std::size_t j, std::uint8_t bits);
/// Sets up run `c` (after its route phase and rep_init, nothing simulated) in the state of `p`,
/// a snapshot of a run of the same schedule whose start and finish times were `start` /
/// `finish`; the batch tail to begin next goes to `tail`. False, with `c` unchanged, when a
/// transfer the snapshot refers to has other sub-flows here (routes, bytes, merges) or a resource
/// another capacity: the run must then be simulated from its start.
bool restore_prefix(RunCtx& c, const PrefixSnapshot& p, const std::vector<double>& start,
                    const std::vector<double>& finish, std::vector<int>& tail);
/// Fingerprint of everything a run reads of a schedule (every field of every activity, bit for
/// bit, and gpu_flops).
std::uint64_t schedule_fingerprint(const Schedule& s);

// run_failures.cpp
/// Applies failure `i` at c.now: degrade changes capacities; link/switch down stops every flow
/// crossing a dead link and restarts its remaining bytes on a new route after its latency.
void apply_failure(RunCtx& c, int i);
/// Restart of rerouted flow f (its latency has passed); reroutes again if its route died.
void restart_flow(RunCtx& c, int f);
/// At a transfer's start in event mode: routes computed before a link/switch-down event are
/// recomputed on the fabric as it is now (not counted as a reroute).
void refresh_routes(RunCtx& c, int a);
/// Copies the up/down state of `from` onto `to` (same structure, `to` without failures yet).
void copy_state(const Fabric& from, Fabric& to);
/// Checks the events against the fabric and sorts them by time (stable).
std::vector<ResolvedFailure> resolve(const Fabric& fab, const std::vector<TimedFailure>& events);
/// A fabric of the same structure as `fab`, without any failure.
std::unique_ptr<Fabric> pristine_copy(const Fabric& fab);

}  // namespace aidcsim::network::detail
