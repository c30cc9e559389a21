// Max-min fluid run of dependent transfers without a global solve (fluid_bound.hpp,
// fluid_bound_waves): event-driven, each start or completion re-rates only the sub-flows its
// change reaches (distributed max-min fixpoint iteration).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"
#include "models/network/fluid_bound.hpp"
#include "models/network/huge_pages.hpp"

namespace aidcsim::network {

std::vector<int> wave_levels(const Schedule& s) {
  const int n = static_cast<int>(s.activities.size());
  std::vector<int> level(n, 0);
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    if (a.kind != Activity::Kind::Transfer || a.repeat != 1 || !a.after_previous.empty() || !a.after_same.empty())
      return {};
    for (int d : a.after) {
      if (d < 0 || d >= i) return {};
      level[i] = std::max(level[i], level[d] + 1);
    }
  }
  return level;
}

namespace {

// The arrays read in random order, on huge pages where the system gives them (huge_pages.hpp).
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

// A sub-flow being sent, in one cache line with its link directions (rate evaluations are bound
// by memory latency). Slots are reused once a sub-flow completes, so the ones in flight stay
// compact whatever the schedule's length.
constexpr int kInlineHops = 6;
struct alignas(64) Sub {
  double remaining = 0;  ///< B at `last`
  double rate = 0;       ///< B/s since `last`
  double last = 0;       ///< s
  double cap = 0;        ///< B/s: its route's smallest link rate, or its rate limit's share
  int hops = 0;          ///< link directions: dir[0, hops) if hops <= kInlineHops, else long_dirs from dir[0]
  bool sent = false;     ///< completed
  bool rated = false;    ///< evaluated at least once
  int dir[kInlineHops];
};

// Active sub-flows on one link direction with their rates and `keep` (fluid_bound_waves), the
// first kInline in the 128 bytes the CPU fetches together with the direction's rate (97 % of the
// link directions a 32K-GPU halving / doubling evaluates carry at most 5); more in an overflow list.
constexpr int kInline = 5;
struct alignas(128) OnDir {
  double cap = 0;  ///< B/s
  double rate[kInline];
  double keep[kInline];
  bool bind[kInline];  ///< the level here was <= the sub-flow's rate as last computed (may bind it)
  int id[kInline];     ///< sub-flow slots
  int n = 0;           ///< inline entries (kInline whenever the overflow list is not empty)
  int more = -1;       ///< its overflow list, -1: none yet
};
struct More {
  int id;
  double rate;
  double keep;
  bool bind;
};

struct Event {
  double time;
  long long seq;  ///< order of equal times: creation order (deterministic)
  int kind;       ///< 0: an activity starts sending, 1: a sub-flow completes
  int id;         ///< the activity, or the sub-flow's slot
};

/// Pending starts and completions by (time, seq), with one completion per sub-flow in flight that
/// moves when its rate changes (an indexed 4-ary heap: no stale entries to sift past; the heap
/// stays as small as the sub-flows in flight).
class EventHeap {
 public:
  bool empty() const { return h_.empty(); }
  const Event& top() const { return h_[0]; }
  void push(const Event& e) {
    h_.emplace_back();
    up(h_.size() - 1, e);
  }
  void pop() {
    if (h_[0].kind == 1) pos_[h_[0].id] = -1;
    const Event last = h_.back();
    h_.pop_back();
    if (!h_.empty()) down(0, last);
  }
  /// Sub-flow slot f (< slots()) completes at `time` (its one pending completion, if any, moved).
  void complete_at(int f, double time, long long seq) {
    const Event e{time, seq, 1, f};
    const int i = pos_[f];
    if (i < 0)
      push(e);
    else if (before(e, h_[i]))
      up(i, e);
    else
      down(i, e);
  }
  void add_slot() { pos_.push_back(-1); }
  /// Fetches sub-flow slot f's pending completion, if any, into the cache (no effect otherwise).
  void prefetch(int f) const {
    if (pos_[f] >= 0) __builtin_prefetch(&h_[pos_[f]]);
  }

