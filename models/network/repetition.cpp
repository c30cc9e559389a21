// Repetitions (Activity::repeat) in the run loop, and their exact fast-forward.
//
// A repeated activity runs R times; repetition r waits for its own repetition r - 1, for
// repetition r - 1 of its `after_previous` activities and repetition r of its `after_same`
// ones. Every repetition is simulated like any activity, except when a group of them repeats an
// exact template:
// - the repetitions begun at one instant form a *wave* per group of activities linked by these
//   dependencies; a wave is a template when its flows all started at one instant, were solved
//   once (constant rates), all finished at one instant, and shared no resource with any other
//   item meanwhile (tracked per solver resource);
// - when the same group begins its next repetitions at the instant its template wave finished,
//   with the group closed under the repetition dependencies and its resources free, the state
//   at this instant equals the state at the template's begin: with nothing else on its resources
//   the group evolves with the template's period P until something else touches them. The
//   remaining K repetitions are then skipped: the group ends at now + K P (a timed event);
// - if another item is added on one of the group's resources before that, the group is
//   *materialised* first: its repetitions done by now are counted, and its current one is made
//   real again (latency phase, or flows with the bytes the template's rates leave at this
//   phase); from there the simulation goes on as usual.
// Between materialisations the skipped repetitions are exactly the template's (the solver would
// compute the same shares from the same state); only the sums of times differ in rounding.
// Failures during a run (events) disable the fast-forward. Steps that never start and end
// together (rings mixing NVLink and NIC hops) are skipped as whole periods instead (periodic.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

void push_ready(RunCtx& c, int a) {
  if (c.queued[a]) return;
  c.queued[a] = 1;
  c.ready.push_back(a);
}

/// Solver resources of transfer a's flows (those with bytes).
void flow_resources(RunCtx& c, int a, std::vector<int>& out) {
  for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
    int n = 0;
    const int* r = route_resources(c, f, n);
    out.insert(out.end(), r, r + n);
  }
}

int& res_slot(std::vector<int>& v, int r, int fill) {
  if (static_cast<std::size_t>(r) >= v.size()) v.resize(static_cast<std::size_t>(r) + 1, fill);
  return v[r];
}

/// A new wave (index returned). When the table has grown to twice what was alive at the last
/// compaction, waves nothing refers to any more (no activity's current repetition, no item, no
/// resource with items) are dropped and the others renumbered in their order: a ring simulated
/// step by step begins a wave per step and position (4 M waves, 170 MB at 512 GPUs otherwise).
int new_wave(RunCtx& c, const RunCtx::Wave& wave) {
  if (c.waves.size() >= c.waves_compact_at) {
    std::vector<int> map(c.waves.size(), -1);
    auto mark = [&map](int w) {
      if (w >= 0) map[w] = 0;
    };
    for (int w : c.wave) mark(w);
    for (const Slot& x : c.slots)
      if (x.used) mark(x.wave);
    for (std::size_t r = 0; r < c.res_wave.size(); ++r)
      if (r < c.res_count.size() && c.res_count[r] > 0) mark(c.res_wave[r]);
    int live = 0;
    for (std::size_t w = 0; w < map.size(); ++w)
      if (map[w] == 0) {
        map[w] = live;
        c.waves[live++] = c.waves[w];
      }
    c.waves.resize(live);
    auto remap = [&map](int& w) {
      if (w >= 0) w = map[w];
    };
    for (int& w : c.wave) remap(w);
    for (Slot& x : c.slots)
      if (x.used) remap(x.wave);
    for (std::size_t r = 0; r < c.res_wave.size(); ++r) {
      if (r < c.res_count.size() && c.res_count[r] > 0)
        remap(c.res_wave[r]);
      else
        c.res_wave[r] = -1;  // overwritten by the next item on it (on_item_added)
    }
    c.waves_compact_at = std::max<std::size_t>(4096, 2 * static_cast<std::size_t>(live));
  }
  c.waves.push_back(wave);
  return static_cast<int>(c.waves.size()) - 1;
}

void mark_dirty(RunCtx& c, int w) {
  if (w >= 0) c.waves[w].dirty = true;
}

