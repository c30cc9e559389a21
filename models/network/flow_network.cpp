// FlowNetwork: the run loop. A discrete-event simulation of a Schedule with its own clock (from 0
// at every run) on SimGrid's max-min solver (sharing.hpp):
// - computations are items on their GPU's resource (capacity = the GPU's FLOP/s; concurrent
//   computations on one GPU share it, as SimGrid's CPU model does);
// - a transfer waits for its route latency (the longest of its sub-flows'), then each sub-flow is
//   an item on the resources of its route's link directions (capacity = link rate; weight
//   Activity::weight, 1 by default, and bound Activity::rate_limit split over its sub-flows), as
//   SimGrid's CM02 model with zero route latency in the sharing (plain max-min fairness: RDMA
//   congestion control is rate-fair, not RTT-weighted), no cross-traffic and no TCP window;
// - after every change the solver re-solves only the components that changed and reports their
//   items; each item's predicted completion goes to a heap; the loop jumps to the earliest
//   completion or timed event (latency expiry, Delay expiry, failure, timeline bin boundary).
// Items due within kSamePrecision of each other complete together (SimGrid's surf precision).
//
// Why not SimGrid's s4u layer (actors, mailboxes, a platform): measured on a 31K-GPU phase it
// spent ~99 % of the CPU time around ~1 % of solving (issue 13), forced a fork per run for
// bit-identical results (s4u's clock never goes back), and built every link of the fabric. Here
// resources are created only for the link directions a run's flows use, runs are isolated by
// construction (a fresh solver and clock per run), and the solver is SimGrid's own.
//
// Failures during a run: run_failures.cpp; the link timeline: link_timeline.cpp; shared
// internals: flow_network_internal.hpp.
#include "models/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "models/network/flow_network_internal.hpp"
#include "models/network/large_stack.hpp"

namespace aidcsim::network {
using namespace detail;

/// The route phase of the last run without failure events, kept for the next run: a situation
/// re-runs the same transfers on the same fabric state (the step at a cooling fault's clocks or at
/// throttled clocks changes computations only), and their routes, sub-flow table and bytes per
/// link are a function of exactly what `Key` and `up` hold. Reused only when all of it is equal,
/// so a reuse is the same table the route phase would build, bit for bit. Kept only while
/// FlowNetwork::set_route_reuse is on (the engine turns it off where no such run follows).
struct RouteMemo {
  struct Key {  ///< what the route phase reads of an activity
    Activity::Kind kind = Activity::Kind::Compute;
    int gpu = 0, dst_gpu = -1, repeat = 1, group = 0;
    std::uint64_t amount = 0;  ///< the bytes' bit pattern (-0.0 is not 0.0 here)
    std::uint64_t flow_hash = 0, spread_phase = 0;
    bool spread = false;
    bool operator==(const Key& o) const {
      return kind == o.kind && gpu == o.gpu && dst_gpu == o.dst_gpu && repeat == o.repeat && group == o.group &&
             amount == o.amount && flow_hash == o.flow_hash && spread_phase == o.spread_phase && spread == o.spread;
    }
  };
  bool valid = false;
  /// Built with nothing down: its routes are the healthy fabric's, which a later run with links or
  /// switches down takes per transfer where Fabric::built_route_holds (the link-down samples of
  /// the degrade mode; the table is kept for the next sample).
  bool healthy = false;
  std::vector<Key> keys;       ///< per activity
  std::vector<char> up;        ///< the fabric's link up flags, then its nodes' (routes depend on nothing else)
  std::vector<int> groups;     ///< RunResult::groups of the run
  int spray_subflows = 0;      ///< the spray cap then (the ECMP mode and flows per pair are the fabric's own)
  std::vector<SubFlow> flows;  ///< the sub-flow table (routes, latencies, bytes, ECMP merges)
  std::vector<int> first_flow;
  std::vector<double> fwd, rev, group_fwd, group_rev;  ///< RunResult::link_bytes_*
  long long merged = 0;

  static Key key_of(const Activity& a) {
    Key k;
    k.kind = a.kind;
    if (a.kind != Activity::Kind::Transfer) return k;  // no routes: only the kind counts
    k.gpu = a.gpu;
    k.dst_gpu = a.dst_gpu;
    k.repeat = a.repeat;
    k.group = a.group;
    std::memcpy(&k.amount, &a.amount, sizeof k.amount);
    k.flow_hash = a.flow_hash;
    k.spread_phase = a.spread_phase;
    k.spread = a.spread;
    return k;
  }
  static std::vector<char> up_of(const Fabric& fab) {
    std::vector<char> u(static_cast<std::size_t>(fab.link_count() + fab.node_count()));
    for (int l = 0; l < fab.link_count(); ++l) u[l] = fab.link(l).up;
    for (int v = 0; v < fab.node_count(); ++v) u[static_cast<std::size_t>(fab.link_count() + v)] = fab.node_up(v);
    return u;
  }
  /// Whether a run of `s` on the fabric state `up` would build this table (up is compared apart).
  bool same_inputs(const Schedule& s, const std::vector<int>& g, int spray_n) const {
    if (!valid || g != groups || spray_n != spray_subflows || s.activities.size() != keys.size()) return false;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (!(key_of(s.activities[i]) == keys[i])) return false;
    return true;
  }
};

/// Transfers by route inputs (source, destination, flow hash, spread and its phase): the route
/// phase's table of the sub-flows (a range of RunCtx::flows) of the first transfer with each, which
/// later ones share. Open addressing with linear probing, the key and the range inline: one cache
/// miss per lookup, where a std::unordered_map to the transfer's index (~126K keys at 31K GPUs)
/// chased a bucket, a node and its key, then first_flow, and freed a node per key at the end.
/// Only lookups are made, so the table's layout does not reach the result.
class FirstWith {
 public:
  struct Range {
    int f0 = -1, f1 = -1;  ///< sub-flows [f0, f1); -1: none yet
  };
  /// The sub-flows of the first transfer with a's route inputs; a new entry with f0 = -1 when a
  /// is the first (the caller fills it before the next call).
  Range& find_or_add(const Activity& a) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const Entry x{a.flow_hash, a.spread_phase, a.gpu, a.dst_gpu, {}, a.spread, true};
    Entry& e = slot(x, home(x));
    if (!e.used) {
      e = x;
      ++size_;
    }
    return e.flows;
  }
  /// Hint: a's lookup follows soon (its entry's line is fetched meanwhile; no effect on results).
  void hint(const Activity& a) const {
    if (slots_.empty()) return;
    detail::prefetch(&slots_[home(Entry{a.flow_hash, a.spread_phase, a.gpu, a.dst_gpu, {}, a.spread, true})]);
  }

 private:
  struct Entry {
    std::uint64_t hash = 0, phase = 0;
    int src = 0, dst = 0;
    Range flows;
    bool spread = false, used = false;
  };
  /// Where x's probe starts.
  std::size_t home(const Entry& x) const {
    std::uint64_t h = topology::splitmix64(x.hash ^ (static_cast<std::uint64_t>(x.src) << 32 | unsigned(x.dst)));
    return topology::splitmix64(h ^ x.phase ^ (x.spread ? 1u : 0u)) & mask_;
  }
  /// x's entry, or the empty one where it goes, probing from k.
  Entry& slot(const Entry& x, std::size_t k) {
    for (;; k = (k + 1) & mask_) {
      Entry& e = slots_[k];
      if (!e.used ||
          (e.src == x.src && e.dst == x.dst && e.hash == x.hash && e.phase == x.phase && e.spread == x.spread))
        return e;
    }
  }
  void grow() {
    std::vector<Entry> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(1024, 2 * old.size()), Entry{});  // a power of 2
    mask_ = slots_.size() - 1;
    for (const Entry& e : old)
      if (e.used) slot(e, home(e)) = e;
  }
  std::vector<Entry> slots_;
  std::size_t mask_ = 0, size_ = 0;
};