 private:
  static bool before(const Event& a, const Event& b) { return a.time != b.time ? a.time < b.time : a.seq < b.seq; }
  void place(std::size_t i, const Event& e) {
    h_[i] = e;
    if (e.kind == 1) pos_[e.id] = static_cast<int>(i);
  }
  void up(std::size_t i, const Event& e) {
    while (i > 0) {
      const std::size_t p = (i - 1) / 4;
      if (!before(e, h_[p])) break;
      place(i, h_[p]);
      i = p;
    }
    place(i, e);
  }
  void down(std::size_t i, const Event& e) {
    const std::size_t n = h_.size();
    for (;;) {
      const std::size_t c = 4 * i + 1;
      if (c >= n) break;
      std::size_t best = c;
      for (std::size_t k = c + 1; k < std::min(c + 4, n); ++k)
        if (before(h_[k], h_[best])) best = k;
      if (!before(h_[best], e)) break;
      place(i, h_[best]);
      i = best;
    }
    place(i, e);
  }
  HugeVector<Event> h_;
  HugeVector<int> pos_;  ///< per sub-flow slot: index of its completion in h_, -1 none
};

// The transfers of a schedule of dependent waves (fluid_bound_waves(Schedule)): its activities,
// their wave levels and dependents (CSR).
class ScheduleWaves {
 public:
  ScheduleWaves(const topology::Fabric& fab, const Schedule& s) : s_(s) {
    const int n = size();
    for (int i = 0; i < n; ++i) check_fluid_transfer(fab, s.activities[i], i, true);
    level_ = wave_levels(s);
    off_.assign(n + 1, 0);
    for (int i = 0; i < n; ++i)
      for (int d : s.activities[i].after) ++off_[d + 1];
    for (int i = 0; i < n; ++i) off_[i + 1] += off_[i];
    dependents_.resize(off_[n]);
    std::vector<int> fill(off_.begin(), off_.end() - 1);
    for (int i = 0; i < n; ++i)
      for (int d : s.activities[i].after) dependents_[fill[d]++] = i;
  }
  int size() const { return static_cast<int>(s_.activities.size()); }
  int waves() const { return level_.empty() ? 0 : *std::max_element(level_.begin(), level_.end()) + 1; }
  int level(int i) const { return level_[i]; }
  int pending(int i) const { return static_cast<int>(s_.activities[i].after.size()); }
  /// fn(j) for each activity j that waits for i, in the order of their `after` lists.
  template <class Fn>
  void for_each_dependent(int i, Fn&& fn) const {
    for (int k = off_[i]; k < off_[i + 1]; ++k) fn(dependents_[k]);
  }
  const Activity& transfer(int i, Activity&) const { return s_.activities[i]; }

