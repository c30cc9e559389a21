// Periodic fast-forward of repeated activities whose steps do not line up (repetition.cpp's
// templates need a wave's flows to start and end at one instant; a rail-aligned ring mixes NVLink
// and NIC hops, so its steps never do).
//
// When only repeated activities are in progress (nothing else sending, computing or waiting for
// its latency), the run's future depends on their state alone: per live activity (begun, not
// finished) its repetitions done and begun, its sub-flows' remaining bytes, the time left of its
// latency phase. A ring settles after a few steps into a periodic regime: every step period P
// the same state recurs with each activity k repetitions further on. The loop snapshots that
// state whenever one fixed live activity (the anchor) begins a repetition; when a snapshot
// matches one of the last few (same live activities, same phases; counts advanced by k_a,
// equal for activities linked by repetition dependencies), the state at now + m P is the state
// at now with counts advanced by m k_a, as long as no activity reaches its last repetition (which
// would change what follows). The loop jumps there: counts advance, every pending completion and
// timer moves by m P, and the simulation continues from the same phase. With the link timeline
// on, a jump ends before the next bin boundary: the skipped periods' bytes all belong to the
// current bin (credited at the jump), and the boundary events stay where they are.
// Matching tolerance (kPeriodicTolerance): remaining bytes within 1e-9 of the flow's bytes, timers
// within 1e-9 of P; the skipped periods are then the simulated one up to rounding (tests:
// tests/unit/network/test_repetition.cpp, fast-forwarded vs unrolled).
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

/// Relative tolerance of a state match (bytes per flow's bytes, timers per period).
constexpr double kPeriodicTolerance = 1e-9;
/// Snapshots kept for matching: periods of up to this many anchor repetitions are found.
constexpr std::size_t kPeriodicSnapshots = 4;

bool live(const RunCtx& c, int a) { return c.rep_begun[a] > 0 && c.rep_done[a] < c.s->activities[a].repeat; }

/// The state at now, or false when it cannot be a periodic state (items or activities other
/// than repeated transfers in progress).
bool snapshot(const RunCtx& c, RunCtx::Snapshot& out) {
  out.t = c.now;
  out.acts.clear();
  out.done.clear();
  out.begun.clear();
  out.left.clear();
  out.timer.clear();
  out.rem.clear();
  std::size_t sending = 0;
  for (int a : c.rep_acts) {
    if (!live(c, a)) continue;
    if (c.s->activities[a].kind != Activity::Kind::Transfer) return false;
    out.acts.push_back(a);
    out.done.push_back(c.rep_done[a]);
    out.begun.push_back(c.rep_begun[a]);
    out.left.push_back(c.left[a]);
    out.timer.push_back(c.start_at[a] >= 0 ? c.start_at[a] - c.now : -1.0);
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
      const int s = c.flows[f].slot;
      if (s >= 0) ++sending;
      out.rem.push_back(s >= 0 ? remains_now(c, c.slots[s]) : -1.0);
    }
  }
  return !out.acts.empty() && sending == c.slots.size() - c.free_slots.size();
}

/// Whether b (now) repeats a with whole repetitions k per activity; sets k.
bool repeats(const RunCtx& c, const RunCtx::Snapshot& a, const RunCtx::Snapshot& b, std::vector<int>& k) {
  if (a.acts != b.acts || a.left != b.left) return false;
  const double period = b.t - a.t;
  if (!(period > 0)) return false;
  const std::size_t n = a.acts.size();
  k.assign(c.s->activities.size(), -1);
  for (std::size_t i = 0; i < n; ++i) {
    const int d = b.done[i] - a.done[i];
    if (d < 0 || b.begun[i] - a.begun[i] != d) return false;
    if ((a.timer[i] < 0) != (b.timer[i] < 0)) return false;
    if (a.timer[i] >= 0 && std::abs(a.timer[i] - b.timer[i]) > kPeriodicTolerance * period) return false;
    k[a.acts[i]] = d;
  }
  // Repetition dependencies compare counts: linked live activities advance together; one waiting
  // for an activity that is not live (not begun) must not advance.
  for (int x : a.acts) {
    const Activity& act = c.s->activities[x];
    for (const auto* list : {&act.after_previous, &act.after_same})
      for (int q : *list) {
        if (k[q] >= 0 ? k[q] != k[x] : (c.rep_done[q] < c.s->activities[q].repeat && k[x] != 0)) return false;
      }
  }
  std::size_t j = 0;
  for (int x : a.acts)
    for (int f = c.first_flow[x]; f < c.first_flow[x + 1]; ++f, ++j) {
      if ((a.rem[j] < 0) != (b.rem[j] < 0)) return false;
      if (a.rem[j] >= 0 && std::abs(a.rem[j] - b.rem[j]) > kPeriodicTolerance * c.flows[f].bytes) return false;
    }
  return true;
}