struct FlowNetwork::Impl {
  const Fabric& fabric;
  int spray_subflows = 16;
  int timeline_bins = 0;
  std::uint32_t relaxed_tiers = 0;  ///< set_relaxed_tiers: bit per topology::Tier
  double timeline_hint = 0;         ///< s, expected run length (first bin width = hint / bins)
  RouteMemo memo;
  bool route_reuse = true;
  /// Prefix capture (set_prefix_capture) and the prefixes kept by the last run that captured.
  PrefixPick pick;
  struct Prefixes {
    std::uint64_t fingerprint = 0;  ///< of the schedule run (schedule_fingerprint)
    std::vector<char> up;           ///< its fabric state (RouteMemo::up_of)
    std::vector<double> start, finish;
    std::vector<std::pair<int, std::shared_ptr<const PrefixSnapshot>>> snaps;  ///< per link
  };
  std::unique_ptr<Prefixes> prefixes;
  long long last_prefix = 0;  ///< activities the last run took from a prefix (0: simulated whole)
  explicit Impl(const Fabric& f) : fabric(f) {}
};

FlowNetwork::FlowNetwork(const Fabric& fabric) : impl_(std::make_unique<Impl>(fabric)) {}
FlowNetwork::~FlowNetwork() = default;

void FlowNetwork::set_timeline_bins(int bins, double expected_duration) {
  if (bins < 0) throw InvalidParameter("network.timeline_bins", std::to_string(bins), "an integer >= 0");
  if (!(expected_duration >= 0) || !std::isfinite(expected_duration))
    throw InvalidParameter("network.timeline_expected_duration", std::to_string(expected_duration), "a time >= 0 s");
  impl_->timeline_bins = bins;
  impl_->timeline_hint = expected_duration;
}
int FlowNetwork::timeline_bins() const { return impl_->timeline_bins; }

void FlowNetwork::set_spray_subflows(int n) {
  if (n < 1) throw InvalidParameter("network.spray_subflows", std::to_string(n), "an integer >= 1");
  impl_->spray_subflows = n;
}
int FlowNetwork::spray_subflows() const { return impl_->spray_subflows; }
void FlowNetwork::set_relaxed_tiers(std::uint32_t tiers) {
  constexpr std::uint32_t switch_tiers = (1u << static_cast<unsigned>(topology::Tier::LeafSpine)) |
                                         (1u << static_cast<unsigned>(topology::Tier::SpineCore));
  if (tiers & ~switch_tiers)  // a flow keeps its NIC (and NVLink) ports: it always has a resource
    throw InvalidParameter("relaxed tiers", std::to_string(tiers), "bits of the leaf-spine and spine-core tiers only");
  impl_->relaxed_tiers = tiers;
}
std::uint32_t FlowNetwork::relaxed_tiers() const { return impl_->relaxed_tiers; }
void FlowNetwork::set_route_reuse(bool on) {
  impl_->route_reuse = on;
  if (!on) impl_->memo = RouteMemo{};
}
bool FlowNetwork::route_reuse() const { return impl_->route_reuse; }
bool FlowNetwork::holds_route_table() const { return impl_->memo.valid; }
void FlowNetwork::set_prefix_capture(PrefixPick pick) { impl_->pick = std::move(pick); }
void FlowNetwork::drop_prefixes() { impl_->prefixes.reset(); }
std::vector<int> FlowNetwork::prefix_links() const {
  std::vector<int> out;
  if (impl_->prefixes)
    for (const auto& [link, snap] : impl_->prefixes->snaps) out.push_back(link);
  return out;
}
long long FlowNetwork::last_run_prefix() const { return impl_->last_prefix; }
const Fabric& FlowNetwork::fabric() const { return impl_->fabric; }

namespace detail {

/// Items predicted to complete within this many seconds of the earliest one complete with it
/// (SimGrid 3.32's surf/precision, 1e-9 s, used the same way by its network model).
constexpr double kSamePrecision = 1e-9;

namespace {
/// Profile only: estimates the wall time of calls into SimGrid's lmm outside System::solve
/// (RunCtx::lmm_items_wall) by timing every kLmmTimerStride-th call and counting it that many
/// times: reading the clock around each of the ~1.2 M calls at 31K GPUs added ~0.15 s to a profiled
/// loop of ~0.8 s. The stride is odd so that it does not follow the alternation of adds and
/// removes. The wall clock is read in user space (vDSO); a CPU clock read would be a system call.
class LmmTimer {
 public:
  static constexpr int kLmmTimerStride = 7;
  explicit LmmTimer(RunCtx& c) : c_(c), on_(c.prof && ++c.item_calls % kLmmTimerStride == 0) {
    if (on_) w0_ = profile::wall_seconds();
  }
  ~LmmTimer() {
    if (on_) c_.lmm_items_wall += kLmmTimerStride * (profile::wall_seconds() - w0_);
  }
  LmmTimer(const LmmTimer&) = delete;
  LmmTimer& operator=(const LmmTimer&) = delete;