 private:
  const Schedule& s_;
  std::vector<int> level_, off_, dependents_;
};

// The transfers of a halving / doubling exchange from its compact form (RegularWaves). Transfer
// (w, r) sends from rank r to r ^ dist[w], after the transfer rank r received in wave w - 1, i.e.
// (w - 1, r ^ dist[w - 1]): every transfer has one dependency and one dependent, so the transfers
// form n chains of W, chain c holding (w, c ^ dist[0] ^ ... ^ dist[w - 1]). Activities are
// numbered chain-major (i = c W + w: a transfer's dependent is the next activity, whose line the
// completion then finds next to its own) instead of plan_halving_doubling's wave-major order;
// the run does not depend on the numbering (events are ordered by time and creation, the chains'
// wave-0 heads come in rank order), and each transfer keeps its schedule order k = w n + r in its
// flow hash (materialize's hash_base + k + 1).
class CompactWaves {
 public:
  CompactWaves(const topology::Fabric& fab, const RegularWaves& w) : w_(w), n_(static_cast<int>(w.gpus.size())) {
    const int W = static_cast<int>(w.dist.size());
    auto bad = [](const std::string& key, const std::string& v, const std::string& want) {
      throw InvalidParameter("regular_waves." + key, v, want + " (fluid estimate of waves)");
    };
    if (w.domain.size() != w.gpus.size()) bad("domain", std::to_string(w.domain.size()), "one per rank");
    if (w.amount[0].size() != w.dist.size() || w.amount[1].size() != w.dist.size() ||
        w.delay[0].size() != w.dist.size() || w.delay[1].size() != w.dist.size())
      bad("amount", "per-wave sizes differ", "amount and delay per wave and class");
    for (int g : w.gpus)
      if (!fab.is_endpoint(g)) bad("gpus", std::to_string(g), "GPU ranks");
    for (int k = 0; k < W; ++k) {
      if (w.dist[k] <= 0 || w.dist[k] >= n_ || (n_ & (n_ - 1)) != 0)
        bad("dist", std::to_string(w.dist[k]), "0 < dist < ranks, ranks a power of two");
      for (int c = 0; c < 2; ++c)
        if (!(w.amount[c][k] >= 0) || !(w.delay[c][k] >= 0))
          bad("amount", std::to_string(w.amount[c][k]), "amount and delay >= 0");
    }
    W_ = static_cast<std::uint32_t>(W);
    magic_ = W_ >= 2 ? UINT64_C(0xFFFFFFFFFFFFFFFF) / W_ + 1 : 0;
    prefix_.assign(W, 0);
    for (int k = 1; k < W; ++k) prefix_[k] = prefix_[k - 1] ^ w.dist[k - 1];
  }
  int size() const { return n_ * waves(); }
  int waves() const { return static_cast<int>(W_); }
  int level(int i) const { return wave_of(i); }
  int pending(int i) const { return wave_of(i) > 0 ? 1 : 0; }
  template <class Fn>
  void for_each_dependent(int i, Fn&& fn) const {
    if (wave_of(i) + 1 < waves()) fn(i + 1);
  }
  const Activity& transfer(int i, Activity& a) const {
    const int wv = wave_of(i), r = chain_of(i) ^ prefix_[wv], p = r ^ w_.dist[wv];
    const int c = w_.domain[r] == w_.domain[p] ? 1 : 0;
    a.kind = Activity::Kind::Transfer;
    a.gpu = w_.gpus[r];
    a.dst_gpu = w_.gpus[p];
    a.amount = w_.amount[c][wv];
    a.delay = w_.delay[c][wv];
    a.rate_limit = 0;
    a.flow_hash = w_.hash_base + static_cast<std::uint64_t>(wv) * n_ + static_cast<std::uint64_t>(r) + 1;
    a.spread = false;
    a.spread_phase = 0;
    return a;
  }