/// Whether the group G (activities beginning their next repetition now) can skip its remaining
/// repetitions; sets the template's period and latency.
bool repeats_template(RunCtx& c, const std::vector<int>& G, std::vector<char>& in_g, double& period, double& latency,
                      std::vector<int>& res) {
  const Activity& a0 = c.s->activities[G[0]];
  const int w = c.wave[G[0]];
  if (w < 0 || c.rep_done[G[0]] < 1) return false;
  const RunCtx::Wave& t = c.waves[w];
  if (t.dirty || t.members != static_cast<int>(G.size()) || t.finished != t.members || t.done != c.now || t.start < 0)
    return false;
  for (int a : G) {
    const Activity& x = c.s->activities[a];
    if (c.wave[a] != w || x.repeat != a0.repeat || c.rep_done[a] != c.rep_done[G[0]]) return false;
    for (int q : x.after_previous)
      if (!in_g[q]) return false;
    for (int q : x.after_same)
      if (!in_g[q]) return false;
    for (int k = c.rsucc_off[a]; k < c.rsucc_off[a + 1]; ++k)
      if (!in_g[c.rsucc[k]]) return false;
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f)
      if (!(c.flows[f].bytes > 0) || !(c.flows[f].last_rate > 0)) return false;
  }
  res.clear();
  for (int a : G) flow_resources(c, a, res);
  for (int r : res)
    if (res_slot(c.res_count, r, 0) != 0 || res_slot(c.res_group, r, -1) >= 0) return false;
  period = c.now - t.begin;
  latency = t.start - t.begin;
  return period > 0;
}

void fast_forward(RunCtx& c, const std::vector<int>& G, std::vector<int>& res, double period, double latency) {
  const int g = static_cast<int>(c.groups.size());
  RunCtx::Group grp;
  grp.members = G;
  std::sort(res.begin(), res.end());
  res.erase(std::unique(res.begin(), res.end()), res.end());
  grp.resources = res;
  grp.t0 = c.now;
  grp.period = period;
  grp.latency = latency;
  grp.r0 = c.rep_done[G[0]];
  grp.reps = c.s->activities[G[0]].repeat - grp.r0;
  grp.active = true;
  ++c.active_groups;
  for (int r : grp.resources) c.res_group[r] = g;
  for (int a : G) {
    c.rep_begun[a] = c.s->activities[a].repeat;
    c.wave[a] = -1;
  }
  c.skipped_reps += static_cast<long long>(grp.reps) * static_cast<long long>(G.size());
  c.push_timed(c.now + grp.reps * period, Timed::GroupEnd, g);
  c.groups.push_back(std::move(grp));
}

/// Group g's state at now becomes real: repetitions done, then the current one's latency phase or
/// flows with what they have left.
void materialise(RunCtx& c, int g) {
  RunCtx::Group& grp = c.groups[g];
  grp.active = false;
  --c.active_groups;
  for (int r : grp.resources) c.res_group[r] = -1;
  const double e = std::max(0.0, c.now - grp.t0);
  int k = static_cast<int>(std::floor(e / grp.period));
  k = std::clamp(k, 0, grp.reps - 1);
  const double phase = std::max(0.0, e - k * grp.period);
  const int w = new_wave(c, {grp.t0 + k * grp.period, -1, -1, static_cast<int>(grp.members.size()), 0, true});
  c.skipped_reps -= static_cast<long long>(grp.reps - k) * static_cast<long long>(grp.members.size());
  for (int a : grp.members) {
    c.rep_done[a] = grp.r0 + k;
    c.rep_begun[a] = grp.r0 + k + 1;
    c.wave[a] = w;
    int n = 0;
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
      c.flows[f].done_bytes += k * c.flows[f].bytes;
      ++n;
    }
    c.left[a] = n;
  }
  for (int a : grp.members) {
    if (phase < grp.latency) {
      c.start_at[a] = grp.t0 + k * grp.period + grp.latency;
      c.push_timed(c.start_at[a], Timed::Start, a);
      continue;
    }
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
      const SubFlow& sf = c.flows[f];
      const double rem = std::max(sf.bytes - sf.last_rate * (phase - grp.latency), 1e-12 * sf.bytes);
      start_flow(c, f, rem);
    }
  }
}

}  // namespace