 private:
  RunCtx& c_;
  bool on_;
  double w0_ = 0;
};
}  // namespace

int link_resource(RunCtx& c, int link, bool forward) {
  int& r = c.link_res[2 * static_cast<std::size_t>(link) + (forward ? 0 : 1)];
  if (r < 0) {
    const LmmTimer timer(c);
    r = c.sharing.add_resource(c.link_rate[link]);
  }
  return r;
}

const int* route_resources(RunCtx& c, int f, int& n) {
  if (c.events_mode) {  // routes change with failures: looked up each time
    const SubFlow& sf = c.flows[f];
    n = static_cast<int>(sf.hops.size());
    c.res_buf.clear();
    for (const Hop& h : sf.hops) c.res_buf.push_back(link_resource(c, h.link, h.forward));
    return c.res_buf.data();
  }
  // The hop count from flow_span, not the route object: the sub-flow and its hops are not read
  // (two cache misses per start and removal) once the route's resources exist.
  const RunCtx::Span sp = c.flow_span[static_cast<std::size_t>(f)];
  n = sp.n;
  int* r = c.route_res.data() + sp.off;
  if (n > 0 && r[0] < 0) {
    const SubFlow& sf = c.flows[f];
    for (int k = 0; k < n; ++k) r[k] = link_resource(c, sf.hops[k].link, sf.hops[k].forward);
  }
  return r;
}

namespace {

int new_slot(RunCtx& c) {
  int s;
  if (!c.free_slots.empty()) {
    s = c.free_slots.back();
    c.free_slots.pop_back();
  } else {
    s = static_cast<int>(c.slots.size());
    c.slots.emplace_back();
  }
  Slot& x = c.slots[s];
  x.used = true;
  x.rate = 0;
  x.last = c.now;
  x.wave = -1;
  x.reports = 0;
  x.due = std::numeric_limits<double>::quiet_NaN();
  ++x.version;  // entries of the slot's previous use are stale
  if (c.cap) {
    if (static_cast<std::size_t>(s) >= c.cap->born.size()) c.cap->born.resize(static_cast<std::size_t>(s) + 1);
    c.cap->born[static_cast<std::size_t>(s)] = c.cap->next_born++;
  }
  return s;
}

void free_slot(RunCtx& c, int s) {
  Slot& x = c.slots[s];
  if (c.cap) prefix_log(c, s, false);
  on_item_removed(c, s);
  if (c.relax.on && x.flow >= 0) relax_rate(c, x.flow, -x.rate);
  {
    const LmmTimer timer(c);
    c.sharing.remove_item(x.item);
  }
  x.used = false;
  x.flow = x.activity = -1;
  ++x.version;
  c.free_slots.push_back(s);
}

/// The flows of transfer a start (its latency has passed).
void start_transfer_flows(RunCtx& c, int a) {
  c.start_at[a] = -1;
  for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
    if (!(c.flows[f].bytes > 0)) continue;
    if (c.events_mode) {
      restart_flow(c, f);  // the route may have died during the latency phase
    } else {
      start_flow(c, f);
    }
  }
  if (c.left[a] == 0) rep_finished(c, a);
}

/// Activity a's next repetition (its only one without `repeat`) starts now.
void begin(RunCtx& c, int a) {
  const Activity& act = c.s->activities[a];
  if (c.rep_begun[a]++ == 0) c.start[a] = c.now;
  if (act.repeat == 1)
    ++c.single_busy;  // until rep_finished
  else if (a == c.anchor)
    c.anchor_began = c.now;
  if (act.kind == Activity::Kind::Delay) {  // no flows: the Start event finishes it
    c.left[a] = 0;
    if (act.amount > 0)
      c.push_timed(c.now + act.amount, Timed::Start, a);
    else
      rep_finished(c, a);
    return;
  }
  if (act.kind == Activity::Kind::Compute) {
    if (!(act.amount > 0)) {
      rep_finished(c, a);
      return;
    }
    int& r = c.gpu_res[act.gpu];
    if (r < 0) {
      const LmmTimer timer(c);
      r = c.sharing.add_resource(c.flops[act.gpu]);
    }
    const int s = new_slot(c);
    Slot& x = c.slots[s];
    x.activity = a;
    x.remains = act.amount;
    {
      const LmmTimer timer(c);
      x.item = c.sharing.add_item(&r, 1, s);
    }
    if (c.cap) prefix_log(c, s, true);
    on_item_added(c, s, &r, 1);
    c.left[a] = 1;
    return;
  }
  const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
  if (f1 == f0) {  // src == dst
    rep_finished(c, a);
    return;
  }
  if (c.events_mode) {
    if (c.rep_begun[a] > 1)  // a new repetition sends its full share again (a reroute left less)
      for (int f = f0; f < f1; ++f) c.flows[f].bytes = c.flows[f].hops.empty() ? 0.0 : act.amount / c.flows[f].of;
    refresh_routes(c, a);
  }
  double lat = 0;
  int n = 0;
  for (int f = f0; f < f1; ++f) {
    lat = std::max(lat, c.flows[f].latency);
    if (c.flows[f].bytes > 0) ++n;
  }
  c.left[a] = n;
  lat += act.delay;
  if (lat > 0) {
    c.start_at[a] = c.now + lat;
    c.push_timed_after(c.start_at[a], lat, Timed::Start, a);
  } else
    start_transfer_flows(c, a);
}

// Prefetch hints for the loop's next item while it handles the current one (~one cache miss per
// record at 31K GPUs: sub-flows are 36 MB, activities 72 MB). They read nothing the simulation
// depends on and change no state: results are the same with or without them.

/// Completion of slot s follows: its sub-flow and the timeline's per-flow entries.
inline void prefetch_completion(const RunCtx& c, int s) {
  const int f = c.slots[static_cast<std::size_t>(s)].flow;
  if (f < 0) return;
  const char* p = reinterpret_cast<const char*>(&c.flows[static_cast<std::size_t>(f)]);
  prefetch(p);
  prefetch(p + sizeof(SubFlow) - 1);
  if (c.tl) prefetch(&c.tl->sent[static_cast<std::size_t>(f)]);
  if (!c.flow_span.empty()) prefetch(&c.flow_span[static_cast<std::size_t>(f)]);
}

/// Transfer a's flows start next (a Start event): its first sub-flow and its weight and rate
/// limit (start_flow).
inline void prefetch_start(const RunCtx& c, int a) {
  const char* q = reinterpret_cast<const char*>(&c.s->activities[static_cast<std::size_t>(a)]);
  prefetch(q + offsetof(Activity, weight));
  prefetch(q + offsetof(Activity, rate_limit) + sizeof(double) - 1);
  const int f = c.first_flow[static_cast<std::size_t>(a)];
  if (f >= c.first_flow[static_cast<std::size_t>(a) + 1]) return;
  const char* p = reinterpret_cast<const char*>(&c.flows[static_cast<std::size_t>(f)]);
  prefetch(p);
  prefetch(p + sizeof(SubFlow) - 1);
  if (!c.flow_span.empty()) prefetch(&c.flow_span[static_cast<std::size_t>(f)]);
}

/// begin_batch with the prefix capture: the run's state is kept just before an activity that
/// triggers a target begins; with repetitions, before its whole batch (begin_batch groups a
/// batch's repetitions: a continuation from inside it would group its tail alone).
void begin_batch_capturing(RunCtx& c, std::vector<int>& batch) {
  if (c.any_repeat) {
    std::uint8_t bits = 0;
    for (int a : batch) bits |= c.cap->mask[static_cast<std::size_t>(a)] & c.cap->pending;
    if (bits) {
      if (64 * c.cap->begun >= static_cast<long long>(c.s->activities.size()))
        capture_prefix(c, batch, 0, bits);
      else
        c.cap->pending &= static_cast<std::uint8_t>(~bits);
      if (c.cap->pending == 0) c.cap = nullptr;
    }
    if (c.cap) c.cap->begun += static_cast<long long>(batch.size());
    begin_batch(c, batch, begin);
    return;
  }
  for (int a : batch) c.queued[a] = 0;
  for (std::size_t j = 0; j < batch.size(); ++j) {
    if (c.cap) {
      const auto bits = static_cast<std::uint8_t>(c.cap->mask[static_cast<std::size_t>(batch[j])] & c.cap->pending);
      if (bits) {
        // A prefix of under 1/64 of the activities saves less than keeping and restoring it costs
        // (measured on the rollout: docs/benchmarks.md); such a link's run is simulated whole.
        if (64 * c.cap->begun >= static_cast<long long>(c.s->activities.size()))
          capture_prefix(c, batch, j, bits);
        else
          c.cap->pending &= static_cast<std::uint8_t>(~bits);
        if (c.cap->pending == 0) c.cap = nullptr;
      }
      if (c.cap) ++c.cap->begun;
    }
    begin(c, batch[j]);
  }
}

void drain_ready(RunCtx& c) {
  std::vector<int> batch;
  while (!c.ready.empty()) {
    batch.swap(c.ready);
    c.ready.clear();
    std::reverse(batch.begin(), batch.end());  // last ready first, as a stack
    if (c.cap)
      begin_batch_capturing(c, batch);
    else
      begin_batch(c, batch, begin);
  }
}

/// Item in slot s completed now.
void complete_slot(RunCtx& c, int s) {
  Slot& x = c.slots[s];
  if (x.flow < 0) {
    const int a = x.activity;
    free_slot(c, s);
    rep_finished(c, a);
    return;
  }
  const int f = x.flow;
  SubFlow& sf = c.flows[f];
  sf.done_bytes += sf.bytes;
  sf.last_rate = x.rate;
  if (c.tl) tl_done(c, f);
  if (c.events_mode) credit_bytes(c, sf, sf.bytes);  // the bytes of this send, on the route it took
  sf.slot = -1;
  free_slot(c, s);
  const int a = sf.activity;
  if (--c.left[a] == 0) rep_finished(c, a);
}

void handle_timed(RunCtx& c, const Timed& e) {
  switch (e.kind) {
    case Timed::Failure:
      --c.daemon_events;
      apply_failure(c, e.id);
      break;
    case Timed::Bin:
      --c.daemon_events;
      tl_boundary(c);
      break;
    case Timed::GroupEnd:
      group_end(c, e.id);
      break;
    case Timed::Start:
      start_transfer_flows(c, e.id);
      break;
    case Timed::Restart:
      restart_flow(c, e.id);
      break;
  }
}

/// Checks the schedule (InvalidParameter naming the activity and field) and, in the same single
/// pass over its activities (72 MB at 31K GPUs: each pass over them was a few % of the engine's
/// CPU), collects what the run reads of them: dependency counts (RunCtx::pending, succ_off) and
/// `after` lists in activity order (`pred`), the per-activity copies (RunCtx::repeat,
/// rdep, rsucc_off), the transfers' groups (`groups`, consecutive repeats dropped: sorted and
/// made unique by the caller) and the count of transfers with two ends (`transfers`).
void index_schedule(const Schedule& s, const Fabric& fab, RunCtx& c, std::vector<int>& pred, std::vector<int>& groups,
                    std::size_t& transfers) {
  const int n = static_cast<int>(s.activities.size()), gpus = fab.gpu_count();
  c.pending.assign(n, 0);
  c.succ_off.assign(n + 1, 0);
  c.rsucc_off.assign(n + 1, 0);
  c.repeat.resize(static_cast<std::size_t>(n));
  c.rdep_off.assign(1, 0);
  c.rdep_off.reserve(static_cast<std::size_t>(n) + 1);
  bool any_compute = false;
  transfers = 0;
  // Transfers may start or end at a storage server (Fabric::is_endpoint); computations run on GPUs.
  const std::string storage = fab.storage_count() > 0 ? " or a storage server's node id" : "";
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    // The key is built only for an error: a string per activity and run was ~0.6 % of the rollout.
    auto key = [i] { return "schedule.activities[" + std::to_string(i) + "]"; };
    const bool transfer = a.kind == Activity::Kind::Transfer;
    if (transfer ? !fab.is_endpoint(a.gpu) : (a.gpu < 0 || a.gpu >= gpus))
      throw InvalidParameter(key() + ".gpu", std::to_string(a.gpu),
                             "a GPU rank in [0, " + std::to_string(gpus) + ")" + (transfer ? storage : ""));
    if (transfer && !fab.is_endpoint(a.dst_gpu))
      throw InvalidParameter(key() + ".dst_gpu", std::to_string(a.dst_gpu),
                             "a GPU rank in [0, " + std::to_string(gpus) + ")" + storage);
    if (!(a.amount >= 0) || !std::isfinite(a.amount))
      throw InvalidParameter(key() + ".amount", std::to_string(a.amount), "a finite amount >= 0");
    if (!(a.delay >= 0) || !std::isfinite(a.delay))
      throw InvalidParameter(key() + ".delay", std::to_string(a.delay), "a finite delay >= 0 s");
    if (!(a.weight > 0) || !std::isfinite(a.weight))
      throw InvalidParameter(key() + ".weight", std::to_string(a.weight), "a finite share weight > 0");
    if (!(a.rate_limit >= 0) || !std::isfinite(a.rate_limit))
      throw InvalidParameter(key() + ".rate_limit", std::to_string(a.rate_limit), "a finite rate >= 0 B/s (0: none)");
    if (a.group < 0) throw InvalidParameter(key() + ".group", std::to_string(a.group), "a group id >= 0");
    for (int p : a.after)
      if (p < 0 || p >= n || p == i)
        throw InvalidParameter(key() + ".after", std::to_string(p),
                               "an index of another activity in [0, " + std::to_string(n) + ")");
    if (a.repeat < 1) throw InvalidParameter(key() + ".repeat", std::to_string(a.repeat), "an integer >= 1");
    for (const auto* list : {&a.after_previous, &a.after_same})
      for (int p : *list)
        if (p < 0 || p >= n || (p == i && list == &a.after_same) || a.repeat < 2 || s.activities[p].repeat != a.repeat)
          throw InvalidParameter(
              key() + (list == &a.after_same ? ".after_same" : ".after_previous"), std::to_string(p),
              "an index of an activity with the same repeat > 1 (this one has " + std::to_string(a.repeat) + ")");
    // Checked: what the run reads of it.
    any_compute |= a.kind == Activity::Kind::Compute && a.amount > 0;
    if (transfer && a.gpu != a.dst_gpu) {
      ++transfers;
      if (a.amount > 0 && (groups.empty() || groups.back() != a.group)) groups.push_back(a.group);
    }
    c.pending[i] = static_cast<int>(a.after.size());
    for (int p : a.after) ++c.succ_off[p + 1];
    pred.insert(pred.end(), a.after.begin(), a.after.end());
    c.repeat[i] = a.repeat;
    if (a.repeat > 1) {
      c.any_repeat = true;
      c.rep_acts.push_back(i);
    }
    for (int q : a.after_previous) {
      ++c.rsucc_off[q + 1];
      c.rdep.push_back(q);
    }
    for (int q : a.after_same) {
      ++c.rsucc_off[q + 1];
      c.rdep.push_back(~q);
    }
    c.rdep_off.push_back(static_cast<int>(c.rdep.size()));
  }
  if (!any_compute) return;  // gpu_flops only matter for computations
  if (!(s.gpu_flops.size() == 1 || s.gpu_flops.size() == static_cast<std::size_t>(gpus)))
    throw InvalidParameter("schedule.gpu_flops", std::to_string(s.gpu_flops.size()) + " entries",
                           "1 or " + std::to_string(gpus) + " entries");
  for (double v : s.gpu_flops)
    if (!(v > 0) || !std::isfinite(v))
      throw InvalidParameter("schedule.gpu_flops", std::to_string(v), "a speed > 0 FLOP/s");
}