 private:
  const RegularWaves& w_;
  int n_;
  std::vector<int> prefix_;  ///< per wave w: dist[0] ^ ... ^ dist[w - 1], chain c's rank is c ^ prefix_[w]
  // i / W and i % W by multiplication (Lemire, Kaser and Kurz 2019, "Faster remainder by direct
  // computation", exact for 32-bit i): a hardware division per event was ~2 % of the run.
  std::uint32_t W_ = 0;      ///< waves
  std::uint64_t magic_ = 0;  ///< 2^64 / W rounded up (W >= 2)
  int chain_of(int i) const {
    if (W_ < 2) return i;  // one wave (none: no activities); magic_ would be 2^64
    return static_cast<int>((static_cast<unsigned __int128>(magic_) * static_cast<std::uint32_t>(i)) >> 64);
  }
  int wave_of(int i) const {
    if (W_ < 2) return 0;
    const std::uint64_t low = magic_ * static_cast<std::uint32_t>(i);
    return static_cast<int>((static_cast<unsigned __int128>(low) * W_) >> 64);
  }
};

template <class Src>
WavesFluidBound run_waves(const topology::Fabric& fab, const Src& src, int spray_subflows) {
  const int n = src.size();
  WavesFluidBound out;
  if (n == 0) return out;
  out.wave_finish.assign(src.waves(), 0.0);
  Activity scratch;
  // An activity's counters and routes in one cache line: a completion reads and writes them for
  // the activity and its dependents, ~1M activities in random order (one miss each; the compact
  // waves compute their one dependent, the schedule keeps its CSR), and the dependent that
  // becomes ready reads its routes from the same line.
  constexpr int kInlineRoute = 10;
  struct alignas(64) Act {
    int pending;     ///< unfinished dependencies
    int open;        ///< sub-flows still sending (until it starts: all of them)
    int sub_begin;   ///< its sub-flow slots: act_subs[sub_begin, sub_begin + open) until it starts
    int wave_local;  ///< 2 x its wave + 1 when its GPU sends to itself (takes no time)
    double lat;      ///< s, its longest route's latency
    /// Its routes' record (below) when it fits (rec[0] = m > 0), else rec[0] = 0 and the record's
    /// offset in route_dirs in rec[1, 3).
    int rec[kInlineRoute];
  };
  static_assert(sizeof(Act) == 64);
  HugeVector<Act> act(n);
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  const int L = fab.link_count();
  constexpr double never = std::numeric_limits<double>::infinity();  // keep of a sub-flow not evaluated yet
  HugeVector<OnDir> on_dir(2 * static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) on_dir[2 * l].cap = on_dir[2 * l + 1].cap = fab.sharing_rate(l);
  std::vector<std::vector<More>> overflow;
  auto more_of = [&](const OnDir& on) -> std::vector<More>& { return overflow[on.more]; };
  auto size_of = [&](const OnDir& on) -> std::size_t {
    return on.n < kInline || on.more < 0 ? on.n : kInline + overflow[on.more].size();
  };
  auto add = [&](OnDir& on, int f) {
    if (on.n < kInline) {
      on.id[on.n] = f;
      on.rate[on.n] = 0;
      on.bind[on.n] = true;
      on.keep[on.n++] = never;
      return;
    }
    if (on.more < 0) {
      on.more = static_cast<int>(overflow.size());
      overflow.emplace_back();
    }
    more_of(on).push_back({f, 0.0, never, true});
  };
  auto set = [&](OnDir& on, int f, double r) {
    for (int i = 0; i < on.n; ++i)
      if (on.id[i] == f) {
        on.rate[i] = r;
        return;
      }
    if (on.more >= 0)
      for (More& m : more_of(on))
        if (m.id == f) m.rate = r;
  };
  // Removal puts the last entry in the place of the removed one (the order of the entries is the
  // order their neighbours are queued in: deterministic).
  auto remove = [&](OnDir& on, int f) {
    for (int i = 0; i < on.n; ++i)
      if (on.id[i] == f) {
        if (on.more >= 0 && !more_of(on).empty()) {
          const More m = more_of(on).back();
          more_of(on).pop_back();
          on.id[i] = m.id;
          on.rate[i] = m.rate;
          on.keep[i] = m.keep;
          on.bind[i] = m.bind;
        } else {
          --on.n;
          on.id[i] = on.id[on.n];
          on.rate[i] = on.rate[on.n];
          on.keep[i] = on.keep[on.n];
          on.bind[i] = on.bind[on.n];
        }
        return;
      }
    auto& more = more_of(on);
    *std::find_if(more.begin(), more.end(), [f](const More& m) { return m.id == f; }) = more.back();
    more.pop_back();
  };
  HugeVector<Sub> subs;           // slots
  std::vector<int> sub_activity;  // activity of each slot
  std::vector<double> computed;   // rate of each slot as last computed (before the 1e-9 test)
  std::vector<int> free_slots;    // slots of completed sub-flows, reused last-in first
  std::vector<int> long_dirs;     // link directions of routes longer than kInlineHops
  std::vector<int> act_subs;      // sub-flow slots of the activities, by activity
  EventHeap events;
  long long seq = 0;
  auto dirs_of = [&](const Sub& sf) -> const int* {
    return sf.hops <= kInlineHops ? sf.dir : long_dirs.data() + sf.dir[0];
  };
  // The link directions of a route are known before any is read: fetching them together turns
  // one memory latency per hop into about one per route.
  auto prefetch_dirs = [&](const int* dirs, int hops) {
    for (int k = 0; k < hops; ++k) {
      const char* p = reinterpret_cast<const char*>(&on_dir[dirs[k]]);
      __builtin_prefetch(p);
      __builtin_prefetch(p + 64);
    }
  };

  // Routes and latency of activity i (FlowNetwork::run's sub-flows); schedules its start. Link
  // rates and latencies are read from compact copies (a Link is a large struct: one cache miss
  // per hop of each of the ~1M routes); the latency is summed in Fabric::latency's order.
  std::vector<double> link_rate(L), link_latency(L);
  for (int l = 0; l < L; ++l) {
    link_rate[l] = fab.sharing_rate(l);
    link_latency[l] = fab.link(l).latency;
  }
  // Every transfer's routes, fetched up front in one pass (the route look-ups keep the fabric's
  // next-hop lists in cache: ~0.2 s for the 983,040 routes of a 32K-GPU halving / doubling, ~1 s
  // when interleaved with the event loop's misses). An activity's record: the divisor m of its
  // bytes, its sub-flow count, then per sub-flow its hop count and link directions (2 link + 0
  // forward / 1 back), in Act::rec when it fits (one sub-flow of up to 7 hops), else in
  // route_dirs; its longest route's latency in act[i].lat, summed in Fabric::latency's order.
  std::vector<int> route_dirs;
  for (int i = 0; i < n; ++i) {
    const Activity& a = src.transfer(i, scratch);
    act[i] = Act{src.pending(i), 0, 0, 2 * src.level(i) + (a.gpu == a.dst_gpu ? 1 : 0), 0.0, {}};
    if (a.gpu == a.dst_gpu) continue;  // takes no time (FlowNetwork::run)
    const std::size_t head = route_dirs.size();
    route_dirs.push_back(1);  // m, set by the first route (none: a record of no sub-flows)
    route_dirs.push_back(0);
    double lat = 0;
    detail::subflow_routes(
        fab, a, spray, fpp, spray_subflows, 0, -1, /*once=*/true, [&](int, int m, std::vector<topology::Hop>&& h) {
          double route_lat = 0;
          for (const topology::Hop& hop : h) route_lat += link_latency[hop.link];
          lat = std::max(lat, route_lat);
          route_dirs[head] = m;
          ++route_dirs[head + 1];
          route_dirs.push_back(static_cast<int>(h.size()));
          for (const topology::Hop& hop : h) {
            const double r = link_rate[hop.link];
            if (!(r > 0))
              throw SimulationError("network: link " + fab.link(hop.link).name + " has rate " + std::to_string(r));
            route_dirs.push_back(2 * hop.link + (hop.forward ? 0 : 1));
          }
        });
    act[i].lat = lat;
    const std::size_t size = route_dirs.size() - head;
    if (size <= static_cast<std::size_t>(kInlineRoute)) {
      std::copy(route_dirs.begin() + head, route_dirs.end(), act[i].rec);
      route_dirs.resize(head);
    } else {
      const long long at = static_cast<long long>(head);
      std::memcpy(&act[i].rec[1], &at, sizeof at);
    }
  }
  auto become_ready = [&](int i, double t) {
    const Activity& a = src.transfer(i, scratch);
    if (a.gpu == a.dst_gpu) {  // takes no time (FlowNetwork::run)
      events.push({t, seq++, 0, i});
      return;
    }
    act[i].sub_begin = static_cast<int>(act_subs.size());
    const int* p = act[i].rec;
    if (p[0] == 0) {
      long long at;
      std::memcpy(&at, &act[i].rec[1], sizeof at);
      p = route_dirs.data() + at;
    }
    const int m = p[0], count = p[1];
    p += 2;
    for (int j = 0; j < count; ++j) {
      const int hops = *p++;
      const int* dirs = p;
      p += hops;
      const double amount = a.amount / m;
      double cap = a.rate_limit > 0 ? a.rate_limit / m : 0;
      for (int k = 0; k < hops; ++k) {
        const double r = link_rate[dirs[k] / 2];
        cap = cap > 0 ? std::min(cap, r) : r;
      }
      if (!(amount > 0)) continue;
      int f;
      if (!free_slots.empty()) {
        f = free_slots.back();
        free_slots.pop_back();
      } else {
        f = static_cast<int>(subs.size());
        subs.emplace_back();
        events.add_slot();
        computed.push_back(0);
        sub_activity.push_back(0);
      }
      Sub& sub = subs[f];
      sub = Sub{};
      sub.remaining = amount;
      sub.cap = cap;
      sub.hops = hops;
      if (sub.hops <= kInlineHops) {
        std::copy(dirs, dirs + hops, sub.dir);
      } else {
        sub.dir[0] = static_cast<int>(long_dirs.size());
        long_dirs.insert(long_dirs.end(), dirs, dirs + hops);
      }
      sub_activity[f] = i;
      act_subs.push_back(f);
    }
    act[i].open = static_cast<int>(act_subs.size()) - act[i].sub_begin;
    events.push({t + act[i].lat + a.delay, seq++, 0, i});
  };
  auto finish = [&](int i, double t) {
    out.makespan = std::max(out.makespan, t);
    const int wave = act[i].wave_local / 2;
    out.wave_finish[wave] = std::max(out.wave_finish[wave], t);
    src.for_each_dependent(i, [&](int j) {
      if (--act[j].pending == 0) become_ready(j, t);
    });
  };
  // Max-min share of sub-flow g on link direction d given the others' present rates: the water
  // level w with sum over the others of min(rate, w) + w = the link's rate. Also stores g's `keep`
  // on d: the computed level subtracts the others' rates below it, smallest first, up to the
  // largest x below it; a neighbour whose rate moves between two values both >= keep = max(w,
  // the next double above x) leaves that computation, and so the level, bit for bit the same (the
  // same rates subtracted in the same order, the next one still >= w).
  std::vector<double> others;
  auto keep_of = [](double w, double x) {
    return w > x ? w : std::nextafter(x, std::numeric_limits<double>::infinity());
  };
  auto level_on = [&](int g, int d, bool** bind) {
    OnDir& on = on_dir[d];
    const double c = on.cap;
    const std::size_t size = size_of(on);
    constexpr double none = -std::numeric_limits<double>::infinity();
    if (size == 1) {  // g alone
      on.keep[0] = c;
      *bind = &on.bind[0];
      return c;
    }
    if (size == 2) {  // g and one other at rate r: c - r if r < c / 2
      const int i = on.id[0] == g ? 0 : 1;
      const double r = on.rate[1 - i];
      const double w = r < c / 2 ? c - r : c / 2;
      on.keep[i] = keep_of(w, r < c / 2 ? r : none);
      *bind = &on.bind[i];
      return w;
    }
    others.clear();
    int self = -1;
    for (int i = 0; i < on.n; ++i)
      if (on.id[i] != g)
        others.push_back(on.rate[i]);
      else
        self = i;
    if (on.more >= 0)
      for (const More& m : more_of(on))
        if (m.id != g) others.push_back(m.rate);
    // Few (92 % of the levels are on directions of at most 3 sub-flows): insertion sort, the same
    // order as std::sort's (equal rates are the same double).
    if (others.size() <= 16) {
      for (std::size_t i = 1; i < others.size(); ++i) {
        const double v = others[i];
        std::size_t j = i;
        for (; j > 0 && v < others[j - 1]; --j) others[j] = others[j - 1];
        others[j] = v;
      }
    } else {
      std::sort(others.begin(), others.end());
    }
    double rem = c;
    double m = static_cast<double>(others.size()) + 1;
    double below = none;
    for (double r : others) {
      if (r >= rem / m) break;
      rem -= r;
      m -= 1;
      below = r;
    }
    const double keep = keep_of(rem / m, below);
    if (self >= 0) {
      on.keep[self] = keep;
      *bind = &on.bind[self];
    } else {
      for (More& e : more_of(on))
        if (e.id == g) {
          e.keep = keep;
          *bind = &e.bind;
        }
    }
    return rem / m;
  };
  // Sub-flows on the link directions of `f` take their max-min rates again at t: each one's rate
  // the smallest water level on its route given its neighbours' rates, neighbours of a changed
  // rate re-evaluated in turn until no rate moves (the distributed max-min fixpoint iteration;
  // Bertsekas & Gallager, Data Networks, 2nd ed., sec. 6.5.2). A queued sub-flow is re-evaluated
  // only if some change since its last evaluation can move its rate (its `keep` on that link,
  // above, and `consider` below): the others would compute the same rate again and do nothing, so
  // skipping them, in their places in the queue, leaves every rate, event and their order as they
  // were (32K-GPU halving / doubling: 19.0 M -> 4.8 M evaluations, 4.2 M of them change a rate).
  // queued: 0 not queued, 1 queued with nothing that can move it, 2 queued to be evaluated.
  std::vector<int> work;  // FIFO: work[head, size), emptied when all taken
  std::size_t head = 0;
  std::vector<char> queued;
  // A sub-flow to be evaluated is fetched when queued: it is read some evaluations later.
  auto enqueue = [&](int g, bool needed) {
    if (!queued[g]) {
      queued[g] = needed ? 2 : 1;
      work.push_back(g);
      if (needed) __builtin_prefetch(&subs[g]);
    } else if (needed && queued[g] != 2) {
      queued[g] = 2;
      __builtin_prefetch(&subs[g]);
    }
  };
  // Sub-flow h on link direction d, whose level there a change may have moved (`maybe`): if d did
  // not bind h at its last computation (its level there above h's rate as computed then), its
  // level on d alone is computed again (d's entries are in cache): still >= that rate, h's rate
  // would come out the same, so it is queued as unchanged (its keep and bind on d updated).
  auto consider = [&](int h, int d, bool maybe, bool bound) {
    if (!maybe || bound || queued[h] == 2) {
      enqueue(h, maybe);
      return;
    }
    bool* bind = nullptr;
    const double w = level_on(h, d, &bind);
    *bind = w <= computed[h];
    enqueue(h, w < computed[h]);
  };
  // f started or stopped sending: every sub-flow on its links (f itself when starting).
  auto push_neighbours = [&](int f) {
    const Sub& sf = subs[f];
    const int* dirs = dirs_of(sf);
    prefetch_dirs(dirs, sf.hops);
    for (int k = 0; k < sf.hops; ++k) {
      const OnDir& on = on_dir[dirs[k]];
      for (int i = 0; i < on.n; ++i) consider(on.id[i], dirs[k], true, on.bind[i]);
      if (on.n == kInline && on.more >= 0)
        for (const More& m : more_of(on)) consider(m.id, dirs[k], true, m.bind);
    }
  };
  // f's rate moved from `was` to `now`: its neighbours whose level that can move.
  auto push_changed = [&](int f, double was, double now) {
    const Sub& sf = subs[f];
    const int* dirs = dirs_of(sf);
    prefetch_dirs(dirs, sf.hops);
    const double low = std::min(was, now);
    for (int k = 0; k < sf.hops; ++k) {
      const OnDir& on = on_dir[dirs[k]];
      for (int i = 0; i < on.n; ++i) consider(on.id[i], dirs[k], on.id[i] != f && !(low >= on.keep[i]), on.bind[i]);
      if (on.n == kInline && on.more >= 0)
        for (const More& m : more_of(on)) consider(m.id, dirs[k], m.id != f && !(low >= m.keep), m.bind);
    }
  };
  std::vector<double> levels;
  std::vector<bool*> binds;
  auto reshare = [&](double t) {
    while (head < work.size()) {
      const int g = work[head++];
      const bool needed = queued[g] == 2;
      queued[g] = 0;
      if (!needed) continue;  // nothing since its last evaluation can move its rate
      Sub& sg = subs[g];
      if (sg.sent) continue;  // completed at this instant after it was queued
      ++out.evaluations;
      const int* dirs = dirs_of(sg);
      prefetch_dirs(dirs, sg.hops);
      // The next one to be evaluated (its sub-flow fetched when queued): its link directions and
      // pending completion, fetched while this one is evaluated.
      for (std::size_t k = head, end = std::min(work.size(), head + 8); k < end; ++k)
        if (queued[work[k]] == 2) {
          const Sub& next = subs[work[k]];
          prefetch_dirs(dirs_of(next), next.hops);
          events.prefetch(work[k]);
          break;
        }
      if (levels.size() < static_cast<std::size_t>(sg.hops)) {
        levels.resize(sg.hops);
        binds.resize(sg.hops);
      }
      double r = sg.cap;
      for (int k = 0; k < sg.hops; ++k) {
        levels[k] = level_on(g, dirs[k], &binds[k]);
        r = std::min(r, levels[k]);
      }
      for (int k = 0; k < sg.hops; ++k) *binds[k] = levels[k] <= r;
      computed[g] = r;
      if (std::abs(r - sg.rate) <= 1e-9 * r && sg.rated) continue;
      const double was = sg.rate;
      sg.remaining = std::max(0.0, sg.remaining - sg.rate * (t - sg.last));
      sg.last = t;
      sg.rate = r;
      sg.rated = true;
      for (int k = 0; k < sg.hops; ++k) set(on_dir[dirs[k]], g, r);
      events.complete_at(g, t + sg.remaining / r, seq++);
      push_changed(g, was, r);
    }
    work.clear();
    head = 0;
  };

  for (int i = 0; i < n; ++i)
    if (act[i].pending == 0) become_ready(i, 0.0);
  std::vector<int> done_now;
  while (!events.empty()) {
    // Every start and completion at this instant first, then one re-sharing of what they touch.
    const double t = events.top().time;
    done_now.clear();
    if (queued.size() < subs.size()) queued.resize(subs.size(), 0);
    while (!events.empty() && events.top().time == t) {
      const Event e = events.top();
      events.pop();
      // The next event's state, fetched while this one is handled (events rarely share an instant:
      // 1.88 M instants for 1.97 M events at 32K GPUs, so this one's re-sharing hides the fetch):
      // a completion's sub-flow, its activity and that one's dependents (read when it finishes).
      if (!events.empty()) {
        const Event& next = events.top();
        if (next.kind == 0) {
          __builtin_prefetch(&act[next.id]);
        } else {
          __builtin_prefetch(&subs[next.id]);
          const int i = sub_activity[next.id];
          __builtin_prefetch(&act[i]);
          src.for_each_dependent(i, [&](int j) { __builtin_prefetch(&act[j]); });
        }
      }
      ++out.events;
      if (e.kind == 0) {
        const int i = e.id;
        const int b = act[i].sub_begin, end = b + act[i].open;
        if ((act[i].wave_local & 1) || b == end) {
          finish(i, t);  // no bytes: done when it could start sending
          if (queued.size() < subs.size()) queued.resize(subs.size(), 0);
          continue;
        }
        // Its link directions fetched together before the entries are added (one miss, not one per hop).
        for (int k = b; k < end; ++k) {
          const Sub& sf = subs[act_subs[k]];
          prefetch_dirs(dirs_of(sf), sf.hops);
        }
        for (int k = b; k < end; ++k) {
          Sub& sf = subs[act_subs[k]];
          sf.last = t;
          const int* dirs = dirs_of(sf);
          for (int h = 0; h < sf.hops; ++h) add(on_dir[dirs[h]], act_subs[k]);
        }
        for (int k = b; k < end; ++k) push_neighbours(act_subs[k]);
      } else {
        const int f = e.id;
        Sub& sf = subs[f];
        sf.remaining = 0;
        sf.rate = 0;
        sf.sent = true;
        const int* dirs = dirs_of(sf);
        prefetch_dirs(dirs, sf.hops);
        for (int k = 0; k < sf.hops; ++k) remove(on_dir[dirs[k]], f);
        push_neighbours(f);
        done_now.push_back(f);
        // Its activity and that one's dependents, read after the re-sharing (the prefetch one event
        // ahead, above, misses when the re-sharing moves another completion first).
        const int i = sub_activity[f];
        __builtin_prefetch(&act[i]);
        src.for_each_dependent(i, [&](int j) { __builtin_prefetch(&act[j]); });
      }
    }
    reshare(t);
    // The dependents of the activities that finish now, fetched together rather than one by one.
    for (int f : done_now) {
      const int i = sub_activity[f];
      if (act[i].open == 1) src.for_each_dependent(i, [&](int j) { __builtin_prefetch(&act[j]); });
    }
    for (int f : done_now) {
      const int i = sub_activity[f];
      free_slots.push_back(f);
      if (--act[i].open == 0) finish(i, t);
    }
  }
  return out;
}

}  // namespace

WavesFluidBound fluid_bound_waves(const topology::Fabric& fab, const Schedule& s, int spray_subflows) {
  return run_waves(fab, ScheduleWaves(fab, s), spray_subflows);
}

WavesFluidBound fluid_bound_waves(const topology::Fabric& fab, const RegularWaves& w, int spray_subflows) {
  return run_waves(fab, CompactWaves(fab, w), spray_subflows);
}

}  // namespace aidcsim::network