void rep_init(RunCtx& c) {
  const int n = static_cast<int>(c.s->activities.size());
  c.rep_done.assign(n, 0);
  c.rep_begun.assign(n, 0);
  c.wave.assign(n, -1);
  c.queued.assign(n, 0);
  c.start_at.assign(n, -1.0);
  // The successors by repetition, from rdep (index_schedule counted rsucc_off).
  for (int i = 0; i < n; ++i) c.rsucc_off[i + 1] += c.rsucc_off[i];
  c.rsucc.resize(c.rsucc_off[n]);
  std::vector<int> fill(c.rsucc_off.begin(), c.rsucc_off.end() - 1);
  for (int b = 0; b < n; ++b)  // after_previous, then after_same, as they are listed
    for (int k = c.rdep_off[b]; k < c.rdep_off[b + 1]; ++k) {
      const int q = c.rdep[k] >= 0 ? c.rdep[k] : ~c.rdep[k];
      c.rsucc[fill[q]++] = b;
    }
}

bool rep_ready(const RunCtx& c, int a) {
  const int r = c.rep_done[a];
  if (c.pending[a] != 0 || c.rep_begun[a] != r || r >= c.repeat[a]) return false;
  for (int k = c.rdep_off[a]; k < c.rdep_off[a + 1]; ++k) {
    const int q = c.rdep[k];
    if (q >= 0 ? c.rep_done[q] < r : c.rep_done[~q] < r + 1) return false;
  }
  return true;
}

void rep_finished(RunCtx& c, int a) {
  if (const int w = c.wave[a]; w >= 0) ++c.waves[w].finished;
  const int R = c.repeat[a];
  if (R == 1) --c.single_busy;
  if (++c.rep_done[a] == R) {
    c.finish[a] = c.now;
    for (int k = c.succ_off[a]; k < c.succ_off[a + 1]; ++k) {
      const int s = c.succ[k];
      if (--c.pending[s] == 0 && rep_ready(c, s)) push_ready(c, s);
    }
  } else if (rep_ready(c, a)) {
    push_ready(c, a);
  }
  for (int k = c.rsucc_off[a]; k < c.rsucc_off[a + 1]; ++k)
    if (rep_ready(c, c.rsucc[k])) push_ready(c, c.rsucc[k]);
}

void begin_batch(RunCtx& c, std::vector<int>& batch, void (*begin_one)(RunCtx&, int)) {
  for (int a : batch) {
    c.queued[a] = 0;
    // Hint (no effect on results): begin_one reads the activity's amount and delay, its gpu, repeat
    // and kind (both ends of the 144-byte record) and a transfer's sub-flows (latency and bytes).
    const char* p = reinterpret_cast<const char*>(&c.s->activities[a]);
    prefetch(p);
    prefetch(p + offsetof(Activity, kind));
    const int f = c.first_flow[a];
    if (f < c.first_flow[a + 1]) {
      const char* q = reinterpret_cast<const char*>(&c.flows[f]);
      prefetch(q);
      prefetch(q + sizeof(SubFlow) - 1);
    }
  }
  if (!c.any_repeat || c.events_mode) {
    for (int a : batch) begin_one(c, a);
    return;
  }
  // Repeated transfers are grouped by their repetition dependencies (union-find over the batch).
  std::vector<int> cand;
  for (int a : batch) {
    const Activity& x = c.s->activities[a];
    if (x.repeat > 1 && x.kind == Activity::Kind::Transfer && c.first_flow[a + 1] > c.first_flow[a])
      cand.push_back(a);
    else
      begin_one(c, a);
  }
  if (cand.empty()) return;
  std::sort(cand.begin(), cand.end());
  const int m = static_cast<int>(cand.size());
  std::vector<int> parent(m);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto pos = [&](int a) {
    const auto it = std::lower_bound(cand.begin(), cand.end(), a);
    return it != cand.end() && *it == a ? static_cast<int>(it - cand.begin()) : -1;
  };
  for (int i = 0; i < m; ++i) {
    const Activity& x = c.s->activities[cand[i]];
    auto join = [&](int q) {
      if (const int j = pos(q); j >= 0) parent[find(i)] = find(j);
    };
    for (int q : x.after_previous) join(q);
    for (int q : x.after_same) join(q);
    for (int k = c.rsucc_off[cand[i]]; k < c.rsucc_off[cand[i] + 1]; ++k) join(c.rsucc[k]);
  }
  // Groups in the order of their roots, members in activity order (cand is sorted): a counting
  // sort by root, without a vector per candidate.
  std::vector<int> start(m + 1, 0), members(m);
  for (int i = 0; i < m; ++i) ++start[find(i) + 1];
  for (int i = 0; i < m; ++i) start[i + 1] += start[i];
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int i = 0; i < m; ++i) members[fill[find(i)]++] = cand[i];
  }
  // Membership flags, all 0 between calls: a per-batch array of every activity made each batch
  // cost O(activities) (quadratic in a ring's steps).
  std::vector<char>& in_g = c.in_group;
  if (in_g.size() != c.s->activities.size()) in_g.assign(c.s->activities.size(), 0);
  std::vector<int> res, G;
  for (int root = 0; root < m; ++root) {
    if (start[root] == start[root + 1]) continue;
    G.assign(members.begin() + start[root], members.begin() + start[root + 1]);
    for (int a : G) in_g[a] = 1;
    double period = 0, latency = 0;
    if (repeats_template(c, G, in_g, period, latency, res)) {
      fast_forward(c, G, res, period, latency);
    } else {
      const int w = new_wave(c, {c.now, -1, -1, static_cast<int>(G.size()), 0, false});
      for (int a : G) c.wave[a] = w;
      for (int a : G) begin_one(c, a);
    }
    for (int a : G) in_g[a] = 0;
  }
}