void loop(RunCtx& c);

/// The event loop: from t = 0 until no activity is in progress (after rep_init).
void simulate(RunCtx& c) {
  const int n = static_cast<int>(c.s->activities.size());
  for (int i = n - 1; i >= 0; --i)  // drain_ready begins them in activity order
    if (rep_ready(c, i)) {
      c.queued[i] = 1;
      c.ready.push_back(i);
    }
  // Failures at t = 0 precede every start (a failure at 0 equals one applied before the run).
  while (!c.timed.empty() && c.timed.top().t <= 0 && c.timed.top().kind == Timed::Failure) {
    const Timed e = c.timed.top();
    c.timed.pop();
    handle_timed(c, e);
  }
  drain_ready(c);
  loop(c);
}

/// The event loop from a restored prefix (restore_prefix): the batch it stopped in, then on.
void resume(RunCtx& c, std::vector<int>& tail) {
  begin_batch(c, tail, begin);  // as begin_batch_capturing left it: with repetitions, a whole batch
  drain_ready(c);
  loop(c);
}

/// The event loop's iterations until no activity is in progress.
void loop(RunCtx& c) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool prof = c.prof;
  for (;;) {
    periodic_check(c);
    ++c.solves;
    const double c0 = prof ? profile::thread_cpu_seconds() : 0, w0 = prof ? profile::wall_seconds() : 0;
    c.sharing.solve_only();
    if (c.cap) c.cap->ops.clear();  // the calls since the last solve (capture_prefix)
    if (prof) {
      const double c1 = profile::thread_cpu_seconds(), w1 = profile::wall_seconds();
      c.lmm_solve_cpu += c1 - c0, c.lmm_solve_wall += w1 - w0;
    }
    const auto report = [&c](int s, double rate) {
      Slot& x = c.slots[s];
      x.remains = remains_now(c, x);
      x.last = c.now;
      if (c.relax.on && x.flow >= 0) relax_rate(c, x.flow, rate - x.rate);
      x.rate = rate;
      if (x.wave >= 0 && ++x.reports > 1) c.waves[x.wave].dirty = true;  // not constant: no template
      // Most reported items keep their rate; when the new prediction is the pending one bit for
      // bit, that heap entry (same time and slot) stays valid: no push, no stale entry to pop.
      const double t = rate > 0 ? c.now + x.remains / rate : std::numeric_limits<double>::quiet_NaN();
      if (t == x.due) {
        ++c.due_kept;
        return;
      }
      ++x.version;
      x.due = t;
      if (rate > 0) c.due.push(Due{t, s, x.version});
    };
    c.reported += c.sharing.report(report);
    while (c.relax.on && relax_check(c)) c.reported += c.sharing.solve(report);  // a relaxed link binds: solve again
    if (prof) c.solve_cpu += profile::thread_cpu_seconds() - c0, c.solve_wall += profile::wall_seconds() - w0;
    while (!c.due.empty()) {
      const Due& d = c.due.top();
      if (c.slots[d.slot].used && c.slots[d.slot].version == d.version) break;
      c.due.pop();
    }
    const double t_due = c.due.empty() ? inf : c.due.top().t;
    if (t_due == inf && c.timed.size() == c.daemon_events) break;  // only daemons left
    const double t_ev = c.timed.empty() ? inf : c.timed.top().t;
    c.now = std::min(t_due, t_ev);
    // A timeline bin boundary that completes items up to kSamePrecision early (before their own
    // time would come): from here on the run differs from one without a timeline, which the
    // link-down runs that continue from a prefix are. Nothing more is captured.
    if (c.cap && t_ev < t_due && c.timed.top().kind == Timed::Bin && t_due <= c.now + kSamePrecision) c.cap = nullptr;
    // Ctrl-C / SIGTERM (models/common/cancel.hpp), polled every iteration: one iteration can be a
    // ~10 ms solve (bench-collective on the 8K scenario at 1 GiB: 1,631 iterations), so polling
    // every 1,024th kept Ctrl-C waiting ~10 s; a poll is one relaxed atomic load.
    ++c.events;
    throw_if_cancelled();
    // At one instant: failures and bin boundaries, then completions, then starts.
    while (!c.timed.empty() && c.timed.top().t <= c.now && c.timed.top().kind <= Timed::Bin) {
      const Timed e = c.timed.top();
      c.timed.pop();
      handle_timed(c, e);
    }
    const double horizon = c.now + kSamePrecision;
    while (!c.due.empty() && c.due.top().t <= horizon) {
      const Due d = c.due.top();
      c.due.pop();
      if (!c.due.empty() && c.due.top().t <= horizon) prefetch_completion(c, c.due.top().slot);
      if (c.slots[d.slot].used && c.slots[d.slot].version == d.version) complete_slot(c, d.slot);
    }
    while (!c.timed.empty() && c.timed.top().t <= c.now) {
      const Timed e = c.timed.top();
      c.timed.pop();
      if (!c.timed.empty() && c.timed.top().t <= c.now && c.timed.top().kind == Timed::Start)
        prefetch_start(c, c.timed.top().id);
      handle_timed(c, e);
    }
    drain_ready(c);
  }
  if (c.tl) tl_finish(c);
  profile::add("network: solver (SimGrid max-min, incl. reading rates)", c.solve_cpu, c.solve_wall, c.solves);
  profile::add("network: - lmm solve (SimGrid System::solve)", c.lmm_solve_cpu, c.lmm_solve_wall, c.solves);
  profile::add("network: - reading rates, completion times (items)", c.solve_cpu - c.lmm_solve_cpu,
               c.solve_wall - c.lmm_solve_wall, c.reported);
  profile::add("network: loop iterations (count)", 0, 0, c.events);
  profile::add("network: reported rates whose completion stayed (count)", 0, 0, c.due_kept);
  if (c.skipped_reps > 0) profile::add("network: repetitions fast-forwarded (count)", 0, 0, c.skipped_reps);
  if (c.relax.on) {
    profile::add("network: relaxed link directions put back in the solver (count)", 0, 0, c.relax.put_back);
    profile::add("network: relaxed link directions relaxed again (count)", 0, 0, c.relax.relaxed_again);
    profile::add("network: items re-added with a link put back or relaxed again (count)", 0, 0, c.relax.re_added);
  }
  if (c.periodic_reps > 0) profile::add("network: repetitions skipped as whole periods (count)", 0, 0, c.periodic_reps);
}

}  // namespace