/// Skips m periods of length `period` from now (the state is a periodic one, counts k). Bin
/// boundaries of the link timeline stay where they are (the jump ends before the next one).
void jump(RunCtx& c, const RunCtx::Snapshot& now_state, const std::vector<int>& k, int m, double period) {
  const double J = m * period;
  for (int a : now_state.acts) {
    const int d = m * k[a];
    c.rep_done[a] += d;
    c.rep_begun[a] += d;
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) c.flows[f].done_bytes += d * c.flows[f].bytes;
    if (c.start_at[a] >= 0) c.start_at[a] += J;
    if (c.wave[a] >= 0) c.waves[c.wave[a]].dirty = true;  // its times no longer describe one repetition
    c.periodic_reps += d;
  }
  for (Slot& s : c.slots)
    if (s.used) {
      s.last += J;
      s.due += J;  // as its due entry's time below (NaN stays NaN)
    }
  std::vector<Due> due;
  due.reserve(c.due.size());
  for (; !c.due.empty(); c.due.pop()) due.push_back(c.due.top());
  for (Due& d : due) d.t += J;
  c.due = decltype(c.due)(std::greater<Due>(), std::move(due));
  std::vector<Timed> timed;
  timed.reserve(c.timed.size());
  for (; !c.timed.empty(); c.timed.pop()) timed.push_back(c.timed.top());
  for (Timed& e : timed)
    if (e.kind != Timed::Bin) e.t += J;
  c.timed.assign(std::move(timed));
  c.now += J;
  c.anchor_began = c.now;
  ++c.periodic_jumps;
  // The skipped periods lie in the timeline's current bin: their bytes (and those sent since the
  // last credit) go there, as the simulated periods' completions would have put them.
  if (c.tl)
    for (int a : now_state.acts)
      for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) tl_progress(c, f);
}

/// Whole periods of length `period` that fit before the timeline's next bin boundary (all of
/// them without a timeline).
long long periods_before_boundary(const RunCtx& c, double period) {
  if (!c.tl) return std::numeric_limits<long long>::max();
  const double room = c.tl->next - c.now;
  if (!(room > 0)) return 0;
  auto m = static_cast<long long>(std::min(std::floor(room / period), 1e18));
  while (m > 0 && c.now + static_cast<double>(m) * period >= c.tl->next) --m;  // strictly before it
  return m;
}

}  // namespace

void periodic_check(RunCtx& c) {
  if (!c.any_repeat || c.events_mode || c.single_busy != 0 || c.active_groups != 0) return;
  if (c.anchor < 0 || !live(c, c.anchor)) {
    c.anchor = -1;
    c.snaps.clear();
    for (int a : c.rep_acts)
      if (live(c, a)) {
        c.anchor = a;
        break;
      }
    return;  // the next repetition the anchor begins is the first snapshot
  }
  if (c.anchor_began != c.now) return;
  RunCtx::Snapshot cur;
  if (!snapshot(c, cur)) {
    c.snaps.clear();
    return;
  }
  std::vector<int> k;
  for (std::size_t i = c.snaps.size(); i-- > 0;) {
    const RunCtx::Snapshot& old = c.snaps[i];
    if (!repeats(c, old, cur, k)) continue;
    // Whole periods such that no activity begins its last repetition: what follows a last
    // repetition differs from the simulated period.
    // (An activity that has begun its last repetition allows none: m = 0.)
    long long m = std::numeric_limits<long long>::max();
    for (std::size_t j = 0; j < cur.acts.size(); ++j) {
      const int a = cur.acts[j], ka = k[a];
      if (ka == 0) continue;
      const long long left = c.s->activities[a].repeat - 1 - cur.begun[j];
      m = std::min(m, left < 0 ? 0 : left / ka);
    }
    if (m == std::numeric_limits<long long>::max()) break;  // nothing advances
    const double period = cur.t - old.t;
    const long long whole = m;
    m = std::min(m, periods_before_boundary(c, period));
    // A jump the timeline cuts short (or prevents): from here a run without a timeline, as the
    // link-down runs that continue from a prefix are, jumps otherwise. Nothing more is captured.
    if (c.cap && m != whole) c.cap = nullptr;
    if (m >= 1) {
      jump(c, cur, k, static_cast<int>(m), period);
      // The state now is `cur` advanced by m periods: the next period's snapshot can match it.
      cur.t = c.now;
      for (std::size_t j = 0; j < cur.acts.size(); ++j) {
        cur.done[j] += static_cast<int>(m) * k[cur.acts[j]];
        cur.begun[j] += static_cast<int>(m) * k[cur.acts[j]];
      }
      c.snaps.clear();
      c.snaps.push_back(std::move(cur));
      return;
    }
    break;
  }
  if (c.snaps.size() == kPeriodicSnapshots) c.snaps.erase(c.snaps.begin());
  c.snaps.push_back(std::move(cur));
}

}  // namespace aidcsim::network::detail