void before_add(RunCtx& c, const int* res, int n) {
  if (c.groups.empty()) return;
  for (int k = 0; k < n; ++k)
    if (static_cast<std::size_t>(res[k]) < c.res_group.size() && c.res_group[res[k]] >= 0)
      materialise(c, c.res_group[res[k]]);
}

void on_item_added(RunCtx& c, int slot, const int* res, int n) {
  if (!c.any_repeat) return;
  const int w = c.slots[slot].wave;
  for (int k = 0; k < n; ++k) {
    int& cnt = res_slot(c.res_count, res[k], 0);
    int& rw = res_slot(c.res_wave, res[k], -1);
    if (cnt == 0) {
      rw = w;
    } else if (rw != w || w < 0) {
      mark_dirty(c, rw);
      mark_dirty(c, w);
    }
    ++cnt;
  }
  if (w >= 0) {
    RunCtx::Wave& t = c.waves[w];
    if (t.start < 0)
      t.start = c.now;
    else if (t.start != c.now)
      t.dirty = true;
  }
}

void on_item_removed(RunCtx& c, int slot) {
  if (!c.any_repeat) return;
  const Slot& x = c.slots[slot];
  if (x.flow >= 0) {
    int n = 0;
    const int* r = route_resources(c, x.flow, n);
    for (int k = 0; k < n; ++k) --c.res_count[r[k]];
  } else {
    --c.res_count[c.gpu_res[c.s->activities[x.activity].gpu]];
  }
  if (x.wave >= 0) {
    RunCtx::Wave& t = c.waves[x.wave];
    if (t.done < 0)
      t.done = c.now;
    else if (t.done != c.now)
      t.dirty = true;
  }
}

void group_end(RunCtx& c, int g) {
  RunCtx::Group& grp = c.groups[g];
  if (!grp.active) return;  // materialised meanwhile
  grp.active = false;
  --c.active_groups;
  for (int r : grp.resources) c.res_group[r] = -1;
  for (int a : grp.members) {
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
      c.flows[f].done_bytes += grp.reps * c.flows[f].bytes;
      if (c.tl) tl_done(c, f);
    }
    c.rep_done[a] = grp.r0 + grp.reps - 1;
    c.rep_begun[a] = grp.r0 + grp.reps;
  }
  for (int a : grp.members) rep_finished(c, a);
}

double group_flow_sent(const RunCtx& c, int g, int f) {
  const RunCtx::Group& grp = c.groups[g];
  const SubFlow& sf = c.flows[f];
  const double e = std::max(0.0, c.now - grp.t0);
  const int k = std::clamp(static_cast<int>(std::floor(e / grp.period)), 0, grp.reps);
  const double partial =
      k == grp.reps ? 0.0 : std::clamp(sf.last_rate * (e - k * grp.period - grp.latency), 0.0, sf.bytes);
  return sf.done_bytes + k * sf.bytes + partial;
}

}  // namespace aidcsim::network::detail