void start_flow(RunCtx& c, int f, double remains) {
  SubFlow& sf = c.flows[f];
  int nr = 0;
  const int* res = route_resources(c, f, nr);
  before_add(c, res, nr);
  const int s = new_slot(c);
  Slot& x = c.slots[s];
  x.flow = f;
  x.remains = remains >= 0 ? remains : sf.bytes;
  x.wave = c.wave[sf.activity];
  const Activity& act = c.s->activities[sf.activity];
  const double bound = act.rate_limit > 0 ? act.rate_limit / sf.of * sf.mult : -1.0;  // split over sub-flows
  int kept = nr;
  const int* in = relax_filter(c, f, res, nr, kept);
  {
    const LmmTimer timer(c);
    x.item = c.sharing.add_item(in, kept, s, act.weight * sf.mult, bound);
  }
  if (c.cap) prefix_log(c, s, true);
  on_item_added(c, s, res, nr);
  sf.slot = s;
}

void credit_bytes(RunCtx& c, const SubFlow& f, double bytes) {
  for (const Hop& h : f.hops) (h.forward ? c.bytes_fwd : c.bytes_rev)[h.link] += bytes;
  const int k = c.group_of.empty() ? -1 : c.group_of[f.activity];
  if (k < 0) return;
  const std::size_t off = static_cast<std::size_t>(k) * c.bytes_fwd.size();
  for (const Hop& h : f.hops) (h.forward ? c.gbytes_fwd : c.gbytes_rev)[off + h.link] += bytes;
}

double stop_flow(RunCtx& c, int f) {
  SubFlow& sf = c.flows[f];
  const double rem = remains_now(c, c.slots[sf.slot]);
  free_slot(c, sf.slot);
  sf.slot = -1;
  return rem;
}

}  // namespace detail

RunResult FlowNetwork::run(const Schedule& schedule) { return run(schedule, {}); }

// The event loop, kept in one function (~180 lines): its hot state (clock, completion heap, solver,
// per-flow slots) stays in locals the compiler keeps close, and one reading shows every event's order.
RunResult FlowNetwork::run(const Schedule& schedule, const std::vector<TimedFailure>& events) {
  if (!detail::on_large_stack()) {  // SimGrid's solver recurses deeply on large runs (large_stack.hpp)
    RunResult out;
    detail::run_on_large_stack([&] { out = run(schedule, events); });
    return out;
  }
  const Fabric& fab = impl_->fabric;
  const int G = fab.gpu_count();
  const int n = static_cast<int>(schedule.activities.size());
  auto c = std::make_unique<RunCtx>();
  std::vector<int> pred, groups;  // index_schedule: `after` lists in activity order; transfers' groups
  std::size_t transfers = 0;
  index_schedule(schedule, fab, *c, pred, groups, transfers);
  std::vector<ResolvedFailure> failures = resolve(fab, events);
  RunResult res;
  res.start.assign(n, 0.0);
  res.finish.assign(n, 0.0);
  res.link_bytes_fwd.assign(fab.link_count(), 0.0);
  res.link_bytes_rev.assign(fab.link_count(), 0.0);
  res.reroutes.assign(n, 0);
  if (n == 0) return res;

  c->s = &schedule;
  if (!schedule.gpu_flops.empty())
    c->flops = schedule.gpu_flops.size() == 1 ? std::vector<double>(G, schedule.gpu_flops[0]) : schedule.gpu_flops;

  // Dependencies (CSR; counted by index_schedule) and a cycle check (Kahn) before anything is
  // simulated.
  for (int i = 0; i < n; ++i) c->succ_off[i + 1] += c->succ_off[i];
  c->succ.resize(c->succ_off[n]);
  {
    std::vector<int> fill(c->succ_off.begin(), c->succ_off.end() - 1);
    for (int i = 0, k = 0; i < n; ++i)
      for (const int k1 = k + c->pending[i]; k < k1; ++k) c->succ[fill[pred[k]]++] = i;
    pred = {};
    std::vector<int> deg = c->pending, queue;
    queue.reserve(n);
    for (int i = 0; i < n; ++i)
      if (deg[i] == 0) queue.push_back(i);
    for (std::size_t q = 0; q < queue.size(); ++q)
      for (int k = c->succ_off[queue[q]]; k < c->succ_off[queue[q] + 1]; ++k)
        if (--deg[c->succ[k]] == 0) queue.push_back(c->succ[k]);
    if (static_cast<int>(queue.size()) != n) {
      int bad = 0;
      while (deg[bad] == 0) ++bad;
      throw SimulationError("network: the schedule's dependencies form a cycle (activity " + std::to_string(bad) +
                            " can never start)");
    }
  }

  // Groups of the transfers (RunResult::groups): bytes per link are split when one is not 0.
  {
    std::vector<int> g = std::move(groups);  // index_schedule's
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    if (!g.empty() && !(g.size() == 1 && g[0] == 0)) {
      res.groups = std::move(g);
      c->group_of.assign(n, -1);
      for (int i = 0; i < n; ++i) {
        const auto it = std::lower_bound(res.groups.begin(), res.groups.end(), schedule.activities[i].group);
        if (it != res.groups.end() && *it == schedule.activities[i].group)
          c->group_of[i] = static_cast<int>(it - res.groups.begin());
      }
      const std::size_t sz = res.groups.size() * static_cast<std::size_t>(fab.link_count());
      res.link_bytes_group_fwd.assign(sz, 0.0);
      res.link_bytes_group_rev.assign(sz, 0.0);
    }
  }

  // Routes of every (sub-)flow, computed up front: unroutable transfers fail before simulating,
  // and bytes per link are exact sums over the routes' hops.
  std::optional<profile::Scope> routes_scope(std::in_place, "network: routes");
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  // Hash-ECMP sub-flows of one transfer that hash onto the same route are one solver item (SubFlow::
  // mult): exact under max-min (equal flows on equal resources, started and ended together, get
  // equal shares; weight and bound scale with the count), and it cuts the items every re-solve of
  // their component visits (16 flows per pair over 16 spines: ~10 distinct routes). Not with
  // failure events: a reroute recomputes each sub-flow's own hash.
  const bool merge = !spray && fpp > 1 && failures.empty();
  long long merged = 0;
  RouteMemo& memo = impl_->memo;
  std::vector<char> fabric_up;  // this run's fabric state, when it has no failure events
  bool memo_hit = false;        // the whole table reused (same inputs, same fabric state)
  bool memo_healthy = false;    // same inputs, the table of the healthy fabric: per transfer
  // memo_healthy: (this run's sub-flow, the table's) whose hops this run borrows: moved in and
  // back after the run instead of copied, so that the healthy table and this run's do not hold
  // two copies of every route (+40-80 MiB peak RSS on the rollout's 31K link-down samples).
  std::vector<std::pair<int, int>> lent;
  if (failures.empty() && impl_->route_reuse) {
    fabric_up = RouteMemo::up_of(fab);
    if (memo.same_inputs(schedule, res.groups, impl_->spray_subflows)) {
      memo_hit = fabric_up == memo.up;
      memo_healthy = !memo_hit && memo.healthy && !spray;
    }
  }
  if (memo_hit) {
    memo.valid = false;  // its table moves into this run (and back after it)
    c->flows = std::move(memo.flows);
    for (SubFlow& f : c->flows) {  // the run-time fields as the route phase leaves them
      f.epoch = 0;
      f.slot = -1;
      f.done_bytes = 0;
      f.last_rate = 0;
    }
    c->first_flow = std::move(memo.first_flow);
    res.link_bytes_fwd = memo.fwd;
    res.link_bytes_rev = memo.rev;
    if (!c->group_of.empty()) {
      res.link_bytes_group_fwd = memo.group_fwd;
      res.link_bytes_group_rev = memo.group_rev;
    }
    merged = memo.merged;
  } else {
    if (!memo_healthy) memo = RouteMemo{};  // not held while this run builds its own
    // Reserved once: a growing vector of 10^7 sub-flows peaks at 3x its size while it moves.
    c->flows.reserve(transfers * static_cast<std::size_t>(spray ? impl_->spray_subflows : fpp));
    // Bytes of one sub-flow on each hop of its route (the activity's repetitions), per group too.
    auto credit = [&](int i, const Activity& a, double bytes, const std::vector<Hop>& hops) {
      for (const Hop& h : hops) (h.forward ? res.link_bytes_fwd : res.link_bytes_rev)[h.link] += bytes * a.repeat;
      if (!c->group_of.empty()) {
        const std::size_t off = static_cast<std::size_t>(c->group_of[i]) * static_cast<std::size_t>(fab.link_count());
        for (const Hop& h : hops)
          (h.forward ? res.link_bytes_group_fwd : res.link_bytes_group_rev)[off + h.link] += bytes * a.repeat;
      }
    };
    c->first_flow.assign(n + 1, 0);
    // The first transfer of each (source, destination, hash, spread) computed here: later ones
    // share its sub-flows' routes (FirstWith).
    FirstWith first_with;
    long long shared_routes = 0;
    // Routes not cached in the Fabric (route_uncached, the same hops): with route reuse off no run
    // of these transfers follows (engine13); with it on, a run without failure events keeps its
    // table in the RouteMemo, from which the next run of the same transfers takes every route
    // (whole, or per transfer where Fabric::built_route_holds), so a Fabric copy of each route
    // only cost a hash insert per sub-flow and its memory (rollout 31K: 0.26 -> 0.14 s). Cached
    // for a run with failure events, whose reroutes ask route() again.
    const bool once = !impl_->route_reuse || failures.empty();
    constexpr int kAhead = 8;  // transfers whose FirstWith entry is fetched ahead of their lookup
    for (int i = 0; i < n; ++i) {
      const Activity& a = schedule.activities[i];
      c->first_flow[i] = static_cast<int>(c->flows.size());
      if (i + kAhead < n) {
        const Activity& b = schedule.activities[i + kAhead];
        if (b.kind == Activity::Kind::Transfer) first_with.hint(b);
      }
      if (a.kind != Activity::Kind::Transfer || a.gpu == a.dst_gpu) continue;
      const int f0 = c->first_flow[i];
      if (memo_healthy && !a.spread && a.gpu < G && a.dst_gpu < G) {
        // The healthy fabric's sub-flows of this transfer, if route() still gives each of them:
        // the same sub-flows, merges and bytes as asking it. Each sub-flow a merged one stands
        // for adds the same bytes to the same hops, so crediting them together adds what the
        // sub-flow by sub-flow walk adds, in the same order across transfers.
        const int m0 = memo.first_flow[i], m1 = memo.first_flow[i + 1];
        bool holds = m1 > m0;
        for (int g = m0; holds && g < m1; ++g) holds = fab.built_route_holds(memo.flows[g].hops);
        if (holds) {
          memo.valid = false;  // until its hops are back (a run that throws leaves it unusable)
          for (int g = m0; g < m1; ++g) {
            SubFlow& from = memo.flows[g];
            for (int k = 0; k < from.mult; ++k) credit(i, a, a.amount / from.of, from.hops);
            merged += from.mult - 1;
            lent.emplace_back(static_cast<int>(c->flows.size()), g);
            SubFlow& f = c->flows.emplace_back();
            f.activity = i;
            f.bytes = from.bytes;
            f.latency = from.latency;
            f.hops = std::move(from.hops);
            f.index = from.index;
            f.of = from.of;
            f.mult = from.mult;
          }
          continue;
        }
      }
      // A transfer with the inputs of an earlier one (ends, hash, spread) takes its sub-flows: the
      // same routes (shared, not copied), merges, latencies and bytes per sub-flow as asking the
      // fabric again (routes depend on nothing else within a run); the bytes credited to each hop
      // are the same equal shares, so the sums are bit-identical.
      FirstWith::Range& first = first_with.find_or_add(a);
      if (first.f0 >= 0) {
        for (int g = first.f0; g < first.f1; ++g) {
          const SubFlow& from = c->flows[g];
          const double bytes = a.amount / from.of;
          for (int k = 0; k < from.mult; ++k) credit(i, a, bytes, from.hops);
          merged += from.mult - 1;
          SubFlow f;
          f.activity = i;
          f.bytes = bytes * from.mult;
          f.latency = from.latency;
          f.hops = from.hops;
          f.index = from.index;
          f.of = from.of;
          f.mult = from.mult;
          c->flows.push_back(std::move(f));
        }
        ++shared_routes;
        continue;
      }
      first.f0 = f0;
      subflow_routes(fab, a, spray, fpp, impl_->spray_subflows, 0, -1, once, [&](int j, int m, auto&& hops) {
        const double bytes = a.amount / m;
        credit(i, a, bytes, hops);
        auto same_route = [&hops](const SubFlow& g) {
          return std::equal(g.hops.begin(), g.hops.end(), hops.begin(), hops.end(),
                            [](const Hop& x, const Hop& y) { return x.link == y.link && x.forward == y.forward; });
        };
        for (int g = f0; merge && g < static_cast<int>(c->flows.size()); ++g)
          if (same_route(c->flows[g])) {
            SubFlow& same = c->flows[g];
            same.bytes = bytes * ++same.mult;
            ++merged;
            return;
          }
        SubFlow f;
        f.activity = i;
        f.bytes = bytes;
        f.latency = fab.latency(hops);
        f.hops = std::move(hops);
        f.index = j;
        f.of = m;
        c->flows.push_back(std::move(f));
      });
      first.f1 = static_cast<int>(c->flows.size());  // no lookup since find_or_add: `first` is valid
    }
    c->first_flow[n] = static_cast<int>(c->flows.size());
    if (shared_routes > 0)
      profile::add("network: transfers sharing an earlier transfer's routes (count)", 0, 0, shared_routes);
  }
  routes_scope.reset();
  profile::add("network: activities (count)", 0, 0, n);
  profile::add("network: solver items (sub-flows, count)", 0, 0, static_cast<long long>(c->flows.size()));
  if (merged > 0) profile::add("network: ECMP sub-flows merged on a shared route (count)", 0, 0, merged);

  // Current link rates in the sharing (degradations; a GPU's NIC port bounded by its PCIe
  // attachment: Fabric::sharing_rate), resources created on first use.
  c->link_rate.resize(fab.link_count());
  for (int l = 0; l < fab.link_count(); ++l) {
    const double r = fab.link(l).rate;
    if (!(r > 0)) throw SimulationError("network: link " + fab.link(l).name + " has rate " + std::to_string(r));
    c->link_rate[l] = fab.sharing_rate(l);
  }
  c->link_res.assign(2 * static_cast<std::size_t>(fab.link_count()), -1);
  c->gpu_res.assign(G, -1);
  c->start.assign(n, -1.0);
  c->finish.assign(n, -1.0);
  c->left.assign(n, 0);
  c->fab = &fab;
  std::unique_ptr<Fabric> live;  // events: a private fabric for this run only
  if (!failures.empty()) {
    live = pristine_copy(fab);
    copy_state(fab, *live);
    c->events_mode = true;
    c->failures = std::move(failures);
    c->live = live.get();
    c->fab = live.get();
    c->spray = spray;
    c->fpp = fpp;
    c->spray_n = impl_->spray_subflows;
    c->reroutes.assign(n, 0);
    c->bytes_fwd.assign(fab.link_count(), 0.0);
    c->bytes_rev.assign(fab.link_count(), 0.0);
    c->gbytes_fwd.assign(res.link_bytes_group_fwd.size(), 0.0);
    c->gbytes_rev.assign(res.link_bytes_group_rev.size(), 0.0);
    for (std::size_t i = 0; i < c->failures.size(); ++i)
      c->push_timed(c->failures[i].time, Timed::Failure, static_cast<int>(i));
  }
  c->relax.on = impl_->relaxed_tiers != 0 && !c->events_mode;  // routes fixed for the run
  c->relax.tiers = impl_->relaxed_tiers;
  if (!c->events_mode) {
    // Distinct routes by their shared hops (SharedHops::id), numbered in order of first use.
    RouteIds ids;
    c->flow_span.resize(c->flows.size());
    c->route_off.assign(1, 0);
    for (std::size_t f = 0; f < c->flows.size(); ++f) {
      const SharedHops& h = c->flows[f].hops;
      const int next = static_cast<int>(c->route_off.size()) - 1;
      const int r = ids.find_or_add(h.id(), next);
      if (r == next) c->route_off.push_back(c->route_off.back() + static_cast<int>(h.size()));
      c->flow_span[f] = {c->route_off[static_cast<std::size_t>(r)],
                         c->route_off[static_cast<std::size_t>(r) + 1] - c->route_off[static_cast<std::size_t>(r)]};
    }
    c->route_res.assign(static_cast<std::size_t>(c->route_off.back()), -1);
  }
  if (impl_->timeline_bins > 0 && !c->events_mode) tl_init(*c, impl_->timeline_bins, impl_->timeline_hint);

  // Prefix reuse (set_prefix_capture, run_prefix.cpp): runs without failure events, relaxed links
  // or spraying (every route may change). With repetitions (in a training step, CP rings of cp > 2
  // across NVLink domains) the snapshot also keeps their state (RepetitionState), it is taken
  // before a whole batch (begin_batch groups a batch's repetitions), and the capturing run's
  // timeline, which cuts periodic jumps short at its bin boundaries (periodic.cpp: two rings of 200
  // steps, 48 bins, all 32 finish times differ from the run without it in their last bits), ends
  // the capture at the first jump it cuts.
  impl_->last_prefix = 0;
  const bool prefix_ok = !c->events_mode && !c->relax.on && !spray;
  const PrefixSnapshot* from = nullptr;  // the prefix this run continues from
  if (prefix_ok && impl_->prefixes && !c->tl) {
    const Impl::Prefixes& P = *impl_->prefixes;
    const std::vector<char> up = fabric_up.empty() ? RouteMemo::up_of(fab) : fabric_up;
    int down = -1;  // the one link down here and up in the prefixes' run; nothing else differs
    bool one = up.size() == P.up.size();
    for (std::size_t i = 0; one && i < up.size(); ++i)
      if (up[i] != P.up[i]) {
        one = down < 0 && static_cast<int>(i) < fab.link_count() && P.up[i] && !up[i];
        down = static_cast<int>(i);
      }
    if (one && down >= 0)
      for (const auto& [link, snap] : P.snaps)
        if (link == down) from = snap.get();
    if (from && schedule_fingerprint(schedule) != P.fingerprint) from = nullptr;
  }
  std::unique_ptr<PrefixCapture> cap;
  std::uint64_t fingerprint = 0;
  if (impl_->pick && from == nullptr) {
    impl_->prefixes.reset();  // this run replaces them (or there is nothing to keep)
    if (prefix_ok) {
      std::vector<int> links = impl_->pick(fab, res.link_bytes_fwd, res.link_bytes_rev);
      if (links.size() > 8) links.resize(8);  // targets are bits of a byte
      cap = std::make_unique<PrefixCapture>();
      std::vector<std::uint8_t> bit(static_cast<std::size_t>(fab.link_count()), 0);
      for (std::size_t i = 0; i < links.size(); ++i)
        if (links[i] >= 0 && links[i] < fab.link_count()) {
          cap->links.push_back(links[i]);
          bit[static_cast<std::size_t>(links[i])] |= static_cast<std::uint8_t>(1u << (cap->links.size() - 1));
        }
      cap->snaps.resize(cap->links.size());
      cap->pending = static_cast<std::uint8_t>((1u << cap->links.size()) - 1);
      const auto all = cap->pending;
      // A transfer triggers a target when a run with its link down may send it otherwise: its
      // route crosses the link, or it is routed anew in such a run whatever its route (spread
      // transfers and storage flows are not taken from the healthy route table).
      cap->mask.assign(static_cast<std::size_t>(n), 0);
      for (int i = 0; i < n && all; ++i) {
        const Activity& a = schedule.activities[static_cast<std::size_t>(i)];
        if (a.kind != Activity::Kind::Transfer) continue;
        std::uint8_t m = 0;
        if (a.spread || a.gpu >= G || a.dst_gpu >= G) {
          m = all;
        } else {
          for (int f = c->first_flow[i]; f < c->first_flow[i + 1] && m != all; ++f)
            for (const Hop& h : c->flows[static_cast<std::size_t>(f)].hops) m |= bit[static_cast<std::size_t>(h.link)];
        }
        cap->mask[static_cast<std::size_t>(i)] = m;
      }
      if (all) {
        fingerprint = schedule_fingerprint(schedule);
        c->cap = cap.get();
      } else {
        cap.reset();
      }
    }
  }

  throw_if_cancelled();
  try {
    profile::Scope loop("network: event loop (incl. solver)");
    c->prof = profile::enabled();
    const double c0 = c->prof ? profile::thread_cpu_seconds() : 0, w0 = c->prof ? profile::wall_seconds() : 0;
    rep_init(*c);
    std::vector<int> tail;
    if (from && restore_prefix(*c, *from, impl_->prefixes->start, impl_->prefixes->finish, tail)) {
      impl_->last_prefix = from->begun;
      profile::add("network: activities taken from a kept prefix (count)", 0, 0, from->begun);
      resume(*c, tail);
    } else {
      simulate(*c);
    }
    if (c->prof) {
      // SimGrid's work outside System::solve: variable_new / expand / variable_free per item (with
      // the selective-update marking they trigger) and constraint_new per resource, its wall time
      // sampled (LmmTimer), its CPU time estimated at the loop's CPU / wall ratio. Calls: items
      // added + removed + resources.
      const double cpu = profile::thread_cpu_seconds() - c0, wall = profile::wall_seconds() - w0;
      const double est = wall > 0 ? c->lmm_items_wall * cpu / wall : 0.0;
      profile::add("network: lmm add/remove items, add resources (est.)", est, c->lmm_items_wall, c->item_calls);
    }
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("network: ") + e.what());
  }
  if (!lent.empty()) {  // the borrowed hops back to the healthy table, unchanged (no reroutes here)
    for (const auto& [f, g] : lent) memo.flows[static_cast<std::size_t>(g)].hops = std::move(c->flows[f].hops);
    memo.valid = true;
  }

  for (int i = 0; i < n; ++i)
    if (c->finish[i] < 0)
      throw SimulationError("network: activity " + std::to_string(i) + " did not complete (deadlock)");
  if (cap && std::any_of(cap->snaps.begin(), cap->snaps.end(), [](const auto& p) { return p != nullptr; })) {
    auto P = std::make_unique<Impl::Prefixes>();
    P->fingerprint = fingerprint;
    P->up = fabric_up.empty() ? RouteMemo::up_of(fab) : fabric_up;
    P->start = c->start;
    P->finish = c->finish;
    for (std::size_t i = 0; i < cap->links.size(); ++i)
      if (cap->snaps[i]) P->snaps.emplace_back(cap->links[i], std::move(cap->snaps[i]));
    impl_->prefixes = std::move(P);
  }
  if (!c->events_mode && !memo_healthy && impl_->route_reuse) {  // keep the route phase for the next run (RouteMemo)
    if (!memo_hit) {
      memo.keys.resize(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) memo.keys[static_cast<std::size_t>(i)] = RouteMemo::key_of(schedule.activities[i]);
      memo.healthy = std::find(fabric_up.begin(), fabric_up.end(), 0) == fabric_up.end();
      memo.up = std::move(fabric_up);  // computed above: this run has no failure events
      memo.groups = res.groups;
      memo.spray_subflows = impl_->spray_subflows;
      memo.fwd = res.link_bytes_fwd;
      memo.rev = res.link_bytes_rev;
      memo.group_fwd = res.link_bytes_group_fwd;
      memo.group_rev = res.link_bytes_group_rev;
      memo.merged = merged;
    }
    memo.flows = std::move(c->flows);
    memo.first_flow = std::move(c->first_flow);
    memo.valid = true;
  }
  res.start = std::move(c->start);
  res.finish = std::move(c->finish);
  res.repetitions_fast_forwarded = c->skipped_reps + c->periodic_reps;
  if (c->events_mode) {
    // Bytes actually sent per route: credited at each completion and at each reroute.
    res.reroutes = std::move(c->reroutes);
    res.link_bytes_fwd = std::move(c->bytes_fwd);
    res.link_bytes_rev = std::move(c->bytes_rev);
    if (!c->group_of.empty()) {
      res.link_bytes_group_fwd = std::move(c->gbytes_fwd);
      res.link_bytes_group_rev = std::move(c->gbytes_rev);
    }
  }
  double first = res.start[0], last = res.finish[0];
  for (int i = 0; i < n; ++i) {
    first = std::min(first, res.start[i]);
    last = std::max(last, res.finish[i]);
  }
  res.makespan = last - first;
  if (c->tl) {
    res.timeline_bins = c->tl->used;
    res.timeline_bin = c->tl->w;
    res.timeline_links = std::move(c->tl->links);
    res.timeline_bin_start = std::move(c->tl->start);
    res.timeline_cell_row = std::move(c->tl->cell_row);
    res.timeline_cell_bytes = std::move(c->tl->cell_bytes);
  }
  return res;
}

}  // namespace aidcsim::network
